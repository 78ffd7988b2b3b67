//===- DFT.cpp - DFT, STFT -> linalg.generic ------------------------------===//
//
// The direct transform: one linalg.generic over the output (..., k, ..., c),
// whose body sums over the signal positions j with an scf.for:
//   forward  X[k] = sum_j x[j] * exp(-2 pi i j k / n)
//   inverse  X[k] = 1/n sum_j x[j] * exp(+2 pi i j k / n)
// n is dft_length (the input padded with zeros or cut) or the signal's
// length; j * k is reduced mod n before the angle is formed, so that large
// lengths keep their precision. A real input (last dim 1) has no imaginary
// part; onesided keeps k in [0, n/2], and an inverse of a onesided
// spectrum (irfft) completes it by conjugate symmetry, n = 2 (bins - 1).
// O(n^2) per signal: the FFT is for a later slice.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include <cmath>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// sums + (re + i im) * (cos theta + i sign sin theta): the next partial
/// sums of a transform (sign -1 forward, +1 inverse).
SmallVector<Value> accumulateTwiddled(OpBuilder &b, Location l, ValueRange sums,
                                      Value re, Value im, Value theta,
                                      bool inverse) {
  Value c = math::CosOp::create(b, l, theta);
  Value s = math::SinOp::create(b, l, theta);
  if (!inverse)
    s = arith::NegFOp::create(b, l, s);
  Value outRe = arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, re, c),
                                      arith::MulFOp::create(b, l, im, s));
  Value outIm = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, im, c),
                                      arith::MulFOp::create(b, l, re, s));
  return {arith::AddFOp::create(b, l, sums[0], outRe),
          arith::AddFOp::create(b, l, sums[1], outIm)};
}

class DFTLowering : public OpConversionPattern<ONNXDFTOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXDFTOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inType = dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !inType || inType.getRank() < 3 ||
        resultType.getRank() != inType.getRank())
      return rewriter.notifyMatchFailure(op, "needs ranked (batch, ..., c)");
    auto elem = dyn_cast<FloatType>(inType.getElementType());
    int64_t rank = inType.getRank();
    int64_t parts = inType.getDimSize(rank - 1);
    bool inverse = op.getInverse() != 0, onesided = op.getOnesided() != 0;
    // An inverse of a onesided spectrum (irfft): the bins above n/2 are the
    // conjugates of those below, and the result may be real only.
    bool hermitian = inverse && onesided;
    int64_t outParts = resultType.getDimSize(rank - 1);
    if (!elem || (parts != 1 && parts != 2) ||
        (outParts != 2 && !(hermitian && outParts == 1)))
      return rewriter.notifyMatchFailure(op, "needs float, last dim 1 or 2");
    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    // The signal axis (DFT-20: a scalar input, -2 when absent): a constant,
    // or a run-time value that selects among dims 1 .. rank - 2.
    std::optional<int64_t> axis = -2;
    Value axisValue;
    if (Value a = adaptor.getAxis()) {
      auto values = getConstantIntValues(op.getAxis());
      if (succeeded(values) && values->size() == 1)
        axis = (*values)[0];
      else
        axis = std::nullopt;
      if (!axis) {
        axisValue = m.wrapNegative(
            scalarToIndex(rewriter, loc, extractScalar(rewriter, loc, a),
                          nullptr),
            m.c(rank));
        emitRuntimeCheck(
            rewriter, loc, op,
            arith::OrIOp::create(
                rewriter, loc,
                m.cmp(arith::CmpIPredicate::slt, axisValue, m.c(1)),
                m.cmp(arith::CmpIPredicate::sgt, axisValue, m.c(rank - 2))),
            "axis {0} is not a signal dim (1 .. {1})",
            {axisValue, m.c(rank - 2)});
      }
    }
    if (axis) {
      if (*axis < 0)
        *axis += rank;
      if (*axis < 1 || *axis > rank - 2)
        return op.emitError() << "'onnx.DFT': axis " << *axis
                              << " is not a signal dim (1 .. rank - 2)";
    }
    // Whether dim d is the signal axis (i1, folded for a constant axis),
    // and the value of per-dim `values` at the axis.
    auto isAxis = [&](OpBuilder &b, Location l, int64_t d) -> Value {
      if (axis)
        return arith::ConstantIntOp::create(b, l, d == *axis, 1);
      return IndexMath(b, l).cmp(arith::CmpIPredicate::eq, axisValue,
                                 IndexMath(b, l).c(d));
    };
    auto atAxis = [&](OpBuilder &b, Location l, ValueRange values) -> Value {
      if (axis)
        return values[*axis];
      Value v = values[1];
      for (int64_t d = 2; d <= rank - 2; ++d)
        v = IndexMath(b, l).select(isAxis(b, l, d), values[d], v);
      return v;
    };
    Value inLen = atAxis(rewriter, loc, dimValues(rewriter, loc, input));
    Value n = hermitian ? m.mul(m.sub(inLen, m.c(1)), m.c(2)) : inLen;
    if (Value len = adaptor.getDftLength()) {
      n = scalarToIndex(rewriter, loc, extractScalar(rewriter, loc, len),
                        getONNXElementType(op.getDftLength()));
      emitRuntimeCheck(rewriter, loc, op,
                       m.cmp(arith::CmpIPredicate::sle, n, m.c(0)),
                       "dft_length {0} is not positive", {n});
    }
    // The result's dims: the input's, the signal's n (n/2+1 onesided).
    SmallVector<OpFoldResult> sizes;
    Value outLen = onesided && !inverse ? m.add(m.div(n, m.c(2)), m.c(1)) : n;
    for (int64_t d = 0; d < rank - 1; ++d) {
      Value inDim = getDimValue(rewriter, loc, input, d);
      if (d == 0)
        sizes.push_back(getAsOpFoldResult(inDim));
      else if (axis)
        sizes.push_back(getAsOpFoldResult(d == *axis ? outLen : inDim));
      else
        sizes.push_back(m.select(isAxis(rewriter, loc, d), outLen, inDim));
    }
    sizes.push_back(rewriter.getIndexAttr(outParts));
    emitComputedSizesCheck(rewriter, loc, op, sizes, resultType,
                           "the transform gives");
    sizes = preferStatic(rewriter, resultType, sizes);
    // Angles and sums in f64: sin(pi) in f32 is -8.7e-8, which times a
    // large signal is far from the exact 0 of the symmetric bins.
    Type acc = rewriter.getF64Type();
    Value result = buildIndexedGeneric(
        rewriter, loc, resultType, sizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          auto f = [&](double v) { return createScalarConstant(b, l, acc, v); };
          auto toFloat = [&](Value index) {
            return indexToFloat(b, l, index, acc);
          };
          Value k = atAxis(b, l, ivs);
          Value nF = toFloat(n);
          Value step = arith::DivFOp::create(b, l, f(2 * M_PI), nF);
          Value zero = f(0);
          auto loop = scf::ForOp::create(
              b, l, mm.c(0), hermitian ? n : mm.min(n, inLen), mm.c(1),
              ValueRange{zero, zero},
              [&](OpBuilder &lb, Location ll, Value j, ValueRange sums) {
                IndexMath lm(lb, ll);
                SmallVector<Value> at(ivs.begin(), ivs.end());
                // Hermitian: bin j >= inLen is the conjugate of bin n - j.
                Value mirrored, jAt = j;
                if (hermitian) {
                  mirrored = lm.cmp(arith::CmpIPredicate::sge, j, inLen);
                  jAt = lm.select(mirrored, lm.sub(n, j), j);
                }
                for (int64_t d = 1; d <= rank - 2; ++d)
                  if (!axis || d == *axis)
                    at[d] =
                        axis ? jAt : lm.select(isAxis(lb, ll, d), jAt, at[d]);
                at[rank - 1] = lm.c(0);
                auto read = [&](ArrayRef<Value> idx) {
                  Value v = tensor::ExtractOp::create(lb, ll, input, idx);
                  return castScalar(lb, ll, v, elem, acc);
                };
                Value re = read(at);
                Value im = zero;
                if (parts == 2) {
                  at[rank - 1] = lm.c(1);
                  im = read(at);
                  if (mirrored)
                    im = arith::SelectOp::create(
                        lb, ll, mirrored, arith::NegFOp::create(lb, ll, im),
                        im);
                }
                Value jk = lm.rem(lm.mul(j, k), n);
                Value theta = arith::MulFOp::create(lb, ll, toFloat(jk), step);
                scf::YieldOp::create(
                    lb, ll,
                    accumulateTwiddled(lb, ll, sums, re, im, theta, inverse));
              });
          Value isRe = mm.cmp(arith::CmpIPredicate::eq, ivs[rank - 1], mm.c(0));
          Value v = arith::SelectOp::create(b, l, isRe, loop.getResult(0),
                                            loop.getResult(1));
          if (inverse)
            v = arith::DivFOp::create(b, l, v, nF);
          return castScalar(b, l, v, acc, elem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// STFT-17: the forward transform of each frame of frame_length samples,
/// frame_step apart, times the window (when given; its length is then the
/// frame length): output (batch, frames, bins, 2), frames = (length -
/// frame_length) / frame_step + 1, bins frame_length / 2 + 1 when onesided.
class STFTLowering : public OpConversionPattern<ONNXSTFTOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ONNXSTFTOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    Value signal = adaptor.getSignal();
    auto inType = dyn_cast<RankedTensorType>(signal.getType());
    if (!resultType || !inType || inType.getRank() != 3 ||
        resultType.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "needs (batch, length, c)");
    auto elem = dyn_cast<FloatType>(inType.getElementType());
    int64_t parts = inType.getDimSize(2);
    if (!elem || (parts != 1 && parts != 2))
      return rewriter.notifyMatchFailure(op, "needs float, last dim 1 or 2");
    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    Value window = op.getWindow() ? adaptor.getWindow() : Value();
    auto scalar = [&](Value v, Value onnx) {
      return scalarToIndex(rewriter, loc, extractScalar(rewriter, loc, v),
                           getONNXElementType(onnx));
    };
    Value step = scalar(adaptor.getFrameStep(), op.getFrameStep());
    Value frameLen;
    if (window)
      frameLen = getDimValue(rewriter, loc, window, 0);
    else if (op.getFrameLength())
      frameLen = scalar(adaptor.getFrameLength(), op.getFrameLength());
    else
      return op.emitError() << "'onnx.STFT': needs a window or frame_length";
    Value length = getDimValue(rewriter, loc, signal, 1);
    emitRuntimeCheck(
        rewriter, loc, op,
        arith::OrIOp::create(
            rewriter, loc, m.cmp(arith::CmpIPredicate::sle, step, m.c(0)),
            arith::OrIOp::create(
                rewriter, loc,
                m.cmp(arith::CmpIPredicate::sle, frameLen, m.c(0)),
                m.cmp(arith::CmpIPredicate::sgt, frameLen, length))),
        "frame_step {0} or frame_length {1} is not positive, or the frame is "
        "longer than the signal ({2})",
        {step, frameLen, length});
    if (window && op.getFrameLength()) {
      Value given = scalar(adaptor.getFrameLength(), op.getFrameLength());
      emitRuntimeCheck(rewriter, loc, op,
                       m.cmp(arith::CmpIPredicate::ne, given, frameLen),
                       "frame_length {0} differs from the window's length {1}",
                       {given, frameLen});
    }
    bool onesided = op.getOnesided() != 0;
    SmallVector<OpFoldResult> sizes = {
        getAsOpFoldResult(getDimValue(rewriter, loc, signal, 0)),
        getAsOpFoldResult(m.add(m.div(m.sub(length, frameLen), step), m.c(1))),
        getAsOpFoldResult(onesided ? m.add(m.div(frameLen, m.c(2)), m.c(1))
                                   : frameLen),
        rewriter.getIndexAttr(2)};
    emitComputedSizesCheck(rewriter, loc, op, sizes, resultType,
                           "the frames give");
    sizes = preferStatic(rewriter, resultType, sizes);
    Type acc = rewriter.getF64Type();
    Type windowElem = window ? getONNXElementType(op.getWindow()) : Type();
    Value result = buildIndexedGeneric(
        rewriter, loc, resultType, sizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          auto f = [&](double v) { return createScalarConstant(b, l, acc, v); };
          auto toFloat = [&](Value index) {
            return indexToFloat(b, l, index, acc);
          };
          Value start = mm.mul(ivs[1], step), k = ivs[2];
          Value step2pi =
              arith::DivFOp::create(b, l, f(2 * M_PI), toFloat(frameLen));
          Value zero = f(0);
          auto loop = scf::ForOp::create(
              b, l, mm.c(0), frameLen, mm.c(1), ValueRange{zero, zero},
              [&](OpBuilder &lb, Location ll, Value j, ValueRange sums) {
                IndexMath lm(lb, ll);
                auto read = [&](int64_t c) {
                  Value v = tensor::ExtractOp::create(
                      lb, ll, signal,
                      ValueRange{ivs[0], lm.add(start, j), lm.c(c)});
                  return castScalar(lb, ll, v, elem, acc);
                };
                Value re = read(0);
                Value im = parts == 2 ? read(1) : zero;
                if (window) {
                  Value w = castScalar(
                      lb, ll, tensor::ExtractOp::create(lb, ll, window, j),
                      windowElem, acc);
                  re = arith::MulFOp::create(lb, ll, re, w);
                  im = arith::MulFOp::create(lb, ll, im, w);
                }
                Value theta = arith::MulFOp::create(
                    lb, ll, toFloat(lm.rem(lm.mul(j, k), frameLen)), step2pi);
                scf::YieldOp::create(lb, ll,
                                     accumulateTwiddled(lb, ll, sums, re, im,
                                                        theta,
                                                        /*inverse=*/false));
              });
          Value isRe = mm.cmp(arith::CmpIPredicate::eq, ivs[3], mm.c(0));
          Value v = arith::SelectOp::create(b, l, isRe, loop.getResult(0),
                                            loop.getResult(1));
          return castScalar(b, l, v, acc, elem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateDFTPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<DFTLowering, STFTLowering>(converter, patterns.getContext());
}
