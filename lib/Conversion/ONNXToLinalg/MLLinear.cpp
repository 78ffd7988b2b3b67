//===- MLLinear.cpp - ai.onnx.ml linear models -> linalg ------------------===//
//
// LinearRegressor and LinearClassifier, and the scoring shared with the SVMs
// (MLSVM.cpp), as onnxruntime's CPU kernels compute them: in f32 (other
// inputs cast to it), X of [F] taken as one row.
//
//   scores          X [N, F] x coefficients^T [F, T] + intercepts: a
//                   linalg.matmul into the broadcast intercepts
//   labels          the first highest score's class label (int64s from a
//                   constant, strings from a table of pointers)
//   post_transform  NONE, LOGISTIC, SOFTMAX (row-wise, shifted by the max),
//                   SOFTMAX_ZERO (values within 1e-7 of 0 stay near 0 and
//                   out of the sum), PROBIT (sqrt(2) erfinv(2x - 1) with
//                   onnxruntime's approximation of erfinv)
//
// LinearClassifier with one row of coefficients (onnxruntime; the spec says
// nothing): with two labels, the second where the score s > 0 and Z =
// [1 - s, s], not transformed (PROBIT: [-p, p] with p = probit(s), where
// onnxruntime leaves the second column unwritten); with other labels,
// labels 1 and 0 and Z = [s] (PROBIT: [p]). LinearRegressor applies
// post_transform as the spec says, also to one target (onnxruntime applies
// only PROBIT there).
//
//===----------------------------------------------------------------------===//

#include "ML.h"

#include "onnxc/Conversion/RuntimeChecks.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::onnxc;
using namespace mlir::onnxc::ml;

namespace mlir::onnxc::ml {

FailureOr<Transform> parseTransform(Operation *op, StringRef s) {
  if (s == "NONE")
    return Transform::None;
  if (s == "LOGISTIC")
    return Transform::Logistic;
  if (s == "SOFTMAX")
    return Transform::Softmax;
  if (s == "SOFTMAX_ZERO")
    return Transform::SoftmaxZero;
  if (s == "PROBIT")
    return Transform::Probit;
  return op->emitOpError() << "post_transform '" << s
                           << "' is not NONE, LOGISTIC, SOFTMAX, SOFTMAX_ZERO "
                              "or PROBIT";
}

/// onnxruntime's ComputeLogistic.
Value logistic(OpBuilder &b, Location l, Value x) {
  Value one = f32Const(b, l, 1);
  Value e = math::ExpOp::create(
      b, l, arith::NegFOp::create(b, l, math::AbsFOp::create(b, l, x)));
  Value v =
      arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
  Value neg = arith::CmpFOp::create(b, l, FPred::OLT, x, f32Const(b, l, 0));
  return select(b, l, neg, arith::SubFOp::create(b, l, one, v), v);
}

/// onnxruntime's ComputeProbit: sqrt(2) ErfInv(2x - 1), ErfInv by
/// Winitzki's approximation (a = 0.147), in f32.
Value probit(OpBuilder &b, Location l, Value x) {
  float pi = float(M_PI);
  float c1 = 2.0f / (pi * 0.147f), c2 = 1.0f / 0.147f;
  Value one = f32Const(b, l, 1);
  Value y = arith::SubFOp::create(
      b, l, arith::MulFOp::create(b, l, f32Const(b, l, 2), x), one);
  Value sgn = select(
      b, l, arith::CmpFOp::create(b, l, FPred::OLT, y, f32Const(b, l, 0)),
      f32Const(b, l, -1), one);
  Value t = arith::MulFOp::create(b, l, arith::SubFOp::create(b, l, one, y),
                                  arith::AddFOp::create(b, l, one, y));
  Value lg = math::LogOp::create(b, l, t);
  Value v = arith::AddFOp::create(
      b, l, f32Const(b, l, c1),
      arith::MulFOp::create(b, l, f32Const(b, l, 0.5f), lg));
  Value v2 = arith::MulFOp::create(b, l, f32Const(b, l, c2), lg);
  Value v3 = arith::AddFOp::create(
      b, l, arith::NegFOp::create(b, l, v),
      math::SqrtOp::create(
          b, l,
          arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, v, v), v2)));
  Value r = arith::MulFOp::create(b, l, sgn, math::SqrtOp::create(b, l, v3));
  return arith::MulFOp::create(b, l, f32Const(b, l, float(M_SQRT2)), r);
}

/// post_transform over the rows of s [N, T] (f32).
Value applyTransform(OpBuilder &b, Location loc, Value s, Transform tr) {
  auto type = cast<RankedTensorType>(s.getType());
  auto elementwise = [&](Value (*f)(OpBuilder &, Location, Value)) {
    return buildElementwise(b, loc, s, type,
                            [&](OpBuilder &nb, Location l, ValueRange a) {
                              return f(nb, l, a[0]);
                            });
  };
  switch (tr) {
  case Transform::None:
    return s;
  case Transform::Logistic:
    return elementwise(logistic);
  case Transform::Probit:
    return elementwise(probit);
  case Transform::Softmax:
  case Transform::SoftmaxZero:
    break;
  }
  bool zero = tr == Transform::SoftmaxZero;
  Type f32 = b.getF32Type();
  SmallVector<OpFoldResult> sizes = getDims(b, loc, s);
  // onnxruntime's max starts at -FLT_MAX and skips NaN.
  Value max = buildReduction(
      b, loc, s, {1}, f32Const(b, loc, std::numeric_limits<float>::lowest()),
      [](OpBuilder &nb, Location l, Value v, Value acc) -> Value {
        return arith::MaxNumFOp::create(nb, l, acc, v);
      });
  AffineMap full = b.getMultiDimIdentityMap(2), row = mapOf(b, 2, {0});
  SmallVector<IT> parallel(2, IT::parallel);
  // SOFTMAX_ZERO: |v| <= 1e-7 counts as 0: v exp(-max), out of the sum.
  auto isZero = [&](OpBuilder &nb, Location l, Value v) {
    Value a = math::AbsFOp::create(nb, l, v);
    return arith::CmpFOp::create(nb, l, FPred::OLE, a, f32Const(nb, l, 1e-7f));
  };
  Value e = generic(
      b, loc, createEmpty(b, loc, type, sizes), {s, max}, {full, row, full},
      parallel, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value x = math::ExpOp::create(nb, l,
                                      arith::SubFOp::create(nb, l, a[0], a[1]));
        if (!zero)
          return x;
        Value y = arith::MulFOp::create(
            nb, l, a[0],
            math::ExpOp::create(nb, l, arith::NegFOp::create(nb, l, a[1])));
        return select(nb, l, isZero(nb, l, a[0]), y, x);
      });
  // The sum of the exps (SOFTMAX_ZERO: of the values that are not ~0).
  auto rowType = RankedTensorType::get({type.getDimSize(0)}, f32);
  Value sumInit =
      createFilled(b, loc, rowType, {sizes[0]}, f32Const(b, loc, 0));
  Value sum =
      zero ? generic(b, loc, sumInit, {s, e}, {full, full, row},
                     {IT::parallel, IT::reduction},
                     [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       Value add = arith::AddFOp::create(nb, l, a[2], a[1]);
                       return select(nb, l, isZero(nb, l, a[0]), a[2], add);
                     })
           : generic(b, loc, sumInit, e, {full, row},
                     {IT::parallel, IT::reduction},
                     [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       return arith::AddFOp::create(nb, l, a[1], a[0]);
                     });
  return generic(b, loc, createEmpty(b, loc, type, sizes), {e, sum},
                 {full, row, full}, parallel,
                 [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   return arith::DivFOp::create(nb, l, a[0], a[1]);
                 });
}

/// X ([F] or [N, F]) as [N, F] f32 (onnxruntime's casts).
Value rowsF32(OpBuilder &b, Location loc, Value x, Type onnxElem) {
  auto t = cast<RankedTensorType>(x.getType());
  if (t.getRank() == 1)
    x = reshapeTo(
        b, loc, x,
        RankedTensorType::get({1, t.getDimSize(0)}, t.getElementType()),
        {b.getIndexAttr(1), getDims(b, loc, x)[0]});
  Type f32 = b.getF32Type();
  if (onnxElem == f32)
    return x;
  auto rows = cast<RankedTensorType>(x.getType());
  return buildElementwise(b, loc, x, rows.clone(f32),
                          [&](OpBuilder &nb, Location l, ValueRange a) {
                            return castScalar(nb, l, a[0], onnxElem, f32);
                          });
}

/// Fails, naming the op, when X [N, F] has a static F other than `f`;
/// checks a dynamic one at run time.
LogicalResult checkFeatures(OpBuilder &b, Location loc, Operation *op, Value x,
                            int64_t f, const Twine &what) {
  auto t = cast<RankedTensorType>(x.getType());
  if (!t.isDynamicDim(1)) {
    if (t.getDimSize(1) == f)
      return success();
    return op->emitOpError() << "the input has " << t.getDimSize(1)
                             << " features, but " << what << " " << f;
  }
  IndexMath m(b, loc);
  Value d = getDimValue(b, loc, x, 1);
  emitRuntimeCheck(b, loc, op, m.cmp(Pred::ne, d, m.c(f)),
                   "the input has {0} features, but " + what + " " + Twine(f),
                   {d});
  return success();
}

/// x [N, F] times w^T (w: [T, F] row-major) plus `bias` (T values, one for
/// all, or none): [N, T].
Value affine(OpBuilder &b, Location loc, Value x, ArrayRef<float> w, int64_t t,
             int64_t f, ArrayRef<float> bias) {
  SmallVector<float> wt(f * t);
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < f; ++j)
      wt[j * t + i] = w[i * f + j];
  auto xType = cast<RankedTensorType>(x.getType());
  auto type = RankedTensorType::get({xType.getDimSize(0), t}, b.getF32Type());
  SmallVector<OpFoldResult> sizes{getDims(b, loc, x)[0], b.getIndexAttr(t)};
  Value init;
  if (bias.size() <= 1) {
    init = createFilled(b, loc, type, sizes,
                        f32Const(b, loc, bias.empty() ? 0.0f : bias[0]));
  } else {
    init = generic(b, loc, createEmpty(b, loc, type, sizes),
                   constantF32(b, loc, {t}, bias),
                   {mapOf(b, 2, {1}), b.getMultiDimIdentityMap(2)},
                   {IT::parallel, IT::parallel},
                   [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  }
  return linalg::MatmulOp::create(
             b, loc, TypeRange{type},
             ValueRange{x, constantF32(b, loc, {f, t}, wt)}, ValueRange{init})
      .getResult(0);
}

/// Per row of s [N, T] (f32 or i64): the largest value and its index (i64;
/// the first of equals, NaN never; T where no value is larger than the
/// lowest, read as 0 by labelsAt).
std::pair<Value, Value> argmaxRows(OpBuilder &b, Location loc, Value s) {
  auto type = cast<RankedTensorType>(s.getType());
  Type elem = type.getElementType(), i64 = b.getI64Type();
  int64_t t = type.getDimSize(1);
  SmallVector<OpFoldResult> n{getDims(b, loc, s)[0]};
  Value lowest =
      isa<FloatType>(elem)
          ? arith::ConstantOp::create(
                b, loc,
                b.getFloatAttr(elem, -std::numeric_limits<double>::infinity()))
                .getResult()
          : arith::ConstantIntOp::create(
                b, loc, std::numeric_limits<int64_t>::min(), 64)
                .getResult();
  auto vType = RankedTensorType::get({type.getDimSize(0)}, elem);
  auto iType = RankedTensorType::get({type.getDimSize(0)}, i64);
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{vType, iType}, s,
      ValueRange{createFilled(b, loc, vType, n, lowest),
                 createFilled(b, loc, iType, n,
                              arith::ConstantIntOp::create(b, loc, t, 64))},
      {b.getMultiDimIdentityMap(2), mapOf(b, 2, {0}), mapOf(b, 2, {0})},
      {IT::parallel, IT::reduction},
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value j = arith::IndexCastOp::create(nb, l, i64,
                                             linalg::IndexOp::create(nb, l, 1));
        Value gt, eq;
        if (isa<FloatType>(elem)) {
          gt = arith::CmpFOp::create(nb, l, FPred::OGT, a[0], a[1]);
          eq = arith::CmpFOp::create(nb, l, FPred::OEQ, a[0], a[1]);
        } else {
          gt = arith::CmpIOp::create(nb, l, Pred::sgt, a[0], a[1]);
          eq = arith::CmpIOp::create(nb, l, Pred::eq, a[0], a[1]);
        }
        Value before = arith::CmpIOp::create(nb, l, Pred::slt, j, a[2]);
        Value better = arith::OrIOp::create(
            nb, l, gt, arith::AndIOp::create(nb, l, eq, before));
        linalg::YieldOp::create(nb, l,
                                ValueRange{select(nb, l, better, a[0], a[1]),
                                           select(nb, l, better, j, a[2])});
      });
  return {g.getResult(0), g.getResult(1)};
}

/// Reads the labels, which must match Y's element type.
FailureOr<Labels> labelsOf(Operation *op, Value y, ArrayAttr ints,
                           ArrayAttr strings) {
  Labels l;
  l.strings = isa<StringType>(getONNXElementType(y));
  l.ints = intsOf(ints);
  if (strings)
    for (Attribute a : strings)
      l.strs.push_back(cast<StringAttr>(a).getValue());
  if ((l.strings && !l.ints.empty()) || (!l.strings && !l.strs.empty()))
    return op->emitOpError()
           << "has classlabels_" << (l.strings ? "ints" : "strings")
           << ", but its label output holds "
           << (l.strings ? "strings" : "int64s");
  return l;
}

/// Y [N]: the labels at the class indices idx [N] (an index >= the count
/// reads label 0).
Value labelsAt(OpBuilder &b, Location loc, Operation *op, Value idx,
               const Labels &labels) {
  Value table = labels.strings ? buildStringConstant(b, loc, op, labels.strs)
                               : constantI64(b, loc, labels.ints);
  int64_t count = labels.size();
  auto iType = cast<RankedTensorType>(idx.getType());
  return buildElementwise(
      b, loc, idx, iType, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value in = arith::CmpIOp::create(
            nb, l, Pred::slt, a[0],
            arith::ConstantIntOp::create(nb, l, count, 64));
        Value i =
            select(nb, l, in, a[0], arith::ConstantIntOp::create(nb, l, 0, 64));
        return tensor::ExtractOp::create(nb, l, table,
                                         ValueRange{arith::IndexCastOp::create(
                                             nb, l, nb.getIndexType(), i)})
            .getResult();
      });
}

/// One score column s [N, 1] as two: [-s, s] (`negate`), [-p, p] with p =
/// probit(s) (`probitPair`), else [1 - s, s].
Value binaryScores(OpBuilder &b, Location loc, Value s, bool negate,
                   bool probitPair) {
  auto type = cast<RankedTensorType>(s.getType());
  auto outType = RankedTensorType::get({type.getDimSize(0), 2}, b.getF32Type());
  SmallVector<OpFoldResult> sizes{getDims(b, loc, s)[0], b.getIndexAttr(2)};
  AffineMap first =
      AffineMap::get(2, 0, {b.getAffineDimExpr(0), b.getAffineConstantExpr(0)},
                     b.getContext());
  return generic(
      b, loc, createEmpty(b, loc, outType, sizes), s,
      {first, b.getMultiDimIdentityMap(2)}, {IT::parallel, IT::parallel},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value v = probitPair ? probit(nb, l, a[0]) : a[0];
        Value other = negate || probitPair
                          ? arith::NegFOp::create(nb, l, v).getResult()
                          : arith::SubFOp::create(nb, l, f32Const(nb, l, 1), v)
                                .getResult();
        Value col = linalg::IndexOp::create(nb, l, 1);
        Value isFirst = arith::CmpIOp::create(
            nb, l, Pred::eq, col, arith::ConstantIndexOp::create(nb, l, 0));
        return select(nb, l, isFirst, other, v);
      });
}

} // namespace mlir::onnxc::ml

namespace {

class LinearRegressorLowering
    : public OpConversionPattern<ONNXMLLinearRegressorOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLLinearRegressorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = getConvertedResultType(*getTypeConverter(), op);
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!type || !xType || xType.getRank() < 1 || xType.getRank() > 2)
      return rewriter.notifyMatchFailure(op, "an input of [F] or [N, F]");
    SmallVector<float> coef = floatsOf(op.getCoefficientsAttr());
    SmallVector<float> bias = floatsOf(op.getInterceptsAttr());
    int64_t t = int64_t(op.getTargets());
    if (t < 1 || coef.empty() || coef.size() % t != 0)
      return op.emitOpError() << "has " << coef.size() << " coefficients for "
                              << t << " targets";
    if (!bias.empty() && int64_t(bias.size()) != t)
      return op.emitOpError()
             << "has " << bias.size() << " intercepts for " << t << " targets";
    FailureOr<Transform> tr = parseTransform(op, op.getPostTransform());
    if (failed(tr))
      return failure();
    int64_t f = coef.size() / t;
    Value x =
        rowsF32(rewriter, loc, adaptor.getX(), getONNXElementType(op.getX()));
    if (failed(
            checkFeatures(rewriter, loc, op, x, f, "the coefficients are for")))
      return failure();
    Value y = applyTransform(rewriter, loc,
                             affine(rewriter, loc, x, coef, t, f, bias), *tr);
    FailureOr<Value> r = castTo(rewriter, loc, op, y, type);
    if (failed(r))
      return failure();
    rewriter.replaceOp(op, *r);
    return success();
  }
};

class LinearClassifierLowering
    : public OpConversionPattern<ONNXMLLinearClassifierOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLLinearClassifierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto yType = getConvertedResultType(*getTypeConverter(), op, 0);
    auto zType = getConvertedResultType(*getTypeConverter(), op, 1);
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!yType || !zType || !xType || xType.getRank() < 1 ||
        xType.getRank() > 2)
      return rewriter.notifyMatchFailure(op, "an input of [F] or [N, F]");
    FailureOr<Labels> labels =
        labelsOf(op, op.getY(), op.getClasslabelsIntsAttr(),
                 op.getClasslabelsStringsAttr());
    FailureOr<Transform> tr = parseTransform(op, op.getPostTransform());
    if (failed(labels) || failed(tr))
      return failure();
    SmallVector<float> coef = floatsOf(op.getCoefficientsAttr());
    SmallVector<float> bias = floatsOf(op.getInterceptsAttr());
    // One row of scores per intercept (onnxruntime), else per feature count.
    int64_t fDim = xType.getDimSize(xType.getRank() - 1);
    int64_t t = !bias.empty() ? int64_t(bias.size())
                : !ShapedType::isDynamic(fDim) && fDim > 0
                    ? int64_t(coef.size()) / fDim
                    : int64_t(labels->size());
    if (t < 1 || coef.empty() || coef.size() % t != 0)
      return op.emitOpError() << "has " << coef.size() << " coefficients for "
                              << t << " classes";
    if (t > 1 && int64_t(labels->size()) < t)
      return op.emitOpError() << "has " << t << " classes but "
                              << labels->size() << " class labels";
    int64_t f = coef.size() / t;
    Value x =
        rowsF32(rewriter, loc, adaptor.getX(), getONNXElementType(op.getX()));
    if (failed(
            checkFeatures(rewriter, loc, op, x, f, "the coefficients are for")))
      return failure();
    Value s = affine(rewriter, loc, x, coef, t, f, bias);
    Value idx, z;
    Labels used = *labels;
    if (t == 1) {
      // Binary: label 1 where the score is > 0; labels 0 and 1 (or "0" and
      // "1") unless two are given.
      bool two = labels->size() == 2;
      if (!two) {
        used.ints = {0, 1};
        used.strs = {"0", "1"};
      }
      auto rows = RankedTensorType::get(
          {cast<RankedTensorType>(s.getType()).getDimSize(0)},
          rewriter.getI64Type());
      Value col = tensor::CollapseShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({rows.getDimSize(0)}, rewriter.getF32Type()), s,
          ArrayRef<ReassociationIndices>{{0, 1}});
      idx = buildElementwise(
          rewriter, loc, col, rows,
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value pos = arith::CmpFOp::create(b, l, FPred::OGT, a[0],
                                              f32Const(b, l, 0));
            return arith::ExtUIOp::create(b, l, b.getI64Type(), pos);
          });
      if (two)
        z = binaryScores(rewriter, loc, s, /*negate=*/false,
                         *tr == Transform::Probit);
      else
        z = *tr == Transform::Probit ? applyTransform(rewriter, loc, s, *tr)
                                     : s;
    } else {
      idx = argmaxRows(rewriter, loc, s).second;
      z = applyTransform(rewriter, loc, s, *tr);
    }
    Value y = labelsAt(rewriter, loc, op, idx, used);
    FailureOr<Value> yr = castTo(rewriter, loc, op, y, yType);
    FailureOr<Value> zr = castTo(rewriter, loc, op, z, zType);
    if (failed(yr) || failed(zr))
      return failure();
    rewriter.replaceOp(op, {*yr, *zr});
    return success();
  }
};

} // namespace

void mlir::onnxc::ml::populateLinearPatterns(const TypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<LinearRegressorLowering, LinearClassifierLowering>(
      converter, patterns.getContext());
}
