//===- ConvNCHWcPatterns.cpp - The blocked layout's helpers and patterns --===//
//
// Packing to and from N x C/16 x H x W x 16, and the patterns of
// onnxc-conv-nchwc that move unpacks down past Concats along the channels
// and elementwise ops with several blocked operands (see ConvNCHWc.h).
//
//===----------------------------------------------------------------------===//

#include "ConvNCHWc.h"

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::onnxc::nchwc;

/// `v` packed in blocks of 16 along `innerDims`; a dim that is not a
/// multiple of 16 is zero-padded to one.
Value mlir::onnxc::nchwc::packTensor(OpBuilder &b, Location loc, Value v,
                 ArrayRef<int64_t> innerDims) {
  SmallVector<OpFoldResult> tiles(innerDims.size(), b.getIndexAttr(kBlock));
  Value dest = linalg::PackOp::createDestinationTensor(b, loc, v, tiles,
                                                       innerDims, {});
  auto type = cast<ShapedType>(v.getType());
  std::optional<Value> padding;
  if (llvm::any_of(innerDims,
                   [&](int64_t d) { return type.getDimSize(d) % kBlock; }))
    padding = arith::ConstantOp::create(
        b, loc, b.getZeroAttr(type.getElementType()));
  return linalg::PackOp::create(b, loc, v, dest, innerDims, tiles, padding,
                                {})
      .getResult();
}

Value mlir::onnxc::nchwc::unpackResult(OpBuilder &b, Location loc, Value packed,
                   RankedTensorType type) {
  Value dest = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType());
  return linalg::UnPackOp::create(b, loc, packed, dest, ArrayRef<int64_t>{1},
                                  ArrayRef<OpFoldResult>{b.getIndexAttr(kBlock)},
                                  {})
      .getResult();
}

namespace {

/// The blocked source of `v` when `v` is the unpack of an N x C/16 x H x W
/// x 16 tensor along the channels, else null.
Value blockedSource(Value v) {
  auto unpack = v.getDefiningOp<linalg::UnPackOp>();
  if (!unpack || unpack.getInnerDimsPos() != ArrayRef<int64_t>{1} ||
      !unpack.getOuterDimsPerm().empty() ||
      unpack.getStaticInnerTiles() != ArrayRef<int64_t>{kBlock})
    return Value();
  return unpack.getSource();
}

/// A Concat along the channels (insert_slices into an empty tensor) of
/// unpacked blocked tensors whose channel counts are multiples of 16: the
/// insert_slices move to the blocked tensors (slices of whole channel
/// blocks), and one unpack follows.
struct BlockedConcatSlice : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    Value source = blockedSource(insert.getSource());
    RankedTensorType destType = insert.getDestType();
    if (!source || destType.getRank() != 4 || !destType.hasStaticShape() ||
        insert.getSourceType() != insert.getSource().getType() ||
        insert.getSourceType().getRank() != 4)
      return failure();
    Value dest = blockedSource(insert.getDest());
    if (!dest && !insert.getDest().getDefiningOp<tensor::EmptyOp>())
      return failure();
    ArrayRef<int64_t> offsets = insert.getStaticOffsets(),
                      sizes = insert.getStaticSizes(),
                      strides = insert.getStaticStrides();
    ArrayRef<int64_t> shape = destType.getShape();
    for (int64_t d = 0; d < 4; ++d)
      if (ShapedType::isDynamic(offsets[d]) || strides[d] != 1 ||
          (d != 1 && (offsets[d] != 0 || sizes[d] != shape[d])))
        return failure();
    if (offsets[1] % kBlock || sizes[1] % kBlock || shape[1] % kBlock)
      return failure();
    Location loc = insert.getLoc();
    if (!dest) {
      // Where the NCHW one was: before the Concat's producers.
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfter(insert.getDest().getDefiningOp());
      dest = tensor::EmptyOp::create(
          rewriter, loc,
          ArrayRef<int64_t>{shape[0], shape[1] / kBlock, shape[2], shape[3],
                            kBlock},
          destType.getElementType());
    }
    SmallVector<int64_t> packedOffsets{0, offsets[1] / kBlock, 0, 0, 0};
    SmallVector<int64_t> packedSizes{sizes[0], sizes[1] / kBlock, sizes[2],
                                     sizes[3], kBlock};
    Value blocked = tensor::InsertSliceOp::create(
        rewriter, loc, source, dest, ValueRange{}, ValueRange{}, ValueRange{},
        packedOffsets, packedSizes, SmallVector<int64_t>(5, 1));
    rewriter.replaceOp(insert, unpackResult(rewriter, loc, blocked, destType));
    return success();
  }
};

/// An elementwise op over N x C x H x W tensors at least one of which is an
/// unpacked blocked tensor (a residual Add reads two): the op runs on the
/// blocked tensors (the others packed) and its result is unpacked. MLIR's
/// PushDownUnPackOpThroughGenericOp takes one unpacked operand only.
struct BlockedElementwise : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInits() != 1 || op.getNumLoops() != 4 ||
        op.getNumParallelLoops() != 4 || op->hasAttr(onnxc::kUkernelAttrName))
      return failure();
    auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    if (!type || !type.hasStaticShape() || type.getDimSize(1) % kBlock)
      return failure();
    bool anyBlocked = false;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (map.getNumResults() == 0)
        continue;
      if (!map.isIdentity() || input->get().getType() != type)
        return failure();
      anyBlocked |= bool(blockedSource(input->get()));
    }
    if (!anyBlocked || !op.getMatchingIndexingMap(op.getDpsInitOperand(0))
                            .isIdentity())
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(5, ctx);
    AffineMap scalar = AffineMap::get(5, 0, {}, ctx);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (op.getMatchingIndexingMap(input).getNumResults() == 0) {
        inputs.push_back(input->get());
        maps.push_back(scalar);
        continue;
      }
      Value blocked = blockedSource(input->get());
      inputs.push_back(blocked ? blocked
                               : packTensor(rewriter, loc, input->get(), {1}));
      maps.push_back(identity);
    }
    maps.push_back(identity);
    auto blockedType = cast<RankedTensorType>(inputs.front().getType());
    for (Value v : inputs)
      if (cast<ShapedType>(v.getType()).getRank() == 5)
        blockedType = cast<RankedTensorType>(v.getType());
    Value init = tensor::EmptyOp::create(rewriter, loc, blockedType.getShape(),
                                         type.getElementType());
    auto blocked = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
        maps, SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel));
    rewriter.inlineRegionBefore(op.getRegion(), blocked.getRegion(),
                                blocked.getRegion().begin());
    // Loop indices in the body (an AveragePool's count at the borders):
    // n, h and w keep their loops; the channel is block * 16 + lane.
    for (linalg::IndexOp index : llvm::make_early_inc_range(
             blocked.getRegion().front().getOps<linalg::IndexOp>())) {
      if (index.getDim() != 1)
        continue;
      rewriter.setInsertionPoint(index);
      Value block = linalg::IndexOp::create(rewriter, index.getLoc(), 1);
      Value lane = linalg::IndexOp::create(rewriter, index.getLoc(), 4);
      Value base = arith::MulIOp::create(
          rewriter, index.getLoc(), block,
          arith::ConstantIndexOp::create(rewriter, index.getLoc(), kBlock));
      rewriter.replaceOp(index, arith::AddIOp::create(rewriter, index.getLoc(),
                                                      base, lane)
                                    .getResult());
    }
    rewriter.setInsertionPointAfter(blocked);
    rewriter.replaceOp(op, unpackResult(rewriter, loc, blocked.getResult(0),
                                        type));
    return success();
  }
};

} // namespace

/// Whether `op` is an elementwise generic (all loops parallel, every map a
/// projected permutation) that is not a kernel call.
bool mlir::onnxc::nchwc::isPlainElementwise(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic->hasAttr(onnxc::kUkernelAttrName))
    return false;
  return generic.getNumLoops() == generic.getNumParallelLoops() &&
         llvm::all_of(generic.getIndexingMapsArray(), [](AffineMap map) {
           return map.isProjectedPermutation();
         });
}

/// The bounds [lo, hi] when `op` clamps its one input (identity maps):
/// max(x, lo) (a Relu: hi = inf), or max then min (a Clip), either way round.
std::optional<std::pair<APFloat, APFloat>>
mlir::onnxc::nchwc::clampBounds(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      !isPlainElementwise(op) ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return std::nullopt;
  Block &body = op.getRegion().front();
  APFloat lo = APFloat::getInf(APFloat::IEEEsingle(), /*Negative=*/true);
  APFloat hi = APFloat::getInf(APFloat::IEEEsingle());
  Value x = body.getArgument(0);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value v = yield.getValues()[0];
  bool seenMax = false, seenMin = false;
  // Walk back from the yielded value to x: at most one max and one min,
  // each of the running value and a constant.
  while (v != x) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &body || def->getNumOperands() != 2)
      return std::nullopt;
    Value a = def->getOperand(0), b = def->getOperand(1);
    APFloat c(0.0f);
    Value next;
    if (matchPattern(b, m_ConstantFloat(&c)))
      next = a;
    else if (matchPattern(a, m_ConstantFloat(&c)))
      next = b;
    else
      return std::nullopt;
    if (isa<arith::MaximumFOp>(def) && !seenMax) {
      lo = c;
      seenMax = true;
    } else if (isa<arith::MinimumFOp>(def) && !seenMin) {
      hi = c;
      seenMin = true;
    } else {
      return std::nullopt;
    }
    v = next;
  }
  // max(min(x, hi), lo) is the clamp only for lo <= hi.
  if (!seenMax && !seenMin)
    return std::nullopt;
  if (hi.compare(lo) == APFloat::cmpLessThan)
    return std::nullopt;
  if (body.getOperations().size() != 1 + unsigned(seenMax) + unsigned(seenMin))
    return std::nullopt;
  return std::make_pair(lo, hi);
}

void mlir::onnxc::nchwc::populateBlockedLayoutPatterns(
    RewritePatternSet &patterns) {
  patterns.add<BlockedConcatSlice>(patterns.getContext());
  patterns.add<BlockedElementwise>(patterns.getContext(), /*benefit=*/2);
}
