//===- ML.cpp - ai.onnx.ml preprocessing -> linalg ------------------------===//
//
// The ai.onnx.ml operators that transform features, each one linalg.generic
// over its result unless said otherwise (the look-ups are in MLLookup.cpp,
// the linear models in MLLinear.cpp, the SVMs in MLSVM.cpp; this file holds
// their shared helpers, ML.h):
//
//   Binarizer              x > threshold ? 1 : 0 (NaN gives 0; integers
//                          compare with floor(threshold))
//   Scaler                 (x - offset) * scale in f32 (f64 for f64 input),
//                          offset and scale of length 1 or C; X is [C] or
//                          [N, C]
//   Normalizer             per row: MAX x / max(x), L1 x / sum|x|, L2
//                          x / sqrt(sum x^2) keeping the signs (what
//                          onnxruntime computes); a zero divisor leaves the
//                          row as it is
//   Imputer                x == replaced (NaN: x is NaN) ? imputed : x, the
//                          imputed values of length 1 or C
//   ArrayFeatureExtractor  the last axis gathered at the flattened indices,
//                          checked at run time to lie in [-C, C) (negative
//                          ones count from the end, as numpy's); X of [C]
//                          gives [1, K] (onnxruntime)
//   FeatureVectorizer      each input as [N, S] (dims after the first
//                          flattened), cut or zero-padded to its
//                          inputdimensions entry, concatenated, in f32; the
//                          inputs' N checked at run time to agree
//
// Attribute lists of per-feature values are checked against a static C at
// compile time and a dynamic one at run time.
//
//===----------------------------------------------------------------------===//

#include "ML.h"

#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::onnxc;
using namespace mlir::onnxc::ml;

namespace mlir::onnxc::ml {

SmallVector<float> floatsOf(ArrayAttr a) {
  SmallVector<float> v;
  if (a)
    for (Attribute x : a)
      v.push_back(float(cast<FloatAttr>(x).getValueAsDouble()));
  return v;
}
SmallVector<int64_t> intsOf(ArrayAttr a) {
  SmallVector<int64_t> v;
  if (a)
    for (Attribute x : a)
      v.push_back(cast<IntegerAttr>(x).getInt());
  return v;
}
SmallVector<StringRef> stringsOf(ArrayAttr a) {
  SmallVector<StringRef> v;
  if (a)
    for (Attribute x : a)
      v.push_back(cast<StringAttr>(x).getValue());
  return v;
}

Value addressOf(OpBuilder &b, Location loc, StringRef name) {
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), name);
}

Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
}

Value f32Const(OpBuilder &b, Location loc, float v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}
Value constantF32(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  ArrayRef<float> v) {
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get(shape, b.getF32Type()), v));
}
Value constantI64(OpBuilder &b, Location loc, ArrayRef<int64_t> v) {
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(
          RankedTensorType::get({int64_t(v.size())}, b.getI64Type()), v));
}
Value select(OpBuilder &b, Location loc, Value c, Value x, Value y) {
  return arith::SelectOp::create(b, loc, c, x, y);
}

/// A linalg.generic of one result.
Value generic(OpBuilder &b, Location loc, Value init, ValueRange inputs,
              ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, inputs, init, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, body(nb, l, args));
             })
      .getResult(0);
}

/// (d0, d1) -> the listed dims, over a rank-`rank` iteration.
AffineMap mapOf(OpBuilder &b, int64_t rank, ArrayRef<unsigned> which) {
  SmallVector<AffineExpr> e;
  for (unsigned d : which)
    e.push_back(b.getAffineDimExpr(d));
  return AffineMap::get(rank, 0, e, b.getContext());
}

/// `v` as `type` (a tensor.cast where static and dynamic dims differ), or
/// an error naming the op where static dims disagree.
FailureOr<Value> castTo(OpBuilder &b, Location loc, Operation *op, Value v,
                        RankedTensorType type) {
  if (v.getType() == type)
    return v;
  if (!tensor::CastOp::areCastCompatible(v.getType(), type))
    return op->emitOpError() << "computes a result of type " << v.getType()
                             << ", but the model's result type is " << type;
  return tensor::CastOp::create(b, loc, type, v).getResult();
}

/// Fails, naming the op, where the model's result shape disagrees with the
/// one computed.
LogicalResult replaceWithCast(ConversionPatternRewriter &rewriter,
                              Operation *op, Value v, RankedTensorType type) {
  FailureOr<Value> cast = castTo(rewriter, op->getLoc(), op, v, type);
  if (failed(cast))
    return failure();
  rewriter.replaceOp(op, *cast);
  return success();
}

} // namespace mlir::onnxc::ml

namespace {

/// An attribute list of per-feature values (length 1 or C, the last dim of
/// `x`): checked against a static C here, a dynamic one at run time.
LogicalResult checkPerFeature(OpBuilder &b, Location loc, Operation *op,
                              Value x, size_t length, StringRef what) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t last = type.getRank() - 1;
  if (length <= 1)
    return success();
  if (!type.isDynamicDim(last)) {
    if (type.getDimSize(last) != int64_t(length))
      return op->emitOpError()
             << what << " has " << length << " values, but the input has "
             << type.getDimSize(last) << " features";
    return success();
  }
  IndexMath m(b, loc);
  Value c = getDimValue(b, loc, x, last);
  emitRuntimeCheck(b, loc, op, m.cmp(Pred::ne, c, m.c(length)),
                   "the input has {0} features, " + what + " has " +
                       Twine(length) + " values",
                   {c});
  return success();
}

/// The map of a per-feature list of `length` values over a rank-`rank`
/// iteration: its last dim, or element 0.
AffineMap perFeatureMap(OpBuilder &b, int64_t rank, size_t length) {
  AffineExpr e =
      length == 1 ? b.getAffineConstantExpr(0) : b.getAffineDimExpr(rank - 1);
  return AffineMap::get(rank, 0, e, b.getContext());
}

class BinarizerLowering : public OpConversionPattern<ONNXMLBinarizerOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLBinarizerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getConvertedResultType(*getTypeConverter(), op);
    if (!type || !isa<RankedTensorType>(adaptor.getX().getType()))
      return rewriter.notifyMatchFailure(op, "ranked input and result");
    double t = op.getThreshold().convertToFloat();
    Type elem = type.getElementType();
    Value y = buildElementwise(
        rewriter, op.getLoc(), adaptor.getX(), type,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value one = createScalarConstant(b, l, elem, 1);
          Value zero = createScalarConstant(b, l, elem, 0);
          Value above;
          if (isa<FloatType>(elem)) {
            above = arith::CmpFOp::create(b, l, FPred::OGT, a[0],
                                          createScalarConstant(b, l, elem, t));
          } else {
            // x > t for an integer x: x > floor(t), saturated to the width.
            unsigned w = elem.getIntOrFloatBitWidth();
            double lo = -std::ldexp(1.0, w - 1), hi = std::ldexp(1.0, w - 1);
            double f = std::floor(t);
            if (std::isnan(t) || f >= hi)
              return zero;
            if (f < lo)
              return one;
            above = arith::CmpIOp::create(
                b, l, Pred::sgt, a[0],
                arith::ConstantIntOp::create(b, l, int64_t(f), w));
          }
          return arith::SelectOp::create(b, l, above, one, zero);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

class ScalerLowering : public OpConversionPattern<ONNXMLScalerOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLScalerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = getConvertedResultType(*getTypeConverter(), op);
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!type || !xType || xType.getRank() < 1 || xType.getRank() > 2)
      return rewriter.notifyMatchFailure(op, "an input of [C] or [N, C]");
    SmallVector<float> offset = floatsOf(op.getOffsetAttr());
    SmallVector<float> scale = floatsOf(op.getScaleAttr());
    if (offset.empty())
      offset.push_back(0);
    if (scale.empty())
      scale.push_back(1);
    if (failed(
            checkPerFeature(rewriter, loc, op, x, offset.size(), "offset")) ||
        failed(checkPerFeature(rewriter, loc, op, x, scale.size(), "scale")))
      return failure();
    Type elem = getONNXElementType(op.getX());
    FloatType ct = elem.isF64() ? rewriter.getF64Type() : rewriter.getF32Type();
    auto list = [&](ArrayRef<float> v) -> Value {
      SmallVector<double> d(v.begin(), v.end());
      auto t = RankedTensorType::get({int64_t(v.size())}, ct);
      return arith::ConstantOp::create(
          rewriter, loc,
          ct.isF64() ? DenseElementsAttr::get(t, ArrayRef<double>(d))
                     : DenseElementsAttr::get(t, v));
    };
    int64_t rank = xType.getRank();
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, x);
    auto yType = RankedTensorType::get(xType.getShape(), type.getElementType());
    Value y = generic(
        rewriter, loc, createEmpty(rewriter, loc, yType, dims),
        {x, list(offset), list(scale)},
        {rewriter.getMultiDimIdentityMap(rank),
         perFeatureMap(rewriter, rank, offset.size()),
         perFeatureMap(rewriter, rank, scale.size()),
         rewriter.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value v = castScalar(b, l, a[0], elem, ct);
          Value r = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, v, a[1]), a[2]);
          return ct.isF64() ? arith::TruncFOp::create(b, l, b.getF32Type(), r)
                                  .getResult()
                            : r;
        });
    return replaceWithCast(rewriter, op, y, type);
  }
};

class NormalizerLowering : public OpConversionPattern<ONNXMLNormalizerOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLNormalizerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = getConvertedResultType(*getTypeConverter(), op);
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!type || !xType || xType.getRank() < 1 || xType.getRank() > 2)
      return rewriter.notifyMatchFailure(op, "an input of [C] or [N, C]");
    StringRef norm = op.getNorm();
    if (norm != "MAX" && norm != "L1" && norm != "L2")
      return op.emitOpError() << "norm '" << norm << "' is not MAX, L1 or L2";
    Type elem = getONNXElementType(op.getX());
    Type f32 = rewriter.getF32Type();
    int64_t rank = xType.getRank();
    auto fType = RankedTensorType::get(xType.getShape(), f32);
    Value xf = buildElementwise(rewriter, loc, x, fType,
                                [&](OpBuilder &b, Location l, ValueRange a) {
                                  return castScalar(b, l, a[0], elem, f32);
                                });
    // The divisor per row: onnxruntime's max (NaN ignored), sum |x|, or
    // sum x^2.
    double init =
        norm == "MAX" ? double(std::numeric_limits<float>::lowest()) : 0.0;
    Value d = buildReduction(
        rewriter, loc, xf, {rank - 1},
        createScalarConstant(rewriter, loc, f32, init),
        [&](OpBuilder &b, Location l, Value v, Value acc) -> Value {
          if (norm == "MAX")
            return arith::MaxNumFOp::create(b, l, acc, v);
          Value t = norm == "L1" ? math::AbsFOp::create(b, l, v).getResult()
                                 : arith::MulFOp::create(b, l, v, v);
          return arith::AddFOp::create(b, l, acc, t);
        });
    AffineMap full = rewriter.getMultiDimIdentityMap(rank);
    Value y = generic(
        rewriter, loc,
        createEmpty(rewriter, loc, fType, getDims(rewriter, loc, x)), {xf, d},
        {full, full.dropResult(rank - 1), full},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value v = a[0], s = a[1];
          Value zero = createScalarConstant(b, l, f32, 0);
          Value r;
          if (norm == "L2") {
            Value q = math::SqrtOp::create(
                b, l,
                arith::DivFOp::create(b, l, arith::MulFOp::create(b, l, v, v),
                                      s));
            Value neg = arith::CmpFOp::create(b, l, FPred::OLT, v, zero);
            r = arith::SelectOp::create(b, l, neg,
                                        arith::NegFOp::create(b, l, q), q);
          } else {
            r = arith::DivFOp::create(b, l, v, s);
          }
          Value nonZero = arith::CmpFOp::create(b, l, FPred::UNE, s, zero);
          return arith::SelectOp::create(b, l, nonZero, r, v);
        });
    return replaceWithCast(rewriter, op, y, type);
  }
};

class ImputerLowering : public OpConversionPattern<ONNXMLImputerOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLImputerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = getConvertedResultType(*getTypeConverter(), op);
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!type || !xType || xType.getRank() < 1 || xType.getRank() > 2)
      return rewriter.notifyMatchFailure(op, "an input of [C] or [N, C]");
    Type elem = xType.getElementType();
    bool isFloat = isa<FloatType>(elem);
    SmallVector<float> floats = floatsOf(op.getImputedValueFloatsAttr());
    SmallVector<int64_t> ints = intsOf(op.getImputedValueInt64sAttr());
    size_t length = isFloat ? floats.size() : ints.size();
    if (length == 0)
      return op.emitOpError()
             << "has no imputed_value_" << (isFloat ? "floats" : "int64s")
             << " for its " << (isFloat ? "float" : "integer") << " input";
    if (failed(checkPerFeature(rewriter, loc, op, x, length,
                               "the imputed values")))
      return failure();
    auto listType = RankedTensorType::get({int64_t(length)}, elem);
    SmallVector<double> doubles(floats.begin(), floats.end());
    SmallVector<int32_t> narrow(ints.begin(), ints.end());
    DenseElementsAttr list =
        elem.isF64() ? DenseElementsAttr::get(listType, ArrayRef(doubles))
        : isFloat    ? DenseElementsAttr::get(listType, ArrayRef(floats))
        : elem.isInteger(32)
            ? DenseElementsAttr::get(listType, ArrayRef(narrow))
            : DenseElementsAttr::get(listType, ArrayRef(ints));
    float replacedF = op.getReplacedValueFloat().convertToFloat();
    int64_t replacedI = int64_t(op.getReplacedValueInt64());
    int64_t rank = xType.getRank();
    Value y = generic(
        rewriter, loc,
        createEmpty(rewriter, loc, xType, getDims(rewriter, loc, x)),
        {x, arith::ConstantOp::create(rewriter, loc, list)},
        {rewriter.getMultiDimIdentityMap(rank),
         perFeatureMap(rewriter, rank, length),
         rewriter.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value match;
          if (isFloat && std::isnan(replacedF))
            match = arith::CmpFOp::create(b, l, FPred::UNO, a[0], a[0]);
          else if (isFloat)
            match = arith::CmpFOp::create(
                b, l, FPred::OEQ, a[0],
                createScalarConstant(b, l, elem, replacedF));
          else
            match = arith::CmpIOp::create(
                b, l, Pred::eq, a[0],
                arith::ConstantIntOp::create(b, l, replacedI,
                                             elem.getIntOrFloatBitWidth()));
          return arith::SelectOp::create(b, l, match, a[1], a[0]);
        });
    return replaceWithCast(rewriter, op, y, type);
  }
};

class ArrayFeatureExtractorLowering
    : public OpConversionPattern<ONNXMLArrayFeatureExtractorOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLArrayFeatureExtractorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = getConvertedResultType(*getTypeConverter(), op);
    Value x = adaptor.getX(), y = adaptor.getY();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto yType = dyn_cast<RankedTensorType>(y.getType());
    if (!type || !xType || !yType || xType.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "ranked operands and result");
    int64_t rank = xType.getRank(), outRank = std::max<int64_t>(rank, 2);
    if (type.getRank() != outRank)
      return rewriter.notifyMatchFailure(op, "a result of X's rank (2 for 1)");
    IndexMath m(rewriter, loc);
    // The indices, flattened.
    int64_t k =
        yType.hasStaticShape() ? yType.getNumElements() : ShapedType::kDynamic;
    Value count = m.c(1);
    for (OpFoldResult d : getDims(rewriter, loc, y))
      count = m.mul(count, m.v(d));
    Value flat =
        reshapeTo(rewriter, loc, y,
                  RankedTensorType::get({k}, yType.getElementType()), {count});
    Value c = getDimValue(rewriter, loc, x, rank - 1);
    emitIndexRangeCheck(rewriter, loc, op, flat, c, /*allowNegative=*/true,
                        "on the last axis");
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, x);
    SmallVector<int64_t> shape(xType.getShape());
    if (rank == 1) {
      sizes.insert(sizes.begin(), rewriter.getIndexAttr(1));
      shape.insert(shape.begin(), 1);
    }
    sizes.back() = count;
    shape.back() = k;
    auto zType = RankedTensorType::get(shape, xType.getElementType());
    AffineMap last =
        AffineMap::get(outRank, 0, rewriter.getAffineDimExpr(outRank - 1));
    Value z = buildIndexedGeneric(
        rewriter, loc, zType, sizes, flat, last,
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> Value {
          IndexMath mm(b, l);
          Value j = mm.wrapNegative(
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]), c);
          SmallVector<Value> at;
          if (rank > 1)
            at = llvm::to_vector(ivs.drop_back());
          at.push_back(j);
          return tensor::ExtractOp::create(b, l, x, at);
        });
    return replaceWithCast(rewriter, op, z, type);
  }
};

class FeatureVectorizerLowering
    : public OpConversionPattern<ONNXMLFeatureVectorizerOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLFeatureVectorizerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = getConvertedResultType(*getTypeConverter(), op);
    ValueRange inputs = adaptor.getX();
    if (!type || type.getRank() != 2 || llvm::any_of(inputs, [](Value v) {
          auto t = dyn_cast<RankedTensorType>(v.getType());
          return !t || t.getRank() < 1;
        }))
      return rewriter.notifyMatchFailure(op, "ranked inputs and result");
    SmallVector<int64_t> widths = intsOf(op.getInputdimensionsAttr());
    if (widths.size() != inputs.size() ||
        llvm::any_of(widths, [](int64_t w) { return w < 0; }))
      return op.emitOpError()
             << "has " << inputs.size() << " inputs and " << widths.size()
             << " inputdimensions (each at least 0)";
    IndexMath m(rewriter, loc);
    Type f32 = rewriter.getF32Type();
    int64_t dyn = ShapedType::kDynamic;
    // Each input as [N_i, S_i]; N is the first input's.
    SmallVector<Value> rows;
    for (Value v : inputs) {
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<OpFoldResult> dims = getDims(rewriter, loc, v);
      if (t.getRank() == 1)
        dims.insert(dims.begin(), rewriter.getIndexAttr(1));
      Value s = m.c(1);
      for (OpFoldResult d : ArrayRef(dims).drop_front())
        s = m.mul(s, m.v(d));
      std::optional<int64_t> n = getConstantIntValue(dims[0]);
      std::optional<int64_t> ss = getConstantIntValue(s);
      rows.push_back(
          reshapeTo(rewriter, loc, v,
                    RankedTensorType::get({n ? *n : dyn, ss ? *ss : dyn},
                                          t.getElementType()),
                    {dims[0], s}));
    }
    Value n = getDimValue(rewriter, loc, rows[0], 0);
    int64_t total = 0;
    for (int64_t w : widths)
      total += w;
    auto outType = RankedTensorType::get(
        {cast<RankedTensorType>(rows[0].getType()).getDimSize(0), total}, f32);
    Value out = createEmpty(rewriter, loc, outType, {n, m.c(total)});
    int64_t offset = 0;
    for (auto [i, row] : llvm::enumerate(rows)) {
      Value ni = getDimValue(rewriter, loc, row, 0);
      if (i > 0)
        emitRuntimeCheck(rewriter, loc, op, m.cmp(Pred::ne, ni, n),
                         "input " + Twine(i) + " has {0} rows, input 0 has {1}",
                         {ni, n});
      Type elem = getONNXElementType(op.getX()[i]);
      auto rowType = cast<RankedTensorType>(row.getType());
      Value f = buildElementwise(rewriter, loc, row, rowType.clone(f32),
                                 [&](OpBuilder &b, Location l, ValueRange a) {
                                   return castScalar(b, l, a[0], elem, f32);
                                 });
      // The first min(S, w) columns, zero-padded to w.
      int64_t w = widths[i];
      Value take = m.min(getDimValue(rewriter, loc, f, 1), m.c(w));
      SmallVector<OpFoldResult> zeros(2, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> ones(2, rewriter.getIndexAttr(1));
      Value piece = tensor::ExtractSliceOp::create(
          rewriter, loc, f, zeros, SmallVector<OpFoldResult>{n, take}, ones);
      piece = tensor::PadOp::create(
          rewriter, loc, Type(), piece, zeros,
          SmallVector<OpFoldResult>{rewriter.getIndexAttr(0),
                                    m.sub(m.c(w), take)},
          createScalarConstant(rewriter, loc, f32, 0));
      piece = tensor::CastOp::create(
          rewriter, loc, RankedTensorType::get({outType.getDimSize(0), w}, f32),
          piece);
      out = tensor::InsertSliceOp::create(
          rewriter, loc, piece, out,
          SmallVector<OpFoldResult>{rewriter.getIndexAttr(0),
                                    rewriter.getIndexAttr(offset)},
          SmallVector<OpFoldResult>{n, rewriter.getIndexAttr(w)}, ones);
      offset += w;
    }
    return replaceWithCast(rewriter, op, out, type);
  }
};

} // namespace

void mlir::onnxc::populateMLPatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<BinarizerLowering, ScalerLowering, NormalizerLowering,
               ImputerLowering, ArrayFeatureExtractorLowering,
               FeatureVectorizerLowering>(converter, patterns.getContext());
  populateLookupPatterns(converter, patterns);
  populateLinearPatterns(converter, patterns);
  populateSVMPatterns(converter, patterns);
}
