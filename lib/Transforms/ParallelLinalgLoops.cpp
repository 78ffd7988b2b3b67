//===- ParallelLinalgLoops.cpp - Parallel loops for the remaining linalg ops -===//
//
// onnxc-parallel-linalg-loops (memrefs, before convert-linalg-to-loops): a
// linalg op whose loops are all parallel and that is not already inside a
// loop marked onnxc.parallel (the tiles of onnxc-tile-and-vectorize and
// onnxc-conv-to-matmul) becomes a loop nest whose outermost loop is marked
// parallel, for onnxc-outline-parallel-loops to put on the threads when it
// has work enough. These are the ops that were not tiled: elementwise ops
// on dynamic shapes (a BERT encoder with a dynamic sequence length has a
// hundred), and bodies that read tensors at computed indices.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_PARALLELLINALGLOOPS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

/// Whether `op` runs inside a loop that is already marked parallel.
bool insideParallelLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isa<scf::ForOp>(p) && p->hasAttr(onnxc::kParallelAttrName))
      return true;
  return false;
}

/// The loop to put on the threads: the outermost one with at least
/// kMinTrips iterations (or a trip count known only at run time), else the
/// outermost one with more than one (a 1 x C/16 x H x W x 16 Clip had its
/// unit batch loop marked, and ran on one thread).
constexpr int64_t kMinTrips = 4;
size_t pickLoop(ArrayRef<Operation *> loops) {
  std::optional<size_t> several;
  for (auto [i, op] : llvm::enumerate(loops)) {
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop)
      return i;
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (!trips || trips->getSExtValue() >= kMinTrips)
      return i;
    if (trips->getSExtValue() > 1 && !several)
      several = i;
  }
  return several.value_or(0);
}

struct ParallelLinalgLoopsPass
    : mlir::onnxc::impl::ParallelLinalgLoopsBase<ParallelLinalgLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && op.getNumLoops() > 0 &&
          op.getNumParallelLoops() == op.getNumLoops() &&
          !insideParallelLoop(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops) || loops->empty())
        continue;
      (*loops)[pickLoop(*loops)]->setAttr(onnxc::kParallelAttrName,
                                          rewriter.getUnitAttr());
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
