//===- StrategyTest.cpp - The CPU target and the strategy's choices -------===//

#include "onnxc/Codegen/CPU/Strategy.h"
#include "onnxc/Driver/CodeGen.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

TEST(CPUTarget, FeaturesOfX86) {
  CPUTarget avx512 = CPUTarget::fromFeatures(
      "x86_64-pc-linux-gnu", "skylake-avx512", "+avx,+avx2,+fma,+avx512f");
  EXPECT_TRUE(avx512.hasAVX512);
  EXPECT_EQ(avx512.vectorBits, 512u);
  EXPECT_EQ(avx512.vectorRegisters, 32u);
  EXPECT_FALSE(avx512.hasVNNI);

  CPUTarget avx2 = CPUTarget::fromFeatures("x86_64-pc-linux-gnu", "haswell",
                                           "+avx,+avx2,+fma,-avx512f");
  EXPECT_FALSE(avx2.hasAVX512);
  EXPECT_EQ(avx2.vectorBits, 256u);
  EXPECT_EQ(avx2.vectorRegisters, 16u);

  CPUTarget sse = CPUTarget::fromFeatures("x86_64-pc-linux-gnu", "x86-64", "");
  EXPECT_EQ(sse.vectorBits, 128u);
  EXPECT_FALSE(sse.hasFMA);

  CPUTarget arm = CPUTarget::fromFeatures("aarch64-linux-gnu", "generic", "");
  EXPECT_EQ(arm.vectorBits, 128u);
  EXPECT_EQ(arm.vectorRegisters, 32u);
}

TEST(CPUTarget, AttributeRoundTrip) {
  MLIRContext context;
  CPUTarget t = CPUTarget::fromFeatures("x86_64-pc-linux-gnu", "znver4",
                                        "+avx2,+fma,+avx512f,+avx512vnni");
  t.l2Bytes = 1 << 20;
  t.threads = 4;
  FailureOr<CPUTarget> back = CPUTarget::fromAttr(t.toAttr(&context));
  ASSERT_TRUE(succeeded(back));
  EXPECT_EQ(back->cpu, "znver4");
  EXPECT_TRUE(back->hasVNNI);
  EXPECT_EQ(back->l2Bytes, uint64_t(1) << 20);
  EXPECT_EQ(back->threads, 4u);
  // A field of the wrong type, or sizes the generators divide by, fail.
  Builder b(&context);
  EXPECT_TRUE(failed(CPUTarget::fromAttr(b.getDictionaryAttr(
      {b.getNamedAttr("vector_bits", b.getStringAttr("wide"))}))));
  EXPECT_TRUE(failed(CPUTarget::fromAttr(b.getDictionaryAttr(
      {b.getNamedAttr("vector_registers", b.getI64IntegerAttr(0))}))));
}

TEST(Strategy, ContractionTiles) {
  ContractionConfig ref = chooseContractionConfig(CPUTarget::reference());
  EXPECT_EQ(ref.mr, 12);
  EXPECT_EQ(ref.nr, 32);
  EXPECT_EQ(ref.mc, 48);
  EXPECT_EQ(ref.nc, 256);
  EXPECT_EQ(ref.kc, 256);
  EXPECT_EQ(ref.dynamicM, 64);
  EXPECT_EQ(ref.dynamicN, 32);
  EXPECT_EQ(ref.vl, 64);

  ContractionConfig avx2 = chooseContractionConfig(CPUTarget::fromFeatures(
      "x86_64-pc-linux-gnu", "haswell", "+avx,+avx2,+fma"));
  EXPECT_EQ(avx2.mr, 6);
  EXPECT_EQ(avx2.nr, 16);
  EXPECT_EQ(avx2.kc, 512); // a 512 x 16 panel of B fills 32 KiB
  EXPECT_EQ(avx2.vl, 32);

  // A larger L1 gives longer panels, in powers of two.
  CPUTarget big = CPUTarget::reference();
  big.l1Bytes = 48 * 1024;
  EXPECT_EQ(chooseContractionConfig(big).kc, 256);
  big.l1Bytes = 64 * 1024;
  EXPECT_EQ(chooseContractionConfig(big).kc, 512);
}

TEST(Strategy, ConfigAttributeRoundTrip) {
  MLIRContext context;
  ContractionConfig c = chooseContractionConfig(CPUTarget::reference());
  std::optional<ContractionConfig> back =
      ContractionConfig::fromAttr(c.toAttr(&context));
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(*back == c);
  Builder b(&context);
  EXPECT_FALSE(ContractionConfig::fromAttr(b.getDictionaryAttr(
                   {b.getNamedAttr("vector_length", b.getI64IntegerAttr(8))}))
                   .has_value());
}

TEST(CPUTarget, HostResolvesThroughLLVM) {
  // The host: whatever it is, a resolved CPU name and a sane vector width.
  CodeGenOptions options;
  CPUTarget host = getCPUTarget(options);
  EXPECT_FALSE(host.cpu.empty());
  EXPECT_GE(host.vectorBits, 128u);
  // A named CPU's implied features, without --mattr.
  options.cpu = "haswell";
  CPUTarget haswell = getCPUTarget(options);
  EXPECT_EQ(haswell.vectorBits, 256u);
  EXPECT_FALSE(haswell.hasAVX512);
  EXPECT_TRUE(haswell.hasFMA);
  options.cpu = "skylake-avx512";
  EXPECT_TRUE(getCPUTarget(options).hasAVX512);
  options.features = "-avx512f";
  EXPECT_FALSE(getCPUTarget(options).hasAVX512);
}

} // namespace
