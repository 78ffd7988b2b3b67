//===- QuantizedConv.cpp - ConvInteger, QLinearConv -> linalg -------------===//
//
// Both convolve (x - x_zero_point) with (w - w_zero_point) in i32, as ONNX's
// reference and ONNX Runtime do: the zero points are subtracted first, so
// the padding contributes 0. w_zero_point (and QLinearConv's w_scale) may be
// per output channel (1-D). ConvInteger returns the i32 sums; QLinearConv
// adds its i32 bias and requantizes: round_half_even(acc * (x_scale *
// w_scale / y_scale)) + y_zero_point, saturated to the output type.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// A per-channel 1-D `v` of M entries reshaped to [1.., M, 1..] (M at
/// `dim` of `rank`); scalars and one-element tensors are returned as they
/// are.
Value alignChannels(OpBuilder &b, Location loc, Value v, int64_t rank,
                    int64_t dim) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() == 0 ||
      (type.hasStaticShape() && type.getNumElements() == 1))
    return v;
  SmallVector<int64_t> shape(rank, 1);
  shape[dim] = type.getDimSize(0);
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t i = 0; i < rank; ++i)
    groups[0].push_back(i);
  SmallVector<OpFoldResult> sizes(rank, b.getIndexAttr(1));
  sizes[dim] = getDims(b, loc, v)[0];
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, groups,
      sizes);
}

/// `v` - `zp` (zp may be null) widened to i32, as `onnxType` says.
Value subtractZeroPoint(OpBuilder &b, Location loc, Value v, Value zp,
                        Type onnxType, Type zpOnnxType) {
  auto type = cast<RankedTensorType>(v.getType());
  Type i32 = b.getI32Type();
  SmallVector<Value> operands{v};
  if (zp)
    operands.push_back(zp);
  return buildElementwise(
      b, loc, operands, type.clone(i32),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value x = castScalar(nb, l, a[0], onnxType, i32);
        if (a.size() > 1)
          x = arith::SubIOp::create(nb, l, x,
                                    castScalar(nb, l, a[1], zpOnnxType, i32));
        return x;
      });
}

template <typename OpTy>
class QuantizedConvLowering : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  static constexpr bool isQLinear = std::is_same_v<OpTy, ONNXQLinearConvOp>;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*this->getTypeConverter(), op);
    Value x = adaptor.getX(), w = adaptor.getW();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    auto wType = dyn_cast<RankedTensorType>(w.getType());
    if (!resultType || !xType || !wType)
      return rewriter.notifyMatchFailure(op, "unranked operands or result");
    int64_t rank = xType.getRank();
    if (rank < 3 || rank > 5 || wType.getRank() != rank ||
        resultType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "only 1-D, 2-D and 3-D convs");
    if (wType.isDynamicDim(0))
      return rewriter.notifyMatchFailure(op, "dynamic output channels");
    auto kernel = getKernelShape(op.getKernelShapeAttr(), wType);
    if (failed(kernel))
      return rewriter.notifyMatchFailure(op, "unknown kernel shape");
    int64_t group = op.getGroup();
    if (group < 1)
      return rewriter.notifyMatchFailure(op, "group < 1");
    Value staticBias;
    if constexpr (isQLinear)
      staticBias = adaptor.getB();
    if (failed(checkConvChannels(op, xType, wType, staticBias, group,
                                 resultType)))
      return failure();
    for (Value zp : {adaptor.getXZeroPoint(), adaptor.getWZeroPoint()}) {
      auto t = zp ? dyn_cast<RankedTensorType>(zp.getType()) : nullptr;
      if (zp && (!t || t.getRank() > 1))
        return rewriter.notifyMatchFailure(op, "zero points are 0-D or 1-D");
    }
    Value xzp = adaptor.getXZeroPoint();
    if (xzp && cast<RankedTensorType>(xzp.getType()).getRank() == 1 &&
        cast<RankedTensorType>(xzp.getType()).getDimSize(0) != 1)
      return rewriter.notifyMatchFailure(op, "x_zero_point is per tensor");

    Type i32 = rewriter.getI32Type();
    Value xi = subtractZeroPoint(
        rewriter, loc, x, xzp, getONNXElementType(op.getX()),
        xzp ? getONNXElementType(op.getXZeroPoint()) : Type());
    Value wzp = adaptor.getWZeroPoint();
    if (wzp)
      wzp = alignChannels(rewriter, loc, wzp, rank, 0);
    Value wi = subtractZeroPoint(
        rewriter, loc, w, wzp, getONNXElementType(op.getW()),
        wzp ? getONNXElementType(op.getWZeroPoint()) : Type());

    auto window = computeSlidingWindow(rewriter, loc, xi, resultType, *kernel,
                                       op.getStridesAttr(),
                                       op.getDilationsAttr(), op.getPadsAttr(),
                                       op.getAutoPad(), /*ceilMode=*/false);
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "invalid window attributes");
    Value zero = createScalarConstant(rewriter, loc, i32, 0);
    Value padded = padSpatial(rewriter, loc, xi, *window, zero);
    SmallVector<OpFoldResult> sizes{getDims(rewriter, loc, x)[0],
                                    rewriter.getIndexAttr(wType.getDimSize(0))};
    llvm::append_range(sizes, window->outSizes);
    SmallVector<int64_t> accShape(resultType.getShape());
    accShape[1] = wType.getDimSize(0);
    auto accType = RankedTensorType::get(accShape, i32);
    Value bias;
    if constexpr (isQLinear) {
      bias = adaptor.getB();
      if (bias && cast<RankedTensorType>(bias.getType()).getRank() != 1)
        return rewriter.notifyMatchFailure(op, "bias is not 1-D");
    }
    Value init = buildConvInit(rewriter, loc, accType, sizes, bias, zero);
    auto acc = buildConv(rewriter, loc, padded, wi, init, window->strides,
                         window->dilations, group);
    if (failed(acc))
      return rewriter.notifyMatchFailure(op, "unsupported grouping");
    Value y = *acc;
    if constexpr (isQLinear) {
      // acc * (x_scale * w_scale[m] / y_scale), rounded, + y_zero_point.
      Value wScale = alignChannels(rewriter, loc, adaptor.getWScale(), rank, 1);
      Type outElem = getONNXElementType(op.getY());
      Type f32 = rewriter.getF32Type();
      y = buildElementwise(
          rewriter, loc,
          ValueRange{y, adaptor.getXScale(), wScale, adaptor.getYScale(),
                     adaptor.getYZeroPoint()},
          resultType, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value scale = arith::DivFOp::create(
                b, l, arith::MulFOp::create(b, l, a[1], a[2]), a[3]);
            Value v = arith::MulFOp::create(
                b, l, castScalar(b, l, a[0], i32, f32), scale);
            return roundToInteger(b, l, v, a[4], outElem);
          });
    }
    if (y.getType() != resultType)
      y = tensor::CastOp::create(rewriter, loc, resultType, y);
    rewriter.replaceOp(op, y);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateQuantizedConvPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<QuantizedConvLowering<ONNXConvIntegerOp>,
               QuantizedConvLowering<ONNXQLinearConvOp>>(converter,
                                                         patterns.getContext());
}
