//===- Softmax.cpp - Softmax, LogSoftmax, Hardmax -> linalg ---------------===//
//
// Opset-13 semantics: one axis. Each op is reductions over that axis into
// tensors without it, then one elementwise linalg.generic reading them back
// with broadcast maps:
//   Softmax    = exp(x - max) / sum(exp(x - max))
//   LogSoftmax = (x - max) - log(sum(exp(x - max)))
//   Hardmax    = 1 at the first index holding the max, 0 elsewhere.
// Subtracting the max keeps exp from overflowing. f16/bf16 compute in f32.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include <limits>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

enum class Kind { Softmax, LogSoftmax, Hardmax };

template <typename OpTy, Kind kind>
class SoftmaxLowering : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = dyn_cast<RankedTensorType>(x.getType());
    auto resultType =
        getConvertedResultType(*this->getTypeConverter(), op.getOperation());
    if (!type || !resultType || type.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "needs a ranked input");
    auto elem = dyn_cast<FloatType>(type.getElementType());
    if (!elem)
      return rewriter.notifyMatchFailure(op, "needs float elements");
    int64_t rank = type.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");

    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, x);
    SmallVector<OpFoldResult> reducedDims(dims);
    reducedDims.erase(reducedDims.begin() + axis);
    SmallVector<int64_t> reducedShape(type.getShape());
    reducedShape.erase(reducedShape.begin() + axis);
    AffineMap full = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reduced = full.dropResult(axis);
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    SmallVector<utils::IteratorType> reduction(parallel);
    reduction[axis] = utils::IteratorType::reduction;
    auto generic =
        [&](Type resultType, ValueRange inputs, Value init,
            ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators,
            function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
          return linalg::GenericOp::create(
                     rewriter, loc, TypeRange{resultType}, inputs, init, maps,
                     iterators,
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       linalg::YieldOp::create(b, l, body(b, l, args));
                     })
              .getResult(0);
        };

    // The max along the axis, exact in the element type.
    auto maxType = RankedTensorType::get(reducedShape, elem);
    Value negInf = arith::ConstantOp::create(
        rewriter, loc,
        FloatAttr::get(elem, APFloat::getInf(elem.getFloatSemantics(),
                                             /*Negative=*/true)));
    Value max = generic(
        maxType, x, createFilled(rewriter, loc, maxType, reducedDims, negInf),
        {full, reduced}, reduction,
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          return arith::MaximumFOp::create(b, l, args[0], args[1]);
        });
    Value init = createEmpty(rewriter, loc, resultType, dims);

    if constexpr (kind == Kind::Hardmax) {
      // The first index where x == max (a min over matching indices, so
      // the answer does not depend on the reduction order).
      Type i64 = rewriter.getI64Type();
      auto idxType = RankedTensorType::get(reducedShape, i64);
      Value none = arith::ConstantOp::create(
          rewriter, loc,
          rewriter.getI64IntegerAttr(std::numeric_limits<int64_t>::max()));
      Value first = generic(
          idxType, ValueRange{x, max},
          createFilled(rewriter, loc, idxType, reducedDims, none),
          {full, reduced, reduced}, reduction,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value i = arith::IndexCastOp::create(
                b, l, i64, linalg::IndexOp::create(b, l, axis));
            Value isMax = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                                args[0], args[1]);
            Value candidate = arith::SelectOp::create(b, l, isMax, i, none);
            return arith::MinSIOp::create(b, l, args[2], candidate);
          });
      Value y = generic(
          resultType, first, init, {reduced, full}, parallel,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value i = arith::IndexCastOp::create(
                b, l, i64, linalg::IndexOp::create(b, l, axis));
            Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, i,
                                              args[0]);
            return arith::SelectOp::create(b, l, hit,
                                           createScalarConstant(b, l, elem, 1),
                                           createScalarConstant(b, l, elem, 0));
          });
      rewriter.replaceOp(op, y);
      return success();
    }

    // sum(exp(x - max)) in the compute type.
    FloatType ct = elem.getWidth() < 32 ? rewriter.getF32Type() : elem;
    auto ext = [&](OpBuilder &b, Location l, Value v) -> Value {
      return ct == elem ? v : arith::ExtFOp::create(b, l, ct, v).getResult();
    };
    auto shifted = [&](OpBuilder &b, Location l, Value v, Value m) -> Value {
      return arith::SubFOp::create(b, l, ext(b, l, v), ext(b, l, m));
    };
    auto sumType = RankedTensorType::get(reducedShape, ct);
    Value sum = generic(
        sumType, ValueRange{x, max},
        createFilled(rewriter, loc, sumType, reducedDims,
                     createScalarConstant(rewriter, loc, ct, 0)),
        {full, reduced, reduced}, reduction,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value e = math::ExpOp::create(b, l, shifted(b, l, args[0], args[1]));
          return arith::AddFOp::create(b, l, args[2], e);
        });
    Value y = generic(
        resultType, ValueRange{x, max, sum}, init,
        {full, reduced, reduced, full}, parallel,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value s = shifted(b, l, args[0], args[1]);
          Value r;
          if constexpr (kind == Kind::Softmax)
            r = arith::DivFOp::create(b, l, math::ExpOp::create(b, l, s),
                                      args[2]);
          else
            r = arith::SubFOp::create(b, l, s,
                                      math::LogOp::create(b, l, args[2]));
          return ct == elem ? r : arith::TruncFOp::create(b, l, elem, r);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateSoftmaxPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering<ONNXSoftmaxOp, Kind::Softmax>,
               SoftmaxLowering<ONNXLogSoftmaxOp, Kind::LogSoftmax>,
               SoftmaxLowering<ONNXHardmaxOp, Kind::Hardmax>>(
      converter, patterns.getContext());
}
