//===- FuseElementwise.cpp - Elementwise fusion without recomputation -----===//
//
// MLIR's elementwise fusion, with a control that keeps an elementwise
// producer out of a consumer with reduction loops: fused there, the
// producer's body runs once per reduction step (GELU's erf inside the next
// MatMul's k loop), and the consumer stops being a plain contraction that
// onnxc-tile-and-vectorize can tile and vectorise.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {
struct FuseElementwisePass
    : mlir::onnxc::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
          if (!producer || !consumer)
            return false;
          // As upstream's default: a producer with one user only.
          if (!producer->hasOneUse())
            return false;
          if (consumer.getNumReductionLoops() == 0)
            return true;
          // Into a reduction that is not a contraction, where the operand
          // is read at every loop (LayerNormalization's (x - mean)^2 into
          // the variance's sum): the body runs once per element, as it
          // did in the producer, and no intermediate tensor is written.
          return !linalg::isaContractionOpInterface(consumer) &&
                 consumer.getMatchingIndexingMap(fused).isPermutation();
        });
    linalg::FillOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::populateFoldTensorEmptyPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
