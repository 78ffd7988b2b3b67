//===- GridSample.cpp - GridSample (2-D) -> linalg.generic ----------------===//
//
// One linalg.generic over the N x C x Hout x Wout output. The grid gives
// normalised (x, y) per output position; they are unnormalised
// (align_corners), folded by padding_mode (border clamps, reflection
// reflects) and read with 1 (nearest), 4 (linear) or 16 (cubic) taps;
// taps outside the image read 0 with zeros padding, else the clamped or
// reflected pixel. Coordinates are computed in f64.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

class GridSampleLowering : public OpConversionPattern<ONNXGridSampleOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXGridSampleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto gType = dyn_cast<RankedTensorType>(adaptor.getGrid().getType());
    if (!resultType || !xType || !gType || xType.getRank() != 4 ||
        gType.getRank() != 4 || resultType.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "only 2-D sampling (4-D X)");
    if (!isa<FloatType>(xType.getElementType()) ||
        !isa<FloatType>(gType.getElementType()))
      return rewriter.notifyMatchFailure(op, "float data only");
    StringRef mode = op.getMode(), padding = op.getPaddingMode();
    if (mode != "linear" && mode != "nearest" && mode != "cubic")
      return rewriter.notifyMatchFailure(op, "mode");
    if (padding != "zeros" && padding != "border" && padding != "reflection")
      return rewriter.notifyMatchFailure(op, "padding mode");
    bool alignCorners = op.getAlignCorners() != 0;
    Location loc = op.getLoc();
    Value x = adaptor.getX(), grid = adaptor.getGrid();
    Value h = getDimValue(rewriter, loc, x, 2);
    Value w = getDimValue(rewriter, loc, x, 3);
    SmallVector<OpFoldResult> sizes = {getDims(rewriter, loc, x)[0],
                                       getDims(rewriter, loc, x)[1],
                                       getDims(rewriter, loc, grid)[1],
                                       getDims(rewriter, loc, grid)[2]};
    Value init = createEmpty(rewriter, loc, resultType, sizes);
    Type f64 = rewriter.getF64Type();
    Type xElem = getONNXElementType(op.getX());
    Type gElem = getONNXElementType(op.getGrid());
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(4)};
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{}, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange) {
          auto f = [&](double v) { return createScalarConstant(b, l, f64, v); };
          auto toF64 = [&](Value index) -> Value {
            return arith::SIToFPOp::create(
                b, l, f64,
                arith::IndexCastOp::create(b, l, b.getI64Type(), index));
          };
          auto toIndex = [&](Value v) -> Value {
            return arith::IndexCastOp::create(
                b, l, b.getIndexType(),
                arith::FPToSIOp::create(b, l, b.getI64Type(), v));
          };
          Value n = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          Value oh = linalg::IndexOp::create(b, l, 2);
          Value ow = linalg::IndexOp::create(b, l, 3);
          auto gridAt = [&](int64_t k) {
            Value v = tensor::ExtractOp::create(
                b, l, grid,
                ValueRange{n, oh, ow, arith::ConstantIndexOp::create(b, l, k)});
            return castScalar(b, l, v, gElem, f64);
          };
          Value hf = toF64(h), wf = toF64(w);
          // Normalised [-1, 1] -> pixel coordinates.
          auto unnormalise = [&](Value g, Value size) -> Value {
            Value gp1 = arith::AddFOp::create(b, l, g, f(1));
            if (alignCorners)
              return arith::MulFOp::create(
                  b, l, arith::DivFOp::create(b, l, gp1, f(2)),
                  arith::SubFOp::create(b, l, size, f(1)));
            return arith::DivFOp::create(
                b, l,
                arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, gp1, size),
                                      f(1)),
                f(2));
          };
          // Reflects v into [lo, hi] (ONNX's reference reflect()).
          auto reflect = [&](Value v, Value lo, Value hi) -> Value {
            Value range = arith::SubFOp::create(b, l, hi, lo);
            auto fold = [&](Value dx, Value nearEnd, Value farEnd, bool below) {
              Value k = math::FloorOp::create(
                  b, l, arith::DivFOp::create(b, l, dx, range));
              Value r = arith::SubFOp::create(
                  b, l, dx, arith::MulFOp::create(b, l, k, range));
              Value even = arith::CmpFOp::create(
                  b, l, arith::CmpFPredicate::OEQ,
                  math::FloorOp::create(
                      b, l, arith::DivFOp::create(b, l, k, f(2))),
                  arith::DivFOp::create(b, l, k, f(2)));
              Value a = below ? arith::AddFOp::create(b, l, nearEnd, r).getResult()
                              : arith::SubFOp::create(b, l, nearEnd, r).getResult();
              Value z = below ? arith::SubFOp::create(b, l, farEnd, r).getResult()
                              : arith::AddFOp::create(b, l, farEnd, r).getResult();
              return arith::SelectOp::create(b, l, even, a, z).getResult();
            };
            Value isBelow = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                                  v, lo);
            Value isAbove = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                                  v, hi);
            Value belowV = fold(arith::SubFOp::create(b, l, lo, v), lo, hi, true);
            Value aboveV = fold(arith::SubFOp::create(b, l, v, hi), hi, lo, false);
            Value zeroRange = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::OEQ, range, f(0));
            Value r = arith::SelectOp::create(
                b, l, isBelow, belowV,
                arith::SelectOp::create(b, l, isAbove, aboveV, v));
            return arith::SelectOp::create(b, l, zeroRange, lo, r);
          };
          auto bounds = [&](Value size) -> std::pair<Value, Value> {
            if (alignCorners)
              return {f(0), arith::SubFOp::create(b, l, size, f(1))};
            return {f(-0.5), arith::SubFOp::create(b, l, size, f(0.5))};
          };
          auto pad = [&](Value v, Value size) -> Value {
            if (padding == "border")
              return arith::MinimumFOp::create(
                  b, l, arith::MaximumFOp::create(b, l, v, f(0)),
                  arith::SubFOp::create(b, l, size, f(1)));
            if (padding == "reflection") {
              auto [lo, hi] = bounds(size);
              return reflect(v, lo, hi);
            }
            return v;
          };
          Value gx = pad(unnormalise(gridAt(0), wf), wf);
          Value gy = pad(unnormalise(gridAt(1), hf), hf);
          // The pixel at integer (iy, ix) (f64 values), with padding.
          auto pixel = [&](Value iy, Value ix) -> Value {
            Value inside;
            if (padding == "zeros") {
              Value okx = arith::AndIOp::create(
                  b, l,
                  arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, ix, f(0)),
                  arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, ix, wf));
              Value oky = arith::AndIOp::create(
                  b, l,
                  arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, iy, f(0)),
                  arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, iy, hf));
              inside = arith::AndIOp::create(b, l, okx, oky);
            } else if (padding == "reflection") {
              auto [lox, hix] = bounds(wf);
              auto [loy, hiy] = bounds(hf);
              ix = reflect(ix, lox, hix);
              iy = reflect(iy, loy, hiy);
            }
            // Clamp so that the read stays in bounds in every mode.
            Value cx = arith::MinimumFOp::create(
                b, l, arith::MaximumFOp::create(b, l, ix, f(0)),
                arith::SubFOp::create(b, l, wf, f(1)));
            Value cy = arith::MinimumFOp::create(
                b, l, arith::MaximumFOp::create(b, l, iy, f(0)),
                arith::SubFOp::create(b, l, hf, f(1)));
            Value v = tensor::ExtractOp::create(
                b, l, x, ValueRange{n, c, toIndex(cy), toIndex(cx)});
            Value vf = castScalar(b, l, v, xElem, f64);
            if (inside)
              vf = arith::SelectOp::create(b, l, inside, vf, f(0));
            return vf;
          };
          Value result;
          if (mode == "nearest") {
            result = pixel(math::RoundEvenOp::create(b, l, gy),
                           math::RoundEvenOp::create(b, l, gx));
          } else if (mode == "linear") {
            Value x0 = math::FloorOp::create(b, l, gx);
            Value y0 = math::FloorOp::create(b, l, gy);
            Value x1 = arith::AddFOp::create(b, l, x0, f(1));
            Value y1 = arith::AddFOp::create(b, l, y0, f(1));
            Value dx = arith::SubFOp::create(b, l, gx, x0);
            Value dy = arith::SubFOp::create(b, l, gy, y0);
            Value ex = arith::SubFOp::create(b, l, f(1), dx);
            Value ey = arith::SubFOp::create(b, l, f(1), dy);
            auto term = [&](Value wy, Value wx, Value iy, Value ix) -> Value {
              return arith::MulFOp::create(
                  b, l, arith::MulFOp::create(b, l, wy, wx), pixel(iy, ix));
            };
            result = term(ey, ex, y0, x0);
            result = arith::AddFOp::create(b, l, result, term(ey, dx, y0, x1));
            result = arith::AddFOp::create(b, l, result, term(dy, ex, y1, x0));
            result = arith::AddFOp::create(b, l, result, term(dy, dx, y1, x1));
          } else {
            // Bicubic, a = -0.75.
            double a = -0.75;
            auto coeffs = [&](Value t) {
              SmallVector<Value> cs;
              for (int k = -1; k <= 2; ++k)
                cs.push_back(cubicConvolutionWeight(
                    b, l, arith::SubFOp::create(b, l, t, f(k)), a));
              return cs;
            };
            Value x0 = math::FloorOp::create(b, l, gx);
            Value y0 = math::FloorOp::create(b, l, gy);
            SmallVector<Value> wx = coeffs(arith::SubFOp::create(b, l, gx, x0));
            SmallVector<Value> wy = coeffs(arith::SubFOp::create(b, l, gy, y0));
            result = f(0);
            for (int i = 0; i < 4; ++i)
              for (int j = 0; j < 4; ++j) {
                Value iy = arith::AddFOp::create(b, l, y0, f(i - 1));
                Value ix = arith::AddFOp::create(b, l, x0, f(j - 1));
                Value wgt = arith::MulFOp::create(b, l, wy[i], wx[j]);
                result = arith::AddFOp::create(
                    b, l, result,
                    arith::MulFOp::create(b, l, wgt, pixel(iy, ix)));
              }
          }
          linalg::YieldOp::create(
              b, l,
              castScalar(b, l, result, f64, getONNXElementType(op.getY())));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::onnxc::populateGridSamplePatterns(const TypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<GridSampleLowering>(converter, patterns.getContext());
}
