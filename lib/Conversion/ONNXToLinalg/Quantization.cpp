//===- Quantization.cpp - QuantizeLinear, DequantizeLinear -> linalg ------===//
//
// Both are elementwise over x with a scale and an optional zero point that
// are scalars (per tensor), 1-D along `axis` (per axis; reshaped to
// broadcast along that axis) or of x's rank with `axis` divided into blocks
// of `block_size` (blocked; expanded to x's shape). The quantized side may be
// any integer type (int2 .. int16, unsigned too) or a float8/float4 type
// (no rounding to integers; Cast's saturate rules).
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

/// A blocked scale or zero point `v` (x's rank; dim `axis` has one entry
/// per `blockSize` elements of x) repeated to x's shape.
FailureOr<Value> expandBlocks(OpBuilder &b, Location loc, Value v, Value x,
                              int64_t axis, int64_t blockSize) {
  auto type = cast<RankedTensorType>(v.getType());
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t rank = xType.getRank();
  if (type.getRank() != rank || blockSize <= 0)
    return failure();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    exprs.push_back(i == axis ? b.getAffineDimExpr(i).floorDiv(blockSize)
                              : b.getAffineDimExpr(i));
  auto outType = xType.clone(type.getElementType());
  Value init = createEmpty(b, loc, outType, getDims(b, loc, x));
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, b.getContext()),
                                 b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, outType, ValueRange{v}, ValueRange{init}, maps, iterators,
             [](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, args[0]);
             })
      .getResult(0);
}

/// A scale or zero point shaped to broadcast against x.
FailureOr<Value> alignParam(OpBuilder &b, Location loc, Value v, Value x,
                            int64_t axis, int64_t blockSize) {
  if (blockSize > 0)
    return expandBlocks(b, loc, v, x, axis, blockSize);
  return alignToAxis(b, loc, v, cast<RankedTensorType>(x.getType()).getRank(),
                     axis);
}

/// x / scale + zp, rounded half to even and saturated to the range of an
/// integer `outType`; for a float8/float4 `outType`, cast as Cast does.
Value quantizeScalar(OpBuilder &b, Location loc, Value x, Value scale, Value zp,
                     Type xType, Type scaleType, Type outType,
                     const CastOptions &options) {
  Type f32 = b.getF32Type();
  Value xf = castScalar(b, loc, x, xType, f32);
  Value div = arith::DivFOp::create(b, loc, xf,
                                    castScalar(b, loc, scale, scaleType, f32));
  if (isa<FloatType>(outType)) {
    if (zp)
      div = arith::AddFOp::create(b, loc, div,
                                  castScalar(b, loc, zp, outType, f32));
    return castScalar(b, loc, div, f32, outType, options);
  }
  return roundToInteger(b, loc, div, zp, outType);
}

class QuantizeLinearLowering
    : public OpConversionPattern<ONNXQuantizeLinearOp> {
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
    if (!isa<IntegerType>(outElem) && !isNarrowFloat(outElem))
      return rewriter.notifyMatchFailure(op, "output type");
    Location loc = op.getLoc();
    int64_t rank = xType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    int64_t blockSize = op.getBlockSize();
    SmallVector<Value> operands = {adaptor.getX()};
    auto scale = alignParam(rewriter, loc, adaptor.getYScale(), adaptor.getX(),
                            axis, blockSize);
    if (failed(scale))
      return rewriter.notifyMatchFailure(op, "scale shape");
    operands.push_back(*scale);
    if (Value zp = adaptor.getYZeroPoint()) {
      auto aligned =
          alignParam(rewriter, loc, zp, adaptor.getX(), axis, blockSize);
      if (failed(aligned))
        return rewriter.notifyMatchFailure(op, "zero point shape");
      operands.push_back(*aligned);
    }
    Type xElem = xType.getElementType();
    Type scaleElem = getONNXElementType(op.getYScale());
    CastOptions options{op.getSaturate() != 0, "up"};
    Value result = buildElementwise(
        rewriter, loc, operands, resultType,
        [&](OpBuilder &b, Location l, ValueRange args) {
          return quantizeScalar(b, l, args[0], args[1],
                                args.size() > 2 ? args[2] : Value(), xElem,
                                scaleElem, outElem, options);
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
    int64_t blockSize = op.getBlockSize();
    SmallVector<Value> operands = {adaptor.getX()};
    auto scale = alignParam(rewriter, loc, adaptor.getXScale(), adaptor.getX(),
                            axis, blockSize);
    if (failed(scale))
      return rewriter.notifyMatchFailure(op, "scale shape");
    operands.push_back(*scale);
    if (Value zp = adaptor.getXZeroPoint()) {
      auto aligned =
          alignParam(rewriter, loc, zp, adaptor.getX(), axis, blockSize);
      if (failed(aligned))
        return rewriter.notifyMatchFailure(op, "zero point shape");
      operands.push_back(*aligned);
    }
    Type xElem = xType.getElementType();
    Type scaleElem = getONNXElementType(op.getXScale());
    Type outElem = getONNXElementType(op.getY());
    Type f32 = rewriter.getF32Type();
    Value result = buildElementwise(
        rewriter, loc, operands, resultType,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value x = castScalar(b, l, args[0], xElem, f32);
          if (args.size() > 2)
            x = arith::SubFOp::create(b, l, x,
                                      castScalar(b, l, args[2], xElem, f32));
          Value y = arith::MulFOp::create(
              b, l, x, castScalar(b, l, args[1], scaleElem, f32));
          return castScalar(b, l, y, f32, outElem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

Value mlir::onnxc::roundToInteger(OpBuilder &b, Location loc, Value v, Value zp,
                                  Type outType) {
  Type f32 = b.getF32Type();
  Value q = math::RoundEvenOp::create(b, loc, v);
  if (zp)
    q = arith::AddFOp::create(b, loc, q, castScalar(b, loc, zp, outType, f32));
  auto width = outType.getIntOrFloatBitWidth();
  bool isUnsigned = outType.isUnsignedInteger();
  double lo = isUnsigned ? 0 : -std::ldexp(1.0, width - 1);
  double hi =
      isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
  q = arith::MaximumFOp::create(b, loc, q,
                                createScalarConstant(b, loc, f32, lo));
  q = arith::MinimumFOp::create(b, loc, q,
                                createScalarConstant(b, loc, f32, hi));
  return castScalar(b, loc, q, f32, outType);
}

void mlir::onnxc::populateQuantizationPatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<QuantizeLinearLowering, DequantizeLinearLowering>(
      converter, patterns.getContext());
}
