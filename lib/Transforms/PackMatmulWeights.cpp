//===- PackMatmulWeights.cpp - Weights of matmuls in column panels --------===//
//
// C (M x N) += A (M x K) x B (K x N) with B a weight: B is repacked once
// (onnxc-hoist-constants runs the repacking at the first run) into panels
// of `nr` columns, Bp (N/nr x K x nr), and the matmul becomes contractions
// (linalg.contract) over (k, i, p, j) into C viewed as M x N/nr x nr, the
// reduction dim first: onnxc-tile-and-vectorize's cache tiles, in dim
// order, then walk k chunks, row blocks, panels, so that a row block's
// chunk of A stays in cache while every panel passes and each panel's
// chunk stays in L1 while the block's register tiles pass (BLIS's loop
// order); each register tile reads its nr columns of B as one contiguous
// row per k instead of a row of a large, often power-of-two-strided,
// matrix. 8 or more panels go in an even number of groups of at most 32
// (a group's chunk of B is at most 1 MiB), a loop that is the threads'
// loop. N is padded to whole groups (zero columns of B, computed and
// dropped).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Codegen/CPU/Strategy.h"
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

/// At most this many panels per group: 32 panels of 32 columns over a k
/// chunk of onnxc-tile-and-vectorize's 256 rows are 1 MiB, half an L2.
constexpr int64_t kMaxGroupPanels = 32;
/// From this many panels on, they go in an even number of groups (the
/// threads' loop; a 2-core machine's threads get equal shares).
constexpr int64_t kMinGroupedPanels = 8;

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

/// Packs `mm`'s weight in panels of its lowering configuration's register
/// tile width (nr). The configuration also gives the rows per block of a
/// dynamic M (dynamic_blocks[0], onnxc-tile-and-vectorize's block), the
/// columns of A per chunk when the rows go in blocks (kc), and the rows
/// under which the reduction dim goes last (mc); it is copied onto the
/// contractions made here.
LogicalResult packMatmulWeight(RewriterBase &rewriter, linalg::MatmulOp mm,
                               const onnxc::ContractionConfig &config) {
  const int64_t nr = config.nr, kRowBlock = config.dynamicM,
                kChunk = config.kc, kSmallRows = config.mc;
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
  // Panels in `groups` groups of `groupPanels` (N padded to whole groups).
  int64_t panels = llvm::divideCeil(n, nr), groups = 1;
  if (panels >= kMinGroupedPanels) {
    groups = llvm::divideCeil(panels, kMaxGroupPanels);
    groups += groups % 2;
  }
  int64_t groupPanels = llvm::divideCeil(panels, groups);
  panels = groups * groupPanels;
  int64_t np = panels * nr;
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

  // C (rows x np) += A (rows x K) x Bp as contractions over (k, i, p, j):
  // C viewed as rows x panels x nr, Bp[p] read as K x nr. The reduction dim
  // comes first, so that onnxc-tile-and-vectorize's cache tiles (in dim
  // order) walk k chunks outermost, then row blocks, then the panels: the
  // rows of A a block reads over a k chunk stay in cache while every panel
  // passes, and each panel's chunk (kc x nr) stays in L1 while the block's
  // register tiles pass.
  auto idx = [&](int64_t v) -> OpFoldResult { return rewriter.getIndexAttr(v); };
  auto cst = [](OpBuilder &b, Location l, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, l, v);
  };
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr dk, di, dp, dj;
  // Fewer rows than one cache tile (a classifier's single row): nothing of
  // A to keep in cache across row blocks, and k first would read each
  // panel in pieces of a chunk, far apart; the reduction dim goes last, so
  // that each panel is read as one stream (AlexNet's 9216 x 4096
  // classifier: k first made the network 7% slower).
  if (!ShapedType::isDynamic(cType.getDimSize(0)) &&
      cType.getDimSize(0) < kSmallRows)
    bindDims(ctx, di, dp, dj, dk);
  else
    bindDims(ctx, dk, di, dp, dj);
  ArrayAttr maps = rewriter.getAffineMapArrayAttr(
      {AffineMap::get(4, 0, {di, dk}, ctx), AffineMap::get(4, 0, {dp, dk, dj}, ctx),
       AffineMap::get(4, 0, {di, dp, dj}, ctx)});
  // The contraction of A's rows [r, r + rs) and columns [k0, k0 + ks) by
  // panels [first, first + groupPanels) into `acc` (rows x panels x nr). A
  // linalg.contract (not a generic): the vectoriser reads each operand of
  // its tiles as it is (no broadcast into the iteration space).
  auto block = [&](OpBuilder &b, Location l, Value a, Value acc,
                   OpFoldResult first, OpFoldResult r, OpFoldResult rs,
                   OpFoldResult k0, int64_t ks) -> Value {
    // Slices that are the whole tensor are left out.
    auto whole = [](Value v, ArrayRef<OpFoldResult> offsets,
                    ArrayRef<OpFoldResult> sizes) {
      auto type = cast<RankedTensorType>(v.getType());
      for (auto [o, s, d] : llvm::zip(offsets, sizes, type.getShape()))
        if (!isConstantIntValue(o, 0) || getConstantIntValue(s) != d ||
            ShapedType::isDynamic(d))
          return false;
      return true;
    };
    auto slice = [&](Value v, ArrayRef<OpFoldResult> offsets,
                     ArrayRef<OpFoldResult> sizes) -> Value {
      if (whole(v, offsets, sizes))
        return v;
      SmallVector<OpFoldResult> ones(offsets.size(), idx(1));
      return tensor::ExtractSliceOp::create(b, l, v, offsets, sizes, ones);
    };
    Value as = slice(a, {r, k0}, {rs, idx(ks)});
    Value bp = slice(packed, {first, k0, idx(0)},
                     {idx(groupPanels), idx(ks), idx(nr)});
    SmallVector<OpFoldResult> cOffsets{r, first, idx(0)},
        cSizes{rs, idx(groupPanels), idx(nr)};
    Value cs = slice(acc, cOffsets, cSizes);
    auto contract = linalg::ContractOp::create(
        b, l, TypeRange{cs.getType()}, ValueRange{as, bp}, ValueRange{cs},
        maps);
    onnxc::setLoweringConfig(contract, config);
    Value product = contract.getResult(0);
    if (cs == acc)
      return product;
    SmallVector<OpFoldResult> ones(3, idx(1));
    return tensor::InsertSliceOp::create(b, l, product, acc, cOffsets, cSizes,
                                         ones)
        .getResult();
  };
  // scf.for lb to ub step `step` over `init` (one iter_arg).
  auto forLoop = [&](OpBuilder &b, Location l, Value lb, Value ub,
                     int64_t step, Value init,
                     function_ref<Value(OpBuilder &, Location, Value, Value)>
                         body) {
    return scf::ForOp::create(
        b, l, lb, ub, cst(b, l, step), ValueRange{init},
        [&](OpBuilder &b, Location l, Value iv, ValueRange args) {
          scf::YieldOp::create(b, l, body(b, l, iv, args[0]));
        });
  };
  // Over `a` (rows x K) into `c` (rows x np). The panels in groups (a loop
  // over them: the threads' loop); with `rowBlocks`, the rows in static
  // blocks of kRowBlock rows (rows a multiple of it) inside chunks of kChunk
  // columns of A, so that the row blocks share each chunk of the group's
  // panels in cache (a loop over row blocks around the contraction read
  // them all from memory per block: a dynamic BERT's matmuls 12% slower).
  auto panelLoop = [&](Value a, Value c, OpFoldResult rows,
                       bool rowBlocks) -> Value {
    OpBuilder &b = rewriter;
    SmallVector<ReassociationIndices> split{{0}, {1, 2}};
    SmallVector<OpFoldResult> shape{rows, idx(panels), idx(nr)};
    auto c3Type = RankedTensorType::get(
        {cast<RankedTensorType>(c.getType()).getDimSize(0), panels, nr},
        b.getF32Type());
    Value c3 =
        tensor::ExpandShapeOp::create(b, loc, c3Type, c, split, shape);
    Value rowCount = getValueOrCreateConstantIndexOp(b, loc, rows);
    auto group = [&](OpBuilder &b, Location l, Value first,
                     Value acc) -> Value {
      if (!rowBlocks)
        return block(b, l, a, acc, first, idx(0), rows, idx(0), k);
      // Whole chunks of K in a loop, then the chunk left.
      auto chunk = [&](OpBuilder &b, Location l, Value acc, OpFoldResult k0,
                       int64_t ks) -> Value {
        scf::ForOp loop = forLoop(
            b, l, cst(b, l, 0), rowCount, kRowBlock, acc,
            [&](OpBuilder &b, Location l, Value r, Value acc) {
              return block(b, l, a, acc, first, r, idx(kRowBlock), k0, ks);
            });
        // With a single group, the row blocks are the threads' loop.
        if (groups == 1)
          loop->setAttr(onnxc::kParallelAttrName, b.getUnitAttr());
        return loop.getResult(0);
      };
      int64_t whole = k / kChunk * kChunk;
      if (whole > 0)
        acc = forLoop(b, l, cst(b, l, 0), cst(b, l, whole), kChunk, acc,
                      [&](OpBuilder &b, Location l, Value k0, Value acc) {
                        return chunk(b, l, acc, k0, kChunk);
                      })
                  .getResult(0);
      if (whole < k)
        acc = chunk(b, l, acc, idx(whole), k - whole);
      return acc;
    };
    Value product;
    if (groups == 1) {
      product = group(b, loc, cst(b, loc, 0), c3);
    } else {
      scf::ForOp loop =
          forLoop(b, loc, cst(b, loc, 0), cst(b, loc, panels), groupPanels,
                  c3, group);
      loop->setAttr(onnxc::kParallelAttrName, b.getUnitAttr());
      product = loop.getResult(0);
    }
    return tensor::CollapseShapeOp::create(b, loc, c.getType(), product, split);
  };

  // A dynamic M: A and C padded once to whole blocks of kRowBlock rows, so
  // that every contraction has a static shape (padding inside the group and
  // chunk loops would copy A once per group and chunk). When M
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
    for (linalg::MatmulOp mm : matmuls) {
      onnxc::ContractionConfig config = onnxc::getOrChooseContractionConfig(mm);
      if (panelWidth > 0)
        config.nr = panelWidth;
      (void)packMatmulWeight(rewriter, mm, config);
    }
  }
};

} // namespace
