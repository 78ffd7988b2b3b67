//===- WriteIntoPads.cpp - Padded tensors without a copy of the interior --===//
//
// tensor.pad %x low[...] high[...] with a constant padding value becomes
//   - a new tensor (bufferization.alloc_tensor) of the padded shape whose
//     borders (only) are filled,
//     one fill per side of each padded dim;
//   - an insert_slice of %x into the interior.
// Where %x (or the value %x collapses) is the only result of a linalg op
// that writes its init without reading it (an elementwise op, a fill) and
// whose init is a tensor.empty, that op's init becomes the interior slice
// of the padded tensor (expanded back to its shape), so that after bufferization it writes straight into the
// padded buffer and the insert_slice is a no-op. (This is what MLIR's
// empty-tensor elimination does, restricted to pads: its analysis of the
// whole function took minutes on dynamic shapes.)
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_WRITEINTOPADS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

/// An op whose result can be computed in place in a slice of another
/// tensor: `produced` is the only result of a linalg op in the block of
/// `user`, used only by `user` or by a collapse_shape that only `user` uses
/// (with other users, reading the result from a strided slice costs copies
/// of its own), and the op's
/// init is a tensor.empty that its body does not read, or a fill of one
/// (which then fills the slice).
struct WritableProducer {
  Value produced;
  tensor::CollapseShapeOp collapse; // Between the op and `user`, or null.
  OpOperand *init = nullptr;
  linalg::FillOp fill; // The init's fill of an empty tensor, or null.
  Operation *op() const { return produced.getDefiningOp(); }
};

std::optional<WritableProducer> findWritableProducer(Value source,
                                                     Operation *user) {
  WritableProducer p;
  p.produced = source;
  p.collapse = source.getDefiningOp<tensor::CollapseShapeOp>();
  if (p.collapse) {
    if (!p.collapse->hasOneUse())
      return std::nullopt;
    p.produced = p.collapse.getSrc();
  }
  Operation *producer = p.produced.getDefiningOp();
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(producer);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
      producer->getNumResults() != 1 || linalgOp.getNumDpsInits() != 1 ||
      producer->getBlock() != user->getBlock() || !p.produced.hasOneUse())
    return std::nullopt;
  p.init = linalgOp.getDpsInitOperand(0);
  // (The empty tensor may have other users: CSE merges the empty tensors
  // of one shape. Its contents are undefined, so this use can go.)
  if (p.init->get().getDefiningOp<tensor::EmptyOp>() &&
      !linalgOp.payloadUsesValueFromOperand(p.init))
    return p;
  // An init that is a fill of an empty tensor (a reduction's start, as in
  // pooling): the fill moves to the slice.
  auto fill = p.init->get().getDefiningOp<linalg::FillOp>();
  if (fill && fill->hasOneUse() &&
      fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()) {
    p.fill = fill;
    return p;
  }
  return std::nullopt;
}

/// Makes `p`'s op write into the slice of `dest` that an insert_slice with
/// these offsets, sizes and strides will overwrite (`dest` dominates it).
void writeInto(RewriterBase &rewriter, WritableProducer p, Value dest,
               ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
               ArrayRef<OpFoldResult> strides, RankedTensorType sliceType) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(p.op());
  Location loc = p.op()->getLoc();
  Value slice = tensor::ExtractSliceOp::create(rewriter, loc, sliceType, dest,
                                               offsets, sizes, strides);
  if (p.collapse)
    slice = tensor::ExpandShapeOp::create(
        rewriter, loc, p.produced.getType(), slice,
        p.collapse.getReassociationIndices());
  if (p.fill) {
    // (The fill's value dominates the fill, which comes before the op.)
    slice = linalg::FillOp::create(rewriter, loc, p.fill.getInputs()[0], slice)
                .getResult(0);
    rewriter.modifyOpInPlace(p.op(), [&] { p.init->set(slice); });
    rewriter.eraseOp(p.fill);
    return;
  }
  rewriter.modifyOpInPlace(p.op(), [&] { p.init->set(slice); });
}

LogicalResult rewritePad(RewriterBase &rewriter, DominanceInfo &dominance,
                         tensor::PadOp pad) {
  RankedTensorType type = pad.getResultType();
  RankedTensorType sourceType = pad.getSourceType();
  Value value = pad.getConstantPaddingValue();
  if (!type.hasStaticShape() || !sourceType.hasStaticShape() || !value)
    return failure();
  SmallVector<int64_t> low(pad.getStaticLow());
  if (llvm::any_of(low, ShapedType::isDynamic))
    return failure();
  ArrayRef<int64_t> shape = type.getShape();
  ArrayRef<int64_t> inner = sourceType.getShape();

  // The padded value, or the value whose collapse_shape is padded (a 1x1
  // convolution's input, flattened), may be written in place.
  std::optional<WritableProducer> producer =
      findWritableProducer(pad.getSource(), pad);
  if (producer && !dominance.properlyDominates(value, producer->op()))
    producer.reset();
  Location loc = pad.getLoc();
  rewriter.setInsertionPoint(producer ? producer->op() : pad.getOperation());
  // An alloc_tensor, not a tensor.empty: CSE would merge the empty
  // tensors of one shape, then the identical border fills of two pads, and
  // bufferization would copy the one buffer they then share.
  Value padded = bufferization::AllocTensorOp::create(rewriter, loc, type,
                                                      ValueRange());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> ones(rank, rewriter.getIndexAttr(1));
  // Dim d's two sides: dims before d span the interior, dims after it
  // their whole extent; together the sides cover every border element once.
  for (int64_t d = 0; d < rank; ++d) {
    int64_t high = shape[d] - low[d] - inner[d];
    for (auto [offset, size] : {std::pair<int64_t, int64_t>{0, low[d]},
                                {low[d] + inner[d], high}}) {
      if (size == 0)
        continue;
      SmallVector<int64_t> offsets, sizes;
      for (int64_t i = 0; i < rank; ++i) {
        offsets.push_back(i < d ? low[i] : i == d ? offset : 0);
        sizes.push_back(i < d ? inner[i] : i == d ? size : shape[i]);
      }
      if (llvm::is_contained(sizes, 0))
        continue;
      SmallVector<OpFoldResult> o = getAsIndexOpFoldResult(
          rewriter.getContext(), offsets);
      SmallVector<OpFoldResult> s = getAsIndexOpFoldResult(
          rewriter.getContext(), sizes);
      // A slice of the padded tensor itself, so that the fill bufferizes
      // in place.
      Value side = tensor::ExtractSliceOp::create(
          rewriter, loc,
          RankedTensorType::get(sizes, type.getElementType()), padded, o, s,
          ones);
      Value filled =
          linalg::FillOp::create(rewriter, loc, value, side).getResult(0);
      padded = tensor::InsertSliceOp::create(rewriter, loc, filled, padded, o,
                                             s, ones);
    }
  }
  SmallVector<OpFoldResult> interiorOffsets =
      getAsIndexOpFoldResult(rewriter.getContext(), low);
  SmallVector<OpFoldResult> interiorSizes =
      getAsIndexOpFoldResult(rewriter.getContext(), inner);
  if (producer)
    writeInto(rewriter, *producer, padded, interiorOffsets, interiorSizes,
              ones, sourceType);
  rewriter.setInsertionPoint(pad);
  rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
      pad, pad.getSource(), padded, interiorOffsets, interiorSizes, ones);
  return success();
}

/// An insert_slice into a tensor that dominates the inserted value's
/// producer (a slab of an im2col tensor, a Concat's part): the producer
/// writes into the slice.
void rewriteInsert(RewriterBase &rewriter, DominanceInfo &dominance,
                   tensor::InsertSliceOp insert) {
  Value dest = insert.getDest();
  std::optional<WritableProducer> producer =
      findWritableProducer(insert.getSource(), insert);
  if (!producer || !dest.hasOneUse() || !insert.hasUnitStride())
    return;
  // A Concat's chain of inserts into an empty tensor, each after all of
  // the Concat's producers: the empty tensor, or the insert before, moves
  // up to the producer when its operands allow.
  Operation *destOp = dest.getDefiningOp();
  if (!dominance.properlyDominates(dest, producer->op())) {
    if (!isa_and_nonnull<tensor::EmptyOp, tensor::InsertSliceOp>(destOp) ||
        destOp->getBlock() != producer->op()->getBlock() ||
        !llvm::all_of(destOp->getOperands(), [&](Value v) {
          return dominance.properlyDominates(v, producer->op());
        }))
      return;
    destOp->moveBefore(producer->op());
  }
  // (A rank-reducing insert has its rank-reducing extract_slice.)
  writeInto(rewriter, *producer, dest, insert.getMixedOffsets(),
            insert.getMixedSizes(), insert.getMixedStrides(),
            insert.getSourceType());
}

struct WriteIntoPadsPass
    : mlir::onnxc::impl::WriteIntoPadsBase<WriteIntoPadsPass> {
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    IRRewriter rewriter(&getContext());
    DominanceInfo dominance(getOperation());
    for (tensor::PadOp pad : pads)
      (void)rewritePad(rewriter, dominance, pad);
    SmallVector<tensor::InsertSliceOp> inserts;
    getOperation().walk(
        [&](tensor::InsertSliceOp insert) { inserts.push_back(insert); });
    DominanceInfo updated(getOperation());
    for (tensor::InsertSliceOp insert : inserts)
      rewriteInsert(rewriter, updated, insert);
  }
};

} // namespace
