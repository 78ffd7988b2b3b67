//===- DFT.cpp - DFT -> linalg.generic ------------------------------------===//
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
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    if (axis < 1 || axis > rank - 2)
      return op.emitError() << "'onnx.DFT': axis " << op.getAxis()
                            << " is not a signal dim (1 .. rank - 2)";
    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    Value inLen = getDimValue(rewriter, loc, input, axis);
    Value n = hermitian ? m.mul(m.sub(inLen, m.c(1)), m.c(2)) : inLen;
    if (Value len = adaptor.getDftLength()) {
      n = scalarToIndex(rewriter, loc, extractScalar(rewriter, loc, len),
                        getONNXElementType(op.getDftLength()));
      emitRuntimeCheck(rewriter, loc, op, m.cmp(arith::CmpIPredicate::sle, n,
                                                m.c(0)),
                       "dft_length {0} is not positive", {n});
    }
    // The result's dims: the input's, the signal's n (n/2+1 onesided).
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank - 1; ++d)
      sizes.push_back(d == axis ? getAsOpFoldResult(
                                      onesided && !inverse
                                          ? m.add(m.div(n, m.c(2)), m.c(1))
                                          : n)
                                : getAsOpFoldResult(
                                      getDimValue(rewriter, loc, input, d)));
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
          auto toFloat = [&](Value index) -> Value {
            Value i64 = arith::IndexCastOp::create(b, l, b.getI64Type(), index);
            return arith::SIToFPOp::create(b, l, acc, i64);
          };
          Value k = ivs[axis];
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
                Value mirrored;
                if (hermitian) {
                  mirrored = lm.cmp(arith::CmpIPredicate::sge, j, inLen);
                  at[axis] = lm.select(mirrored, lm.sub(n, j), j);
                } else {
                  at[axis] = j;
                }
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
                Value c = math::CosOp::create(lb, ll, theta);
                Value s = math::SinOp::create(lb, ll, theta);
                if (!inverse)
                  s = arith::NegFOp::create(lb, ll, s);
                // (re + i im)(c + i s)
                Value outRe = arith::SubFOp::create(
                    lb, ll, arith::MulFOp::create(lb, ll, re, c),
                    arith::MulFOp::create(lb, ll, im, s));
                Value outIm = arith::AddFOp::create(
                    lb, ll, arith::MulFOp::create(lb, ll, im, c),
                    arith::MulFOp::create(lb, ll, re, s));
                scf::YieldOp::create(
                    lb, ll,
                    ValueRange{arith::AddFOp::create(lb, ll, sums[0], outRe),
                               arith::AddFOp::create(lb, ll, sums[1], outIm)});
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

} // namespace

void mlir::onnxc::populateDFTPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<DFTLowering>(converter, patterns.getContext());
}
