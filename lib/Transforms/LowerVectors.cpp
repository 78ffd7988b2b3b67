//===- LowerVectors.cpp - Vector ops down to 1-D loads, FMAs and stores ---===//
//
// After bufferization: vector.contract becomes outer products and those
// become broadcasts and vector.fma per row; transfers get minor-identity
// permutation maps and rank 1 (VectorToSCF unrolls what remains), masks,
// transposes, broadcasts, shape casts and multi-reductions are lowered, so
// that convert-vector-to-llvm sees only 1-D vector operations. Register
// tiles' k loops first get software prefetches of their A rows.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Codegen/CPU/Strategy.h"
#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_LOWERVECTORS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {
/// A 1-D read along a dim of static stride s > 1 (a strided view: the
/// windows of strided depthwise convs and poolings, im2col slabs of strided
/// convolutions) as one contiguous load and
/// a vector.shuffle for small strides, else one vector.gather of the
/// elements at s * [0, 1, ..., n-1] past its first. VectorToSCF would
/// otherwise unroll it into n scalar loads and inserts, which LLVM spills
/// for long vectors.
struct StridedReadToGather : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  static constexpr int64_t kMaxShuffledStride = 4;
  static constexpr int64_t kMaxShuffledSpan = 256;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto memrefType = dyn_cast<MemRefType>(read.getBase().getType());
    VectorType vectorType = read.getVectorType();
    if (!memrefType || vectorType.getRank() != 1 ||
        vectorType.isScalable() || read.getMask() ||
        !read.getPermutationMap().isMinorIdentity() ||
        !read.isDimInBounds(0))
      return failure();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(memrefType.getStridesAndOffset(strides, offset)) ||
        strides.empty() || ShapedType::isDynamic(strides.back()) ||
        strides.back() == 1)
      return failure();
    int64_t stride = strides.back(), n = vectorType.getDimSize(0);
    if (stride <= 0 || (n - 1) * stride >= (int64_t(1) << 31))
      return failure();
    Location loc = read.getLoc();
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, read.getBase());
    Value linear = metadata.getOffset();
    for (auto [index, dimStride] :
         llvm::zip(read.getIndices(), metadata.getStrides()))
      linear = arith::AddIOp::create(
          rewriter, loc, linear,
          arith::MulIOp::create(rewriter, loc, index, dimStride));
    Type element = memrefType.getElementType();
    auto flatType = MemRefType::get(
        {(n - 1) * stride + 1}, element,
        StridedLayoutAttr::get(rewriter.getContext(), ShapedType::kDynamic,
                               {1}));
    Value flat = memref::ReinterpretCastOp::create(
        rewriter, loc, flatType, metadata.getBaseBuffer(), OpFoldResult(linear),
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr((n - 1) * stride + 1)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    // Small strides: one contiguous load of the whole span and a shuffle
    // that picks every s-th element (the backend's permutes; gathers load
    // one element at a time). The span lies inside the view, so the load
    // stays in bounds.
    int64_t span = (n - 1) * stride + 1;
    if (stride <= kMaxShuffledStride && span <= kMaxShuffledSpan) {
      Value wide = vector::LoadOp::create(
          rewriter, loc, VectorType::get({span}, element), flat,
          ValueRange{zero});
      SmallVector<int64_t> picks;
      for (int64_t i = 0; i < n; ++i)
        picks.push_back(i * stride);
      rewriter.replaceOpWithNewOp<vector::ShuffleOp>(read, wide, wide, picks);
      return success();
    }
    SmallVector<int32_t> offsets;
    for (int64_t i = 0; i < n; ++i)
      offsets.push_back(static_cast<int32_t>(i * stride));
    auto indexType = VectorType::get({n}, rewriter.getI32Type());
    Value indexVector = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(indexType, ArrayRef(offsets)));
    auto maskType = VectorType::get({n}, rewriter.getI1Type());
    Value mask = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(maskType, true));
    Value passThru = vector::BroadcastOp::create(rewriter, loc, vectorType,
                                                 read.getPadding());
    rewriter.replaceOpWithNewOp<vector::GatherOp>(
        read, vectorType, flat, ValueRange{zero}, indexVector, mask,
        passThru);
    return success();
  }
};

/// Marks a register tile's k loop that was unrolled already.
constexpr llvm::StringLiteral kUnrolledAttr = "onnxc.unrolled";
/// Marks a register tile's k loop that prefetches the next accumulator.
constexpr llvm::StringLiteral kAccPrefetchedAttr = "onnxc.acc_prefetched";

struct LowerVectorsPass
    : mlir::onnxc::impl::LowerVectorsBase<LowerVectorsPass> {
  using LowerVectorsBase::LowerVectorsBase;
  /// Register tiles that read their A column (M x 1) from a memref in a
  /// loop over k also prefetch one of its rows per step, `distance`
  /// elements ahead (see the pass description).
  void prefetchContractionRows(int64_t distance) {
    getOperation().walk([&](vector::ContractionOp contract) {
      auto read = contract.getLhs().getDefiningOp<vector::TransferReadOp>();
      auto loop = dyn_cast<scf::ForOp>(contract->getParentOp());
      if (!read || !loop || read->getParentOp() != loop.getOperation())
        return;
      auto memrefType = dyn_cast<MemRefType>(read.getBase().getType());
      VectorType type = read.getVectorType();
      if (!memrefType || memrefType.getRank() < 2 || type.getRank() != 2 ||
          type.getDimSize(1) != 1 || type.getDimSize(0) > 16 ||
          !read.getPermutationMap().isMinorIdentity())
        return;
      if (!loop.getBody()->getOps<memref::PrefetchOp>().empty())
        return;
      OpBuilder b(read);
      Location loc = read.getLoc();
      SmallVector<Value> indices(read.getIndices());
      Value row = indices[indices.size() - 2];
      Value ahead = arith::AddIOp::create(
          b, loc, indices.back(),
          arith::ConstantIndexOp::create(b, loc, distance));
      // One row per step, in turn: each row every M steps, so each cache
      // line of it (16 steps) M / 16 times.
      Value turn = arith::RemUIOp::create(
          b, loc, loop.getInductionVar(),
          arith::ConstantIndexOp::create(b, loc, type.getDimSize(0)));
      SmallVector<Value> at(indices);
      at[at.size() - 2] = arith::AddIOp::create(b, loc, row, turn);
      at.back() = ahead;
      memref::PrefetchOp::create(b, loc, read.getBase(), at,
                                 /*isWrite=*/false, /*localityHint=*/3,
                                 /*isDataCache=*/true);
    });
  }

  /// The value `v` has in another iteration of `loop` (`mapping` maps the
  /// induction variable to its value there): itself when defined outside
  /// the loop, or a clone (at the builder's insertion point) of the pure
  /// ops of the loop's body that compute it; null when another op does.
  static Value nextIterationValue(OpBuilder &b, scf::ForOp loop, Value v,
                                  IRMapping &mapping) {
    if (Value known = mapping.lookupOrNull(v))
      return known;
    if (!loop->isAncestor(v.getParentBlock()->getParentOp()))
      return v;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != loop.getBody() ||
        def->getNumRegions() != 0 || !isPure(def))
      return nullptr;
    for (Value operand : def->getOperands())
      if (!nextIterationValue(b, loop, operand, mapping))
        return nullptr;
    b.clone(*def, mapping);
    return mapping.lookup(v);
  }

  /// A register tile (a contraction carried in its k loop's only iter_arg)
  /// whose accumulator is read from memory right before its k loop, inside
  /// a loop over tiles: the k loop also prefetches, for writing, the
  /// accumulator of the tile loop's next iteration (the last iteration its
  /// own), one cache line per step in turn. Between two visits of a tile
  /// its part of C leaves the caches close to the core (the other tiles of
  /// the k chunk pass through), and its rows, N elements apart, defeat the
  /// hardware prefetchers: each tile began with as many misses as it has
  /// cache lines.
  void prefetchNextAccumulators() {
    getOperation().walk([&](vector::ContractionOp contract) {
      auto kLoop = dyn_cast<scf::ForOp>(contract->getParentOp());
      if (!kLoop || kLoop.getNumRegionIterArgs() != 1 ||
          contract.getAcc() != kLoop.getRegionIterArgs()[0] ||
          kLoop->hasAttr(kAccPrefetchedAttr))
        return;
      auto read =
          kLoop.getInitArgs()[0].getDefiningOp<vector::TransferReadOp>();
      auto tileLoop = dyn_cast<scf::ForOp>(kLoop->getParentOp());
      if (!read || !tileLoop || read->getBlock() != kLoop->getBlock())
        return;
      auto memrefType = dyn_cast<MemRefType>(read.getBase().getType());
      VectorType type = read.getVectorType();
      if (!memrefType || !read.getPermutationMap().isMinorIdentity() ||
          type.getRank() < 2 || !type.getElementType().isIntOrFloat())
        return;
      // Rows along the vector's first dim, the others (but the last) 1.
      ArrayRef<int64_t> shape = type.getShape();
      if (llvm::any_of(shape.drop_front().drop_back(),
                       [](int64_t d) { return d != 1; }))
        return;
      int64_t perLine = 512 / type.getElementType().getIntOrFloatBitWidth();
      int64_t linesPerRow = (shape.back() + perLine - 1) / perLine;
      int64_t lines = shape.front() * linesPerRow;
      std::optional<int64_t> lb = getConstantIntValue(tileLoop.getLowerBound()),
                             ub = getConstantIntValue(tileLoop.getUpperBound()),
                             step = getConstantIntValue(tileLoop.getStep());
      if (!lb || !ub || !step || *step <= 0 || *ub - *lb <= *step || lines > 64)
        return;
      // The next tile's indices, computed once per tile.
      OpBuilder b(kLoop);
      Location loc = read.getLoc();
      int64_t last = *lb + (*ub - *lb - 1) / *step * *step;
      Value next = arith::MinUIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, tileLoop.getInductionVar(),
                                arith::ConstantIndexOp::create(b, loc, *step)),
          arith::ConstantIndexOp::create(b, loc, last));
      IRMapping mapping;
      mapping.map(tileLoop.getInductionVar(), next);
      Value base = nextIterationValue(b, tileLoop, read.getBase(), mapping);
      SmallVector<Value> indices;
      for (Value index : read.getIndices())
        indices.push_back(nextIterationValue(b, tileLoop, index, mapping));
      if (!base || llvm::is_contained(indices, Value()))
        return;
      // Line (k mod lines): row turn / linesPerRow, its part turn mod
      // linesPerRow.
      b.setInsertionPointToStart(kLoop.getBody());
      auto cst = [&](int64_t v) {
        return arith::ConstantIndexOp::create(b, loc, v);
      };
      Value turn =
          arith::RemUIOp::create(b, loc, kLoop.getInductionVar(), cst(lines));
      unsigned rowDim = memrefType.getRank() - type.getRank();
      SmallVector<Value> at(indices);
      at[rowDim] = arith::AddIOp::create(
          b, loc, at[rowDim],
          arith::DivUIOp::create(b, loc, turn, cst(linesPerRow)));
      at.back() = arith::AddIOp::create(
          b, loc, at.back(),
          arith::MulIOp::create(
              b, loc, arith::RemUIOp::create(b, loc, turn, cst(linesPerRow)),
              cst(perLine)));
      memref::PrefetchOp::create(b, loc, base, at, /*isWrite=*/true,
                                 /*localityHint=*/3, /*isDataCache=*/true);
      kLoop->setAttr(kAccPrefetchedAttr, UnitAttr::get(kLoop.getContext()));
    });
  }

  /// Whole register tiles' k loops (a vector.contract of at least 8 x 32
  /// carried in their only iter_arg) unrolled `factor` times: fewer loop
  /// instructions on the FMA ports per FMA. Marked, so that the pass can
  /// run again.
  void unrollContractionLoops(int64_t factor) {
    // Whole register tiles of the target's configuration: at least two
    // thirds of mr rows (8 of AVX-512's 12) and nr columns.
    onnxc::ContractionConfig config =
        onnxc::chooseContractionConfig(onnxc::CPUTarget::of(getOperation()));
    const int64_t minRows = std::max<int64_t>(1, 2 * config.mr / 3);
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](vector::ContractionOp contract) {
      auto loop = dyn_cast<scf::ForOp>(contract->getParentOp());
      // Whole register tiles only: the peeled remainders are many and
      // small (unrolling them too took DenseNet-121's compile from 7.7 to
      // 10.7 s).
      // (Unit dims aside: a packed matmul's tiles are 12 x 1 x 32.)
      auto accType = dyn_cast<VectorType>(contract.getAccType());
      if (!accType || accType.getRank() < 2 ||
          accType.getNumElements() / accType.getShape().back() < minRows ||
          accType.getShape().back() < config.nr ||
          llvm::count_if(accType.getShape(),
                         [](int64_t d) { return d != 1; }) != 2)
        return;
      if (!loop || loop->hasAttr(kUnrolledAttr) ||
          loop.getNumRegionIterArgs() != 1 ||
          contract.getAcc() != loop.getRegionIterArgs()[0])
        return;
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (!trips || trips->getSExtValue() < 2 * factor)
        return;
      loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      loop->setAttr(kUnrolledAttr, UnitAttr::get(loop.getContext()));
      (void)loopUnrollByFactor(loop, factor);
    }
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (prefetchDistance > 0)
      prefetchContractionRows(prefetchDistance);
    if (prefetchAccumulators)
      prefetchNextAccumulators();
    if (unrollK > 1)
      unrollContractionLoops(unrollK);
    // Masked transfers first: vector.mask regions hold one op each, and the
    // other lowerings would put more into them.
    RewritePatternSet maskPatterns(ctx);
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(maskPatterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(maskPatterns))))
      return signalPassFailure();
    // Then unit leading dims (a batch of 1) go, on their own: together with
    // the lowerings below they rewrite each other's results forever.
    RewritePatternSet unitDimPatterns(ctx);
    vector::populateCastAwayVectorLeadingOneDimPatterns(unitDimPatterns);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(unitDimPatterns))))
      return signalPassFailure();
    RewritePatternSet patterns(ctx);
    patterns.add<StridedReadToGather>(ctx, /*benefit=*/2);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    // Single-element transfers (a 0-D read of a per-channel scale that a
    // broadcast's canonicalization left on a strided view) as a scalar load
    // or store: the transfer lowerings above need a unit innermost stride,
    // and convert-vector-to-llvm lowers no 0-D transfer.
    vector::populateScalarVectorTransferLoweringPatterns(
        patterns, /*benefit=*/1, /*allowMultipleUses=*/true);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::EltWise);
    // 1-D masks as a comparison of a constant step vector (vector-to-llvm
    // would otherwise build them for scalable vectors).
    vector::populateVectorMaskMaterializationPatterns(
        patterns, /*force32BitVectorIndices=*/true);
    vector::populateVectorStepLoweringPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
