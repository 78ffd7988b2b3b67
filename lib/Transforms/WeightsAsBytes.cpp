//===- WeightsAsBytes.cpp - Initialised globals as flat byte arrays -------===//
//
// A memref.global of type memref<512x512x3x3xf32> becomes an LLVM global of
// type [512 x [512 x [3 x [3 x float]]]], and its initial value one LLVM
// constant per innermost row: millions of uniqued constants for a ResNet's
// weights. As memref<Nxi8> it is one ConstantDataArray over the raw bytes.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_WEIGHTSASBYTES
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {
constexpr uint64_t kMinAlignment = 64;

/// The initial value of `global` as bytes of type tensor<Nxi8>, or null
/// where it cannot (or need not) be stored that way.
ElementsAttr asBytes(memref::GlobalOp global) {
  MemRefType type = global.getType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getNumElements() == 0)
    return {};
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return {};
  int64_t bytes = type.getNumElements() * (element.getIntOrFloatBitWidth() / 8);
  auto bytesType = RankedTensorType::get({bytes}, IntegerType::get(
                                                      global.getContext(), 8));
  Attribute init = global.getInitialValue().value_or(Attribute());
  if (auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(init)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || static_cast<int64_t>(blob->getData().size()) != bytes)
      return {};
    return DenseResourceElementsAttr::get(bytesType, resource.getRawHandle());
  }
  auto dense = dyn_cast_or_null<DenseElementsAttr>(init);
  if (!dense || dense.isSplat())
    return {};
  ArrayRef<char> raw = dense.getRawData();
  if (static_cast<int64_t>(raw.size()) != bytes)
    return {};
  return DenseElementsAttr::getFromRawBuffer(bytesType, raw);
}

struct WeightsAsBytesPass
    : mlir::onnxc::impl::WeightsAsBytesBase<WeightsAsBytesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DenseMap<StringAttr, SmallVector<memref::GetGlobalOp>> usesOf;
    module.walk([&](memref::GetGlobalOp use) {
      usesOf[use.getNameAttr().getAttr()].push_back(use);
    });

    for (auto global : llvm::to_vector(module.getOps<memref::GlobalOp>())) {
      ElementsAttr bytes = asBytes(global);
      if (!bytes)
        continue;
      MemRefType type = global.getType();
      auto bytesType = MemRefType::get(bytes.getShapedType().getShape(),
                                       bytes.getElementType());
      uint64_t alignment =
          std::max<uint64_t>(global.getAlignment().value_or(1), kMinAlignment);
      global.setTypeAttr(TypeAttr::get(bytesType));
      global.setInitialValueAttr(bytes);
      global.setAlignmentAttr(OpBuilder(global).getI64IntegerAttr(alignment));
      for (memref::GetGlobalOp use : usesOf.lookup(global.getSymNameAttr())) {
        OpBuilder b(use);
        Location loc = use.getLoc();
        Value flat = memref::GetGlobalOp::create(b, loc, bytesType,
                                                 global.getSymName());
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value view = memref::ViewOp::create(b, loc, type, flat, zero,
                                            ValueRange());
        use.getResult().replaceAllUsesWith(view);
        use.erase();
      }
    }
  }
};
} // namespace
