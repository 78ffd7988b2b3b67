//===- PackMatmulWeights.cpp - Weights of matmuls in column panels --------===//
//
// C (M x N) += A (M x K) x B (K x N) with B a weight: B is repacked once
// (onnxc-hoist-constants runs the repacking at the first run) into panels
// of `nr` columns, Bp (N/nr x K x nr), and the matmul becomes a loop over
// the panels, each a matmul A x Bp[p] (M x K x nr) into C's nr columns.
// onnxc-tile-and-vectorize tiles those as usual: a panel stays in cache
// for every row block of A, and each register tile reads its nr columns of
// B as one contiguous row per k instead of a row of a large, often
// power-of-two-strided, matrix.
// N is padded to whole panels (zero columns of B, computed and dropped).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "ConvUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_PACKMATMULWEIGHTS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc::conv;

namespace {

/// Rows per block of a dynamic M (onnxc-tile-and-vectorize's cache tile).
constexpr int64_t kRowBlock = 64;

/// `init` (M x N) as `rows` x np (rows = M + extraRows): a fill is rebuilt
/// at the padded shape; other inits get zero rows and columns.
Value padInit(OpBuilder &b, Location loc, Value init, OpFoldResult rows,
              OpFoldResult extraRows, int64_t np) {
  auto type = cast<RankedTensorType>(init.getType());
  int64_t n = type.getDimSize(1);
  if (np == n && isConstantIntValue(extraRows, 0))
    return init;
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Value empty = tensor::EmptyOp::create(
        b, loc, SmallVector<OpFoldResult>{rows, b.getIndexAttr(np)},
        type.getElementType());
    return linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
        .getResult(0);
  }
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  SmallVector<OpFoldResult> low(2, b.getIndexAttr(0));
  return tensor::PadOp::create(b, loc, RankedTensorType(), init, low,
                               {extraRows, b.getIndexAttr(np - n)}, zero);
}

LogicalResult packMatmulWeight(RewriterBase &rewriter, linalg::MatmulOp mm,
                               int64_t nr) {
  if (!mm.hasPureTensorSemantics() ||
      (mm.hasUserDefinedMaps() &&
       mm.getIndexingMapsArray() != mm.getDefaultIndexingMaps(mm.getContext())))
    return failure();
  Value a = mm.getInputs()[0], b = mm.getInputs()[1],
        init = mm.getOutputs()[0];
  auto aType = cast<RankedTensorType>(a.getType());
  auto bType = cast<RankedTensorType>(b.getType());
  auto cType = cast<RankedTensorType>(init.getType());
  for (RankedTensorType t : {aType, bType, cType})
    if (!t.getElementType().isF32())
      return failure();
  // B static; M may be dynamic (walked in blocks of kRowBlock rows).
  if (!bType.hasStaticShape() || ShapedType::isDynamic(aType.getDimSize(1)) ||
      !derivesFromConstants(b))
    return failure();
  int64_t k = bType.getDimSize(0), n = bType.getDimSize(1);
  if (n < nr)
    return failure();
  int64_t panels = llvm::divideCeil(n, nr), np = panels * nr;
  Location loc = mm.getLoc();
  rewriter.setInsertionPoint(mm);

  // Bp = transpose(expand(pad(B), K x panels x nr), [1, 0, 2]).
  Value padded = np == n ? b : zeroPadHigh(rewriter, loc, b, {0, np - n});
  Value expanded = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({k, panels, nr}, rewriter.getF32Type()),
      padded, SmallVector<ReassociationIndices>{{0}, {1, 2}});
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, ArrayRef<int64_t>{panels, k, nr}, rewriter.getF32Type());
  Value packed = linalg::TransposeOp::create(rewriter, loc, expanded, empty,
                                             ArrayRef<int64_t>{1, 0, 2})
                     .getResult()[0];

  // A loop over the panels, each a matmul A x Bp[p] into C's columns
  // [p*nr, (p+1)*nr), over `a` (rows x K) into `c` (rows x np); with
  // `rowBlocks`, the rows in static blocks of kRowBlock (rows a multiple of
  // it).
  auto idx = [&](int64_t v) -> OpFoldResult { return rewriter.getIndexAttr(v); };
  auto panelLoop = [&](Value a, Value c, OpFoldResult rows,
                       bool rowBlocks) -> Value {
    // The matmul of rows [r, r + size) of A by the panel into C's columns.
    auto emitMatmul = [&](OpBuilder &b, Location l, Value acc, OpFoldResult r,
                          OpFoldResult size, Value col, Value bp) -> Value {
      Value as = rowBlocks ? tensor::ExtractSliceOp::create(
                                 b, l, a, ArrayRef<OpFoldResult>{r, idx(0)},
                                 ArrayRef<OpFoldResult>{size, idx(k)},
                                 ArrayRef<OpFoldResult>{idx(1), idx(1)})
                           : a;
      SmallVector<OpFoldResult> offsets{r, col}, sizes{size, idx(nr)},
          strides{idx(1), idx(1)};
      Value cs = tensor::ExtractSliceOp::create(b, l, acc, offsets, sizes,
                                                strides);
      Value product =
          linalg::MatmulOp::create(b, l, TypeRange{cs.getType()},
                                   ValueRange{as, bp}, ValueRange{cs})
              .getResult(0);
      return tensor::InsertSliceOp::create(b, l, product, acc, offsets, sizes,
                                           strides)
          .getResult();
    };
    auto loop = scf::ForOp::create(
        rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
        arith::ConstantIndexOp::create(rewriter, loc, np),
        arith::ConstantIndexOp::create(rewriter, loc, nr), ValueRange{c},
        [&](OpBuilder &b, Location l, Value col, ValueRange args) {
          Value panel = arith::DivUIOp::create(
              b, l, col, arith::ConstantIndexOp::create(b, l, nr));
          Value bp = tensor::ExtractSliceOp::create(
              b, l, RankedTensorType::get({k, nr}, b.getF32Type()), packed,
              ArrayRef<OpFoldResult>{panel, idx(0), idx(0)},
              ArrayRef<OpFoldResult>{idx(1), idx(k), idx(nr)},
              ArrayRef<OpFoldResult>{idx(1), idx(1), idx(1)});
          if (!rowBlocks) {
            scf::YieldOp::create(
                b, l, emitMatmul(b, l, args[0], idx(0), rows, col, bp));
            return;
          }
          auto rowLoop = scf::ForOp::create(
              b, l, arith::ConstantIndexOp::create(b, l, 0),
              getValueOrCreateConstantIndexOp(b, l, rows),
              arith::ConstantIndexOp::create(b, l, kRowBlock),
              ValueRange{args[0]},
              [&](OpBuilder &b, Location l, Value r, ValueRange rArgs) {
                scf::YieldOp::create(b, l,
                                     emitMatmul(b, l, rArgs[0], r,
                                                idx(kRowBlock), col, bp));
              });
          scf::YieldOp::create(b, l, rowLoop.getResult(0));
        });
    // Panels are independent: onnxc-outline-parallel-loops may spread them.
    loop->setAttr(onnxc::kParallelAttrName, rewriter.getUnitAttr());
    return loop.getResult(0);
  };

  // A dynamic M: A and C padded once to whole blocks of kRowBlock rows, so
  // that each panel's matmuls have static shapes (padding inside the panel
  // loop would copy A per panel and keep the loop off the threads). When M
  // is a multiple of the block at run time (a batch of 128-token
  // sequences), the loop reads A and writes C as they are: the padded
  // copies of both (a fifth of a dynamic BERT encoder's time) are skipped.
  OpFoldResult m = tensor::getMixedSize(rewriter, loc, init, 0);
  bool dynamicM = ShapedType::isDynamic(cType.getDimSize(0));
  auto paddedLoop = [&]() -> Value {
    OpFoldResult rows = m, extra = rewriter.getIndexAttr(0);
    Value pa = a;
    if (dynamicM) {
      AffineExpr s0 = rewriter.getAffineSymbolExpr(0);
      rows = affine::makeComposedFoldedAffineApply(
          rewriter, loc, s0.ceilDiv(kRowBlock) * kRowBlock, {m});
      extra = affine::makeComposedFoldedAffineApply(
          rewriter, loc, s0.ceilDiv(kRowBlock) * kRowBlock - s0, {m});
      Value zero = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getF32FloatAttr(0.0f));
      SmallVector<OpFoldResult> low(2, rewriter.getIndexAttr(0));
      pa = tensor::PadOp::create(rewriter, loc, RankedTensorType(), a, low,
                                 {extra, rewriter.getIndexAttr(0)}, zero);
    }
    Value c = padInit(rewriter, loc, init, rows, extra, np);
    Value result = panelLoop(pa, c, rows, dynamicM);
    if (np != n || dynamicM) {
      SmallVector<OpFoldResult> offsets(2, rewriter.getIndexAttr(0)),
          strides(2, rewriter.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes{m, rewriter.getIndexAttr(n)};
      result = tensor::ExtractSliceOp::create(rewriter, loc, cType, result,
                                              offsets, sizes, strides);
    }
    return result;
  };
  Value result;
  if (dynamicM && np == n) {
    Value rows = getValueOrCreateConstantIndexOp(rewriter, loc, m);
    Value whole = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(
            rewriter, loc, rows,
            arith::ConstantIndexOp::create(rewriter, loc, kRowBlock)),
        arith::ConstantIndexOp::create(rewriter, loc, 0));
    auto branch = scf::IfOp::create(
        rewriter, loc, TypeRange{cType}, whole, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&branch.getThenRegion().front());
      scf::YieldOp::create(rewriter, loc,
                           panelLoop(a, init, m, /*rowBlocks=*/true));
      rewriter.setInsertionPointToStart(&branch.getElseRegion().front());
      scf::YieldOp::create(rewriter, loc, paddedLoop());
    }
    result = branch.getResult(0);
  } else {
    result = paddedLoop();
  }
  rewriter.replaceOp(mm, result);
  return success();
}

struct PackMatmulWeightsPass
    : mlir::onnxc::impl::PackMatmulWeightsBase<PackMatmulWeightsPass> {
  using PackMatmulWeightsBase::PackMatmulWeightsBase;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation().walk([&](linalg::MatmulOp mm) { matmuls.push_back(mm); });
    for (linalg::MatmulOp mm : matmuls)
      (void)packMatmulWeight(rewriter, mm, panelWidth);
  }
};

} // namespace
