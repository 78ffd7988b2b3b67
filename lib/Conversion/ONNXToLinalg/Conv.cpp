//===- Conv.cpp - Conv -> linalg ------------------------------------------===//
//
// Conv pads its input with tensor.pad and becomes a named linalg convolution
// (conv_1d_ncw_fcw, conv_2d_nchw_fchw, conv_3d_ncdhw_fcdhw; the depthwise
// forms when every group has one input and one output channel;
// conv_2d_ngchw_gfchw for other groups in 2-D) or, where no named op fits
// (groups in 1-D and 3-D), a linalg.generic of the same shape. The output
// starts as the bias broadcast along the channels, so the convolution
// accumulates onto it. ConvTranspose.cpp builds on these helpers.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::onnxc;

/// The output tensor the convolution accumulates into: `bias` (1-D, the
/// output channels) broadcast along dim 1, or `zero`.
Value mlir::onnxc::buildConvInit(OpBuilder &b, Location loc,
                                 RankedTensorType type,
                                 ArrayRef<OpFoldResult> sizes, Value bias,
                                 Value zero) {
  if (!bias)
    return createFilled(b, loc, type, sizes, zero);
  Value empty = createEmpty(b, loc, type, sizes);
  auto biasType = cast<RankedTensorType>(bias.getType());
  if (biasType.getDimSize(0) != type.getDimSize(1))
    bias = tensor::CastOp::create(
        b, loc,
        RankedTensorType::get({type.getDimSize(1)}, biasType.getElementType()),
        bias);
  SmallVector<int64_t> dims{0};
  for (int64_t i = 2; i < type.getRank(); ++i)
    dims.push_back(i);
  return linalg::BroadcastOp::create(b, loc, bias, empty, dims)->getResult(0);
}

/// Splits dim `dim` of `v` into (outer, inner); `inner` is static.
Value mlir::onnxc::splitDim(OpBuilder &b, Location loc, Value v, int64_t dim,
                            int64_t inner) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> sizes = getDims(b, loc, v);
  SmallVector<int64_t> shape(type.getShape());
  int64_t size = shape[dim];
  int64_t outer = ShapedType::isDynamic(size) ? size : size / inner;
  OpFoldResult outerSize = b.getIndexAttr(outer);
  if (ShapedType::isDynamic(size))
    outerSize = arith::DivSIOp::create(
                    b, loc, getValueOrCreateConstantIndexOp(b, loc, sizes[dim]),
                    arith::ConstantIndexOp::create(b, loc, inner))
                    .getResult();
  shape[dim] = outer;
  shape.insert(shape.begin() + dim + 1, inner);
  sizes[dim] = outerSize;
  sizes.insert(sizes.begin() + dim + 1, b.getIndexAttr(inner));
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (i < dim)
      groups.push_back({i});
    else if (i == dim)
      groups.push_back({i, i + 1});
    else
      groups.push_back({i + 1});
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, groups,
      sizes);
}

/// Merges dims `dim` and `dim + 1` of `v`.
Value mlir::onnxc::mergeDims(OpBuilder &b, Location loc, Value v, int64_t dim) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (i == dim) {
      groups.push_back({i, i + 1});
      ++i;
    } else {
      groups.push_back({i});
    }
  }
  return tensor::CollapseShapeOp::create(b, loc, v, groups);
}

/// A grouped convolution as a linalg.generic over the group-split forms:
/// x (N, G, C/G, D...), w (G, M/G, C/G, K...), init (N, G, M/G, O...).
static Value buildGroupedConvGeneric(OpBuilder &b, Location loc, Value x,
                                     Value w, Value init,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> dilations) {
  int64_t n = strides.size();
  MLIRContext *ctx = b.getContext();
  // Loops: batch, group, out channel, out positions | in channel, kernel.
  int64_t numLoops = 4 + 2 * n;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> xExprs{dim(0), dim(1), dim(3 + n)};
  SmallVector<AffineExpr> wExprs{dim(1), dim(2), dim(3 + n)};
  SmallVector<AffineExpr> outExprs{dim(0), dim(1), dim(2)};
  for (int64_t i = 0; i < n; ++i) {
    AffineExpr o = dim(3 + i), k = dim(4 + n + i);
    xExprs.push_back(o * strides[i] + k * dilations[i]);
    wExprs.push_back(k);
    outExprs.push_back(o);
  }
  SmallVector<AffineMap> maps{AffineMap::get(numLoops, 0, xExprs, ctx),
                              AffineMap::get(numLoops, 0, wExprs, ctx),
                              AffineMap::get(numLoops, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(3 + n,
                                             utils::IteratorType::parallel);
  iterators.append(1 + n, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{x, w}, ValueRange{init}, maps,
             iterators,
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               Value prod, sum;
               Type acc = args[2].getType();
               if (isa<FloatType>(acc)) {
                 auto widen = [&](Value v) -> Value {
                   return v.getType() == acc
                              ? v
                              : arith::ExtFOp::create(nb, nloc, acc, v);
                 };
                 prod = arith::MulFOp::create(nb, nloc, widen(args[0]),
                                              widen(args[1]));
                 sum = arith::AddFOp::create(nb, nloc, args[2], prod);
               } else {
                 prod = arith::MulIOp::create(nb, nloc, args[0], args[1]);
                 sum = arith::AddIOp::create(nb, nloc, args[2], prod);
               }
               linalg::YieldOp::create(nb, nloc, sum);
             })
      .getResult(0);
}

/// Convolves the padded input `x` (N, C, D...) with `w` (M, C/G, K...) in
/// `group` groups, accumulating into `init` (N, M, O...).
FailureOr<Value> mlir::onnxc::buildConv(OpBuilder &b, Location loc, Value x,
                                        Value w, Value init,
                                        ArrayRef<int64_t> strides,
                                        ArrayRef<int64_t> dilations,
                                        int64_t group) {
  auto wType = cast<RankedTensorType>(w.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t n = strides.size();
  Attribute s = b.getI64TensorAttr(strides), d = b.getI64TensorAttr(dilations);
  SmallVector<Type> resultTypes{initType};
  if (group == 1) {
    SmallVector<Value> ins{x, w};
    switch (n) {
    case 1:
      return linalg::Conv1DNcwFcwOp::create(b, loc, resultTypes, ins, init, s,
                                            d)
          .getResult(0);
    case 2:
      return linalg::Conv2DNchwFchwOp::create(b, loc, resultTypes, ins, init, s,
                                              d)
          .getResult(0);
    case 3:
      return linalg::Conv3DNcdhwFcdhwOp::create(b, loc, resultTypes, ins, init,
                                                s, d)
          .getResult(0);
    default:
      return failure();
    }
  }
  int64_t m = wType.getDimSize(0), cPerGroup = wType.getDimSize(1);
  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(cPerGroup) ||
      m % group != 0)
    return failure();
  auto xType = cast<RankedTensorType>(x.getType());
  if (!xType.isDynamicDim(1) && xType.getDimSize(1) != cPerGroup * group)
    return failure();
  if (cPerGroup == 1 && m == group) {
    // Depthwise: one input and one output channel per group.
    Value kernel = mergeDims(b, loc, w, 0);
    SmallVector<Value> ins{x, kernel};
    switch (n) {
    case 1:
      return linalg::DepthwiseConv1DNcwCwOp::create(b, loc, resultTypes, ins,
                                                    init, s, d)
          .getResult(0);
    case 2:
      return linalg::DepthwiseConv2DNchwChwOp::create(b, loc, resultTypes, ins,
                                                      init, s, d)
          .getResult(0);
    case 3:
      return linalg::DepthwiseConv3DNcdhwCdhwOp::create(b, loc, resultTypes,
                                                        ins, init, s, d)
          .getResult(0);
    default:
      return failure();
    }
  }
  Value xg = splitDim(b, loc, x, 1, cPerGroup);
  Value wg = splitDim(b, loc, w, 0, m / group);
  Value initg = splitDim(b, loc, init, 1, m / group);
  Value result;
  if (n == 2)
    result =
        linalg::Conv2DNgchwGfchwOp::create(b, loc, TypeRange{initg.getType()},
                                           ValueRange{xg, wg}, initg, s, d)
            .getResult(0);
  else
    result = buildGroupedConvGeneric(b, loc, xg, wg, initg, strides, dilations);
  return mergeDims(b, loc, result, 1);
}

LogicalResult mlir::onnxc::checkConvChannels(Operation *op,
                                             RankedTensorType xType,
                                             RankedTensorType wType,
                                             Value bias, int64_t group,
                                             RankedTensorType resultType) {
  int64_t c = xType.getDimSize(1), m = wType.getDimSize(0),
          cPerGroup = wType.getDimSize(1);
  int64_t n = xType.getDimSize(0), resultN = resultType.getDimSize(0);
  if (!ShapedType::isDynamic(n) && !ShapedType::isDynamic(resultN) &&
      n != resultN)
    return op->emitOpError() << "declares its result as " << resultType
                             << ", but X is " << xType << ": a batch of " << n;
  if (!ShapedType::isDynamic(m) && m % group != 0)
    return op->emitOpError() << "W is " << wType << ": its " << m
                             << " output channels do not split into "
                             << group << " groups";
  if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(cPerGroup) &&
      c != cPerGroup * group)
    return op->emitOpError()
           << "X has " << c << " channels, but W is " << wType << " with "
           << group << (group == 1 ? " group" : " groups") << ": "
           << cPerGroup * group << " channels";
  auto biasType =
      bias ? dyn_cast<RankedTensorType>(bias.getType()) : RankedTensorType();
  if (biasType && biasType.getRank() == 1 && !biasType.isDynamicDim(0) &&
      !ShapedType::isDynamic(m) && biasType.getDimSize(0) != m)
    return op->emitOpError() << "B has " << biasType.getDimSize(0)
                             << " values, but W is " << wType << ": " << m
                             << " output channels";
  return success();
}

namespace {

class ConvLowering : public OpConversionPattern<ONNXConvOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto wType = dyn_cast<RankedTensorType>(adaptor.getW().getType());
    if (!resultType || !xType || !wType)
      return rewriter.notifyMatchFailure(op, "unranked operands or result");
    int64_t rank = xType.getRank();
    if (rank < 3 || rank > 5 || wType.getRank() != rank ||
        resultType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "only 1-D, 2-D and 3-D convs");
    auto kernel = getKernelShape(op.getKernelShapeAttr(), wType);
    if (failed(kernel))
      return rewriter.notifyMatchFailure(op, "unknown kernel shape");
    for (int64_t i = 0; i < rank - 2; ++i)
      if (!wType.isDynamicDim(i + 2) && wType.getDimSize(i + 2) != (*kernel)[i])
        return rewriter.notifyMatchFailure(op, "kernel_shape differs from W");
    if (wType.isDynamicDim(0))
      return rewriter.notifyMatchFailure(op, "dynamic output channels");
    int64_t group = op.getGroup();
    if (group < 1)
      return rewriter.notifyMatchFailure(op, "group < 1");
    Value bias = adaptor.getB();
    if (bias) {
      auto biasType = dyn_cast<RankedTensorType>(bias.getType());
      if (!biasType || biasType.getRank() != 1)
        return rewriter.notifyMatchFailure(op, "bias is not 1-D");
    }
    if (failed(checkConvChannels(op, xType, wType, bias, group, resultType)))
      return failure();

    auto window = computeSlidingWindow(rewriter, loc, adaptor.getX(),
                                       resultType, *kernel, op.getStridesAttr(),
                                       op.getDilationsAttr(), op.getPadsAttr(),
                                       op.getAutoPad(), /*ceilMode=*/false);
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "invalid window attributes");
    Type elementType = resultType.getElementType();
    Value zero = createScalarConstant(rewriter, loc, elementType, 0);
    Value x = padSpatial(rewriter, loc, adaptor.getX(), *window, zero);

    SmallVector<OpFoldResult> sizes{getDims(rewriter, loc, adaptor.getX())[0],
                                    rewriter.getIndexAttr(wType.getDimSize(0))};
    llvm::append_range(sizes, window->outSizes);
    if (!resultType.isDynamicDim(1) &&
        resultType.getDimSize(1) != wType.getDimSize(0))
      return op.emitOpError()
             << "declares " << resultType.getDimSize(1)
             << " output channels, but W is " << wType;
    // f16/bf16 accumulate in f32 (like numpy and ONNX Runtime), grouped
    // convs too; the named conv ops extend their inputs to the
    // accumulator's type, the grouped generic extends them in its body.
    Type accType = elementType;
    if (elementType.isF16() || elementType.isBF16())
      accType = rewriter.getF32Type();
    SmallVector<int64_t> accShape(resultType.getShape());
    accShape[1] = wType.getDimSize(0);
    auto initType = RankedTensorType::get(accShape, accType);
    Type onnxElem = getONNXElementType(op.getX());
    if (bias && accType != elementType)
      bias = buildElementwise(
          rewriter, loc, bias,
          cast<RankedTensorType>(bias.getType()).clone(accType),
          [&](OpBuilder &b, Location l, ValueRange a) {
            return castScalar(b, l, a[0], onnxElem, accType);
          });
    Value init = buildConvInit(rewriter, loc, initType, sizes, bias,
                               createScalarConstant(rewriter, loc, accType, 0));
    auto result = buildConv(rewriter, loc, x, adaptor.getW(), init,
                            window->strides, window->dilations, group);
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "unsupported grouping");
    Value y = *result;
    if (accType != elementType)
      y = buildElementwise(
          rewriter, loc, y,
          cast<RankedTensorType>(y.getType()).clone(elementType),
          [&](OpBuilder &b, Location l, ValueRange a) {
            return castScalar(b, l, a[0], accType, onnxElem);
          });
    FailureOr<Value> cast = castOrReport(rewriter, loc, op, y, resultType);
    if (failed(cast))
      return failure();
    rewriter.replaceOp(op, *cast);
    return success();
  }
};
} // namespace

void mlir::onnxc::populateConvPatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<ConvLowering>(converter, patterns.getContext());
  populateConvTransposePatterns(converter, patterns);
}
