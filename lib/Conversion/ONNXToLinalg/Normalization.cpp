//===- Normalization.cpp - BatchNormalization, LayerNormalization, ... ----===//
//
// BatchNormalization, InstanceNormalization, LayerNormalization,
// LpNormalization, MeanVarianceNormalization and LRN. Statistics are
// linalg.generic reductions (mean, then the variance of x - mean, in f32 for
// f16/bf16) kept in keepdims form so that the final formula is one
// broadcasting elementwise linalg.generic over X.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// The type the statistics are computed in: f32 for the narrow floats.
Type computeType(Type elem) {
  if (elem.isF16() || elem.isBF16())
    return Float32Type::get(elem.getContext());
  return elem;
}

Value constant(OpBuilder &b, Location loc, Type t, double v) {
  return createScalarConstant(b, loc, t, v);
}

/// Mean and population variance of `x` over the sorted `axes`.
struct Moments {
  Value mean, var;         // The kept dims only.
  Value meanKeep, varKeep; // keepdims form, for broadcasting against x.
};

Moments computeMoments(OpBuilder &b, Location loc, Value x, Type xONNX,
                       ArrayRef<int64_t> axes, Type compT) {
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t rank = xType.getRank();
  Value count = reducedElementCount(b, loc, x, axes, compT);
  auto divideByCount = [&](Value sum) {
    return buildElementwise(
        b, loc, sum, cast<RankedTensorType>(sum.getType()),
        [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          return arith::DivFOp::create(nb, nl, a[0], count);
        });
  };
  auto sumOf = [&](Value v, Type vONNX) {
    return buildReduction(
        b, loc, v, axes, constant(b, loc, compT, 0),
        [&](OpBuilder &nb, Location nl, Value e, Value acc) -> Value {
          return arith::AddFOp::create(nb, nl, acc,
                                       castScalar(nb, nl, e, vONNX, compT));
        });
  };
  Moments m;
  m.mean = divideByCount(sumOf(x, xONNX));
  m.meanKeep = expandReducedDims(b, loc, m.mean, axes, rank);
  Value sq = buildElementwise(
      b, loc, {x, m.meanKeep}, xType.clone(compT),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value d = arith::SubFOp::create(
            nb, nl, castScalar(nb, nl, a[0], xONNX, compT), a[1]);
        return arith::MulFOp::create(nb, nl, d, d);
      });
  m.var = divideByCount(sumOf(sq, compT));
  m.varKeep = expandReducedDims(b, loc, m.var, axes, rank);
  return m;
}

/// The dims from ONNX `axis` (negative: from the back) to the last of a
/// rank-`rank` tensor: what LayerNormalization and RMSNormalization
/// normalize over. Failure when `axis` is out of range.
FailureOr<SmallVector<int64_t>> trailingAxes(int64_t axis, int64_t rank) {
  axis = normalizeAxis(axis, rank);
  if (axis < 0 || axis >= rank)
    return failure();
  return llvm::to_vector(llvm::seq<int64_t>(axis, rank));
}

/// A per-channel [C] tensor as [C, 1, ..., 1] of rank `rank - 1`, so that
/// numpy broadcasting against an N x C x D1 x ... tensor lines up dim 1.
Value toChannelShape(OpBuilder &b, Location loc, Value v, int64_t rank) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() != 1 || rank <= 2)
    return v;
  SmallVector<int64_t> shape{type.getDimSize(0)};
  SmallVector<OpFoldResult> sizes{getDims(b, loc, v)[0]};
  ReassociationIndices group{0};
  for (int64_t d = 1; d < rank - 1; ++d) {
    shape.push_back(1);
    sizes.push_back(b.getIndexAttr(1));
    group.push_back(d);
  }
  return tensor::ExpandShapeOp::create(b, loc, type.clone(shape), v,
                                       ArrayRef<ReassociationIndices>{group},
                                       sizes);
}

Value castTo(OpBuilder &b, Location loc, Value v, RankedTensorType type) {
  return v.getType() == type ? v : tensor::CastOp::create(b, loc, type, v);
}

/// Converts a tensor elementwise from ONNX type `from` to the (converted)
/// `type`.
Value convertTensor(OpBuilder &b, Location loc, Value v, Type from,
                    RankedTensorType type) {
  Type to = type.getElementType();
  if (from != to) {
    auto vType = cast<RankedTensorType>(v.getType());
    v = buildElementwise(b, loc, v, vType.clone(to),
                         [&](OpBuilder &nb, Location nl, ValueRange a) {
                           return castScalar(nb, nl, a[0], from, to);
                         });
  }
  return castTo(b, loc, v, type);
}

bool isRankedFloat(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isa<FloatType>(t.getElementType());
}

/// Y = scale * (X - mean) / sqrt(var + epsilon) + B over channel dim 1,
/// computed as X * a + c with per-channel a and c; in
/// training mode the statistics are the batch's, and the running ones are
/// updated with momentum.
class BatchNormalizationLowering
    : public OpConversionPattern<ONNXBatchNormalizationOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXBatchNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op, 0);
    if (!resultType || !isRankedFloat(op.getX()))
      return rewriter.notifyMatchFailure(op, "unranked or non-float X");
    for (Value v :
         {op.getScale(), op.getB(), op.getInputMean(), op.getInputVar()})
      if (!isRankedFloat(v) ||
          cast<RankedTensorType>(v.getType()).getRank() != 1)
        return rewriter.notifyMatchFailure(op, "per-channel inputs not 1-D");
    int64_t rank = resultType.getRank();
    if (rank < 2)
      return rewriter.notifyMatchFailure(op, "X has no channel dim");
    Type xONNX = getONNXElementType(op.getX());
    Type sONNX = getONNXElementType(op.getScale());
    Type bONNX = getONNXElementType(op.getB());
    Type mONNX = getONNXElementType(op.getInputMean());
    Type vONNX = getONNXElementType(op.getInputVar());
    Type compT = computeType(xONNX);
    double eps = op.getEpsilon().convertToDouble();
    bool training = op.getTrainingMode() != 0;
    if (!training && (op.getRunningMean() || op.getRunningVar()))
      return rewriter.notifyMatchFailure(op, "running stats in inference");

    Value mean = adaptor.getInputMean(), var = adaptor.getInputVar();
    Type meanONNX = mONNX, varONNX = vONNX;
    Moments moments;
    if (training) {
      SmallVector<int64_t> axes;
      for (int64_t d = 0; d < rank; ++d)
        if (d != 1)
          axes.push_back(d);
      moments =
          computeMoments(rewriter, loc, adaptor.getX(), xONNX, axes, compT);
      mean = moments.mean;
      var = moments.var;
      meanONNX = varONNX = compT;
    }
    // Per channel, a = scale / sqrt(var + epsilon) and c = B - mean * a;
    // then Y = X * a + c. (With constant statistics, the per-channel work
    // is weight-only: onnxc-hoist-constants runs it once.)
    auto channelType = cast<RankedTensorType>(adaptor.getScale().getType())
                           .clone(compT);
    Value a = buildElementwise(
        rewriter, loc, {adaptor.getScale(), var}, channelType,
        [&](OpBuilder &b, Location l, ValueRange v) {
          Value s = castScalar(b, l, v[0], sONNX, compT);
          Value vr = castScalar(b, l, v[1], varONNX, compT);
          Value std = math::SqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, vr, constant(b, l, compT, eps)));
          return arith::DivFOp::create(b, l, s, std).getResult();
        });
    Value c = buildElementwise(
        rewriter, loc, {adaptor.getB(), mean, a}, channelType,
        [&](OpBuilder &b, Location l, ValueRange v) {
          Value bias = castScalar(b, l, v[0], bONNX, compT);
          Value m = castScalar(b, l, v[1], meanONNX, compT);
          return arith::SubFOp::create(b, l, bias,
                                       arith::MulFOp::create(b, l, m, v[2]))
              .getResult();
        });
    Value y = buildElementwise(
        rewriter, loc,
        {adaptor.getX(), toChannelShape(rewriter, loc, a, rank),
         toChannelShape(rewriter, loc, c, rank)},
        resultType, [&](OpBuilder &b, Location l, ValueRange v) {
          Value x = castScalar(b, l, v[0], xONNX, compT);
          Value r = arith::AddFOp::create(
              b, l, arith::MulFOp::create(b, l, x, v[1]), v[2]);
          return castScalar(b, l, r, compT, xONNX);
        });
    SmallVector<Value> results{y};
    // running = input * momentum + current * (1 - momentum).
    double momentum = op.getMomentum().convertToDouble();
    auto running = [&](Value input, Type inONNX, Value current,
                       Value result) -> Value {
      auto type = dyn_cast_or_null<RankedTensorType>(
          getTypeConverter()->convertType(result.getType()));
      if (!type)
        return {};
      Type outONNX = getONNXElementType(result);
      Value r = buildElementwise(
          rewriter, loc, {input, current}, type,
          [&](OpBuilder &b, Location l, ValueRange a) {
            Value in = castScalar(b, l, a[0], inONNX, compT);
            Value keep = arith::MulFOp::create(b, l, in,
                                               constant(b, l, compT, momentum));
            Value add = arith::MulFOp::create(
                b, l, a[1], constant(b, l, compT, 1 - momentum));
            return castScalar(b, l, arith::AddFOp::create(b, l, keep, add),
                              compT, outONNX);
          });
      return r;
    };
    if (Value r = op.getRunningMean()) {
      Value v = running(adaptor.getInputMean(), mONNX, moments.mean, r);
      if (!v)
        return rewriter.notifyMatchFailure(op, "unranked running_mean");
      results.push_back(v);
    }
    if (Value r = op.getRunningVar()) {
      Value v = running(adaptor.getInputVar(), vONNX, moments.var, r);
      if (!v)
        return rewriter.notifyMatchFailure(op, "unranked running_var");
      results.push_back(v);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// y = scale * (x - mean) / sqrt(var + epsilon) + B, statistics per instance
/// and channel (over the spatial dims).
class InstanceNormalizationLowering
    : public OpConversionPattern<ONNXInstanceNormalizationOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXInstanceNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType || !isRankedFloat(op.getInput()) ||
        !isRankedFloat(op.getScale()) || !isRankedFloat(op.getB()))
      return rewriter.notifyMatchFailure(op, "unranked or non-float operand");
    int64_t rank = resultType.getRank();
    if (rank < 2)
      return rewriter.notifyMatchFailure(op, "input has no channel dim");
    Type xONNX = getONNXElementType(op.getInput());
    Type sONNX = getONNXElementType(op.getScale());
    Type bONNX = getONNXElementType(op.getB());
    Type compT = computeType(xONNX);
    double eps = op.getEpsilon().convertToDouble();
    SmallVector<int64_t> axes;
    for (int64_t d = 2; d < rank; ++d)
      axes.push_back(d);
    Moments m =
        computeMoments(rewriter, loc, adaptor.getInput(), xONNX, axes, compT);
    Value y = buildElementwise(
        rewriter, loc,
        {adaptor.getInput(), m.meanKeep, m.varKeep,
         toChannelShape(rewriter, loc, adaptor.getScale(), rank),
         toChannelShape(rewriter, loc, adaptor.getB(), rank)},
        resultType, [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = castScalar(b, l, a[0], xONNX, compT);
          Value s = castScalar(b, l, a[3], sONNX, compT);
          Value bias = castScalar(b, l, a[4], bONNX, compT);
          Value std = math::SqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, a[2], constant(b, l, compT, eps)));
          Value r = arith::DivFOp::create(
              b, l, arith::SubFOp::create(b, l, x, a[1]), std);
          r = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, r, s),
                                    bias);
          return castScalar(b, l, r, compT, xONNX);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// Y = (X - Mean) * InvStdDev * Scale + B over the dims from `axis` on;
/// Mean and InvStdDev are optional outputs in keepdims form.
class LayerNormalizationLowering
    : public OpConversionPattern<ONNXLayerNormalizationOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXLayerNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op, 0);
    if (!resultType || !isRankedFloat(op.getX()) ||
        !isRankedFloat(op.getScale()) ||
        (op.getB() && !isRankedFloat(op.getB())))
      return rewriter.notifyMatchFailure(op, "unranked or non-float operand");
    int64_t rank = resultType.getRank();
    FailureOr<SmallVector<int64_t>> axes =
        trailingAxes(int64_t(op.getAxis()), rank);
    if (failed(axes))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Type xONNX = getONNXElementType(op.getX());
    Type sONNX = getONNXElementType(op.getScale());
    Type bONNX = op.getB() ? getONNXElementType(op.getB()) : Type();
    Type compT = computeType(xONNX);
    double eps = op.getEpsilon().convertToDouble();
    Moments m =
        computeMoments(rewriter, loc, adaptor.getX(), xONNX, *axes, compT);
    Value invStd = buildElementwise(
        rewriter, loc, m.varKeep, cast<RankedTensorType>(m.varKeep.getType()),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value std = math::SqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, a[0], constant(b, l, compT, eps)));
          return arith::DivFOp::create(b, l, constant(b, l, compT, 1), std);
        });
    SmallVector<Value> operands{adaptor.getX(), m.meanKeep, invStd,
                                adaptor.getScale()};
    if (op.getB())
      operands.push_back(adaptor.getB());
    Value y = buildElementwise(
        rewriter, loc, operands, resultType,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = castScalar(b, l, a[0], xONNX, compT);
          Value r = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, x, a[1]), a[2]);
          r = arith::MulFOp::create(b, l, r,
                                    castScalar(b, l, a[3], sONNX, compT));
          if (a.size() > 4)
            r = arith::AddFOp::create(b, l, r,
                                      castScalar(b, l, a[4], bONNX, compT));
          return castScalar(b, l, r, compT, xONNX);
        });
    SmallVector<Value> results{y};
    for (auto [stat, result] :
         {std::pair{m.meanKeep, op.getMean()}, {invStd, op.getInvStdDev()}}) {
      if (!result)
        continue;
      auto type = dyn_cast_or_null<RankedTensorType>(
          getTypeConverter()->convertType(result.getType()));
      if (!type)
        return rewriter.notifyMatchFailure(op, "unranked statistics output");
      results.push_back(convertTensor(rewriter, loc, stat, compT, type));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// RMSNormalization-23: Y = X / sqrt(mean(X^2) + epsilon) * scale over the
/// dims from `axis` on, computed in f32 for the narrow floats.
class RMSNormalizationLowering
    : public OpConversionPattern<ONNXRMSNormalizationOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXRMSNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op, 0);
    if (!resultType || !isRankedFloat(op.getX()) ||
        !isRankedFloat(op.getScale()))
      return rewriter.notifyMatchFailure(op, "unranked or non-float operand");
    int64_t rank = resultType.getRank();
    FailureOr<SmallVector<int64_t>> trailing =
        trailingAxes(int64_t(op.getAxis()), rank);
    if (failed(trailing))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    ArrayRef<int64_t> axes = *trailing;
    Type xONNX = getONNXElementType(op.getX());
    Type sONNX = getONNXElementType(op.getScale());
    Type yONNX = getONNXElementType(op.getY());
    Type compT = computeType(xONNX);
    double eps = op.getEpsilon().convertToDouble();
    Value x = adaptor.getX();
    // 1 / sqrt(mean(x^2) + epsilon), in keepdims form.
    Value sumSq = buildReduction(
        rewriter, loc, x, axes, constant(rewriter, loc, compT, 0),
        [&](OpBuilder &b, Location l, Value e, Value acc) -> Value {
          Value v = castScalar(b, l, e, xONNX, compT);
          return arith::AddFOp::create(b, l, acc,
                                       arith::MulFOp::create(b, l, v, v));
        });
    Value count = reducedElementCount(rewriter, loc, x, axes, compT);
    Value invRms = buildElementwise(
        rewriter, loc, sumSq, cast<RankedTensorType>(sumSq.getType()),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value meanSq = arith::DivFOp::create(b, l, a[0], count);
          Value rms = math::SqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, meanSq, constant(b, l, compT, eps)));
          return arith::DivFOp::create(b, l, constant(b, l, compT, 1), rms);
        });
    invRms = expandReducedDims(rewriter, loc, invRms, axes, rank);
    Value y = buildElementwise(
        rewriter, loc, {x, invRms, adaptor.getScale()}, resultType,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value r = arith::MulFOp::create(
              b, l, castScalar(b, l, a[0], xONNX, compT), a[1]);
          r = arith::MulFOp::create(b, l, r,
                                    castScalar(b, l, a[2], sONNX, compT));
          return castScalar(b, l, r, compT, yONNX);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// y = x / norm(x) along `axis`, with the L1 or L2 norm; all-zero slices
/// stay zero.
class LpNormalizationLowering
    : public OpConversionPattern<ONNXLpNormalizationOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXLpNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType || !isRankedFloat(op.getInput()))
      return rewriter.notifyMatchFailure(op, "unranked or non-float input");
    int64_t p = op.getP();
    if (p != 1 && p != 2)
      return rewriter.notifyMatchFailure(op, "p must be 1 or 2");
    int64_t rank = resultType.getRank();
    int64_t axis = normalizeAxis(int64_t(op.getAxis()), rank);
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Type xONNX = getONNXElementType(op.getInput());
    Type compT = computeType(xONNX);
    Value x = adaptor.getInput();
    Value sum = buildReduction(
        rewriter, loc, x, {axis}, constant(rewriter, loc, compT, 0),
        [&](OpBuilder &b, Location l, Value e, Value acc) -> Value {
          Value v = castScalar(b, l, e, xONNX, compT);
          v = p == 1 ? (Value)math::AbsFOp::create(b, l, v)
                     : (Value)arith::MulFOp::create(b, l, v, v);
          return arith::AddFOp::create(b, l, acc, v);
        });
    Value norm = expandReducedDims(rewriter, loc, sum, {axis}, rank);
    Value y = buildElementwise(
        rewriter, loc, {x, norm}, resultType,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value n = p == 1 ? a[1] : (Value)math::SqrtOp::create(b, l, a[1]);
          // A zero norm means an all-zero slice, which stays zero.
          Value isZero = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                               n, constant(b, l, compT, 0));
          n = arith::SelectOp::create(b, l, isZero, constant(b, l, compT, 1),
                                      n);
          Value r = arith::DivFOp::create(
              b, l, castScalar(b, l, a[0], xONNX, compT), n);
          return castScalar(b, l, r, compT, xONNX);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// Y = (X - E[X]) / (sqrt(E[(X - E[X])^2]) + 1e-9) over `axes`, as the
/// ONNX function body does.
class MeanVarianceNormalizationLowering
    : public OpConversionPattern<ONNXMeanVarianceNormalizationOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXMeanVarianceNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType || !isRankedFloat(op.getX()))
      return rewriter.notifyMatchFailure(op, "unranked or non-float input");
    int64_t rank = resultType.getRank();
    SmallVector<int64_t> axes;
    for (Attribute a : op.getAxes()) {
      int64_t axis = normalizeAxis(cast<IntegerAttr>(a).getInt(), rank);
      if (axis < 0 || axis >= rank)
        return rewriter.notifyMatchFailure(op, "axis out of range");
      axes.push_back(axis);
    }
    llvm::sort(axes);
    axes.erase(llvm::unique(axes), axes.end());
    Type xONNX = getONNXElementType(op.getX());
    Type compT = computeType(xONNX);
    Moments m =
        computeMoments(rewriter, loc, adaptor.getX(), xONNX, axes, compT);
    Value y = buildElementwise(
        rewriter, loc, {adaptor.getX(), m.meanKeep, m.varKeep}, resultType,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = castScalar(b, l, a[0], xONNX, compT);
          Value std =
              arith::AddFOp::create(b, l, math::SqrtOp::create(b, l, a[2]),
                                    constant(b, l, compT, 1e-9));
          Value r = arith::DivFOp::create(
              b, l, arith::SubFOp::create(b, l, x, a[1]), std);
          return castScalar(b, l, r, compT, xONNX);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// base^beta: square roots for the exponents 1/4, 1/2 and 3/4 (AlexNet's
/// and GoogLeNet's LRN use 0.75: two vector square roots instead of a libm
/// powf call per element), math.powf otherwise.
Value powConstant(OpBuilder &b, Location loc, Value base, double beta) {
  if (beta == 1.0)
    return base;
  if (beta == 0.5)
    return math::SqrtOp::create(b, loc, base);
  if (beta == 0.25 || beta == 0.75) {
    Value root = math::SqrtOp::create(b, loc, base);
    Value fourth = math::SqrtOp::create(b, loc, root);
    return beta == 0.25 ? fourth
                        : (Value)arith::MulFOp::create(b, loc, root, fourth);
  }
  return math::PowFOp::create(
      b, loc, base, createScalarConstant(b, loc, base.getType(), beta));
}

/// Y = X / (bias + alpha / size * square_sum) ^ beta, where square_sum sums
/// X^2 over a window of `size` channels (zeros outside [0, C)).
class LRNLowering : public OpConversionPattern<ONNXLRNOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXLRNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType || !isRankedFloat(op.getX()))
      return rewriter.notifyMatchFailure(op, "unranked or non-float input");
    int64_t rank = resultType.getRank();
    int64_t size = int64_t(op.getSize());
    if (rank < 2 || size < 1)
      return rewriter.notifyMatchFailure(op, "needs a channel dim, size >= 1");
    Type xONNX = getONNXElementType(op.getX());
    Type compT = computeType(xONNX);
    Value x = adaptor.getX();
    auto xType = cast<RankedTensorType>(x.getType());

    // sum[n, c, ...] = sum_k sq[n, c + k - low, ...] for k in [0, size),
    // where sq = x^2 zero-padded along the channels: one elementwise sum of
    // `size` channel-shifted views of the padded squares (vectorised and
    // run on the threads like any elementwise op).
    int64_t low = (size - 1) / 2;
    Value zero = constant(rewriter, loc, compT, 0);
    auto sumType = xType.clone(compT);
    Value squares =
        buildElementwise(rewriter, loc, {x}, sumType,
                         [&](OpBuilder &b, Location l, ValueRange a) {
                           Value v = castScalar(b, l, a[0], xONNX, compT);
                           return (Value)arith::MulFOp::create(b, l, v, v);
                         });
    SmallVector<OpFoldResult> padLow(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> padHigh = padLow;
    padLow[1] = rewriter.getIndexAttr(low);
    padHigh[1] = rewriter.getIndexAttr(size - 1 - low);
    Value padded = tensor::PadOp::create(rewriter, loc, Type(), squares,
                                         padLow, padHigh, zero);
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, x);
    SmallVector<Value> shifted;
    for (int64_t k = 0; k < size; ++k) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[1] = rewriter.getIndexAttr(k);
      shifted.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, sumType, padded, offsets, dims,
          SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(1))));
    }
    Value sum = buildElementwise(
        rewriter, loc, shifted, sumType,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value total = a[0];
          for (Value v : a.drop_front())
            total = arith::AddFOp::create(b, l, total, v);
          return total;
        });

    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    double bias = op.getBias().convertToDouble();
    Value y = buildElementwise(
        rewriter, loc, {x, sum}, resultType,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value v = castScalar(b, l, a[0], xONNX, compT);
          Value scaled = arith::MulFOp::create(
              b, l, a[1], constant(b, l, compT, alpha / double(size)));
          Value base =
              arith::AddFOp::create(b, l, scaled, constant(b, l, compT, bias));
          Value den = powConstant(b, l, base, beta);
          return castScalar(b, l, arith::DivFOp::create(b, l, v, den), compT,
                            xONNX);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateNormalizationPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<BatchNormalizationLowering, InstanceNormalizationLowering,
               LayerNormalizationLowering, LpNormalizationLowering,
               MeanVarianceNormalizationLowering, LRNLowering,
               RMSNormalizationLowering>(
      converter, patterns.getContext());
}
