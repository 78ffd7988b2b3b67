//===- UnshareFills.cpp - One fill per op that writes into it -------------===//
//
// onnxc-unshare-fills (tensors, right before one-shot bufferization, after
// the last CSE): CSE merges the fills of equal shapes and values (the zero
// starts of every 256 x 768 matmul of a BERT encoder) into one value. Each
// op that writes into it in place would then work on a copy of its buffer,
// since the others still read it: bufferization copies 786 KB before each
// matmul. A fill of a tensor.empty costs less than that copy (it writes
// once, reads nothing): every user that writes into it in place (an init
// of a destination-style op or of a loop) gets its own clone of the empty
// tensor and the fill, right before it (before the op of the fill's block
// that holds it); the first keeps the original where nothing reads it.
// Broadcasts into an empty tensor (the bias starts of convs: CSE merges
// those of one bias constant) are unshared alike; a conv kernel then also
// starts from its own bias and applies its Relu.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_UNSHAREFILLS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

struct UnshareFillsPass
    : mlir::onnxc::impl::UnshareFillsBase<UnshareFillsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> fills;
    getOperation().walk([&](linalg::LinalgOp fill) {
      if (isa<linalg::FillOp, linalg::BroadcastOp>(fill) &&
          fill.hasPureTensorSemantics() &&
          fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() &&
          !fill->getResult(0).hasOneUse())
        fills.push_back(fill);
    });
    OpBuilder b(&getContext());
    for (linalg::LinalgOp fill : fills) {
      auto empty = fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>();
      Block *block = fill->getBlock();
      auto at = [&](OpOperand *use) {
        return block->findAncestorOpInBlock(*use->getOwner());
      };
      // The uses that write into the fill's buffer in place: inits of
      // destination-style ops and of loops (scf.for's iter_args).
      SmallVector<OpOperand *> writers;
      bool readers = false;
      for (OpOperand &use : fill->getResult(0).getUses()) {
        Operation *user = use.getOwner();
        auto dps = dyn_cast<DestinationStyleOpInterface>(user);
        auto loop = dyn_cast<LoopLikeOpInterface>(user);
        if ((dps && dps.isDpsInit(&use)) ||
            (loop && llvm::is_contained(loop.getInitsMutable(), use)))
          writers.push_back(&use);
        else
          readers = true;
      }
      if (llvm::any_of(writers, [&](OpOperand *use) { return !at(use); }))
        continue;
      llvm::stable_sort(writers, [&](OpOperand *x, OpOperand *y) {
        Operation *ox = at(x), *oy = at(y);
        return ox != oy && ox->isBeforeInBlock(oy);
      });
      // Without readers, the first writer keeps the original.
      ArrayRef<OpOperand *> cloned(writers);
      if (!readers && !cloned.empty())
        cloned = cloned.drop_front();
      for (OpOperand *use : cloned) {
        b.setInsertionPoint(at(use));
        Operation *emptyClone = b.clone(*empty);
        IRMapping mapping;
        mapping.map(empty.getResult(), emptyClone->getResult(0));
        Operation *fillClone = b.clone(*fill.getOperation(), mapping);
        use->set(fillClone->getResult(0));
      }
    }
  }
};

} // namespace
