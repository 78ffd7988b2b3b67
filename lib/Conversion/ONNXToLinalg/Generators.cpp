//===- Generators.cpp - Range, EyeLike, Trilu, MelWeightMatrix -> linalg --===//
//
// Ops that compute their values from indices: Range, EyeLike, Trilu and
// MelWeightMatrix.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Pred = arith::CmpIPredicate;

//===----------------------------------------------------------------------===//
// Range, EyeLike, Trilu
//===----------------------------------------------------------------------===//

class RangeLowering : public TensorPattern<ONNXRangeOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXRangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    if (!type || type.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "unranked result");
    Type elem = type.getElementType();
    bool isFloat = isa<FloatType>(elem);
    Value start = extractScalar(rewriter, loc, adaptor.getStart());
    Value limit = extractScalar(rewriter, loc, adaptor.getLimit());
    Value delta = extractScalar(rewriter, loc, adaptor.getDelta());
    SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(type.getDimSize(0))};
    if (type.isDynamicDim(0)) {
      // max(ceil((limit - start) / delta), 0), computed in f64.
      Type f64 = rewriter.getF64Type();
      auto toF64 = [&](Value v) {
        return castScalar(rewriter, loc, v, elem, f64);
      };
      Value q = arith::DivFOp::create(
          rewriter, loc,
          arith::SubFOp::create(rewriter, loc, toF64(limit), toF64(start)),
          toF64(delta));
      q = math::CeilOp::create(rewriter, loc, q);
      Value zeroF =
          arith::ConstantOp::create(rewriter, loc, rewriter.getF64FloatAttr(0));
      emitRuntimeCheck(rewriter, loc, op,
                       arith::CmpFOp::create(rewriter, loc,
                                             arith::CmpFPredicate::OEQ,
                                             toF64(delta), zeroF),
                       "delta is 0");
      // Also NaN (a NaN input) and counts no buffer can hold.
      Value tooMany = arith::CmpFOp::create(
          rewriter, loc, arith::CmpFPredicate::UGE, q,
          arith::ConstantOp::create(rewriter, loc,
                                    rewriter.getF64FloatAttr(0x1p60)));
      emitRuntimeCheck(rewriter, loc, op, tooMany,
                       "the range has too many elements (start, limit and "
                       "delta give a NaN or more than 2^60)");
      Value n =
          arith::FPToSIOp::create(rewriter, loc, rewriter.getI64Type(), q);
      IndexMath m(rewriter, loc);
      sizes[0] = getAsOpFoldResult(
          m.max(scalarToIndex(rewriter, loc, n, nullptr), m.c(0)));
    }
    // Range-27's stash_type 1 (the default): f16/bf16 ranges computed in
    // f32 and rounded once.
    Type compT = elem;
    if ((elem.isF16() || elem.isBF16()) && op.getStashType() == 1)
      compT = rewriter.getF32Type();
    Value r = buildIndexedGeneric(
        rewriter, loc, type, sizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), ivs[0]);
          if (isFloat) {
            Value fi = castScalar(b, l, i, b.getI64Type(), compT);
            Value v = arith::AddFOp::create(
                b, l, castScalar(b, l, start, elem, compT),
                arith::MulFOp::create(b, l, fi,
                                      castScalar(b, l, delta, elem, compT)));
            return castScalar(b, l, v, compT, elem);
          }
          Value ii = castScalar(b, l, i, b.getI64Type(), elem);
          return arith::AddIOp::create(b, l, start,
                                       arith::MulIOp::create(b, l, ii, delta));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

class EyeLikeLowering : public TensorPattern<ONNXEyeLikeOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXEyeLikeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput();
    if (!type || type.getRank() != 2 || !isa<RankedTensorType>(in.getType()))
      return rewriter.notifyMatchFailure(op, "not 2-D");
    Type elem = type.getElementType();
    int64_t k = op.getK();
    Value r = buildIndexedGeneric(
        rewriter, loc, type,
        preferStatic(rewriter, type, getDims(rewriter, loc, in)), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          Value onDiag = mm.cmp(Pred::eq, mm.sub(ivs[1], ivs[0]), mm.c(k));
          return arith::SelectOp::create(b, l, onDiag,
                                         createScalarConstant(b, l, elem, 1),
                                         createScalarConstant(b, l, elem, 0));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

class TriluLowering : public TensorPattern<ONNXTriluOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXTriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput();
    if (!type || type.getRank() < 2 || in.getType() != type)
      return rewriter.notifyMatchFailure(op, "rank below 2");
    int64_t rank = type.getRank();
    Value k = arith::ConstantIndexOp::create(rewriter, loc, 0);
    if (Value kv = op.getK(); kv && !isa<NoneType>(kv.getType()))
      k = scalarToIndex(rewriter, loc,
                        extractScalar(rewriter, loc, adaptor.getK()), nullptr);
    bool upper = op.getUpper();
    Type elem = type.getElementType();
    Value r = buildIndexedGeneric(
        rewriter, loc, type, getDims(rewriter, loc, in), in, {},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> Value {
          IndexMath mm(b, l);
          Value diff = mm.sub(ivs[rank - 1], ivs[rank - 2]);
          Value keep = mm.cmp(upper ? Pred::sge : Pred::sle, diff, k);
          Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(elem));
          return arith::SelectOp::create(b, l, keep, args[0], zero);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// MelWeightMatrix-17, as ONNX's reference computes it: num_mel_bins + 2
/// band edges evenly spaced in mel between the edge frequencies (the step
/// divides by num_mel_bins + 2), mapped to spectrogram bins by
/// floor((dft_length + 1) * hz / sample_rate); column i is the triangle
/// rising from edge i to edge i + 1 and falling to edge i + 2. The mel
/// edges are computed in f32 as the reference's float32 scalars are, the
/// rest in f64.
class MelWeightMatrixLowering : public TensorPattern<ONNXMelWeightMatrixOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXMelWeightMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    if (!type || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "2-D result");
    IndexMath m(rewriter, loc);
    auto intIn = [&](Value v, Value onnx) {
      return scalarToIndex(rewriter, loc, extractScalar(rewriter, loc, v),
                           getONNXElementType(onnx));
    };
    Value bins = intIn(adaptor.getNumMelBins(), op.getNumMelBins());
    Value dftLength = intIn(adaptor.getDftLength(), op.getDftLength());
    Value rate = intIn(adaptor.getSampleRate(), op.getSampleRate());
    emitRuntimeCheck(
        rewriter, loc, op,
        arith::OrIOp::create(
            rewriter, loc,
            arith::OrIOp::create(rewriter, loc, m.cmp(Pred::slt, bins, m.c(1)),
                                 m.cmp(Pred::slt, dftLength, m.c(1))),
            m.cmp(Pred::slt, rate, m.c(1))),
        "num_mel_bins {0}, dft_length {1} and sample_rate {2} must be positive",
        {bins, dftLength, rate});
    Type f32 = rewriter.getF32Type(), f64 = rewriter.getF64Type();
    auto mel = [&](Value hz, Value onnx) -> Value {
      // 2595 * log10(1 + hz / 700), in f32.
      Value f = castScalar(rewriter, loc, extractScalar(rewriter, loc, hz),
                           getONNXElementType(onnx), f32);
      auto c = [&](double v) {
        return createScalarConstant(rewriter, loc, f32, v);
      };
      Value x = arith::AddFOp::create(
          rewriter, loc, c(1), arith::DivFOp::create(rewriter, loc, f, c(700)));
      return arith::MulFOp::create(rewriter, loc, c(2595),
                                   math::Log10Op::create(rewriter, loc, x));
    };
    Value lowMel = mel(adaptor.getLowerEdgeHertz(), op.getLowerEdgeHertz());
    Value highMel = mel(adaptor.getUpperEdgeHertz(), op.getUpperEdgeHertz());
    auto toF = [](OpBuilder &b, Location l, Type t, Value i) {
      return indexToFloat(b, l, i, t);
    };
    Value step = arith::DivFOp::create(
        rewriter, loc, arith::SubFOp::create(rewriter, loc, highMel, lowMel),
        toF(rewriter, loc, f32, m.add(bins, m.c(2))));
    Value lowMel64 = arith::ExtFOp::create(rewriter, loc, f64, lowMel);
    Value step64 = arith::ExtFOp::create(rewriter, loc, f64, step);
    Value scale = toF(rewriter, loc, f64, m.add(dftLength, m.c(1)));
    Value rateF = toF(rewriter, loc, f64, rate);
    SmallVector<OpFoldResult> sizes{m.add(m.div(dftLength, m.c(2)), m.c(1)),
                                    bins};
    Type outElem = getONNXElementType(op.getOutput());
    Value result = buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, sizes), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          auto c = [&](double v) { return createScalarConstant(b, l, f64, v); };
          // Edge k as a spectrogram bin (f64 holding an integer).
          auto edge = [&](Value k) -> Value {
            Value melK = arith::AddFOp::create(
                b, l, arith::MulFOp::create(b, l, toF(b, l, f64, k), step64),
                lowMel64);
            Value hz = arith::MulFOp::create(
                b, l, c(700),
                arith::SubFOp::create(
                    b, l,
                    math::PowFOp::create(
                        b, l, c(10),
                        arith::DivFOp::create(b, l, melK, c(2595))),
                    c(1)));
            return math::FloorOp::create(
                b, l,
                arith::DivFOp::create(
                    b, l, arith::MulFOp::create(b, l, scale, hz), rateF));
          };
          Value j = toF(b, l, f64, ivs[0]), i = ivs[1];
          Value lo = edge(i), center = edge(mm.add(i, mm.c(1))),
                hi = edge(mm.add(i, mm.c(2)));
          auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) -> Value {
            return arith::CmpFOp::create(b, l, p, x, y);
          };
          using P = arith::CmpFPredicate;
          auto sel = [&](Value cond, Value x, Value y) -> Value {
            return arith::SelectOp::create(b, l, cond, x, y);
          };
          Value rise = arith::SubFOp::create(b, l, center, lo);
          Value fall = arith::SubFOp::create(b, l, hi, center);
          // Rising side: 1 at the center when it has no width.
          Value up = sel(
              cmp(P::OEQ, rise, c(0)), sel(cmp(P::OEQ, j, center), c(1), c(0)),
              sel(arith::AndIOp::create(b, l, cmp(P::OGE, j, lo),
                                        cmp(P::OLE, j, center)),
                  arith::DivFOp::create(
                      b, l, arith::SubFOp::create(b, l, j, lo), rise),
                  c(0)));
          // Falling side (written after, as the reference does).
          Value inFall = arith::AndIOp::create(
              b, l, cmp(P::OGT, fall, c(0)),
              arith::AndIOp::create(b, l, cmp(P::OGE, j, center),
                                    cmp(P::OLT, j, hi)));
          Value v = sel(inFall,
                        arith::DivFOp::create(
                            b, l, arith::SubFOp::create(b, l, hi, j), fall),
                        up);
          return castScalar(b, l, v, f64, outElem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateGeneratorPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<RangeLowering, EyeLikeLowering, TriluLowering,
               MelWeightMatrixLowering>(converter, patterns.getContext());
}
