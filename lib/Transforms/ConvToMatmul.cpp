//===- ConvToMatmul.cpp - 2-D convolutions as sums of matmuls -------------===//
//
// A 2-D NCHW convolution (batch 1, one group) is a sum over the kernel
// positions k = (kh, kw) of matmuls W_k (F x C) x X_k (C x P), where X_k
// holds, for every output position, the input pixel that kernel position
// reads. The output is computed in blocks (64 filters x 256 positions); in
// each block a loop over k runs one linalg.matmul that the cache and
// register tiling of onnxc-tile-and-vectorize then turns into vector code.
//
// - Stride 1: X_k needs no copy. With the padded input flattened to
//   C x (Hp*Wp), output row oh reads input row oh + kh*d from column kw*d
//   on, so X_k is the slice starting at kh*d*Wp + kw*d: the matmuls compute
//   Wp - OW extra columns per output row (dropped at the end), and stop
//   (KW-1)*d positions before the end, where the last row's extra columns
//   would read past the input.
// - Other strides: X_k is copied out of the strided input into slab k of
//   an im2col tensor.
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_CONVTOMATMUL
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

/// Output blocks: positions and filters per block (the accumulator block,
/// 64 x 256 floats, stays in L2 across the kernel positions).
constexpr int64_t kPositionBlock = 256;
constexpr int64_t kFilterBlock = 64;

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

/// The accumulator F x (OH * row) holding the conv's init `init`
/// (1 x F x OH x OW): built directly when the init is a fill or a
/// per-filter broadcast (a bias), else a copy with `row - OW` zero columns
/// after each row.
Value buildAccumulator(OpBuilder &b, Location loc, Value init, int64_t f,
                       int64_t oh, int64_t ow, int64_t row) {
  auto type = RankedTensorType::get({f, oh * row}, b.getF32Type());
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType());
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
        .getResult(0);
  if (auto broadcast = init.getDefiningOp<linalg::BroadcastOp>()) {
    auto inType = dyn_cast<RankedTensorType>(broadcast.getInput().getType());
    if (inType && inType.getRank() == 1 &&
        broadcast.getDimensions() == ArrayRef<int64_t>{0, 2, 3})
      return linalg::BroadcastOp::create(b, loc, broadcast.getInput(), empty,
                                         ArrayRef<int64_t>{1})
          ->getResult(0);
  }
  Value acc = dropBatch(b, loc, init, /*mergeLast=*/false);
  if (row != ow)
    acc = zeroPadHigh(b, loc, acc, {0, 0, row - ow});
  return tensor::CollapseShapeOp::create(
      b, loc, acc, SmallVector<ReassociationIndices>{{0}, {1, 2}});
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

  // Output positions, flattened: OH rows of `row` columns. With stride 1
  // the last (KW-1)*d columns are never needed (they are the extra columns
  // of the last row) and reading them would run past the input: computed
  // positions stop before them.
  int64_t row = unitStride ? wp : ow;
  int64_t positions = oh * row;
  int64_t computed = unitStride ? positions - (kw - 1) * dw : positions;
  int64_t nb = std::min<int64_t>(kPositionBlock, computed);
  int64_t fullBlocks = computed / nb, tail = computed % nb;
  int64_t fb = f % kFilterBlock == 0 ? kFilterBlock : f;

  Value acc = buildAccumulator(rewriter, loc, init, f, oh, ow, row);
  // The filter as KH x KW x F x C, so that each kernel position's F x C
  // matrix is contiguous (a weight: constant folding can do this once).
  Value wt = linalg::TransposeOp::create(
                 rewriter, loc, w,
                 tensor::EmptyOp::create(rewriter, loc,
                                         ArrayRef<int64_t>{kh, kw, f, c}, f32),
                 ArrayRef<int64_t>{2, 3, 0, 1})
                 .getResult()[0];
  auto one = rewriter.getIndexAttr(1);
  auto zero = rewriter.getIndexAttr(0);
  auto idx = [&](int64_t v) { return rewriter.getIndexAttr(v); };

  // What kernel position k reads, as C x positions: stride 1, the
  // flattened input from offset (k / KW)*d*Wp + (k % KW)*d on; other
  // strides, slab k of an im2col tensor KH*KW x C x positions (one strided
  // copy per kernel position).
  Value flat, columns;
  if (unitStride) {
    flat = dropBatch(rewriter, loc, x, /*mergeLast=*/true);
  } else {
    columns = tensor::EmptyOp::create(rewriter, loc,
                                      ArrayRef<int64_t>{kh * kw, c, positions},
                                      f32);
    for (int64_t i = 0; i < kh; ++i) {
      for (int64_t j = 0; j < kw; ++j) {
        Value slice = tensor::ExtractSliceOp::create(
            rewriter, loc, RankedTensorType::get({c, oh, ow}, f32), x,
            ArrayRef<OpFoldResult>{zero, zero, idx(i * dh), idx(j * dw)},
            ArrayRef<OpFoldResult>{one, idx(c), idx(oh), idx(ow)},
            ArrayRef<OpFoldResult>{one, one, idx(strides[0]),
                                   idx(strides[1])});
        Value slab = tensor::CollapseShapeOp::create(
            rewriter, loc, copyToNew(rewriter, loc, slice),
            SmallVector<ReassociationIndices>{{0}, {1, 2}});
        columns = tensor::InsertSliceOp::create(
            rewriter, loc, slab, columns,
            ArrayRef<OpFoldResult>{idx(i * kw + j), zero, zero},
            ArrayRef<OpFoldResult>{one, idx(c), idx(positions)},
            ArrayRef<OpFoldResult>{one, one, one});
      }
    }
  }
  // The filter as (KH*KW) x F x C.
  Value wk3 = tensor::CollapseShapeOp::create(
      rewriter, loc, wt, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});

  // One block of fb filters x `width` positions at (fi, pi): a loop over the
  // kernel positions accumulates into it while it is in cache.
  auto emitBlock = [&](OpBuilder &b, Location l, Value fi, Value pi,
                       int64_t width, Value into) -> Value {
    auto blockType = RankedTensorType::get({fb, width}, f32);
    Value block = tensor::ExtractSliceOp::create(
        b, l, blockType, into, ArrayRef<OpFoldResult>{fi, pi},
        ArrayRef<OpFoldResult>{idx(fb), idx(width)},
        ArrayRef<OpFoldResult>{one, one});
    auto cst = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, l, v).getResult();
    };
    auto kernelLoop = scf::ForOp::create(
        b, l, cst(0), cst(kh * kw), cst(1), ValueRange{block},
        [&](OpBuilder &b, Location l, Value k, ValueRange kArgs) {
          Value wk = tensor::ExtractSliceOp::create(
              b, l, RankedTensorType::get({fb, c}, f32), wk3,
              ArrayRef<OpFoldResult>{k, fi, zero},
              ArrayRef<OpFoldResult>{one, idx(fb), idx(c)},
              ArrayRef<OpFoldResult>{one, one, one});
          Value xk;
          if (unitStride) {
            // pi + (k / KW) * d*Wp + (k % KW) * d
            Value r = arith::DivUIOp::create(b, l, k, cst(kw));
            Value q = arith::RemUIOp::create(b, l, k, cst(kw));
            Value start = arith::AddIOp::create(
                b, l, pi,
                arith::AddIOp::create(
                    b, l, arith::MulIOp::create(b, l, r, cst(dh * wp)),
                    arith::MulIOp::create(b, l, q, cst(dw))));
            xk = tensor::ExtractSliceOp::create(
                b, l, RankedTensorType::get({c, width}, f32), flat,
                ArrayRef<OpFoldResult>{zero, start},
                ArrayRef<OpFoldResult>{idx(c), idx(width)},
                ArrayRef<OpFoldResult>{one, one});
          } else {
            xk = tensor::ExtractSliceOp::create(
                b, l, RankedTensorType::get({c, width}, f32), columns,
                ArrayRef<OpFoldResult>{k, zero, pi},
                ArrayRef<OpFoldResult>{one, idx(c), idx(width)},
                ArrayRef<OpFoldResult>{one, one, one});
          }
          Value updated =
              linalg::MatmulOp::create(b, l, TypeRange{blockType},
                                       ValueRange{wk, xk}, ValueRange{kArgs[0]})
                  .getResult(0);
          scf::YieldOp::create(b, l, updated);
        });
    return tensor::InsertSliceOp::create(
        b, l, kernelLoop.getResult(0), into, ArrayRef<OpFoldResult>{fi, pi},
        ArrayRef<OpFoldResult>{idx(fb), idx(width)},
        ArrayRef<OpFoldResult>{one, one});
  };
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  auto filterLoop = scf::ForOp::create(
      rewriter, loc, c0, arith::ConstantIndexOp::create(rewriter, loc, f),
      arith::ConstantIndexOp::create(rewriter, loc, fb), ValueRange{acc},
      [&](OpBuilder &b, Location l, Value fi, ValueRange fArgs) {
        Value current = fArgs[0];
        if (fullBlocks > 0) {
          auto positionLoop = scf::ForOp::create(
              b, l, arith::ConstantIndexOp::create(b, l, 0),
              arith::ConstantIndexOp::create(b, l, fullBlocks * nb),
              arith::ConstantIndexOp::create(b, l, nb), ValueRange{current},
              [&](OpBuilder &b, Location l, Value pi, ValueRange pArgs) {
                scf::YieldOp::create(b, l,
                                     emitBlock(b, l, fi, pi, nb, pArgs[0]));
              });
          current = positionLoop.getResult(0);
        }
        if (tail > 0)
          current = emitBlock(
              b, l, fi, arith::ConstantIndexOp::create(b, l, fullBlocks * nb),
              tail, current);
        scf::YieldOp::create(b, l, current);
      });
  acc = filterLoop.getResult(0);

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

namespace {
struct ConvToMatmulPass
    : mlir::onnxc::impl::ConvToMatmulBase<ConvToMatmulPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    getOperation().walk(
        [&](linalg::Conv2DNchwFchwOp conv) { convs.push_back(conv); });
    for (linalg::Conv2DNchwFchwOp conv : convs)
      (void)rewriteConv(rewriter, conv); // Other forms stay as they are.
  }
};
} // namespace
