//===- Resize.cpp - Resize -> linalg.generic ------------------------------===//
//
// One linalg.generic over the output: every output index is mapped back to
// an input coordinate per dim (coordinate_transformation_mode, in f64), and
// the value is read with tensor.extract: the nearest element (nearest_mode),
// or a weighted sum of 2 (linear) or 4 (cubic) taps per resized dim.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

enum class Mode { Nearest, Linear, Cubic };

FailureOr<SmallVector<double>> getConstantFloats(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return failure();
  auto dense = dyn_cast<DenseFPElementsAttr>(attr);
  if (!dense)
    return failure();
  SmallVector<double> values;
  for (const APFloat &f : dense.getValues<APFloat>())
    values.push_back(f.convertToDouble());
  return values;
}

class ResizeLowering : public OpConversionPattern<ONNXResizeOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    auto inType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!resultType || !inType || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static result shape");
    Type elem = inType.getElementType();
    if (!isa<FloatType>(elem) && !isa<IntegerType>(elem))
      return rewriter.notifyMatchFailure(op, "element type");
    StringRef modeName = op.getMode();
    Mode mode = modeName == "nearest"  ? Mode::Nearest
                : modeName == "linear" ? Mode::Linear
                : modeName == "cubic"  ? Mode::Cubic
                                       : Mode(-1);
    if (int(mode) < 0)
      return rewriter.notifyMatchFailure(op, "unknown mode");
    StringRef ctm = op.getCoordinateTransformationMode();
    if (ctm != "half_pixel" && ctm != "pytorch_half_pixel" &&
        ctm != "align_corners" && ctm != "asymmetric" &&
        ctm != "tf_crop_and_resize" && ctm != "tf_half_pixel_for_nn")
      return rewriter.notifyMatchFailure(op, "coordinate mode");
    StringRef nearestMode = op.getNearestMode();
    int64_t rank = inType.getRank();

    // Scales: given, or output size / input size.
    SmallVector<double> scales(rank, 0.0);
    // Scales given as a run-time input are read in the loop body.
    Value runtimeScales;
    if (Value s = op.getScales()) {
      auto sType = dyn_cast<RankedTensorType>(s.getType());
      bool empty = sType && sType.hasStaticShape() && sType.getNumElements() == 0;
      auto values = getConstantFloats(s);
      if (succeeded(values) && !values->empty()) {
        if (int64_t(values->size()) != rank)
          return rewriter.notifyMatchFailure(op, "scales length");
        scales = *values;
      } else if (!empty && failed(values)) {
        if (!sType || sType.getRank() != 1)
          return rewriter.notifyMatchFailure(op, "scales of unknown rank");
        runtimeScales = adaptor.getScales();
      }
    }
    SmallVector<double> roi;
    if (ctm == "tf_crop_and_resize") {
      if (!op.getRoi())
        return rewriter.notifyMatchFailure(op, "tf_crop_and_resize needs roi");
      auto values = getConstantFloats(op.getRoi());
      if (failed(values) || int64_t(values->size()) != 2 * rank)
        return rewriter.notifyMatchFailure(op, "roi not constant");
      roi = *values;
    }
    // Dims whose index passes through unchanged.
    SmallVector<bool> identity(rank, false);
    for (int64_t d = 0; d < rank; ++d) {
      if (inType.isDynamicDim(d))
        continue;
      if (scales[d] == 0.0)
        scales[d] = double(resultType.getDimSize(d)) / inType.getDimSize(d);
      // A dim of size 1 that stays 1 reads index 0 whatever the scale.
      bool unit = inType.getDimSize(d) == 1 && resultType.getDimSize(d) == 1;
      identity[d] = ctm != "tf_crop_and_resize" &&
                    ((!runtimeScales &&
                      inType.getDimSize(d) == resultType.getDimSize(d) &&
                      scales[d] == 1.0) ||
                     unit);
    }
    int resized = llvm::count(identity, false);
    if (mode == Mode::Cubic && resized > 3)
      return rewriter.notifyMatchFailure(op, "too many cubic dims");
    if (mode == Mode::Linear && resized > 5)
      return rewriter.notifyMatchFailure(op, "too many linear dims");

    Location loc = op.getLoc();
    Value input = adaptor.getX();
    SmallVector<Value> inSizes;
    for (int64_t d = 0; d < rank; ++d)
      inSizes.push_back(getDimValue(rewriter, loc, input, d));
    Value init = createEmpty(rewriter, loc, resultType, {});
    double extrapolation = op.getExtrapolationValue().convertToDouble();
    double cubicA = op.getCubicCoeffA().convertToDouble();
    bool excludeOutside = op.getExcludeOutside() != 0;
    Type f64 = rewriter.getF64Type();
    Type resultElem = resultType.getElementType();
    Type onnxElem = getONNXElementType(op.getX());

    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{}, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange) {
          auto f = [&](double v) { return createScalarConstant(b, l, f64, v); };
          auto toF64 = [&](Value index) -> Value {
            Value i64 = arith::IndexCastOp::create(b, l, b.getI64Type(), index);
            return arith::SIToFPOp::create(b, l, f64, i64);
          };
          auto toIndex = [&](Value x) -> Value {
            Value i64 = arith::FPToSIOp::create(b, l, b.getI64Type(), x);
            return arith::IndexCastOp::create(b, l, b.getIndexType(), i64);
          };
          Value outside = arith::ConstantOp::create(b, l, b.getBoolAttr(false));
          // Per dim: the input coordinate x (f64) and the input size.
          SmallVector<Value> coords(rank), sizesF(rank), outIdx(rank);
          for (int64_t d = 0; d < rank; ++d) {
            outIdx[d] = linalg::IndexOp::create(b, l, d);
            if (identity[d])
              continue;
            Value o = toF64(outIdx[d]);
            Value lin = toF64(inSizes[d]);
            sizesF[d] = lin;
            double lout = double(resultType.getDimSize(d));
            Value scale = f(scales[d]);
            if (runtimeScales) {
              Value s = tensor::ExtractOp::create(
                  b, l, runtimeScales,
                  ValueRange{arith::ConstantIndexOp::create(b, l, d)});
              scale = castScalar(b, l, s, getONNXElementType(op.getScales()),
                                 f64);
            }
            Value x;
            // ONNX measures the resized length as input length * scale,
            // unrounded.
            Value loutF = arith::MulFOp::create(b, l, lin, scale);
            Value loutGt1 = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::OGT, loutF, f(1));
            (void)lout;
            if (ctm == "half_pixel" || ctm == "pytorch_half_pixel") {
              x = arith::SubFOp::create(
                  b, l,
                  arith::DivFOp::create(
                      b, l, arith::AddFOp::create(b, l, o, f(0.5)), scale),
                  f(0.5));
              if (ctm == "pytorch_half_pixel")
                x = arith::SelectOp::create(b, l, loutGt1, x, f(0));
            } else if (ctm == "align_corners") {
              Value ratio = arith::DivFOp::create(
                  b, l, arith::SubFOp::create(b, l, lin, f(1)),
                  arith::SubFOp::create(b, l, loutF, f(1)));
              x = arith::SelectOp::create(
                  b, l, loutGt1, arith::MulFOp::create(b, l, o, ratio), f(0));
            } else if (ctm == "tf_half_pixel_for_nn") {
              x = arith::DivFOp::create(
                  b, l, arith::AddFOp::create(b, l, o, f(0.5)), scale);
            } else if (ctm == "asymmetric") {
              x = arith::DivFOp::create(b, l, o, scale);
            } else { // tf_crop_and_resize
              double start = roi[d], end = roi[d + rank];
              Value span = arith::SubFOp::create(b, l, lin, f(1));
              Value cropped = arith::AddFOp::create(
                  b, l, arith::MulFOp::create(b, l, f(start), span),
                  arith::MulFOp::create(
                      b, l, o,
                      arith::DivFOp::create(
                          b, l,
                          arith::MulFOp::create(b, l, f(end - start), span),
                          arith::SubFOp::create(b, l, loutF, f(1)))));
              x = arith::SelectOp::create(
                  b, l, loutGt1, cropped,
                  arith::MulFOp::create(b, l, f(0.5 * (start + end)), span));
              Value lo = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                               x, f(0));
              Value hi = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                               x, span);
              outside = arith::OrIOp::create(
                  b, l, outside, arith::OrIOp::create(b, l, lo, hi));
            }
            coords[d] = x;
          }
          auto clampIndex = [&](Value idx, int64_t d) -> Value {
            Value zero = arith::ConstantIndexOp::create(b, l, 0);
            Value last = arith::SubIOp::create(
                b, l, inSizes[d], arith::ConstantIndexOp::create(b, l, 1));
            idx = arith::MaxSIOp::create(b, l, idx, zero);
            return arith::MinSIOp::create(b, l, idx, last);
          };
          auto read = [&](ArrayRef<Value> idx) -> Value {
            Value v = tensor::ExtractOp::create(b, l, input, idx);
            return castScalar(b, l, v, onnxElem, f64);
          };

          Value result;
          if (mode == Mode::Nearest) {
            SmallVector<Value> idx(rank);
            for (int64_t d = 0; d < rank; ++d) {
              if (identity[d]) {
                idx[d] = outIdx[d];
                continue;
              }
              Value x = coords[d], r;
              Value fl = math::FloorOp::create(b, l, x);
              if (nearestMode == "floor") {
                r = fl;
              } else if (nearestMode == "ceil") {
                r = math::CeilOp::create(b, l, x);
              } else {
                // Halfway cases go to floor or ceil; others round.
                Value half = arith::CmpFOp::create(
                    b, l, arith::CmpFPredicate::OEQ,
                    arith::SubFOp::create(b, l, x, fl), f(0.5));
                Value tie = nearestMode == "round_prefer_ceil"
                                ? (Value)math::CeilOp::create(b, l, x)
                                : fl;
                r = arith::SelectOp::create(
                    b, l, half, tie,
                    math::FloorOp::create(
                        b, l, arith::AddFOp::create(b, l, x, f(0.5))));
              }
              idx[d] = clampIndex(toIndex(r), d);
            }
            // The element itself: no round trip through f64.
            linalg::YieldOp::create(b, l,
                                    tensor::ExtractOp::create(b, l, input, idx)
                                        .getResult());
            return;
          } else {
            // Taps per resized dim: (index, weight) pairs.
            SmallVector<SmallVector<std::pair<Value, Value>>> taps(rank);
            for (int64_t d = 0; d < rank; ++d) {
              if (identity[d]) {
                taps[d].push_back({outIdx[d], f(1)});
                continue;
              }
              Value x = coords[d];
              Value fl = math::FloorOp::create(b, l, x);
              Value t = arith::SubFOp::create(b, l, x, fl);
              Value base = toIndex(fl);
              if (mode == Mode::Linear) {
                Value one = arith::ConstantIndexOp::create(b, l, 1);
                taps[d].push_back({clampIndex(base, d),
                                   arith::SubFOp::create(b, l, f(1), t)});
                taps[d].push_back(
                    {clampIndex(arith::AddIOp::create(b, l, base, one), d), t});
                continue;
              }
              // Cubic convolution with coefficient a (Keys).
              auto weight = [&](Value s) -> Value {
                // |s| <= 1: (a+2)|s|^3 - (a+3)|s|^2 + 1
                // 1 < |s| < 2: a|s|^3 - 5a|s|^2 + 8a|s| - 4a
                Value as = math::AbsFOp::create(b, l, s);
                Value s2 = arith::MulFOp::create(b, l, as, as);
                Value s3 = arith::MulFOp::create(b, l, s2, as);
                Value near = arith::AddFOp::create(
                    b, l,
                    arith::SubFOp::create(
                        b, l, arith::MulFOp::create(b, l, f(cubicA + 2), s3),
                        arith::MulFOp::create(b, l, f(cubicA + 3), s2)),
                    f(1));
                Value far = arith::SubFOp::create(
                    b, l,
                    arith::AddFOp::create(
                        b, l,
                        arith::SubFOp::create(
                            b, l, arith::MulFOp::create(b, l, f(cubicA), s3),
                            arith::MulFOp::create(b, l, f(5 * cubicA), s2)),
                        arith::MulFOp::create(b, l, f(8 * cubicA), as)),
                    f(4 * cubicA));
                Value isNear = arith::CmpFOp::create(
                    b, l, arith::CmpFPredicate::OLE, as, f(1));
                return arith::SelectOp::create(b, l, isNear, near, far);
              };
              SmallVector<Value> ws, idxs;
              for (int k = -1; k <= 2; ++k) {
                Value s = arith::SubFOp::create(b, l, t, f(k));
                Value w = weight(s);
                Value raw = arith::AddIOp::create(
                    b, l, base, arith::ConstantIndexOp::create(b, l, k));
                if (excludeOutside) {
                  Value zero = arith::ConstantIndexOp::create(b, l, 0);
                  Value lo = arith::CmpIOp::create(
                      b, l, arith::CmpIPredicate::slt, raw, zero);
                  Value hi = arith::CmpIOp::create(
                      b, l, arith::CmpIPredicate::sge, raw, inSizes[d]);
                  w = arith::SelectOp::create(
                      b, l, arith::OrIOp::create(b, l, lo, hi), f(0), w);
                }
                ws.push_back(w);
                idxs.push_back(clampIndex(raw, d));
              }
              Value total = ws[0];
              for (int k = 1; k < 4; ++k)
                total = arith::AddFOp::create(b, l, total, ws[k]);
              for (int k = 0; k < 4; ++k) {
                if (excludeOutside)
                  ws[k] = arith::DivFOp::create(b, l, ws[k], total);
                taps[d].push_back({idxs[k], ws[k]});
              }
            }
            // Sum over every combination of taps.
            SmallVector<unsigned> pick(rank, 0);
            result = f(0);
            while (true) {
              SmallVector<Value> idx(rank);
              Value w = f(1);
              for (int64_t d = 0; d < rank; ++d) {
                idx[d] = taps[d][pick[d]].first;
                if (!identity[d])
                  w = arith::MulFOp::create(b, l, w, taps[d][pick[d]].second);
              }
              result = arith::AddFOp::create(
                  b, l, result, arith::MulFOp::create(b, l, w, read(idx)));
              int64_t d = rank - 1;
              for (; d >= 0; --d) {
                if (++pick[d] < taps[d].size())
                  break;
                pick[d] = 0;
              }
              if (d < 0)
                break;
            }
          }
          if (ctm == "tf_crop_and_resize")
            result = arith::SelectOp::create(b, l, outside, f(extrapolation),
                                             result);
          if (!isa<FloatType>(resultElem) && mode != Mode::Nearest)
            result = math::RoundEvenOp::create(b, l, result);
          linalg::YieldOp::create(b, l,
                                  castScalar(b, l, result, f64, onnxElem));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::onnxc::populateResizePatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<ResizeLowering>(converter, patterns.getContext());
}
