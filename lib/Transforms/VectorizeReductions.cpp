//===- VectorizeReductions.cpp - Row reductions in vectors ----------------===//

#include "VectorizeReductions.h"

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace mlir::onnxc {

bool isInnerReduction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      op.getNumDpsInits() != 1 || op.getNumLoops() < 1 ||
      op.getNumReductionLoops() != 1)
    return false;
  unsigned inner = op.getNumLoops() - 1;
  if (!(op.getIteratorTypesArray()[inner] == utils::IteratorType::reduction) ||
      op.getStaticLoopRanges()[inner] < 8)
    return false;
  for (Value v : op->getOperands())
    if (!getElementTypeOrSelf(v.getType()).isF32())
      return false;
  AffineExpr innerExpr = getAffineDimExpr(inner, op.getContext());
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation())
      return false;
    // The reduced dim, where read, is the operand's innermost (contiguous).
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      if (map.getResult(r) == innerExpr && r + 1 != map.getNumResults())
        return false;
  }
  bool computedReads = false;
  op->walk([&](Operation *nested) {
    if (isa<tensor::ExtractOp, linalg::IndexOp>(nested))
      computedReads = true;
  });
  return !computedReads;
}

LogicalResult tileInnerReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                                 int64_t chunk, StringRef marker) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<OpFoldResult> sizes(ranges.size(), rewriter.getIndexAttr(1));
  sizes.back() = rewriter.getIndexAttr(std::min(ranges.back(), chunk));
  rewriter.setInsertionPoint(op);
  scf::SCFTilingOptions options;
  options.setTileSizes(sizes);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return failure(); // Stays a scalar loop nest.
  rewriter.replaceOp(op, tiled->replacements);
  tiled->tiledOps.back()->setAttr(marker, rewriter.getUnitAttr());
  // Rows are independent; the chunks of a row are not.
  for (LoopLikeOpInterface loop : ArrayRef(tiled->loops).drop_back())
    loop->setAttr(kParallelAttrName, rewriter.getUnitAttr());
  if (ranges.back() > chunk && ranges.back() % chunk != 0)
    if (auto chunks = dyn_cast<scf::ForOp>(tiled->loops.back().getOperation()))
      linalg::peelLoops(rewriter, {chunks});
  return success();
}

void lowerRowReductions(RewriterBase &rewriter, Operation *root) {
  SmallVector<vector::MultiDimReductionOp> rows;
  root->walk([&](vector::MultiDimReductionOp op) {
    VectorType type = op.getSourceVectorType();
    int64_t rank = type.getRank();
    if (type.isScalable() || op.isMasked() ||
        op.getReductionDims() != ArrayRef<int64_t>{rank - 1})
      return;
    if (llvm::all_of(type.getShape().drop_back(),
                     [](int64_t d) { return d == 1; }))
      rows.push_back(op);
  });
  for (vector::MultiDimReductionOp op : rows) {
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    VectorType type = op.getSourceVectorType();
    Value row = vector::ShapeCastOp::create(
        rewriter, loc,
        VectorType::get({type.getShape().back()}, type.getElementType()),
        op.getSource());
    Value acc = op.getAcc();
    auto accType = dyn_cast<VectorType>(acc.getType());
    if (accType)
      acc = vector::ExtractOp::create(
          rewriter, loc, acc, SmallVector<int64_t>(accType.getRank(), 0));
    Value sum = vector::ReductionOp::create(
        rewriter, loc, type.getElementType(), op.getKind(), row, acc,
        arith::FastMathFlags::reassoc);
    if (accType)
      sum = vector::BroadcastOp::create(rewriter, loc, accType, sum);
    rewriter.replaceOp(op, sum);
  }
}

} // namespace mlir::onnxc
