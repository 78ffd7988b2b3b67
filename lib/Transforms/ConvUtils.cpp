//===- ConvUtils.cpp - Helpers of the conv rewrites -----------------------===//

#include "ConvUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlir::onnxc::conv {

Value dropBatch(OpBuilder &b, Location loc, Value v, bool mergeLast) {
  SmallVector<ReassociationIndices> groups =
      mergeLast ? SmallVector<ReassociationIndices>{{0, 1}, {2, 3}}
                : SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}};
  return tensor::CollapseShapeOp::create(b, loc, v, groups);
}

Value zeroPadHigh(OpBuilder &b, Location loc, Value v,
                  ArrayRef<int64_t> high) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> lows, highs;
  for (auto [i, h] : llvm::enumerate(high)) {
    shape[i] += h;
    lows.push_back(b.getIndexAttr(0));
    highs.push_back(b.getIndexAttr(h));
  }
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, lows,
      highs, zero);
}

Value copyToNew(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType());
  return linalg::CopyOp::create(b, loc, v, empty).getResult(0);
}

bool isStaticF32(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return false;
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
      return false;
  }
  return true;
}

bool isStaticF32Batch1(linalg::LinalgOp conv) {
  return isStaticF32(conv) &&
         cast<RankedTensorType>(conv->getOperand(0).getType()).getDimSize(0) ==
             1;
}

SmallVector<int64_t> attrValues(DenseIntElementsAttr a) {
  SmallVector<int64_t> v;
  for (const APInt &i : a.getValues<APInt>())
    v.push_back(i.getSExtValue());
  return v;
}

} // namespace mlir::onnxc::conv
