//===- Strategy.cpp - How each root op is lowered on the CPU --------------===//

#include "onnxc/Codegen/CPU/Strategy.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/bit.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::onnxc;

ContractionConfig mlir::onnxc::chooseContractionConfig(const CPUTarget &t) {
  int64_t lanes = std::max<int64_t>(1, t.f32Lanes());
  ContractionConfig c;
  c.nr = 2 * lanes;
  int64_t accumulators = int64_t(t.vectorRegisters) * 3 / 4;
  c.mr = std::max<int64_t>(1, accumulators / 2);
  uint64_t panelRow = uint64_t(c.nr) * 4;
  c.kc = std::clamp<int64_t>(
      int64_t(llvm::bit_floor(std::max<uint64_t>(1, t.l1Bytes / panelRow))),
      16, 1024);
  c.mc = 4 * c.mr;
  c.nc = 8 * c.nr;
  c.dynamicM = 4 * lanes;
  c.dynamicN = c.nr;
  c.vl = 4 * lanes;
  return c;
}

DictionaryAttr ContractionConfig::toAttr(MLIRContext *context) const {
  Builder b(context);
  return b.getDictionaryAttr({
      b.getNamedAttr("cache_tiles", b.getDenseI64ArrayAttr({mc, nc, kc})),
      b.getNamedAttr("register_tile", b.getDenseI64ArrayAttr({mr, nr})),
      b.getNamedAttr("dynamic_blocks",
                     b.getDenseI64ArrayAttr({dynamicM, dynamicN})),
      b.getNamedAttr("vector_length", b.getI64IntegerAttr(vl)),
  });
}

std::optional<ContractionConfig>
ContractionConfig::fromAttr(DictionaryAttr attr) {
  auto array = [&](StringRef name, int64_t size) -> ArrayRef<int64_t> {
    auto a = attr.getAs<DenseI64ArrayAttr>(name);
    if (!a || a.size() != size ||
        llvm::any_of(a.asArrayRef(), [](int64_t v) { return v <= 0; }))
      return {};
    return a.asArrayRef();
  };
  ArrayRef<int64_t> cache = array("cache_tiles", 3);
  ArrayRef<int64_t> reg = array("register_tile", 2);
  ArrayRef<int64_t> dyn = array("dynamic_blocks", 2);
  auto vl = attr.getAs<IntegerAttr>("vector_length");
  if (cache.empty() || reg.empty() || dyn.empty() || !vl || vl.getInt() <= 0)
    return std::nullopt;
  ContractionConfig c;
  c.mc = cache[0];
  c.nc = cache[1];
  c.kc = cache[2];
  c.mr = reg[0];
  c.nr = reg[1];
  c.dynamicM = dyn[0];
  c.dynamicN = dyn[1];
  c.vl = vl.getInt();
  return c;
}

std::optional<ContractionConfig>
mlir::onnxc::getContractionConfig(Operation *op) {
  if (auto attr = op->getAttrOfType<DictionaryAttr>(kLoweringConfigAttrName))
    return ContractionConfig::fromAttr(attr);
  return std::nullopt;
}

ContractionConfig mlir::onnxc::getOrChooseContractionConfig(Operation *op) {
  if (std::optional<ContractionConfig> c = getContractionConfig(op))
    return *c;
  return chooseContractionConfig(CPUTarget::of(op));
}

void mlir::onnxc::setLoweringConfig(Operation *op,
                                    const ContractionConfig &config) {
  op->setAttr(kLoweringConfigAttrName, config.toAttr(op->getContext()));
}
