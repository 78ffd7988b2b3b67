//===- Simplify.cpp - The onnx-simplify pass ------------------------------===//
//
// Canonicalisation of onnx graphs as exporters write them: no-ops removed,
// transpose and reshape chains merged, Mul/Add by weights after a Conv or
// Gemm moved into its weights (so the lowering writes one loop nest), and
// QLinearMatMul decomposed into MatMulInteger and a requantization;
// Optional{Has,Get}Element folded where the input's kind decides them; an
// If on a constant condition replaced by its taken branch.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/GraphUtils.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_ONNXSIMPLIFY
#include "onnxc/Dialect/ONNX/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// Replaces `op`'s single result by `v`. A value of another type (a more or
/// less refined shape) may only flow into onnx ops: a terminator keeps the
/// type its region or function declares.
LogicalResult replaceWith(PatternRewriter &rewriter, Operation *op, Value v) {
  Value result = op->getResult(0);
  if (v.getType() != result.getType())
    for (Operation *user : result.getUsers())
      if (!isa<ONNXDialect>(user->getDialect()))
        return rewriter.notifyMatchFailure(op, "a user needs the type");
  rewriter.replaceAllUsesWith(result, v);
  rewriter.eraseOp(op);
  return success();
}

struct RemoveIdentity : OpRewritePattern<ONNXIdentityOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ONNXIdentityOp op,
                                PatternRewriter &rewriter) const override {
    return replaceWith(rewriter, op, op.getInput());
  }
};

/// Dropout without training (no training_mode, or a constant false) is the
/// identity on its data; its mask, all true, must be unused.
struct RemoveInferenceDropout : OpRewritePattern<ONNXDropoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ONNXDropoutOp op,
                                PatternRewriter &rewriter) const override {
    if (Value training = op.getTrainingMode()) {
      DenseElementsAttr mode;
      if (!matchPattern(training, m_Constant(&mode)) || !mode.isSplat() ||
          mode.getSplatValue<bool>())
        return rewriter.notifyMatchFailure(op, "training mode");
    }
    if (op->getNumResults() > 1 && !op->getResult(1).use_empty())
      return rewriter.notifyMatchFailure(op, "the mask is used");
    if (op.getData().getType() != op.getOutput().getType())
      return failure();
    rewriter.replaceAllUsesWith(op.getOutput(), op.getData());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Cast or Expand to the type its input already has.
template <typename OpTy> struct RemoveSameType : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value input = op->getOperand(0);
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || !type.hasStaticShape() ||
        type != op->getResult(0).getType())
      return failure();
    return replaceWith(rewriter, op, input);
  }
};

bool isIdentityPerm(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (int64_t(i) != p)
      return false;
  return true;
}

/// Transpose by the identity is a no-op; a Transpose of a Transpose is one
/// Transpose by the composed permutation.
struct SimplifyTranspose : OpRewritePattern<ONNXTransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ONNXTransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getData().getType());
    if (!type)
      return failure();
    SmallVector<int64_t> perm = getTransposePermutation(op, type.getRank());
    if (int64_t(perm.size()) != type.getRank())
      return failure();
    if (isIdentityPerm(perm))
      return replaceWith(rewriter, op, op.getData());
    auto inner = op.getData().getDefiningOp<ONNXTransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> innerPerm = getTransposePermutation(inner, type.getRank());
    SmallVector<int64_t> composed;
    for (int64_t p : perm) {
      if (p < 0 || p >= int64_t(innerPerm.size()))
        return failure();
      composed.push_back(innerPerm[p]);
    }
    if (isIdentityPerm(composed))
      return replaceWith(rewriter, op, inner.getData());
    rewriter.replaceOpWithNewOp<ONNXTransposeOp>(
        op, TypeRange{op.getType()}, ValueRange{inner.getData()},
        ArrayRef<NamedAttribute>{
            rewriter.getNamedAttr("perm", rewriter.getI64ArrayAttr(composed))});
    return success();
  }
};

bool isReshapeLike(Operation *op) {
  return op && isa<ONNXReshapeOp, ONNXFlattenOp, ONNXSqueezeOp,
                   ONNXUnsqueezeOp>(op);
}

/// Reshape, Flatten, Squeeze and Unsqueeze only change the shape: one to
/// the static type of its input is a no-op, and one of another reads that
/// one's input when its target shape does not depend on its input's shape.
template <typename OpTy> struct SimplifyReshapeLike : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value input = op->getOperand(0);
    auto inType = dyn_cast<RankedTensorType>(input.getType());
    auto outType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (inType && inType.hasStaticShape() && inType == outType)
      return replaceWith(rewriter, op, input);
    Operation *inner = input.getDefiningOp();
    if (!isReshapeLike(inner))
      return failure();
    Value shape;
    bool allowZero = false;
    if (outType && outType.hasStaticShape()) {
      shape = createONNXShapeConstant(rewriter, op.getLoc(),
                                      outType.getShape());
      allowZero = llvm::is_contained(outType.getShape(), 0);
    } else if (auto reshape = dyn_cast<ONNXReshapeOp>(op.getOperation())) {
      DenseIntElementsAttr spec;
      allowZero = reshape.getAllowzero() != 0;
      if (!matchPattern(reshape.getShape(), m_Constant(&spec)))
        return failure();
      for (const APInt &d : spec.getValues<APInt>())
        if (d.isZero() && !allowZero)
          return rewriter.notifyMatchFailure(op, "copies a dim of its input");
      shape = reshape.getShape();
    } else {
      return failure();
    }
    rewriter.replaceOpWithNewOp<ONNXReshapeOp>(
        op, TypeRange{op->getResult(0).getType()},
        ValueRange{inner->getOperand(0), shape},
        ArrayRef<NamedAttribute>{rewriter.getNamedAttr(
            "allowzero", rewriter.getI64IntegerAttr(allowZero))});
    return success();
  }
};

/// The length along the channel dim (dim 1) of a weight `c` that, broadcast
/// against a Conv result of type `y`, gives one value per output channel
/// (the channel count) or one value in all (1); nullopt otherwise.
std::optional<int64_t> channelLength(Value c, RankedTensorType y) {
  auto t = dyn_cast<RankedTensorType>(c.getType());
  if (!t || !t.hasStaticShape() || t.getRank() > y.getRank() ||
      t.getElementType() != y.getElementType() || y.isDynamicDim(1))
    return std::nullopt;
  int64_t offset = y.getRank() - t.getRank(), length = 1;
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if (t.getDimSize(d) == 1)
      continue;
    if (offset + d != 1 || t.getDimSize(d) != y.getDimSize(1))
      return std::nullopt;
    length = t.getDimSize(d);
  }
  return length;
}

/// The operand of a binary op that is the only use of a `ProducerOp`'s
/// result, and the other operand; null when neither is.
template <typename ProducerOp>
std::pair<ProducerOp, Value> producerAndOther(Operation *binary) {
  for (int i = 0; i < 2; ++i) {
    auto producer = binary->getOperand(i).getDefiningOp<ProducerOp>();
    if (producer && producer->getResult(0).hasOneUse() &&
        producer->getResult(0).getType() == binary->getResult(0).getType())
      return {producer, binary->getOperand(1 - i)};
  }
  return {nullptr, nullptr};
}

/// Conv then Mul (or Add) by a weight with one value per output channel:
/// the Conv's filter rows and bias are scaled (or its bias shifted).
template <typename BinaryOp, bool IsMul>
struct FoldIntoConv : OpRewritePattern<BinaryOp> {
  using OpRewritePattern<BinaryOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rewriter) const override {
    auto [conv, c] = producerAndOther<ONNXConvOp>(op);
    if (!conv)
      return failure();
    auto yType = dyn_cast<RankedTensorType>(conv.getY().getType());
    auto wType = dyn_cast<RankedTensorType>(conv.getW().getType());
    if (!yType || !wType || wType.isDynamicDim(0))
      return failure();
    std::optional<int64_t> length = channelLength(c, yType);
    Value bias = conv.getB();
    if (!length || !isWeightOnly(c) || (bias && !isWeightOnly(bias)) ||
        (IsMul && !isWeightOnly(conv.getW())))
      return rewriter.notifyMatchFailure(op, "not per-channel weights");
    Location loc = rewriter.getFusedLoc({conv.getLoc(), op.getLoc()});
    Type et = yType.getElementType();
    int64_t channels = wType.getDimSize(0);
    auto vecType = [&](int64_t n) { return RankedTensorType::get({n}, et); };
    Value cVec = ONNXReshapeOp::create(
        rewriter, loc, TypeRange{vecType(*length)},
        ValueRange{c, createONNXShapeConstant(rewriter, loc, {*length})},
        ArrayRef<NamedAttribute>{});
    Value w = conv.getW();
    if (IsMul) {
      SmallVector<int64_t> column(wType.getRank(), 1);
      column[0] = *length;
      Value cColumn = ONNXReshapeOp::create(
          rewriter, loc, TypeRange{RankedTensorType::get(column, et)},
          ValueRange{c, createONNXShapeConstant(rewriter, loc, column)},
          ArrayRef<NamedAttribute>{});
      w = ONNXMulOp::create(rewriter, loc, wType, w, cColumn);
      if (bias)
        bias = ONNXMulOp::create(rewriter, loc, bias.getType(), bias, cVec);
    } else if (bias) {
      bias = ONNXAddOp::create(rewriter, loc, bias.getType(), bias, cVec);
    } else {
      bias = *length == channels
                 ? cVec
                 : ONNXExpandOp::create(
                       rewriter, loc, TypeRange{vecType(channels)},
                       ValueRange{cVec, createONNXShapeConstant(rewriter, loc,
                                                                {channels})},
                       ArrayRef<NamedAttribute>{})
                       .getResult();
    }
    SmallVector<Value> operands = {conv.getX(), w};
    if (bias)
      operands.push_back(bias);
    auto folded = ONNXConvOp::create(rewriter, loc, TypeRange{yType}, operands,
                                     conv->getAttrs());
    replaceFusedPair(rewriter, op, conv, folded);
    return success();
  }
};

/// Gemm then Mul by a constant scalar: alpha and beta scaled.
struct FoldScaleIntoGemm : OpRewritePattern<ONNXMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ONNXMulOp op,
                                PatternRewriter &rewriter) const override {
    auto [gemm, c] = producerAndOther<ONNXGemmOp>(op);
    DenseFPElementsAttr value;
    if (!gemm || !matchPattern(c, m_Constant(&value)) ||
        value.getNumElements() != 1 ||
        cast<ShapedType>(c.getType()).getRank() > 2)
      return failure();
    double scale = (*value.value_begin<APFloat>()).convertToDouble();
    NamedAttrList attrs(gemm->getAttrs());
    attrs.set("alpha", rewriter.getF32FloatAttr(
                           gemm.getAlpha().convertToDouble() * scale));
    attrs.set("beta", rewriter.getF32FloatAttr(
                          gemm.getBeta().convertToDouble() * scale));
    auto folded = ONNXGemmOp::create(
        rewriter, rewriter.getFusedLoc({gemm.getLoc(), op.getLoc()}),
        TypeRange{op.getType()}, gemm->getOperands(), attrs.getAttrs());
    replaceFusedPair(rewriter, op, gemm, folded);
    return success();
  }
};

/// Gemm without C then Add of a weight (rank <= 2, broadcasting to the
/// Gemm's result): the weight becomes C, with beta 1.
struct FoldBiasIntoGemm : OpRewritePattern<ONNXAddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ONNXAddOp op,
                                PatternRewriter &rewriter) const override {
    auto [gemm, c] = producerAndOther<ONNXGemmOp>(op);
    auto cType = c ? dyn_cast<RankedTensorType>(c.getType()) : nullptr;
    if (!gemm || gemm.getC() || !cType || cType.getRank() > 2 ||
        cType.getElementType() != op.getType().getElementType() ||
        !isWeightOnly(c))
      return failure();
    NamedAttrList attrs(gemm->getAttrs());
    attrs.set("beta", rewriter.getF32FloatAttr(1.0f));
    auto folded = ONNXGemmOp::create(
        rewriter, rewriter.getFusedLoc({gemm.getLoc(), op.getLoc()}),
        TypeRange{op.getType()}, ValueRange{gemm.getA(), gemm.getB(), c},
        attrs.getAttrs());
    replaceFusedPair(rewriter, op, gemm, folded);
    return success();
  }
};

/// QLinearMatMul as the integer product and a requantization:
///   acc = MatMulInteger(a, b, a_zero_point, b_zero_point)   (int32)
///   y = QuantizeLinear(float(acc) * (a_scale * b_scale), y_scale, y_zp)
/// the int32 accumulation ONNX specifies, rounded and saturated by
/// QuantizeLinear. Per-tensor scales, or a per-column (1-D) b_scale/y_scale.
struct DecomposeQLinearMatMul : OpRewritePattern<ONNXQLinearMatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ONNXQLinearMatMulOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getY().getType());
    auto rankOf = [](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t ? t.getRank() : int64_t(-1);
    };
    auto numElements = [](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.hasStaticShape() ? t.getNumElements() : int64_t(-1);
    };
    if (!resultType || resultType.getRank() < 1 ||
        numElements(op.getAScale()) != 1 ||
        numElements(op.getAZeroPoint()) != 1 ||
        rankOf(op.getBScale()) > 1 || rankOf(op.getYScale()) > 1 ||
        rankOf(op.getBScale()) < 0 || rankOf(op.getYScale()) < 0)
      return rewriter.notifyMatchFailure(op, "needs per-tensor a, 1-D scales");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type f32 = rewriter.getF32Type();
    auto acc = ONNXMatMulIntegerOp::create(
        rewriter, loc, resultType.clone(rewriter.getIntegerType(32)),
        ValueRange{op.getA(), op.getB(), op.getAZeroPoint(),
                   op.getBZeroPoint()},
        ArrayRef<NamedAttribute>{rewriter.getNamedAttr(
            "operandSegmentSizes",
            rewriter.getDenseI32ArrayAttr({1, 1, 1, 1}))});
    auto toF32 = [&](Value v) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getElementType().isF32())
        return v;
      return ONNXCastOp::create(
          rewriter, loc, TypeRange{t.clone(f32)}, ValueRange{v},
          ArrayRef<NamedAttribute>{rewriter.getNamedAttr(
              "to", rewriter.getI64IntegerAttr(1))});
    };
    Value accF = toF32(acc);
    Value sa = toF32(op.getAScale()), sb = toF32(op.getBScale());
    auto sbType = cast<RankedTensorType>(sb.getType());
    Value scale = ONNXMulOp::create(
        rewriter, loc, TypeRange{sbType}, ValueRange{sa, sb},
        ArrayRef<NamedAttribute>{});
    Value x = ONNXMulOp::create(rewriter, loc,
                                TypeRange{resultType.clone(f32)},
                                ValueRange{accF, scale},
                                ArrayRef<NamedAttribute>{});
    // A 1-D y_scale/y_zero_point is per column: the last axis.
    SmallVector<NamedAttribute> qAttrs;
    if (rankOf(op.getYScale()) == 1)
      qAttrs.push_back(rewriter.getNamedAttr(
          "axis", IntegerAttr::get(IntegerType::get(ctx, 64), -1)));
    Value y = ONNXQuantizeLinearOp::create(
        rewriter, loc, TypeRange{resultType},
        ValueRange{x, op.getYScale(), op.getYZeroPoint()}, qAttrs);
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// OptionalHasElement where the input says: none (18: the input left out)
/// or an empty onnx.Optional is false; a plain tensor or sequence (18), or
/// an onnx.Optional of a value, is true.
struct FoldOptionalHasElement : OpRewritePattern<ONNXOptionalHasElementOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ONNXOptionalHasElementOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!resultType || resultType.getNumElements() != 1)
      return failure();
    Value in = op.getInput();
    std::optional<bool> has;
    if (!in)
      has = false;
    else if (!isa<OptType>(in.getType()))
      has = true;
    else if (auto opt = in.getDefiningOp<ONNXOptionalOp>())
      has = opt.getInput() != nullptr;
    if (!has)
      return failure();
    Value cst = createONNXConstant(
        rewriter, op.getLoc(), DenseElementsAttr::get(resultType, *has));
    rewriter.replaceOp(op, cst);
    return success();
  }
};

/// OptionalGetElement of a plain tensor or sequence (18), or of an
/// onnx.Optional of a value: that value.
struct FoldOptionalGetElement : OpRewritePattern<ONNXOptionalGetElementOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ONNXOptionalGetElementOp op,
                                PatternRewriter &rewriter) const override {
    Value in = op.getInput();
    Value value;
    if (!isa<OptType>(in.getType()))
      value = in;
    else if (auto opt = in.getDefiningOp<ONNXOptionalOp>())
      value = opt.getInput();
    if (!value)
      return failure();
    return replaceWith(rewriter, op, value);
  }
};

/// An If whose condition is a constant: the taken branch's ops move in
/// front of it and its yielded values replace the If's results (exporters
/// branch on static shapes, e.g. AffineGrid's 2-D/3-D cases).
struct InlineConstantIf : OpRewritePattern<ONNXIfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ONNXIfOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr cond;
    if (!matchPattern(op.getCond(), m_Constant(&cond)) ||
        cond.getNumElements() != 1 || !cond.getElementType().isInteger(1))
      return failure();
    Region &taken = cond.getSplatValue<bool>() ? op.getThenBranch()
                                                : op.getElseBranch();
    if (!taken.hasOneBlock() || taken.front().getNumArguments() != 0)
      return failure();
    Operation *yield = taken.front().getTerminator();
    if (!isa<ONNXYieldOp>(yield) ||
        yield->getNumOperands() != op->getNumResults())
      return failure();
    // A value of another type flows into onnx ops as it is; other users
    // (a return) get a tensor.cast to the If's type, which must be
    // compatible (the same rank, no conflicting static dims).
    for (auto [result, value] :
         llvm::zip(op->getResults(), yield->getOperands()))
      if (result.getType() != value.getType() &&
          llvm::any_of(result.getUsers(), [](Operation *user) {
            return !isa<ONNXDialect>(user->getDialect());
          }) &&
          !tensor::CastOp::areCastCompatible(value.getType(),
                                             result.getType()))
        return failure();
    SmallVector<Value> values(yield->getOperands());
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&taken.front(), op);
    for (auto [result, value] : llvm::zip(op->getResults(), values)) {
      if (result.getType() == value.getType())
        continue;
      if (llvm::all_of(result.getUsers(), [](Operation *user) {
            return isa<ONNXDialect>(user->getDialect());
          }))
        continue;
      value = tensor::CastOp::create(rewriter, op.getLoc(), result.getType(),
                                     value);
    }
    rewriter.replaceOp(op, values);
    return success();
  }
};

/// An If whose branches yield tensors of different ranks (a scalar in one,
/// a [1] in the other: ONNX functions such as AffineGrid's) has no ranked
/// type. When every use reads the result only through numpy broadcasting
/// against an operand of at least the larger rank, or only for its element
/// type (CastLike's target), leading unit dims do not change what the uses
/// compute: the lower-rank yields get them (Unsqueeze), and the If a rank.
struct UnifyIfBranchRanks : OpRewritePattern<ONNXIfOp> {
  using OpRewritePattern::OpRewritePattern;

  static bool usesIgnoreLeadingUnitDims(Value result, int64_t rank) {
    for (OpOperand &use : result.getUses()) {
      Operation *user = use.getOwner();
      if (isa<ONNXCastLikeOp>(user) && use.getOperandNumber() == 1)
        continue;
      if (!isa<ONNXAddOp, ONNXSubOp, ONNXMulOp, ONNXDivOp, ONNXPowOp, ONNXMaxOp,
               ONNXMinOp, ONNXSumOp, ONNXMeanOp, ONNXEqualOp, ONNXLessOp,
               ONNXLessOrEqualOp, ONNXGreaterOp, ONNXGreaterOrEqualOp,
               ONNXAndOp, ONNXOrOp, ONNXXorOp, ONNXWhereOp>(user))
        return false;
      bool wider = llvm::any_of(user->getOpOperands(), [&](OpOperand &o) {
        auto t = dyn_cast<RankedTensorType>(o.get().getType());
        return &o != &use && o.get() != result && t && t.getRank() >= rank;
      });
      if (!wider)
        return false;
    }
    return true;
  }

  LogicalResult matchAndRewrite(ONNXIfOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Operation *> yields;
    for (Region &r : op->getRegions()) {
      if (!r.hasOneBlock())
        return failure();
      yields.push_back(r.front().getTerminator());
    }
    bool changed = false;
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      Value result = op->getResult(i);
      if (isa<RankedTensorType>(result.getType()))
        continue;
      int64_t maxRank = -1, minRank = INT64_MAX;
      for (Operation *y : yields) {
        auto t = dyn_cast<RankedTensorType>(y->getOperand(i).getType());
        if (!t)
          return failure();
        maxRank = std::max(maxRank, t.getRank());
        minRank = std::min(minRank, t.getRank());
      }
      if (minRank == maxRank || !usesIgnoreLeadingUnitDims(result, maxRank))
        continue;
      for (Operation *y : yields) {
        Value v = y->getOperand(i);
        auto t = cast<RankedTensorType>(v.getType());
        int64_t extra = maxRank - t.getRank();
        if (extra == 0)
          continue;
        rewriter.setInsertionPoint(y);
        Value axesValue = createONNXShapeConstant(
            rewriter, y->getLoc(),
            llvm::to_vector(llvm::seq<int64_t>(0, extra)));
        SmallVector<int64_t> shape(extra, 1);
        shape.append(t.getShape().begin(), t.getShape().end());
        Value wide = ONNXUnsqueezeOp::create(
            rewriter, y->getLoc(),
            RankedTensorType::get(shape, t.getElementType()), v, axesValue);
        rewriter.modifyOpInPlace(y, [&] { y->setOperand(i, wide); });
      }
      changed = true;
    }
    return success(changed);
  }
};

/// Whether some result of `op` has branches that yield different ranks
/// (and so no ranked type).
static bool hasBranchRankMismatch(ONNXIfOp op) {
  for (unsigned i = 0; i < op->getNumResults(); ++i) {
    if (isa<RankedTensorType>(op->getResult(i).getType()))
      continue;
    SmallVector<int64_t> ranks;
    for (Region &r : op->getRegions()) {
      if (!r.hasOneBlock())
        return false;
      auto t = dyn_cast<RankedTensorType>(
          r.front().getTerminator()->getOperand(i).getType());
      if (!t)
        return false;
      ranks.push_back(t.getRank());
    }
    if (llvm::any_of(ranks, [&](int64_t r) { return r != ranks.front(); }))
      return true;
  }
  return false;
}

/// An If whose branches yield different ranks, used where the rank matters
/// (UnifyIfBranchRanks declined): the rest of its block is cloned into both
/// branches, so that each branch computes it with its own static rank, and
/// the block's terminator (the function's return, or an enclosing region's
/// yield) takes the If's new results. Only when the rest is at most 256 ops
/// (the code is duplicated).
struct SinkContinuationIntoIf : OpRewritePattern<ONNXIfOp> {
  SinkContinuationIntoIf(MLIRContext *ctx)
      : OpRewritePattern<ONNXIfOp>(ctx, /*benefit=*/0) {}

  LogicalResult matchAndRewrite(ONNXIfOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasBranchRankMismatch(op))
      return failure();
    Block *block = op->getBlock();
    Operation *term = block->getTerminator();
    if (!isa<func::ReturnOp, ONNXYieldOp>(term) || term == op)
      return failure();
    SmallVector<Operation *> tail;
    for (Operation *o = op->getNextNode(); o != term; o = o->getNextNode())
      tail.push_back(o);
    if (tail.empty() || tail.size() > 256)
      return failure();
    rewriter.setInsertionPoint(op);
    auto sunk =
        ONNXIfOp::create(rewriter, op.getLoc(),
                         TypeRange(term->getOperandTypes()), op.getCond());
    for (auto [from, to] : llvm::zip(op->getRegions(), sunk->getRegions())) {
      rewriter.inlineRegionBefore(from, to, to.end());
      Block &body = to.front();
      Operation *yield = body.getTerminator();
      IRMapping map;
      for (auto [result, value] :
           llvm::zip(op->getResults(), yield->getOperands()))
        map.map(result, value);
      rewriter.setInsertionPoint(yield);
      for (Operation *o : tail)
        rewriter.clone(*o, map);
      SmallVector<Value> values;
      for (Value v : term->getOperands())
        values.push_back(map.lookupOrDefault(v));
      ONNXYieldOp::create(rewriter, yield->getLoc(), values);
      rewriter.eraseOp(yield);
    }
    rewriter.modifyOpInPlace(term,
                             [&] { term->setOperands(sunk->getResults()); });
    for (Operation *o : llvm::reverse(tail))
      rewriter.eraseOp(o);
    rewriter.eraseOp(op);
    return success();
  }
};

struct ONNXSimplifyPass : onnxc::impl::ONNXSimplifyBase<ONNXSimplifyPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<
        RemoveIdentity, RemoveInferenceDropout, RemoveSameType<ONNXCastOp>,
        RemoveSameType<ONNXExpandOp>, SimplifyTranspose,
        SimplifyReshapeLike<ONNXReshapeOp>, SimplifyReshapeLike<ONNXFlattenOp>,
        SimplifyReshapeLike<ONNXSqueezeOp>,
        SimplifyReshapeLike<ONNXUnsqueezeOp>, FoldIntoConv<ONNXMulOp, true>,
        FoldIntoConv<ONNXAddOp, false>, FoldScaleIntoGemm, FoldBiasIntoGemm,
        DecomposeQLinearMatMul, FoldOptionalHasElement, FoldOptionalGetElement,
        InlineConstantIf, UnifyIfBranchRanks, SinkContinuationIntoIf>(ctx);
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      signalPassFailure();
  }
};

} // namespace
