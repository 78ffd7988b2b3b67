//===- TileAndVectorize.cpp - Cache- and register-tiled contractions ------===//
//
// Every f32 contraction on tensors (linalg.matmul, batch_matmul, and
// generics that multiply-accumulate with one m, one n and one k dim) is
// tiled twice with TilingInterface: cache tiles (mc x nc x kc) and, inside
// them, register tiles (mr x nr x 1). The register-tile loops over m and n
// are peeled, so the main tiles have static sizes (a remainder of the n dim,
// the vector lanes, in power-of-two widths: 17 columns as 16 + 1); every
// register tile is then vectorised (vector.contract), the
// tensor slices fold into the vector transfers, and the accumulator's
// transfer_read/transfer_write pair is hoisted out of the k loop, so that
// the mr x nr accumulator lives in registers across k. After bufferization
// onnxc-lower-vectors turns each contraction into outer products (one
// broadcast and nr/16 FMAs per row and k on AVX-512).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Codegen/CPU/Strategy.h"
#include "onnxc/Transforms/Passes.h"

#include "VectorizeReductions.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_TILEANDVECTORIZE
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

/// Marks a tile to vectorise (static tiles are vectorised at their shape).
constexpr llvm::StringLiteral kVectorizeAttr = "onnxc.vectorize";
/// Marks a cache tile, to be tiled into register tiles.
constexpr llvm::StringLiteral kCacheTileAttr = "onnxc.cache_tile";
/// The m, n, k loops of an f32 multiply-accumulate contraction, or failure.
FailureOr<linalg::ContractionDimensions>
getF32Contraction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op->hasAttr(onnxc::kUkernelAttrName) ||
      op.getNumDpsInits() != 1 || op.getNumDpsInputs() != 2 ||
      !linalg::isaContractionOpInterface(op))
    return failure();
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.getElementType().isF32())
      return failure();
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() ||
      dims->k.size() != 1)
    return failure();
  return dims;
}

struct TileAndVectorizePass
    : mlir::onnxc::impl::TileAndVectorizeBase<TileAndVectorizePass> {
  using TileAndVectorizeBase::TileAndVectorizeBase;

  /// The op's lowering configuration (onnxc-select-lowering-configs; the
  /// module's target's when it has none), with the sizes that the pass's
  /// options set (non-zero) in its place.
  onnxc::ContractionConfig configOf(Operation *op) const {
    onnxc::ContractionConfig c = onnxc::getOrChooseContractionConfig(op);
    for (auto [option, field] :
         {std::make_pair(mc.getValue(), &c.mc), {nc.getValue(), &c.nc},
          {kc.getValue(), &c.kc}, {mr.getValue(), &c.mr},
          {nr.getValue(), &c.nr}, {vl.getValue(), &c.vl}})
      if (option > 0)
        *field = option;
    return c;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);

    // Pads that onnxc-write-into-pads left (dynamic shapes, a padding
    // value computed in the body) become a fill of the whole padded tensor
    // (vectorised like any elementwise op) and an insert_slice of the
    // padded value.
    {
      RewritePatternSet patterns(ctx);
      linalg::populateDecomposePadPatterns(patterns);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }

    SmallVector<linalg::LinalgOp> contractions;
    func.walk([&](linalg::LinalgOp op) {
      if (succeeded(getF32Contraction(op)))
        contractions.push_back(op);
    });
    for (linalg::LinalgOp op : contractions)
      if (failed(tileAndPeel(rewriter, blockDynamicDims(rewriter, op),
                             /*level=*/0)))
        return signalPassFailure();
    // Peeled bounds fold into static tile shapes only after
    // canonicalization: the register tiling and the vectoriser want them.
    if (failed(canonicalize()))
      return signalPassFailure();
    SmallVector<linalg::LinalgOp> cacheTiles;
    func.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kCacheTileAttr))
        cacheTiles.push_back(op);
    });
    for (linalg::LinalgOp cacheTile : cacheTiles) {
      cacheTile->removeAttr(kCacheTileAttr);
      for (linalg::LinalgOp op : splitLaneRemainder(rewriter, cacheTile))
        if (failed(tileAndPeel(rewriter, op, /*level=*/1)))
          return signalPassFailure();
    }
    // Elementwise ops (all loops parallel): unit broadcast dims of their
    // inputs dropped, contiguous dims merged, then tiles of one row of up
    // to `vl` elements.
    func.walk([&](linalg::GenericOp op) { dropUnitBroadcastDims(rewriter, op); });
    SmallVector<linalg::LinalgOp> elementwise;
    func.walk([&](linalg::LinalgOp op) {
      if (isStaticElementwise(op) && !op->hasAttr(kVectorizeAttr))
        elementwise.push_back(op);
    });
    for (linalg::LinalgOp op : elementwise)
      if (failed(tileElementwise(rewriter, op)))
        return signalPassFailure();
    // Reductions over the innermost loop: rows, chunks of `vl` elements.
    SmallVector<linalg::LinalgOp> reductions;
    func.walk([&](linalg::LinalgOp op) {
      if (!op->hasAttr(kVectorizeAttr) && onnxc::isInnerReduction(op) &&
          failed(getF32Contraction(op)))
        reductions.push_back(op);
    });
    for (linalg::LinalgOp op : reductions)
      (void)onnxc::tileInnerReduction(rewriter, op, configOf(op).vl,
                                      kVectorizeAttr);
    if (failed(canonicalize()))
      return signalPassFailure();
    vectorizeMarkedOps(rewriter);
    onnxc::lowerRowReductions(rewriter, func);
    foldAndHoist(rewriter);
  }

  /// The canonicalization patterns of every loaded dialect and op.
  LogicalResult canonicalize() {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, ctx);
    return applyPatternsGreedily(getOperation(), std::move(patterns));
  }

  /// A contraction whose innermost m or n dim has a dynamic size walks
  /// that dim in blocks of a static size (the configuration's
  /// dynamic_blocks):
  /// its operands are zero-padded to a multiple of the block and a loop runs
  /// a clone of the op per block. The tiles inside then have static shapes,
  /// so they are vectorised, and bufferization compares slices of static
  /// sizes (proving the dynamic tile sizes of a BERT encoder with a dynamic
  /// sequence length disjoint took it minutes of Presburger arithmetic).
  /// Returns the op to tile: the innermost clone, or `op`.
  linalg::LinalgOp blockDynamicDims(RewriterBase &rewriter,
                                    linalg::LinalgOp op) {
    linalg::ContractionDimensions dims = *getF32Contraction(op);
    onnxc::ContractionConfig config = configOf(op);
    SmallVector<LoopLikeOpInterface> loops;
    for (auto [d, block] : {std::make_pair(dims.m.back(), config.dynamicM),
                            std::make_pair(dims.n.back(), config.dynamicN)})
      if (ShapedType::isDynamic(op.getStaticLoopRanges()[d])) {
        op = blockDim(rewriter, op, d, block);
        loops.push_back(op->getParentOfType<scf::ForOp>());
      }
    // The inner loop's pads of operands it does not slice go out of the
    // outer one, and out of the loops around the op that do not slice them
    // (onnxc-pack-matmul-weights' group loop, where A would be padded once
    // per group).
    for (LoopLikeOpInterface loop : llvm::reverse(loops))
      moveLoopInvariantCode(loop);
    if (!loops.empty())
      for (auto outer = loops.front()->getParentOfType<scf::ForOp>(); outer;
           outer = outer->getParentOfType<scf::ForOp>())
        moveLoopInvariantCode(cast<LoopLikeOpInterface>(outer.getOperation()));
    return op;
  }

  static linalg::LinalgOp blockDim(RewriterBase &rewriter, linalg::LinalgOp op,
                                   unsigned d, int64_t block) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    // Where loop dim d indexes each operand (none: not blocked).
    SmallVector<std::optional<unsigned>> at;
    std::optional<OpFoldResult> size;
    for (OpOperand &operand : op->getOpOperands()) {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      at.push_back(std::nullopt);
      for (unsigned r = 0; r < map.getNumResults(); ++r)
        if (map.getResult(r) == rewriter.getAffineDimExpr(d))
          at.back() = r;
      if (at.back() && !size)
        size = tensor::getMixedSize(rewriter, loc, operand.get(), *at.back());
    }
    AffineExpr s0 = rewriter.getAffineSymbolExpr(0);
    OpFoldResult padded = affine::makeComposedFoldedAffineApply(
        rewriter, loc, s0.ceilDiv(block) * block, {*size});
    OpFoldResult extra = affine::makeComposedFoldedAffineApply(
        rewriter, loc, s0.ceilDiv(block) * block - s0, {*size});
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getF32FloatAttr(0.0f));
    SmallVector<Value> operands;
    for (auto [operand, r] : llvm::zip(op->getOpOperands(), at)) {
      Value v = operand.get();
      auto fill = v.getDefiningOp<linalg::FillOp>();
      if (r && fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()) {
        // A fill (the accumulator's zero start) is built at the padded size
        // instead: no scf.if around it, whose result bufferization copied
        // before the blocks wrote into it.
        SmallVector<OpFoldResult> sizes =
            tensor::getMixedSizes(rewriter, loc, v);
        sizes[*r] = padded;
        Value empty = tensor::EmptyOp::create(
            rewriter, loc, sizes,
            cast<RankedTensorType>(v.getType()).getElementType());
        Value start =
            linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
                .getResult(0);
        if (start.getType() != v.getType())
          start = tensor::CastOp::create(rewriter, loc, v.getType(), start);
        v = start;
      } else if (r) {
        auto type = cast<RankedTensorType>(v.getType());
        SmallVector<OpFoldResult> low(type.getRank(), rewriter.getIndexAttr(0));
        SmallVector<OpFoldResult> high = low;
        high[*r] = extra;
        // Padded only when the size is not a whole number of blocks at run
        // time: a batch of 128-token sequences reads its operands as they
        // are, without the padded copies.
        Value whole = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq,
            getValueOrCreateConstantIndexOp(rewriter, loc, extra),
            arith::ConstantIndexOp::create(rewriter, loc, 0));
        auto branch = scf::IfOp::create(rewriter, loc, TypeRange{v.getType()},
                                        whole, /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPointToStart(&branch.getThenRegion().front());
          scf::YieldOp::create(rewriter, loc, v);
          rewriter.setInsertionPointToStart(&branch.getElseRegion().front());
          Value padded = tensor::PadOp::create(
              rewriter, loc, RankedTensorType(), v, low, high, zero);
          if (padded.getType() != v.getType())
            padded = tensor::CastOp::create(rewriter, loc, v.getType(), padded);
          scf::YieldOp::create(rewriter, loc, padded);
        }
        v = branch.getResult(0);
      }
      operands.push_back(v);
    }
    unsigned numInputs = op.getNumDpsInputs();
    // The block of `v` (padded operand i) at offset iv along dim d.
    auto blockOf = [&](OpBuilder &b, Location l, Value v, unsigned r,
                       Value iv) {
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, l, v);
      SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
      offsets[r] = iv;
      sizes[r] = b.getIndexAttr(block);
      return std::make_tuple(offsets, sizes, strides);
    };
    linalg::LinalgOp clone;
    auto loop = scf::ForOp::create(
        rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
        getValueOrCreateConstantIndexOp(rewriter, loc, padded),
        arith::ConstantIndexOp::create(rewriter, loc, block),
        ValueRange{operands[numInputs]},
        [&](OpBuilder &b, Location l, Value iv, ValueRange args) {
          IRMapping mapping;
          SmallVector<Value> current(operands);
          current[numInputs] = args[0];
          for (auto [i, r] : llvm::enumerate(at)) {
            Value v = current[i];
            if (r) {
              auto [offsets, sizes, strides] = blockOf(b, l, v, *r, iv);
              v = tensor::ExtractSliceOp::create(b, l, v, offsets, sizes,
                                                 strides);
            }
            mapping.map(op->getOperand(i), v);
          }
          Operation *copy = b.clone(*op.getOperation(), mapping);
          Value init = mapping.lookup(op->getOperand(numInputs));
          copy->getResult(0).setType(init.getType());
          clone = cast<linalg::LinalgOp>(copy);
          Value updated = copy->getResult(0);
          if (at[numInputs]) {
            auto [offsets, sizes, strides] =
                blockOf(b, l, args[0], *at[numInputs], iv);
            updated = tensor::InsertSliceOp::create(b, l, updated, args[0],
                                                    offsets, sizes, strides);
          }
          scf::YieldOp::create(b, l, updated);
        });
    // m and n are parallel dims: the blocks are independent.
    loop->setAttr(onnxc::kParallelAttrName, rewriter.getUnitAttr());
    // The result without the padding.
    Value result = loop.getResult(0);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    if (at[numInputs]) {
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, op->getOperand(numInputs));
      result = tensor::ExtractSliceOp::create(
          rewriter, loc, resultType, result,
          SmallVector<OpFoldResult>(resultType.getRank(),
                                    rewriter.getIndexAttr(0)),
          sizes,
          SmallVector<OpFoldResult>(resultType.getRank(),
                                    rewriter.getIndexAttr(1)));
    }
    rewriter.replaceOp(op, result);
    return clone;
  }

  /// A cache tile whose n dim (the register tiles' vector lanes, innermost
  /// in the result) is not a whole number of register tiles is split along
  /// it into the whole tiles and power-of-two parts of the remainder: a
  /// remainder of 17 columns as 16 + 1. Each part is register-tiled on its
  /// own. (A 17-wide vector became element-by-element loads and inserts:
  /// a 1x1 conv on 7 x 7 positions, 49 = 32 + 17, ran 10x slower than with
  /// 32 + 16 + 1.)
  SmallVector<linalg::LinalgOp> splitLaneRemainder(RewriterBase &rewriter,
                                                   linalg::LinalgOp op) {
    linalg::ContractionDimensions dims = *getF32Contraction(op);
    unsigned nDim = dims.n.back();
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    int64_t n = op.getStaticLoopRanges()[nDim];
    if (ShapedType::isDynamic(n) || out.getNumResults() == 0 ||
        out.getResults().back() != rewriter.getAffineDimExpr(nDim))
      return {op};
    int64_t nr = configOf(op).nr;
    int64_t whole = n / nr * nr, rest = n - whole;
    if (rest == 0 || llvm::isPowerOf2_64(rest))
      return {op};
    SmallVector<int64_t> widths;
    if (whole)
      widths.push_back(whole);
    for (; rest; rest -= llvm::bit_floor(uint64_t(rest)))
      widths.push_back(llvm::bit_floor(uint64_t(rest)));
    SmallVector<linalg::LinalgOp> parts;
    auto remaining = cast<TilingInterface>(op.getOperation());
    for (int64_t width : ArrayRef<int64_t>(widths).drop_back()) {
      rewriter.setInsertionPoint(remaining);
      auto [first, second] = linalg::splitOp(rewriter, remaining, nDim,
                                             rewriter.getIndexAttr(width));
      if (!first)
        break; // Not split: what is left is register-tiled as one part.
      parts.push_back(cast<linalg::LinalgOp>(first.getOperation()));
      if (!second)
        return parts; // Nothing left (cannot happen: width < the size).
      remaining = second;
    }
    parts.push_back(cast<linalg::LinalgOp>(remaining.getOperation()));
    return parts;
  }

  /// Level 0: cache tiles (mc x nc x kc), marked for level 1. Level 1:
  /// register tiles (mr x nr x 1), marked for vectorisation. The m and n
  /// loops (and k at level 0) are peeled, so that with static shapes every
  /// tile, the remainders included, has a static size.
  LogicalResult tileAndPeel(RewriterBase &rewriter, linalg::LinalgOp op,
                            int level) {
    linalg::ContractionDimensions dims = *getF32Contraction(op);
    unsigned numLoops = op.getNumLoops();
    // The innermost m and n dims are tiled; batch dims and further m and n
    // dims (a matmul whose result is reshaped, [b, s, k] x [k, h, d]) are
    // walked one at a time.
    unsigned mDim = dims.m.back(), nDim = dims.n.back(), kDim = dims.k[0];
    SmallVector<unsigned> unitDims(dims.batch.begin(), dims.batch.end());
    unitDims.append(dims.m.begin(), dims.m.end() - 1);
    unitDims.append(dims.n.begin(), dims.n.end() - 1);
    onnxc::ContractionConfig config = configOf(op);
    int64_t m = level == 0 ? config.mc : config.mr,
            n = level == 0 ? config.nc : config.nr,
            k = level == 0 ? config.kc : 1;
    // A tile no larger than a static dim: small dims stay whole (and
    // static) instead of becoming partial tiles.
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto clamp = [&](int64_t size, unsigned dim) {
      return ShapedType::isDynamic(ranges[dim]) ? size
                                                : std::min(size, ranges[dim]);
    };
    m = clamp(m, mDim);
    // A static m a little taller than the cache tile (a conv block of 68
    // filters) stays one tile: split into 64 rows and a remainder of 4, the
    // remainder went through a buffer that kept the block loop off the
    // threads.
    if (level == 0 && !ShapedType::isDynamic(ranges[mDim]) &&
        ranges[mDim] > m && ranges[mDim] <= m + m / 4)
      m = ranges[mDim];
    n = clamp(n, nDim);
    k = clamp(k, kDim);
    // A dynamic k stays whole in the cache tile (its remainder would be a
    // tile of dynamic size); the register tiles step through it one by one.
    if (level == 0 && ShapedType::isDynamic(ranges[kDim]))
      k = 0;
    SmallVector<OpFoldResult> sizes(numLoops, rewriter.getIndexAttr(0));
    for (unsigned d : unitDims)
      sizes[d] = rewriter.getIndexAttr(level == 0 ? 1 : 0);
    sizes[mDim] = rewriter.getIndexAttr(m);
    sizes[nDim] = rewriter.getIndexAttr(n);
    sizes[kDim] = rewriter.getIndexAttr(k);

    rewriter.setInsertionPoint(op);
    scf::SCFTilingOptions options;
    options.setTileSizes(sizes);
    // Loop order: cache tiles in dim order; register tiles walk n outside
    // m, so that the nr columns of B a register tile reads over the cache
    // tile's k range stay in L1 while every row group of A passes (A's
    // rows are reused from L2 with one cache line per 16 k steps).
    // SqueezeNet 5.83 -> 5.58 ms, ResNet-50 54.4 -> 52.2 ms at T=1.
    SmallVector<int64_t> order =
        llvm::to_vector(llvm::seq<int64_t>(0, numLoops));
    if (level == 1) {
      order.clear();
      for (unsigned d = 0; d < numLoops; ++d)
        if (d != mDim && d != nDim && d != kDim)
          order.push_back(d);
      order.append({nDim, mDim, kDim});
    }
    // Only a permutation that differs from the identity is passed.
    bool identity = llvm::equal(order, llvm::seq<int64_t>(0, numLoops));
    if (!identity)
      options.setInterchange(order);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled))
      return op.emitError("cannot tile the contraction");
    rewriter.replaceOp(op, tiled->replacements);

    Operation *tile = tiled->tiledOps.back();
    if (level == 0) {
      tile->setAttr(kCacheTileAttr, rewriter.getUnitAttr());
    } else {
      tile->setAttr(kVectorizeAttr, rewriter.getUnitAttr());
    }
    // One loop per tiled dim, in `order`. The register k loop has step 1.
    SmallVector<unsigned> tiledDims;
    for (int64_t d : order)
      if (!isConstantIntValue(sizes[d], 0))
        tiledDims.push_back(d);
    SmallVector<scf::ForOp> peel;
    for (auto [d, loop] : llvm::zip(tiledDims, tiled->loops)) {
      auto forOp = dyn_cast<scf::ForOp>(loop.getOperation());
      if (!forOp)
        continue;
      if (level == 0 || d != kDim)
        peel.push_back(forOp);
      // The cache tiles of the batch, m and n dims are independent.
      if (level == 0 && !llvm::is_contained(dims.k, d))
        forOp->setAttr(onnxc::kParallelAttrName, rewriter.getUnitAttr());
    }
    linalg::peelLoops(rewriter, peel);
    return success();
  }

  /// An input read at constant index 0 along a dim of size 1 (a per-channel
  /// [C, 1, 1] operand against N x C x H x W, as numpy broadcasting lowers)
  /// is read through a collapse_shape without that dim instead, so that
  /// every indexing map is a projected permutation (which the vectoriser
  /// wants).
  static void dropUnitBroadcastDims(RewriterBase &rewriter,
                                    linalg::GenericOp op) {
    // Elementwise ops, and reductions over the innermost loop only.
    unsigned reductions = op.getNumReductionLoops();
    if (!op.hasPureTensorSemantics() || op->hasAttr(kVectorizeAttr) ||
        reductions > 1 ||
        (reductions == 1 && op.getIteratorTypesArray().back() !=
                                utils::IteratorType::reduction))
      return;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    bool changed = false;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto type = dyn_cast<RankedTensorType>(input->get().getType());
      AffineMap map = maps[input->getOperandNumber()];
      if (!type || !type.hasStaticShape() || map.getNumResults() == 0)
        continue;
      SmallVector<AffineExpr> kept;
      SmallVector<ReassociationIndices> groups;
      SmallVector<int64_t> pending; // Dropped dims before the first kept one.
      for (auto [j, expr] : llvm::enumerate(map.getResults())) {
        auto cst = dyn_cast<AffineConstantExpr>(expr);
        if (cst && cst.getValue() == 0 && type.getDimSize(j) == 1) {
          if (groups.empty())
            pending.push_back(j);
          else
            groups.back().push_back(j);
          continue;
        }
        kept.push_back(expr);
        groups.push_back(ReassociationIndices(pending.begin(), pending.end()));
        groups.back().push_back(j);
        pending.clear();
      }
      if (kept.size() == map.getNumResults())
        continue;
      rewriter.setInsertionPoint(op);
      Value collapsed = tensor::CollapseShapeOp::create(
          rewriter, op.getLoc(), input->get(), groups);
      rewriter.modifyOpInPlace(op, [&] { input->set(collapsed); });
      maps[input->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), 0, kept, op.getContext());
      changed = true;
    }
    if (changed)
      rewriter.modifyOpInPlace(op, [&] {
        op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
  }

  /// A linalg op on static tensors whose loops are all parallel.
  static bool isStaticElementwise(linalg::LinalgOp op) {
    // Dynamic shapes stay scalar loops: their tiles' dynamic offsets made
    // bufferization's analysis of a dynamic BERT encoder take 25 s.
    if (!op.hasPureTensorSemantics() || op.getNumLoops() == 0 ||
        op.getNumParallelLoops() != op.getNumLoops() || op.hasDynamicShape())
      return false;
    // A kernel's init (a bias broadcast, a fill) and its Relu join the
    // kernel's call (onnxc-lower-ukernels).
    if (op->hasAttr(onnxc::kUkernelAttrName) ||
        onnxc::isUkernelInitOrEpilogue(op))
      return false;
    // Vectors of i1 are stored bit-packed by LLVM while memrefs of i1 hold
    // a byte per element: ops on booleans stay scalar.
    for (Value v : op->getOperands()) {
      Type t = getElementTypeOrSelf(v.getType());
      if (!t.isIntOrFloat() || t.getIntOrFloatBitWidth() % 8 != 0)
        return false;
    }
    // Operands read at permuted or broadcast indices only (not flipped or
    // strided: those need gathers).
    for (AffineMap map : op.getIndexingMapsArray())
      if (!map.isProjectedPermutation())
        return false;
    // Bodies that read tensors at computed indices are not vectorised.
    bool extracts = false;
    op->walk([&](tensor::ExtractOp) { extracts = true; });
    return !extracts;
  }

  /// Whether merging loop dims `d` and `d + 1` of `op` keeps every operand
  /// that is a tensor.extract_slice a view (collapsing a slice that is not
  /// contiguous across the two dims would copy it). Such an operand must
  /// cover the whole inner dim, with unit strides on both; a rank-reducing
  /// slice is not merged at all.
  /// The tensor whose buffer `v` will be: through the destinations of
  /// destination-style ops and the init values of loops (a conv block
  /// computed by matmuls into a slice of the accumulator is that slice).
  static Value destinationOrigin(Value v) {
    while (auto result = dyn_cast<OpResult>(v)) {
      Operation *owner = result.getOwner();
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(owner)) {
        v = dps.getTiedOpOperand(result)->get();
      } else if (auto forOp = dyn_cast<scf::ForOp>(owner)) {
        v = forOp.getInitArgs()[result.getResultNumber()];
      } else {
        break;
      }
    }
    return v;
  }

  static bool slicesStayContiguous(linalg::LinalgOp op, unsigned d) {
    for (OpOperand &operand : op->getOpOperands()) {
      auto slice =
          destinationOrigin(operand.get()).getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice) {
        // A reshape of a slice (a conv's result: a view of its accumulator
        // rows) is not checked dim by dim: its dims are not merged.
        Value v = operand.get();
        while (Operation *def = v.getDefiningOp()) {
          if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
            break;
          v = def->getOperand(0);
        }
        if (v != operand.get() && v.getDefiningOp<tensor::ExtractSliceOp>())
          return false;
        continue;
      }
      AffineMap map = op.getMatchingIndexingMap(&operand);
      std::optional<unsigned> outer =
          map.getResultPosition(getAffineDimExpr(d, op.getContext()));
      std::optional<unsigned> inner =
          map.getResultPosition(getAffineDimExpr(d + 1, op.getContext()));
      if (!outer || !inner)
        continue;
      if (slice.getSourceType().getRank() != slice.getResultType().getRank())
        return false;
      if (*inner != *outer + 1)
        return false;
      auto isOne = [](OpFoldResult v) { return isConstantIntValue(v, 1); };
      SmallVector<OpFoldResult> strides = slice.getMixedStrides();
      SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
      int64_t full = slice.getSourceType().getDimSize(*inner);
      if (!isOne(strides[*outer]) || !isOne(strides[*inner]) ||
          ShapedType::isDynamic(full) ||
          !isConstantIntValue(sizes[*inner], full))
        return false;
    }
    return true;
  }

  /// Merges the dims of `op` that are contiguous in every operand, tiles the
  /// result into rows of up to `vl` elements of the innermost dim (peeled),
  /// and marks the tiles for vectorisation.
  LogicalResult tileElementwise(RewriterBase &rewriter, linalg::LinalgOp op) {
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<ReassociationIndices> groups;
    for (unsigned d = 0, e = op.getNumLoops(); d < e; ++d) {
      if (!groups.empty()) {
        ReassociationIndices grown = groups.back();
        grown.push_back(d);
        if (linalg::areDimSequencesPreserved(maps, {grown}) &&
            slicesStayContiguous(op, d - 1)) {
          groups.back() = grown;
          continue;
        }
      }
      groups.push_back({static_cast<int64_t>(d)});
    }
    rewriter.setInsertionPoint(op);
    // collapseOpIterationDims takes only the groups that merge dims.
    llvm::erase_if(groups, [](const ReassociationIndices &g) {
      return g.size() < 2;
    });
    if (!groups.empty() && isa<linalg::GenericOp>(op)) {
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, groups, rewriter);
      if (succeeded(collapsed)) {
        rewriter.replaceOp(op, collapsed->results);
        op = collapsed->collapsedOp;
      }
    }
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t inner = ranges.back();
    if (inner < 4)
      return success(); // Too narrow to gain from vectors.
    (void)onnxc::tileRows(rewriter, op, std::min(inner, configOf(op).vl),
                          kVectorizeAttr, /*innerParallel=*/true);
    return success(); // Else it stays a scalar loop nest.
  }

  /// Vectorises every marked register tile: static ones exactly, the peeled
  /// remainders with masks of the register tile's sizes.
  void vectorizeMarkedOps(RewriterBase &rewriter) {
    SmallVector<linalg::LinalgOp> marked;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kVectorizeAttr))
        marked.push_back(op);
    });
    for (linalg::LinalgOp op : marked) {
      op->removeAttr(kVectorizeAttr);
      // Masked vectors (tiles of dynamic size) are left out for now: MLIR
      // 22's mask lowerings for x86 are not reliable (scalable mask types
      // appear in the LLVM conversion); such tiles stay scalar loops.
      if (op.hasDynamicShape())
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::VectorizationResult> result = linalg::vectorize(
          rewriter, op, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
          /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
          /*assumeDynamicDimsMatchVecSizes=*/false,
          /*createNamedContraction=*/true);
      if (succeeded(result))
        rewriter.replaceOp(op, result->replacements);
      // Otherwise the tile stays a (correct) scalar loop nest.
    }
  }

  /// Folds tensor slices into the vector transfers, then hoists the
  /// accumulator's read/write out of every loop that only updates it.
  void foldAndHoist(RewriterBase &rewriter) {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    vector::populateVectorReductionToContractPatterns(patterns);
    linalg::populateLinalgTilingCanonicalizationPatterns(patterns);
    scf::ForOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    FrozenRewritePatternSet frozen(std::move(patterns));
    (void)applyPatternsGreedily(getOperation(), frozen);

    // Innermost loops first, so that a hoisted pair can move on outward.
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp forOp) { loops.push_back(forOp); });
    // Loops with dynamically shaped slices hold scalar tiles only; proving
    // their slices equivalent takes minutes of Presburger arithmetic (a
    // dynamic BERT encoder), so they are left alone. (A dynamic trip count
    // is fine: the k loop of a contraction whose k is dynamic.)
    auto dynamic = [](scf::ForOp forOp) {
      WalkResult r = forOp.getBody()->walk([](Operation *op) {
        for (Type t : op->getResultTypes())
          if (auto shaped = dyn_cast<ShapedType>(t))
            if (!shaped.hasStaticShape())
              return WalkResult::interrupt();
        return WalkResult::advance();
      });
      return r.wasInterrupted();
    };
    for (scf::ForOp forOp : loops)
      if (!dynamic(forOp))
        hoistLoopInvariantSubsets(
            rewriter, cast<LoopLikeOpInterface>(forOp.getOperation()));
    (void)applyPatternsGreedily(getOperation(), frozen);
  }
};

} // namespace
