//===- Quantization.cpp - QuantizeLinear, DequantizeLinear -> linalg ------===//
//
// Both are elementwise over x with a scale and an optional zero point that
// are scalars (per tensor) or 1-D along `axis` (per axis); per-axis ones are
// reshaped to broadcast along that axis.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// A per-axis 1-D `v` reshaped to [1, .., C, .., 1] of `rank`; scalars and
/// one-element tensors stay as they are (numpy broadcasting handles them).
FailureOr<Value> alignToAxis(OpBuilder &b, Location loc, Value v, int64_t rank,
                             int64_t axis) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() == 0)
    return v;
  if (type.getRank() != 1)
    return failure();
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = type.getDimSize(0);
  SmallVector<ReassociationIndices> reassociation(1);
  for (int64_t i = 0; i < rank; ++i)
    reassociation[0].push_back(i);
  if (rank == 0)
    return failure();
  return tensor::ExpandShapeOp::create(
             b, loc, RankedTensorType::get(shape, type.getElementType()), v,
             reassociation)
      .getResult();
}

/// round-half-to-even(x / scale) + zp, saturated to the range of `outType`.
Value quantizeScalar(OpBuilder &b, Location loc, Value x, Value scale,
                     Value zp, Type xType, Type outType) {
  Type f32 = b.getF32Type();
  Value xf = castScalar(b, loc, x, xType, f32);
  Value q = math::RoundEvenOp::create(
      b, loc, arith::DivFOp::create(b, loc, xf, scale));
  if (zp)
    q = arith::AddFOp::create(b, loc, q, castScalar(b, loc, zp, outType, f32));
  auto width = outType.getIntOrFloatBitWidth();
  bool isUnsigned = outType.isUnsignedInteger();
  double lo = isUnsigned ? 0 : -std::ldexp(1.0, width - 1);
  double hi = isUnsigned ? std::ldexp(1.0, width) - 1
                         : std::ldexp(1.0, width - 1) - 1;
  q = arith::MaximumFOp::create(b, loc, q, createScalarConstant(b, loc, f32, lo));
  q = arith::MinimumFOp::create(b, loc, q, createScalarConstant(b, loc, f32, hi));
  return castScalar(b, loc, q, f32, outType);
}

class QuantizeLinearLowering : public OpConversionPattern<ONNXQuantizeLinearOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXQuantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    auto xType = dyn_cast<RankedTensorType>(op.getX().getType());
    if (!resultType || !xType)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    Type outElem = getONNXElementType(op.getY());
    if (!isa<IntegerType>(outElem))
      return rewriter.notifyMatchFailure(op, "non-integer output");
    Location loc = op.getLoc();
    int64_t rank = xType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    SmallVector<Value> operands = {adaptor.getX()};
    auto scale = alignToAxis(rewriter, loc, adaptor.getYScale(), rank, axis);
    if (failed(scale))
      return rewriter.notifyMatchFailure(op, "scale of rank > 1");
    operands.push_back(*scale);
    if (Value zp = adaptor.getYZeroPoint()) {
      auto aligned = alignToAxis(rewriter, loc, zp, rank, axis);
      if (failed(aligned))
        return rewriter.notifyMatchFailure(op, "zero point of rank > 1");
      operands.push_back(*aligned);
    }
    Type xElem = xType.getElementType();
    Value result = buildElementwise(
        rewriter, loc, operands, resultType,
        [&](OpBuilder &b, Location l, ValueRange args) {
          return quantizeScalar(b, l, args[0], args[1],
                                args.size() > 2 ? args[2] : Value(), xElem,
                                outElem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

class DequantizeLinearLowering
    : public OpConversionPattern<ONNXDequantizeLinearOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXDequantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    auto xType = dyn_cast<RankedTensorType>(op.getX().getType());
    if (!resultType || !xType)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    Location loc = op.getLoc();
    int64_t rank = xType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    SmallVector<Value> operands = {adaptor.getX()};
    auto scale = alignToAxis(rewriter, loc, adaptor.getXScale(), rank, axis);
    if (failed(scale))
      return rewriter.notifyMatchFailure(op, "scale of rank > 1");
    operands.push_back(*scale);
    if (Value zp = adaptor.getXZeroPoint()) {
      auto aligned = alignToAxis(rewriter, loc, zp, rank, axis);
      if (failed(aligned))
        return rewriter.notifyMatchFailure(op, "zero point of rank > 1");
      operands.push_back(*aligned);
    }
    Type xElem = xType.getElementType();
    Type f32 = rewriter.getF32Type();
    Value result = buildElementwise(
        rewriter, loc, operands, resultType,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value x = castScalar(b, l, args[0], xElem, f32);
          if (args.size() > 2)
            x = arith::SubFOp::create(b, l, x,
                                      castScalar(b, l, args[2], xElem, f32));
          return arith::MulFOp::create(b, l, x, args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateQuantizationPatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<QuantizeLinearLowering, DequantizeLinearLowering>(
      converter, patterns.getContext());
}
