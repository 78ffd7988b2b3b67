//===- ApproximateMath.cpp - Polynomial exp, erf and tanh -----------------===//
//
// math.exp, math.erf and math.tanh on f32 (scalars and vectors) become
// MLIR's polynomial approximations (arith ops, a few ulp from the correctly
// rounded result), instead of a libm call per element: a vectorised GELU
// or softmax otherwise runs one scalar call per lane. The math.fma and
// math.floor ops of the approximations become LLVM intrinsics (not fmaf and
// floorf calls).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {
bool isApproximated(StringRef name) {
  name.consume_front("math.");
  return name == "exp" || name == "erf" || name == "tanh";
}

struct ApproximateMathPass
    : mlir::onnxc::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::ExpOp, math::ErfOp, math::TanhOp>(op) &&
          getElementTypeOrSelf(op->getResult(0).getType()).isF32())
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    // Only these ops and what their rewrites create: no folding elsewhere.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    config.enableFolding(false);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      return signalPassFailure();
    // The approximations use math.fma and math.floor, which
    // convert-math-to-libm would turn into fmaf and floorf calls: the LLVM
    // intrinsics (FMA and round instructions) instead.
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](Operation *op) {
      rewriter.setInsertionPoint(op);
      if (auto fma = dyn_cast<math::FmaOp>(op))
        rewriter.replaceOpWithNewOp<LLVM::FMAOp>(fma, fma.getA(), fma.getB(),
                                                 fma.getC());
      else if (auto floor = dyn_cast<math::FloorOp>(op))
        rewriter.replaceOpWithNewOp<LLVM::FFloorOp>(floor,
                                                    floor.getOperand());
    });
  }
};
} // namespace
