//===- ConvToMatmul.cpp - 2-D convolutions as sums of matmuls -------------===//
//
// A 2-D NCHW convolution (batch 1, one group) is a sum over the kernel
// positions (kh, kw) of matmuls W[:, :, kh, kw] (F x C) x X_khkw (C x P),
// where X_khkw holds, for every output position, the input pixel that the
// kernel position reads. The matmuls then go through the same cache and
// register tiling as every other contraction (TileAndVectorize.cpp).
//
// - Stride 1: X_khkw needs no copy. With the padded input flattened to
//   C x (Hp*Wp), output row oh reads input row oh + kh*d from column kw*d
//   on, so X_khkw is the slice starting at kh*d*Wp + kw*d of length OH*Wp:
//   the matmuls compute Wp - OW extra columns per output row (discarded),
//   and the flattened input gets (KW-1)*d zeros at its end so that the last
//   slice stays in bounds.
// - Other strides: X_khkw is copied out of the strided slice (the columns
//   of im2col, one kernel position at a time).
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

/// `v` (rank 4, leading dim 1) without its leading dim, its last two dims
/// merged when `mergeLast`.
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

/// An identity linalg.generic copying `v` into a new tensor (a strided
/// slice becomes contiguous).
Value copyToNew(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType());
  return linalg::CopyOp::create(b, loc, v, empty).getResult(0);
}

LogicalResult rewriteConv(RewriterBase &rewriter,
                          linalg::Conv2DNchwFchwOp conv) {
  Value x = conv.getInputs()[0], w = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  auto wType = dyn_cast<RankedTensorType>(w.getType());
  auto outType = dyn_cast<RankedTensorType>(init.getType());
  if (!conv.hasPureTensorSemantics() || !xType || !wType || !outType ||
      !xType.hasStaticShape() || !wType.hasStaticShape() ||
      !outType.hasStaticShape() || !xType.getElementType().isF32() ||
      !wType.getElementType().isF32() || !outType.getElementType().isF32() ||
      xType.getDimSize(0) != 1)
    return failure();
  auto attrValues = [](DenseIntElementsAttr a) {
    SmallVector<int64_t> v;
    for (const APInt &i : a.getValues<APInt>())
      v.push_back(i.getSExtValue());
    return v;
  };
  SmallVector<int64_t> strides = attrValues(conv.getStridesAttr());
  SmallVector<int64_t> dilations = attrValues(conv.getDilationsAttr());
  int64_t c = xType.getDimSize(1), hp = xType.getDimSize(2),
          wp = xType.getDimSize(3);
  int64_t f = wType.getDimSize(0), kh = wType.getDimSize(2),
          kw = wType.getDimSize(3);
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  int64_t dh = dilations[0], dw = dilations[1];
  bool unitStride = strides[0] == 1 && strides[1] == 1;
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Type f32 = rewriter.getF32Type();

  // The accumulator: F x (OH * row), starting from the conv's init.
  int64_t row = unitStride ? wp : ow;
  Value acc = dropBatch(rewriter, loc, init, /*mergeLast=*/false);
  if (row != ow)
    acc = zeroPadHigh(rewriter, loc, acc, {0, 0, row - ow});
  acc = tensor::CollapseShapeOp::create(
      rewriter, loc, acc, SmallVector<ReassociationIndices>{{0}, {1, 2}});

  // The filter as KH x KW x F x C, so that each kernel position's F x C
  // matrix is contiguous (a weight: constant folding can do this once).
  Value wt = linalg::TransposeOp::create(
                 rewriter, loc, w,
                 tensor::EmptyOp::create(rewriter, loc,
                                         ArrayRef<int64_t>{kh, kw, f, c}, f32),
                 ArrayRef<int64_t>{2, 3, 0, 1})
                 .getResult()[0];
  Value flat;
  if (unitStride) {
    flat = dropBatch(rewriter, loc, x, /*mergeLast=*/true);
    if (kw > 1)
      flat = zeroPadHigh(rewriter, loc, flat, {0, (kw - 1) * dw});
  }
  auto one = rewriter.getIndexAttr(1);
  auto zero = rewriter.getIndexAttr(0);
  for (int64_t i = 0; i < kh; ++i) {
    for (int64_t j = 0; j < kw; ++j) {
      // W[:, :, i, j]: F x C.
      Value wk = tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get({f, c}, f32), wt,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(i),
                                 rewriter.getIndexAttr(j), zero, zero},
          ArrayRef<OpFoldResult>{one, one, rewriter.getIndexAttr(f),
                                 rewriter.getIndexAttr(c)},
          ArrayRef<OpFoldResult>{one, one, one, one});
      Value xk;
      if (unitStride) {
        xk = tensor::ExtractSliceOp::create(
            rewriter, loc, RankedTensorType::get({c, oh * wp}, f32), flat,
            ArrayRef<OpFoldResult>{zero,
                                   rewriter.getIndexAttr(i * dh * wp + j * dw)},
            ArrayRef<OpFoldResult>{rewriter.getIndexAttr(c),
                                   rewriter.getIndexAttr(oh * wp)},
            ArrayRef<OpFoldResult>{one, one});
      } else {
        Value slice = tensor::ExtractSliceOp::create(
            rewriter, loc, RankedTensorType::get({c, oh, ow}, f32), x,
            ArrayRef<OpFoldResult>{zero, zero, rewriter.getIndexAttr(i * dh),
                                   rewriter.getIndexAttr(j * dw)},
            ArrayRef<OpFoldResult>{one, rewriter.getIndexAttr(c),
                                   rewriter.getIndexAttr(oh),
                                   rewriter.getIndexAttr(ow)},
            ArrayRef<OpFoldResult>{one, one, rewriter.getIndexAttr(strides[0]),
                                   rewriter.getIndexAttr(strides[1])});
        xk = tensor::CollapseShapeOp::create(
            rewriter, loc, copyToNew(rewriter, loc, slice),
            SmallVector<ReassociationIndices>{{0}, {1, 2}});
      }
      acc = linalg::MatmulOp::create(rewriter, loc, TypeRange{acc.getType()},
                                     ValueRange{wk, xk}, ValueRange{acc})
                .getResult(0);
    }
  }

  // Back to 1 x F x OH x OW.
  Value result = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({f, oh, row}, f32), acc,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
  if (row != ow)
    result = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({f, oh, ow}, f32), result,
        ArrayRef<OpFoldResult>{zero, zero, zero},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(f),
                               rewriter.getIndexAttr(oh),
                               rewriter.getIndexAttr(ow)},
        ArrayRef<OpFoldResult>{one, one, one});
  result = tensor::ExpandShapeOp::create(
      rewriter, loc, outType, result,
      SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
  rewriter.replaceOp(conv, result);
  return success();
}

} // namespace

void mlir::onnxc::decomposeConvolutions(RewriterBase &rewriter,
                                        Operation *root) {
  SmallVector<linalg::Conv2DNchwFchwOp> convs;
  root->walk([&](linalg::Conv2DNchwFchwOp conv) { convs.push_back(conv); });
  for (linalg::Conv2DNchwFchwOp conv : convs)
    (void)rewriteConv(rewriter, conv); // Unsupported forms stay as they are.
}
