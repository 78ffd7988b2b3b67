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
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() < 1 || op.getNumReductionLoops() != 1)
    return false;
  unsigned inner = op.getNumLoops() - 1;
  int64_t extent = op.getStaticLoopRanges()[inner];
  if (op.getIteratorTypesArray()[inner] != utils::IteratorType::reduction ||
      (!ShapedType::isDynamic(extent) && extent < 8))
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

LogicalResult tileRows(RewriterBase &rewriter, linalg::LinalgOp op,
                       int64_t inner, StringRef marker, bool innerParallel) {
  SmallVector<OpFoldResult> sizes(op.getNumLoops(), rewriter.getIndexAttr(1));
  sizes.back() = rewriter.getIndexAttr(inner);
  rewriter.setInsertionPoint(op);
  scf::SCFTilingOptions options;
  options.setTileSizes(sizes);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return failure(); // Stays a scalar loop nest.
  rewriter.replaceOp(op, tiled->replacements);
  tiled->tiledOps.back()->setAttr(marker, rewriter.getUnitAttr());
  ArrayRef<LoopLikeOpInterface> loops = tiled->loops;
  for (LoopLikeOpInterface loop : innerParallel ? loops : loops.drop_back())
    loop->setAttr(kParallelAttrName, rewriter.getUnitAttr());
  // Peeled: the main tiles have the static size `inner`, even where the
  // dim's size is dynamic (the remainder's is then dynamic).
  if (!loops.empty()) {
    LoopLikeOpInterface last = loops.back();
    if (auto innerLoop = dyn_cast<scf::ForOp>(last.getOperation()))
      linalg::peelLoops(rewriter, {innerLoop});
  }
  return success();
}

LogicalResult tileInnerReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                                 int64_t chunk, StringRef marker) {
  int64_t extent = op.getStaticLoopRanges().back();
  // Rows are independent; the chunks of a row are not.
  return tileRows(rewriter, op,
                  ShapedType::isDynamic(extent) ? chunk
                                                : std::min(extent, chunk),
                  marker, /*innerParallel=*/false);
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
