//===- ConvUtils.cpp - Helpers of the conv rewrites -----------------------===//

#include "ConvUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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

ConvStart::ConvStart(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    scalar = fill.getInputs()[0];
    return;
  }
  if (auto broadcast = init.getDefiningOp<linalg::BroadcastOp>()) {
    auto inType = dyn_cast<RankedTensorType>(broadcast.getInput().getType());
    if (inType && inType.getRank() == 1 &&
        broadcast.getDimensions() == ArrayRef<int64_t>{0, 2, 3}) {
      bias = broadcast.getInput();
      return;
    }
  }
  tensor = init;
}

Window windowKind(Operation *op) {
  return isa<linalg::DepthwiseConv2DNchwChwOp>(op) ? Window::Depthwise
         : isa<linalg::PoolingNchwMaxOp>(op)       ? Window::Max
         : isa<linalg::PoolingNchwSumOp>(op)       ? Window::Sum
                                                   : Window::None;
}

Value combineWindow(OpBuilder &b, Location loc, Window kind, Value acc,
                    ValueRange args, int64_t taps) {
  int64_t perTap = kind == Window::Depthwise ? 2 : 1;
  for (int64_t k = 0; k < taps; ++k) {
    Value in = args[perTap * k];
    if (kind == Window::Max)
      acc = arith::MaximumFOp::create(b, loc, acc, in);
    else if (kind == Window::Sum)
      acc = arith::AddFOp::create(b, loc, acc, in);
    else
      acc = arith::AddFOp::create(
          b, loc, acc, arith::MulFOp::create(b, loc, in, args[2 * k + 1]));
  }
  return acc;
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

bool derivesFromConstants(Value v) {
  SmallVector<Value> stack{v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!stack.empty()) {
    Operation *def = stack.pop_back_val().getDefiningOp();
    if (!def || !isMemoryEffectFree(def) || def->getNumRegions() > 1)
      return false;
    if (!seen.insert(def).second)
      continue;
    llvm::append_range(stack, def->getOperands());
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

void replaceConvByRows(RewriterBase &rewriter, Location loc, Operation *conv,
                       Operation *epilogue, Value rows) {
  auto outType = cast<RankedTensorType>(conv->getResult(0).getType());
  auto rowsType = cast<RankedTensorType>(rows.getType());
  int64_t c = outType.getDimSize(1), oh = outType.getDimSize(2),
          ow = outType.getDimSize(3);
  Value result = rows;
  if (rowsType.getDimSize(1) != oh || rowsType.getDimSize(2) != ow) {
    auto zero = rewriter.getIndexAttr(0), one = rewriter.getIndexAttr(1);
    result = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({c, oh, ow}, outType.getElementType()),
        result, ArrayRef<OpFoldResult>{zero, zero, zero},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(c),
                               rewriter.getIndexAttr(oh),
                               rewriter.getIndexAttr(ow)},
        ArrayRef<OpFoldResult>{one, one, one});
  }
  result = tensor::ExpandShapeOp::create(
      rewriter, loc, outType, result,
      SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
  if (epilogue) {
    rewriter.replaceOp(epilogue, result);
    rewriter.eraseOp(conv);
  } else {
    rewriter.replaceOp(conv, result);
  }
}

} // namespace mlir::onnxc::conv
