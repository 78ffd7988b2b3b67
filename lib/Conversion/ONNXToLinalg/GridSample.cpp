//===- GridSample.cpp - GridSample, AffineGrid -> linalg.generic ----------===//
//
// One linalg.generic over the N x C x (Dout) x Hout x Wout output. The grid
// gives normalised (x, y[, z]) per output position; they are unnormalised
// (align_corners), folded by padding_mode (border clamps, reflection
// reflects) and read with 1 (nearest), 2^dims (linear) or 16 (cubic, 2-D
// only) taps; taps outside the image read 0 with zeros padding, else the
// clamped or reflected pixel. Coordinates are computed in f64.
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
    if (!resultType || !xType || !gType ||
        (xType.getRank() != 4 && xType.getRank() != 5) ||
        gType.getRank() != xType.getRank() ||
        resultType.getRank() != xType.getRank())
      return rewriter.notifyMatchFailure(op, "2-D or 3-D sampling");
    if (!isa<FloatType>(xType.getElementType()) ||
        !isa<FloatType>(gType.getElementType()))
      return rewriter.notifyMatchFailure(op, "float data only");
    StringRef mode = op.getMode(), padding = op.getPaddingMode();
    if (mode != "linear" && mode != "nearest" && mode != "cubic")
      return rewriter.notifyMatchFailure(op, "mode");
    int64_t rank = xType.getRank(), dims = rank - 2;
    if (mode == "cubic" && dims != 2)
      return rewriter.notifyMatchFailure(op, "cubic mode is 2-D only");
    if (padding != "zeros" && padding != "border" && padding != "reflection")
      return rewriter.notifyMatchFailure(op, "padding mode");
    bool alignCorners = op.getAlignCorners() != 0;
    Location loc = op.getLoc();
    Value x = adaptor.getX(), grid = adaptor.getGrid();
    // Spatial sizes (D,) H, W; the grid's component k is spatial dim
    // dims - 1 - k (x is W).
    SmallVector<Value> spatial;
    for (int64_t i = 0; i < dims; ++i)
      spatial.push_back(getDimValue(rewriter, loc, x, 2 + i));
    SmallVector<OpFoldResult> sizes = {getDims(rewriter, loc, x)[0],
                                       getDims(rewriter, loc, x)[1]};
    for (int64_t i = 0; i < dims; ++i)
      sizes.push_back(getDims(rewriter, loc, grid)[1 + i]);
    Value init = createEmpty(rewriter, loc, resultType, sizes);
    Type f64 = rewriter.getF64Type();
    Type xElem = getONNXElementType(op.getX());
    Type gElem = getONNXElementType(op.getGrid());
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
          auto toIndex = [&](Value v) { return floatToIndex(b, l, v); };
          Value n = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          SmallVector<Value> at{n};
          for (int64_t i = 0; i < dims; ++i)
            at.push_back(linalg::IndexOp::create(b, l, 2 + i));
          auto gridAt = [&](int64_t k) {
            SmallVector<Value> g(at);
            g.push_back(arith::ConstantIndexOp::create(b, l, k));
            Value v = tensor::ExtractOp::create(b, l, grid, g);
            return castScalar(b, l, v, gElem, f64);
          };
          SmallVector<Value> sizeF;
          for (Value v : spatial)
            sizeF.push_back(toF64(v));
          // Normalised [-1, 1] -> pixel coordinates.
          auto unnormalise = [&](Value g, Value size) -> Value {
            Value gp1 = arith::AddFOp::create(b, l, g, f(1));
            if (alignCorners)
              return arith::MulFOp::create(
                  b, l, arith::DivFOp::create(b, l, gp1, f(2)),
                  arith::SubFOp::create(b, l, size, f(1)));
            return arith::DivFOp::create(
                b, l,
                arith::SubFOp::create(
                    b, l, arith::MulFOp::create(b, l, gp1, size), f(1)),
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
                  math::FloorOp::create(b, l,
                                        arith::DivFOp::create(b, l, k, f(2))),
                  arith::DivFOp::create(b, l, k, f(2)));
              Value a =
                  below ? arith::AddFOp::create(b, l, nearEnd, r).getResult()
                        : arith::SubFOp::create(b, l, nearEnd, r).getResult();
              Value z =
                  below ? arith::SubFOp::create(b, l, farEnd, r).getResult()
                        : arith::AddFOp::create(b, l, farEnd, r).getResult();
              return arith::SelectOp::create(b, l, even, a, z).getResult();
            };
            Value isBelow =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, v, lo);
            Value isAbove =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, v, hi);
            Value belowV =
                fold(arith::SubFOp::create(b, l, lo, v), lo, hi, true);
            Value aboveV =
                fold(arith::SubFOp::create(b, l, v, hi), hi, lo, false);
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
          // The sampling point per spatial dim (D,) H, W.
          SmallVector<Value> point;
          for (int64_t i = 0; i < dims; ++i)
            point.push_back(
                pad(unnormalise(gridAt(dims - 1 - i), sizeF[i]), sizeF[i]));
          // The pixel at integer coordinates `idx` (f64 values, one per
          // spatial dim), with padding.
          auto pixel = [&](SmallVector<Value> idx) -> Value {
            Value inside;
            SmallVector<Value> read{n, c};
            for (int64_t i = 0; i < dims; ++i) {
              if (padding == "zeros") {
                Value ok = arith::AndIOp::create(
                    b, l,
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE,
                                          idx[i], f(0)),
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                          idx[i], sizeF[i]));
                inside = inside ? arith::AndIOp::create(b, l, inside, ok) : ok;
              } else if (padding == "reflection") {
                auto [lo, hi] = bounds(sizeF[i]);
                idx[i] = reflect(idx[i], lo, hi);
              }
              // Clamp so that the read stays in bounds in every mode.
              Value clamped = arith::MinimumFOp::create(
                  b, l, arith::MaximumFOp::create(b, l, idx[i], f(0)),
                  arith::SubFOp::create(b, l, sizeF[i], f(1)));
              read.push_back(toIndex(clamped));
            }
            Value v = tensor::ExtractOp::create(b, l, x, read);
            Value vf = castScalar(b, l, v, xElem, f64);
            if (inside)
              vf = arith::SelectOp::create(b, l, inside, vf, f(0));
            return vf;
          };
          Value result;
          if (mode == "nearest") {
            SmallVector<Value> idx;
            for (Value p : point)
              idx.push_back(math::RoundEvenOp::create(b, l, p));
            result = pixel(idx);
          } else if (mode == "linear") {
            // 2^dims corners, each weighted by the product of its per-dim
            // weights (1 - d at the lower corner, d at the upper).
            SmallVector<Value> lower, frac;
            for (Value p : point) {
              Value lo = math::FloorOp::create(b, l, p);
              lower.push_back(lo);
              frac.push_back(arith::SubFOp::create(b, l, p, lo));
            }
            result = f(0);
            for (int64_t corner = 0; corner < (int64_t(1) << dims); ++corner) {
              SmallVector<Value> idx;
              Value weight = f(1);
              for (int64_t i = 0; i < dims; ++i) {
                bool upper = (corner >> (dims - 1 - i)) & 1;
                idx.push_back(upper
                                  ? arith::AddFOp::create(b, l, lower[i], f(1))
                                        .getResult()
                                  : lower[i]);
                Value wi = upper ? frac[i]
                                 : arith::SubFOp::create(b, l, f(1), frac[i])
                                       .getResult();
                weight = arith::MulFOp::create(b, l, weight, wi);
              }
              result = arith::AddFOp::create(
                  b, l, result,
                  arith::MulFOp::create(b, l, weight, pixel(idx)));
            }
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
            Value gy = point[0], gx = point[1];
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
                    arith::MulFOp::create(b, l, wgt, pixel({iy, ix})));
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

/// AffineGrid-20: grid[n, (d,) h, w, k] = theta[n, k, :] . (x, y, (z,) 1)
/// with the normalised coordinates of w, h (and d): -1 + 2i / (size - 1)
/// with align_corners (-1 for a size of 1, as ONNX's reference), else
/// (2i + 1) / size - 1. The spatial sizes are `size`'s run-time values.
class AffineGridLowering : public OpConversionPattern<ONNXAffineGridOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXAffineGridOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    auto thetaType = dyn_cast<RankedTensorType>(adaptor.getTheta().getType());
    if (!resultType || !thetaType || thetaType.getRank() != 3 ||
        (resultType.getRank() != 4 && resultType.getRank() != 5) ||
        !isa<FloatType>(thetaType.getElementType()))
      return rewriter.notifyMatchFailure(op, "theta (N, 2, 3) or (N, 3, 4)");
    Location loc = op.getLoc();
    int64_t dims = resultType.getRank() - 2;
    Value theta = adaptor.getTheta();
    IndexMath m(rewriter, loc);
    // size = (N, C, (D,) H, W).
    SmallVector<OpFoldResult> sizes{getDims(rewriter, loc, theta)[0]};
    SmallVector<Value> spatial;
    for (int64_t i = 0; i < dims; ++i) {
      Value v = tensor::ExtractOp::create(rewriter, loc, adaptor.getSize(),
                                          ValueRange{m.c(2 + i)});
      spatial.push_back(scalarToIndex(rewriter, loc, v, nullptr));
      sizes.push_back(spatial.back());
    }
    sizes.push_back(rewriter.getIndexAttr(dims));
    bool alignCorners = op.getAlignCorners() != 0;
    Type f64 = rewriter.getF64Type();
    Type elem = getONNXElementType(op.getTheta());
    Value result = buildIndexedGeneric(
        rewriter, loc, resultType, preferStatic(rewriter, resultType, sizes),
        {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          auto f = [&](double v) { return createScalarConstant(b, l, f64, v); };
          auto toF64 = [&](Value index) {
            return indexToFloat(b, l, index, f64);
          };
          Value k = ivs[dims + 1];
          auto thetaAt = [&](Value j) {
            Value v = tensor::ExtractOp::create(b, l, theta,
                                                ValueRange{ivs[0], k, j});
            return castScalar(b, l, v, elem, f64);
          };
          Value acc = thetaAt(mm.c(dims));
          // Component j (x, y, z) is spatial dim dims - 1 - j.
          for (int64_t j = 0; j < dims; ++j) {
            int64_t d = dims - 1 - j;
            Value i = toF64(ivs[1 + d]), size = toF64(spatial[d]);
            Value coord;
            if (alignCorners) {
              Value span = arith::SubFOp::create(b, l, size, f(1));
              Value c = arith::AddFOp::create(
                  b, l, f(-1),
                  arith::DivFOp::create(
                      b, l, arith::MulFOp::create(b, l, f(2), i), span));
              coord = arith::SelectOp::create(
                  b, l,
                  arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, size,
                                        f(1)),
                  c, f(-1));
            } else {
              coord = arith::SubFOp::create(
                  b, l,
                  arith::DivFOp::create(
                      b, l,
                      arith::AddFOp::create(
                          b, l, arith::MulFOp::create(b, l, f(2), i), f(1)),
                      size),
                  f(1));
            }
            acc = arith::AddFOp::create(
                b, l, acc,
                arith::MulFOp::create(b, l, thetaAt(mm.c(j)), coord));
          }
          return castScalar(b, l, acc, f64, elem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateGridSamplePatterns(const TypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<GridSampleLowering, AffineGridLowering>(converter,
                                                       patterns.getContext());
}
