//===- Target.cpp - The machine a model is compiled for -------------------===//

#include "onnxc/Codegen/Common/Target.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mlir::onnxc;

CPUTarget CPUTarget::reference() {
  CPUTarget t;
  t.triple = "x86_64-unknown-linux-gnu";
  t.cpu = "x86-64-v4";
  t.features = "+avx512f,+fma";
  return t;
}

CPUTarget CPUTarget::fromFeatures(StringRef triple, StringRef cpu,
                                  StringRef features) {
  CPUTarget t = reference();
  t.triple = triple.str();
  t.cpu = cpu.str();
  t.features = features.str();
  llvm::StringSet<> on;
  SmallVector<StringRef> list;
  features.split(list, ',', -1, /*KeepEmpty=*/false);
  for (StringRef f : list)
    if (f.consume_front("+"))
      on.insert(f);
  llvm::Triple tt(triple);
  t.hasAVX512 = t.hasFMA = t.hasVNNI = t.hasBF16 = false;
  if (tt.isX86()) {
    t.hasAVX512 = on.contains("avx512f");
    t.hasFMA = on.contains("fma");
    t.hasVNNI = on.contains("avx512vnni") || on.contains("avxvnni");
    t.hasBF16 = on.contains("avx512bf16");
    t.vectorBits = t.hasAVX512 ? 512 : on.contains("avx") ? 256 : 128;
    // x86-64 has 16 vector registers; AVX-512 doubles them (in 64-bit mode).
    t.vectorRegisters = t.hasAVX512 && tt.isArch64Bit() ? 32 : 16;
  } else if (tt.isAArch64()) {
    // NEON: 32 registers of 128 bits, fused multiply-add.
    t.vectorBits = 128;
    t.vectorRegisters = 32;
    t.hasFMA = true;
  } else {
    t.vectorBits = 128;
    t.vectorRegisters = 16;
  }
  return t;
}

DictionaryAttr CPUTarget::toAttr(MLIRContext *context) const {
  Builder b(context);
  auto i64 = [&](uint64_t v) { return b.getI64IntegerAttr(int64_t(v)); };
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("triple", b.getStringAttr(triple)),
      b.getNamedAttr("cpu", b.getStringAttr(cpu)),
      b.getNamedAttr("features", b.getStringAttr(features)),
      b.getNamedAttr("vector_bits", i64(vectorBits)),
      b.getNamedAttr("vector_registers", i64(vectorRegisters)),
      b.getNamedAttr("fma", b.getBoolAttr(hasFMA)),
      b.getNamedAttr("avx512", b.getBoolAttr(hasAVX512)),
      b.getNamedAttr("vnni", b.getBoolAttr(hasVNNI)),
      b.getNamedAttr("bf16", b.getBoolAttr(hasBF16)),
      b.getNamedAttr("l1_bytes", i64(l1Bytes)),
      b.getNamedAttr("l2_bytes", i64(l2Bytes)),
      b.getNamedAttr("l3_bytes", i64(l3Bytes)),
      b.getNamedAttr("cache_line_bytes", i64(cacheLineBytes)),
      b.getNamedAttr("threads", i64(threads)),
  };
  return b.getDictionaryAttr(fields);
}

FailureOr<CPUTarget> CPUTarget::fromAttr(DictionaryAttr attr) {
  CPUTarget t = reference();
  bool ok = true;
  auto str = [&](StringRef name, std::string &field) {
    if (Attribute a = attr.get(name)) {
      auto s = dyn_cast<StringAttr>(a);
      ok &= bool(s);
      if (s)
        field = s.str();
    }
  };
  auto flag = [&](StringRef name, bool &field) {
    if (Attribute a = attr.get(name)) {
      auto v = dyn_cast<BoolAttr>(a);
      ok &= bool(v);
      if (v)
        field = v.getValue();
    }
  };
  auto num = [&](StringRef name, auto &field) {
    if (Attribute a = attr.get(name)) {
      auto v = dyn_cast<IntegerAttr>(a);
      ok &= v && v.getInt() >= 0;
      if (v && v.getInt() >= 0)
        field = v.getInt();
    }
  };
  str("triple", t.triple);
  str("cpu", t.cpu);
  str("features", t.features);
  num("vector_bits", t.vectorBits);
  num("vector_registers", t.vectorRegisters);
  flag("fma", t.hasFMA);
  flag("avx512", t.hasAVX512);
  flag("vnni", t.hasVNNI);
  flag("bf16", t.hasBF16);
  num("l1_bytes", t.l1Bytes);
  num("l2_bytes", t.l2Bytes);
  num("l3_bytes", t.l3Bytes);
  num("cache_line_bytes", t.cacheLineBytes);
  num("threads", t.threads);
  // The code generators divide by these.
  ok &= t.vectorBits >= 32 && t.vectorBits % 32 == 0 &&
        t.vectorRegisters >= 8 && t.cacheLineBytes > 0 && t.l1Bytes > 0;
  if (!ok)
    return failure();
  return t;
}

CPUTarget CPUTarget::of(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto attr = op->getAttrOfType<DictionaryAttr>(kTargetAttrName))
      if (FailureOr<CPUTarget> t = fromAttr(attr); succeeded(t))
        return *t;
  return reference();
}
