//===- Resize.cpp - Resize -> linalg.generic ------------------------------===//
//
// One linalg.generic over the output: every output index is mapped back to
// an input coordinate per dim (coordinate_transformation_mode, in f64), and
// the value is read with tensor.extract: the nearest element (nearest_mode),
// or a weighted sum of 2 (linear) or 4 (cubic) taps per resized dim. Resize-19:
// `axes` names the dims roi/scales/sizes refer to (the others keep their
// size); keep_aspect_ratio_policy gives every named dim one scale; antialias
// stretches the linear/cubic filter by 1/scale when downscaling (more taps,
// renormalised), as ONNX's reference does.
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
    if (!resultType || !inType || resultType.getRank() != inType.getRank())
      return rewriter.notifyMatchFailure(op, "needs ranked types");
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
    if (ctm != "half_pixel" && ctm != "half_pixel_symmetric" &&
        ctm != "pytorch_half_pixel" && ctm != "align_corners" &&
        ctm != "asymmetric" && ctm != "tf_crop_and_resize" &&
        ctm != "tf_half_pixel_for_nn")
      return rewriter.notifyMatchFailure(op, "coordinate mode");
    StringRef nearestMode = op.getNearestMode();
    int64_t rank = inType.getRank();
    bool antialias = op.getAntialias() != 0 && mode != Mode::Nearest;

    // The dims roi/scales/sizes refer to: pos[d] is d's index in them, -1
    // for a dim that keeps its size.
    SmallVector<int64_t> pos(rank, -1);
    int64_t numAxes = rank;
    if (ArrayAttr axes = op.getAxesAttr()) {
      numAxes = axes.size();
      for (auto [i, a] : llvm::enumerate(axes.getAsValueRange<IntegerAttr>())) {
        int64_t d = normalizeAxis(a.getSExtValue(), rank);
        if (d < 0 || d >= rank || pos[d] >= 0)
          return rewriter.notifyMatchFailure(op,
                                             "axes out of range or repeated");
        pos[d] = int64_t(i);
      }
    } else {
      for (int64_t d = 0; d < rank; ++d)
        pos[d] = d;
    }

    // Scales: given, or output size / input size.
    SmallVector<double> scales(rank, 0.0);
    // Scales given as a run-time input are read in the loop body.
    Value runtimeScales;
    if (Value s = op.getScales()) {
      auto sType = dyn_cast<RankedTensorType>(s.getType());
      bool empty =
          sType && sType.hasStaticShape() && sType.getNumElements() == 0;
      auto values = getConstantFloats(s);
      if (succeeded(values) && !values->empty()) {
        if (int64_t(values->size()) != numAxes)
          return rewriter.notifyMatchFailure(op, "scales length");
        for (int64_t d = 0; d < rank; ++d)
          scales[d] = pos[d] < 0 ? 1.0 : (*values)[pos[d]];
      } else if (!empty && failed(values)) {
        if (!sType || sType.getRank() != 1)
          return rewriter.notifyMatchFailure(op, "scales of unknown rank");
        runtimeScales = adaptor.getScales();
      }
    }
    StringRef policy = op.getKeepAspectRatioPolicy();
    // keep_aspect_ratio_policy: one scale for every named dim, the smallest
    // (not_larger) or largest (not_smaller) of sizes / input size; computed
    // here from constant sizes, else at run time (runtimeSizes).
    Value runtimeSizes;
    if (policy != "stretch" && !runtimeScales && op.getSizes() &&
        llvm::all_of(scales, [](double v) { return v == 0.0; })) {
      FailureOr<SmallVector<int64_t>> sizes =
          getConstantIntValues(op.getSizes());
      if (succeeded(sizes) && int64_t(sizes->size()) != numAxes)
        return rewriter.notifyMatchFailure(op, "sizes length");
      if (failed(sizes) || !inType.hasStaticShape()) {
        runtimeSizes = adaptor.getSizes();
      } else {
        std::optional<double> common;
        for (int64_t d = 0; d < rank; ++d) {
          if (pos[d] < 0)
            continue;
          double r = double((*sizes)[pos[d]]) / double(inType.getDimSize(d));
          common = !common                  ? r
                   : policy == "not_larger" ? std::min(*common, r)
                                            : std::max(*common, r);
        }
        for (int64_t d = 0; d < rank; ++d)
          scales[d] = pos[d] < 0 ? 1.0 : common.value_or(1.0);
      }
    }
    // tf_crop_and_resize's region per named dim: [start, end] of roi, a
    // constant or read at run time.
    SmallVector<double> roi;
    Value runtimeRoi;
    if (ctm == "tf_crop_and_resize") {
      if (!op.getRoi())
        return rewriter.notifyMatchFailure(op, "tf_crop_and_resize needs roi");
      auto values = getConstantFloats(op.getRoi());
      if (succeeded(values)) {
        if (int64_t(values->size()) != 2 * numAxes)
          return rewriter.notifyMatchFailure(op, "roi length");
        roi = *values;
      } else {
        runtimeRoi = adaptor.getRoi();
      }
    }
    Location loc = op.getLoc();
    Value input = adaptor.getX();
    Type f64 = rewriter.getF64Type();
    SmallVector<Value> inSizes;
    for (int64_t d = 0; d < rank; ++d)
      inSizes.push_back(getDimValue(rewriter, loc, input, d));
    // The result's sizes. A dynamic one is computed before the loops: the
    // input's where the dim keeps its size, else floor(input size * scale)
    // with scales, or the given size with sizes. dynScales[d]: output /
    // input size where that ratio, the scale, is only known at run time.
    SmallVector<Value> outSizes(rank), dynScales(rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (!resultType.isDynamicDim(d)) {
        outSizes[d] = arith::ConstantIndexOp::create(rewriter, loc,
                                                     resultType.getDimSize(d));
        continue;
      }
      if (pos[d] < 0 || (!runtimeScales && scales[d] == 1.0)) {
        outSizes[d] = inSizes[d];
        continue;
      }
      if (runtimeSizes)
        return rewriter.notifyMatchFailure(
            op, "keep_aspect_ratio_policy with run-time output sizes");
      Value inF = indexToFloat(rewriter, loc, inSizes[d], f64);
      Value index = arith::ConstantIndexOp::create(rewriter, loc, pos[d]);
      if (runtimeScales || scales[d] != 0.0) {
        Value scale =
            runtimeScales
                ? castScalar(rewriter, loc,
                             tensor::ExtractOp::create(rewriter, loc,
                                                       runtimeScales, index),
                             getONNXElementType(op.getScales()), f64)
                : createScalarConstant(rewriter, loc, f64, scales[d]);
        // Sizes are >= 0: truncation floors them.
        outSizes[d] = floatToIndex(
            rewriter, loc, arith::MulFOp::create(rewriter, loc, inF, scale));
      } else if (Value sizes = op.getSizes()) {
        FailureOr<SmallVector<int64_t>> known = getConstantIntValues(sizes);
        if (succeeded(known) && int64_t(known->size()) == numAxes) {
          outSizes[d] =
              arith::ConstantIndexOp::create(rewriter, loc, (*known)[pos[d]]);
        } else {
          Value size =
              tensor::ExtractOp::create(rewriter, loc, adaptor.getSizes(), index);
          outSizes[d] = arith::IndexCastOp::create(
              rewriter, loc, rewriter.getIndexType(), size);
        }
      } else {
        return rewriter.notifyMatchFailure(op, "neither scales nor sizes");
      }
    }
    for (int64_t d = 0; d < rank; ++d)
      if (pos[d] >= 0 && scales[d] == 0.0 && !runtimeScales && !runtimeSizes &&
          (inType.isDynamicDim(d) || resultType.isDynamicDim(d)))
        dynScales[d] = arith::DivFOp::create(
            rewriter, loc, indexToFloat(rewriter, loc, outSizes[d], f64),
            indexToFloat(rewriter, loc, inSizes[d], f64));
    if (antialias && llvm::any_of(dynScales, [](Value v) { return v; }))
      return rewriter.notifyMatchFailure(op,
                                         "antialias with run-time sizes");

    // Dims whose index passes through unchanged.
    SmallVector<bool> identity(rank, false);
    for (int64_t d = 0; d < rank; ++d) {
      if (pos[d] < 0) {
        identity[d] = true;
        continue;
      }
      if (inType.isDynamicDim(d) || resultType.isDynamicDim(d))
        continue;
      if (scales[d] == 0.0)
        scales[d] = double(resultType.getDimSize(d)) / inType.getDimSize(d);
      // A dim of size 1 that stays 1 reads index 0 whatever the scale.
      bool unit = inType.getDimSize(d) == 1 && resultType.getDimSize(d) == 1;
      identity[d] = ctm != "tf_crop_and_resize" &&
                    ((!runtimeScales && !runtimeSizes &&
                      inType.getDimSize(d) == resultType.getDimSize(d) &&
                      scales[d] == 1.0) ||
                     unit);
    }
    // Taps per dim of the (antialiased) filter, and their combinations.
    auto numTaps = [&](int64_t d) -> int64_t {
      if (identity[d] || mode == Mode::Nearest)
        return 1;
      // With run-time scales scales[d] is output / input size, the smallest
      // scale that gives this output size: the most taps (the surplus ones
      // weigh 0).
      double sc = antialias ? std::min(scales[d], 1.0) : 1.0;
      if (sc <= 0.0)
        return -1;
      int64_t start =
          int64_t(std::floor((mode == Mode::Linear ? -1.0 : -2.0) / sc)) + 1;
      return 2 - 2 * start;
    };
    int64_t combinations = 1;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t n = numTaps(d);
      if (n <= 0)
        return rewriter.notifyMatchFailure(op, "scale <= 0");
      combinations *= n;
      if (combinations > 1024)
        return rewriter.notifyMatchFailure(op, "too many filter taps");
    }

    Value init = createEmpty(rewriter, loc, resultType,
                             getAsOpFoldResult(ValueRange(outSizes)));
    double extrapolation = op.getExtrapolationValue().convertToDouble();
    double cubicA = op.getCubicCoeffA().convertToDouble();
    bool excludeOutside = op.getExcludeOutside() != 0;
    Type resultElem = resultType.getElementType();
    Type onnxElem = getONNXElementType(op.getX());

    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{}, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange) {
          auto f = [&](double v) { return createScalarConstant(b, l, f64, v); };
          auto toF64 = [&](Value index) {
            return indexToFloat(b, l, index, f64);
          };
          auto toIndex = [&](Value x) { return floatToIndex(b, l, x); };
          Value outside = arith::ConstantOp::create(b, l, b.getBoolAttr(false));
          // keep_aspect_ratio_policy with run-time sizes: the common scale.
          Value commonScale;
          if (runtimeSizes) {
            for (int64_t d = 0; d < rank; ++d) {
              if (pos[d] < 0)
                continue;
              Value size = tensor::ExtractOp::create(
                  b, l, runtimeSizes,
                  ValueRange{arith::ConstantIndexOp::create(b, l, pos[d])});
              Value r = arith::DivFOp::create(
                  b, l,
                  castScalar(b, l, size, getONNXElementType(op.getSizes()),
                             f64),
                  toF64(inSizes[d]));
              commonScale =
                  !commonScale ? r
                  : policy == "not_larger"
                      ? (Value)arith::MinimumFOp::create(b, l, commonScale, r)
                      : (Value)arith::MaximumFOp::create(b, l, commonScale, r);
            }
          }
          // Per dim: the input coordinate x (f64), the input size and the
          // scale.
          SmallVector<Value> coords(rank), sizesF(rank), outIdx(rank),
              scaleVals(rank);
          for (int64_t d = 0; d < rank; ++d) {
            outIdx[d] = linalg::IndexOp::create(b, l, d);
            if (identity[d])
              continue;
            Value o = toF64(outIdx[d]);
            Value lin = toF64(inSizes[d]);
            sizesF[d] = lin;
            Value scale = commonScale    ? commonScale
                          : dynScales[d] ? dynScales[d]
                                         : f(scales[d]);
            if (runtimeScales) {
              Value s = tensor::ExtractOp::create(
                  b, l, runtimeScales,
                  ValueRange{arith::ConstantIndexOp::create(b, l, pos[d])});
              scale =
                  castScalar(b, l, s, getONNXElementType(op.getScales()), f64);
            }
            Value x;
            // ONNX measures the resized length as input length * scale,
            // unrounded.
            Value loutF = arith::MulFOp::create(b, l, lin, scale);
            Value loutGt1 = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::OGT, loutF, f(1));
            if (ctm == "half_pixel_symmetric") {
              // Centred: the rounding of the output length shifts both
              // ends alike.
              Value lout = resultType.isDynamicDim(d)
                               ? toF64(outSizes[d])
                               : f(double(resultType.getDimSize(d)));
              Value adjustment = arith::DivFOp::create(b, l, lout, loutF);
              Value offset = arith::MulFOp::create(
                  b, l, arith::MulFOp::create(b, l, lin, f(0.5)),
                  arith::SubFOp::create(b, l, f(1), adjustment));
              x = arith::AddFOp::create(
                  b, l, offset,
                  arith::SubFOp::create(
                      b, l,
                      arith::DivFOp::create(
                          b, l, arith::AddFOp::create(b, l, o, f(0.5)), scale),
                      f(0.5)));
            } else if (ctm == "half_pixel" || ctm == "pytorch_half_pixel") {
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
              Value start, end;
              if (runtimeRoi) {
                auto at = [&](int64_t i) {
                  Value v = tensor::ExtractOp::create(
                      b, l, runtimeRoi,
                      ValueRange{arith::ConstantIndexOp::create(b, l, i)});
                  return castScalar(b, l, v, getONNXElementType(op.getRoi()),
                                    f64);
                };
                start = at(pos[d]);
                end = at(pos[d] + numAxes);
              } else {
                start = f(roi[pos[d]]);
                end = f(roi[pos[d] + numAxes]);
              }
              Value span = arith::SubFOp::create(b, l, lin, f(1));
              Value cropped = arith::AddFOp::create(
                  b, l, arith::MulFOp::create(b, l, start, span),
                  arith::MulFOp::create(
                      b, l, o,
                      arith::DivFOp::create(
                          b, l,
                          arith::MulFOp::create(
                              b, l, arith::SubFOp::create(b, l, end, start),
                              span),
                          arith::SubFOp::create(b, l, loutF, f(1)))));
              Value mid = arith::MulFOp::create(
                  b, l, arith::AddFOp::create(b, l, start, end), f(0.5));
              x = arith::SelectOp::create(
                  b, l, loutGt1, cropped,
                  arith::MulFOp::create(b, l, mid, span));
              Value lo = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                               x, f(0));
              Value hi = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                               x, span);
              outside = arith::OrIOp::create(
                  b, l, outside, arith::OrIOp::create(b, l, lo, hi));
            }
            coords[d] = x;
            scaleVals[d] = scale;
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

          auto cubicWeight = [&](Value s) {
            return cubicConvolutionWeight(b, l, s, cubicA);
          };
          // exclude_outside: a tap at `raw` outside dim d weighs 0.
          auto insideWeight = [&](Value raw, Value w, int64_t d) -> Value {
            if (!excludeOutside)
              return w;
            Value zero = arith::ConstantIndexOp::create(b, l, 0);
            Value lo = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                             raw, zero);
            Value hi = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                             raw, inSizes[d]);
            return arith::SelectOp::create(
                b, l, arith::OrIOp::create(b, l, lo, hi), f(0), w);
          };
          // The taps of the filter stretched by 1 / scale (downscaling with
          // antialias): base = ceil(x) - 1 and ratio = x - base in (0, 1],
          // taps base + j for j in [start, start + n), weights
          // filter((j - ratio) * scale) renormalised to sum to 1.
          auto antialiasTaps = [&](OpBuilder &b, Location l, Value x,
                                   int64_t d) {
            int64_t n = numTaps(d), start = 1 - n / 2;
            Value sc = arith::MinimumFOp::create(b, l, scaleVals[d], f(1));
            Value base = arith::SubFOp::create(
                b, l, math::CeilOp::create(b, l, x), f(1));
            Value ratio = arith::SubFOp::create(b, l, x, base);
            Value baseIdx = toIndex(base);
            SmallVector<Value> ws, idxs;
            Value total = f(0);
            for (int64_t j = start; j < start + n; ++j) {
              Value arg = arith::MulFOp::create(
                  b, l, arith::SubFOp::create(b, l, f(double(j)), ratio), sc);
              Value w;
              if (mode == Mode::Linear)
                w = arith::MaximumFOp::create(
                    b, l, f(0),
                    arith::SubFOp::create(b, l, f(1),
                                          math::AbsFOp::create(b, l, arg)));
              else
                w = cubicWeight(arg);
              Value raw = arith::AddIOp::create(
                  b, l, baseIdx, arith::ConstantIndexOp::create(b, l, j));
              w = insideWeight(raw, w, d);
              total = arith::AddFOp::create(b, l, total, w);
              ws.push_back(w);
              idxs.push_back(clampIndex(raw, d));
            }
            SmallVector<std::pair<Value, Value>> result;
            for (auto [idx, w] : llvm::zip(idxs, ws))
              result.push_back({idx, arith::DivFOp::create(b, l, w, total)});
            return result;
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
            linalg::YieldOp::create(
                b, l, tensor::ExtractOp::create(b, l, input, idx).getResult());
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
              if (antialias && scales[d] < 1.0) {
                // (scales[d] bounds a run-time scale from below.)
                taps[d] = antialiasTaps(b, l, x, d);
                continue;
              }
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
              SmallVector<Value> ws, idxs;
              for (int k = -1; k <= 2; ++k) {
                Value s = arith::SubFOp::create(b, l, t, f(k));
                Value w = cubicWeight(s);
                Value raw = arith::AddIOp::create(
                    b, l, base, arith::ConstantIndexOp::create(b, l, k));
                w = insideWeight(raw, w, d);
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
