//===- LowerVectors.cpp - Vector ops down to 1-D loads, FMAs and stores ---===//
//
// After bufferization: vector.contract becomes outer products and those
// become broadcasts and vector.fma per row; transfers get minor-identity
// permutation maps and rank 1 (VectorToSCF unrolls what remains), masks,
// transposes, broadcasts, shape casts and multi-reductions are lowered, so
// that convert-vector-to-llvm sees only 1-D vector operations.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_LOWERVECTORS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {
struct LowerVectorsPass
    : mlir::onnxc::impl::LowerVectorsBase<LowerVectorsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
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
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
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
