//===- Pooling.cpp - MaxPool, AveragePool, Global*Pool, LpPool -> linalg --===//
//
// Windowed pools pad their input with tensor.pad (the lowest value for max,
// zero for sums; on the right as far as ceil_mode's last window needs) and
// become linalg.pooling_ncw_* / pooling_nchw_* (a linalg.generic of the same
// shape in 3-D and for unsigned max). AveragePool divides the sums by each
// window's element count (all of it, or only the part inside the input when
// count_include_pad is 0); LpPool sums |x|^p and takes the p-th root.
// Global pools reduce the spatial dims with a linalg.generic and re-insert
// them as unit dims.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

enum class PoolKind { Max, Sum, Lp };

SmallVector<int64_t> getInts(ArrayAttr attr) {
  SmallVector<int64_t> values;
  for (Attribute a : attr)
    values.push_back(cast<IntegerAttr>(a).getInt());
  return values;
}

/// The value windows pad with: the lowest value for max, zero otherwise.
Value padValue(OpBuilder &b, Location loc, Type onnxType, PoolKind kind) {
  Type t = toSignless(onnxType);
  if (kind != PoolKind::Max)
    return createScalarConstant(b, loc, t, 0);
  if (auto f = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(),
                                          /*Negative=*/true)));
  unsigned width = t.getIntOrFloatBitWidth();
  APInt lowest = onnxType.isUnsignedInteger() ? APInt::getMinValue(width)
                                              : APInt::getSignedMinValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, lowest));
}

/// acc combined with one element x.
Value combine(OpBuilder &b, Location loc, Type onnxType, PoolKind kind,
              int64_t p, Value acc, Value x) {
  bool isFloat = isa<FloatType>(onnxType);
  switch (kind) {
  case PoolKind::Max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, acc, x);
    if (onnxType.isUnsignedInteger())
      return arith::MaxUIOp::create(b, loc, acc, x);
    return arith::MaxSIOp::create(b, loc, acc, x);
  case PoolKind::Sum:
    if (isFloat)
      return arith::AddFOp::create(b, loc, acc, x);
    return arith::AddIOp::create(b, loc, acc, x);
  case PoolKind::Lp: {
    Value term;
    if (p == 1)
      term = math::AbsFOp::create(b, loc, x);
    else if (p == 2)
      term = arith::MulFOp::create(b, loc, x, x);
    else
      term = math::PowFOp::create(
          b, loc, math::AbsFOp::create(b, loc, x),
          createScalarConstant(b, loc, x.getType(), double(p)));
    return arith::AddFOp::create(b, loc, acc, term);
  }
  }
  llvm_unreachable("pool kind");
}

/// The p-th root of an Lp sum.
Value lpRoot(OpBuilder &b, Location loc, int64_t p, Value sum) {
  if (p == 1)
    return sum;
  if (p == 2)
    return math::SqrtOp::create(b, loc, sum);
  return math::PowFOp::create(
      b, loc, sum, createScalarConstant(b, loc, sum.getType(), 1.0 / p));
}

/// Pools the padded input `x` (N, C, D...) into `init` (N, C, O...).
Value buildPool(OpBuilder &b, Location loc, Value x, Value init,
                const SlidingWindow &w, Type onnxType, PoolKind kind,
                int64_t p) {
  int64_t n = w.kernel.size();
  auto initType = cast<RankedTensorType>(init.getType());
  Type elementType = initType.getElementType();
  Value window = tensor::EmptyOp::create(b, loc, w.kernel, elementType);
  bool named = n <= 2 && kind != PoolKind::Lp &&
               !(kind == PoolKind::Max && onnxType.isUnsignedInteger());
  if (named) {
    Attribute s = b.getI64TensorAttr(w.strides);
    Attribute d = b.getI64TensorAttr(w.dilations);
    SmallVector<Type> types{initType};
    SmallVector<Value> ins{x, window};
    if (kind == PoolKind::Max)
      return n == 1 ? linalg::PoolingNcwMaxOp::create(b, loc, types, ins, init,
                                                      s, d)
                          .getResult(0)
                    : linalg::PoolingNchwMaxOp::create(b, loc, types, ins, init,
                                                       s, d)
                          .getResult(0);
    return n == 1
               ? linalg::PoolingNcwSumOp::create(b, loc, types, ins, init, s, d)
                     .getResult(0)
               : linalg::PoolingNchwSumOp::create(b, loc, types, ins, init, s,
                                                  d)
                     .getResult(0);
  }
  // The same computation as a linalg.generic: loops (n, c, o... | k...).
  MLIRContext *ctx = b.getContext();
  int64_t numLoops = 2 + 2 * n;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> xExprs{dim(0), dim(1)}, kExprs,
      outExprs{dim(0), dim(1)};
  for (int64_t i = 0; i < n; ++i) {
    xExprs.push_back(dim(2 + i) * w.strides[i] +
                     dim(2 + n + i) * w.dilations[i]);
    kExprs.push_back(dim(2 + n + i));
    outExprs.push_back(dim(2 + i));
  }
  SmallVector<AffineMap> maps{AffineMap::get(numLoops, 0, xExprs, ctx),
                              AffineMap::get(numLoops, 0, kExprs, ctx),
                              AffineMap::get(numLoops, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(2 + n,
                                             utils::IteratorType::parallel);
  iterators.append(n, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, initType, ValueRange{x, window}, ValueRange{init}, maps,
             iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nloc,
                   combine(nb, nloc, onnxType, kind, p, args[2], args[0]));
             })
      .getResult(0);
}

/// Sizes of the pool's output: N and C from the input, spatial from `w`.
SmallVector<OpFoldResult> outputSizes(OpBuilder &b, Location loc, Value x,
                                      const SlidingWindow &w) {
  SmallVector<OpFoldResult> sizes = getDims(b, loc, x);
  sizes.resize(2);
  llvm::append_range(sizes, w.outSizes);
  return sizes;
}

/// Checks the common operand/result shape and computes the window.
FailureOr<SlidingWindow> getWindow(ConversionPatternRewriter &rewriter,
                                   Operation *op, Value x,
                                   RankedTensorType resultType,
                                   ArrayAttr kernelShape, ArrayAttr strides,
                                   ArrayAttr dilations, ArrayAttr pads,
                                   StringRef autoPad, bool ceilMode) {
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!resultType || !xType || xType.getRank() < 3 ||
      xType.getRank() != resultType.getRank() || !kernelShape)
    return failure();
  return computeSlidingWindow(rewriter, op->getLoc(), x, resultType,
                              getInts(kernelShape), strides, dilations, pads,
                              autoPad, ceilMode);
}

/// The input position o * stride + k * dilation - padLow that a window
/// element reads (k may be null: the window's start), in the unpadded input.
Value windowPosition(OpBuilder &b, Location loc, Value o, int64_t stride,
                     Value k, int64_t dilation, OpFoldResult padLow) {
  auto scale = [&](Value v, int64_t f) -> Value {
    if (f == 1)
      return v;
    return arith::MulIOp::create(b, loc, v,
                                 arith::ConstantIndexOp::create(b, loc, f));
  };
  Value pos = scale(o, stride);
  if (k)
    pos = arith::AddIOp::create(b, loc, pos, scale(k, dilation));
  if (!isConstantIntValue(padLow, 0))
    pos = arith::SubIOp::create(
        b, loc, pos, getValueOrCreateConstantIndexOp(b, loc, padLow));
  return pos;
}

class MaxPoolLowering : public OpConversionPattern<ONNXMaxPoolOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMaxPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    auto window = getWindow(rewriter, op, adaptor.getX(), resultType,
                            op.getKernelShapeAttr(), op.getStridesAttr(),
                            op.getDilationsAttr(), op.getPadsAttr(),
                            op.getAutoPad(), op.getCeilMode() != 0);
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "unsupported window");
    Type onnxType = getONNXElementType(op.getX());
    if (!isa<FloatType>(onnxType) && !isa<IntegerType>(onnxType))
      return rewriter.notifyMatchFailure(op, "element type");
    Value lowest = padValue(rewriter, loc, onnxType, PoolKind::Max);
    Value x = padSpatial(rewriter, loc, adaptor.getX(), *window, lowest);
    SmallVector<OpFoldResult> sizes =
        outputSizes(rewriter, loc, adaptor.getX(), *window);
    Value init = createFilled(rewriter, loc, resultType, sizes, lowest);
    if (op->getNumResults() == 1) {
      rewriter.replaceOp(op, buildPool(rewriter, loc, x, init, *window,
                                       onnxType, PoolKind::Max, 0));
      return success();
    }
    auto indicesType = getConvertedResultType(*getTypeConverter(), op, 1);
    if (!indicesType || !indicesType.getElementType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "Indices type");
    Value minusOne = arith::ConstantOp::create(rewriter, loc,
                                               rewriter.getI64IntegerAttr(-1));
    Value indicesInit =
        createFilled(rewriter, loc, indicesType, sizes, minusOne);
    rewriter.replaceOp(
        op, buildMaxPoolWithIndices(rewriter, loc, adaptor.getX(), x, init,
                                    indicesInit, *window, onnxType,
                                    op.getStorageOrder() != 0));
    return success();
  }

private:
  /// Max pooling that also yields, per window, the flat index into the
  /// unpadded input of its first largest element (row-major, or with the
  /// spatial dims column-major when `columnMajor`).
  static SmallVector<Value>
  buildMaxPoolWithIndices(OpBuilder &b, Location loc, Value input, Value x,
                          Value init, Value indicesInit, const SlidingWindow &w,
                          Type onnxType, bool columnMajor) {
    int64_t n = w.kernel.size();
    MLIRContext *ctx = b.getContext();
    int64_t numLoops = 2 + 2 * n;
    auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> xExprs{dim(0), dim(1)}, kExprs,
        outExprs{dim(0), dim(1)};
    for (int64_t i = 0; i < n; ++i) {
      xExprs.push_back(dim(2 + i) * w.strides[i] +
                       dim(2 + n + i) * w.dilations[i]);
      kExprs.push_back(dim(2 + n + i));
      outExprs.push_back(dim(2 + i));
    }
    AffineMap outMap = AffineMap::get(numLoops, 0, outExprs, ctx);
    SmallVector<AffineMap> maps{AffineMap::get(numLoops, 0, xExprs, ctx),
                                AffineMap::get(numLoops, 0, kExprs, ctx),
                                outMap, outMap};
    SmallVector<utils::IteratorType> iterators(2 + n,
                                               utils::IteratorType::parallel);
    iterators.append(n, utils::IteratorType::reduction);
    Type elementType = cast<RankedTensorType>(init.getType()).getElementType();
    Value window = tensor::EmptyOp::create(b, loc, w.kernel, elementType);
    SmallVector<Value> inSizes;
    for (int64_t i = 0; i < n + 2; ++i)
      inSizes.push_back(getDimValue(b, loc, input, i));
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{init.getType(), indicesInit.getType()},
        ValueRange{x, window}, ValueRange{init, indicesInit}, maps, iterators,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value elem = args[0], acc = args[2], accIndex = args[3];
          auto index = [&](int64_t d) -> Value {
            return linalg::IndexOp::create(nb, l, d);
          };
          auto cst = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(nb, l, v);
          };
          // Position in the unpadded input, and whether it lies inside.
          Value inside;
          SmallVector<Value> pos;
          for (int64_t i = 0; i < n; ++i) {
            Value p =
                windowPosition(nb, l, index(2 + i), w.strides[i],
                               index(2 + n + i), w.dilations[i], w.padLow[i]);
            Value ge = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge,
                                             p, cst(0));
            Value lt = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                             p, inSizes[2 + i]);
            Value in = arith::AndIOp::create(nb, l, ge, lt);
            inside = inside ? arith::AndIOp::create(nb, l, inside, in) : in;
            pos.push_back(p);
          }
          // Flat index: (n * C + c) * spatial + the spatial offset.
          Value flat = arith::AddIOp::create(
              nb, l, arith::MulIOp::create(nb, l, index(0), inSizes[1]),
              index(1));
          if (!columnMajor) {
            for (int64_t i = 0; i < n; ++i)
              flat = arith::AddIOp::create(
                  nb, l, arith::MulIOp::create(nb, l, flat, inSizes[2 + i]),
                  pos[i]);
          } else {
            Value spatial = cst(1);
            for (int64_t i = 0; i < n; ++i)
              spatial = arith::MulIOp::create(nb, l, spatial, inSizes[2 + i]);
            Value offset = cst(0);
            for (int64_t i = n - 1; i >= 0; --i)
              offset = arith::AddIOp::create(
                  nb, l, arith::MulIOp::create(nb, l, offset, inSizes[2 + i]),
                  pos[i]);
            flat = arith::AddIOp::create(
                nb, l, arith::MulIOp::create(nb, l, flat, spatial), offset);
          }
          Value flat64 =
              arith::IndexCastOp::create(nb, l, nb.getI64Type(), flat);
          Value greater;
          if (isa<FloatType>(onnxType))
            greater = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT,
                                            elem, acc);
          else
            greater = arith::CmpIOp::create(nb, l,
                                            onnxType.isUnsignedInteger()
                                                ? arith::CmpIPredicate::ugt
                                                : arith::CmpIPredicate::sgt,
                                            elem, acc);
          Value unset = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::slt, accIndex,
              arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
          Value take = arith::AndIOp::create(
              nb, l, inside, arith::OrIOp::create(nb, l, greater, unset));
          linalg::YieldOp::create(
              nb, l,
              ValueRange{
                  arith::SelectOp::create(nb, l, take, elem, acc),
                  arith::SelectOp::create(nb, l, take, flat64, accIndex)});
        });
    return {generic.getResult(0), generic.getResult(1)};
  }
};

/// Number of j in [0, k) with lo <= start + j * dilation < hi, as index
/// values.
Value countInRange(OpBuilder &b, Location loc, Value start, int64_t k,
                   int64_t dilation, Value lo, Value hi) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  if (dilation == 1) {
    Value kEnd = arith::AddIOp::create(b, loc, start, c(k));
    Value begin = arith::MaxSIOp::create(b, loc, start, lo);
    Value end = arith::MinSIOp::create(b, loc, kEnd, hi);
    Value count = arith::SubIOp::create(b, loc, end, begin);
    return arith::MaxSIOp::create(b, loc, count, c(0));
  }
  // j from ceil((lo - start) / d) to floor((hi - 1 - start) / d), in [0, k).
  Value first = arith::MaxSIOp::create(
      b, loc, c(0),
      arith::CeilDivSIOp::create(b, loc,
                                 arith::SubIOp::create(b, loc, lo, start),
                                 c(dilation)));
  Value last = arith::MinSIOp::create(
      b, loc, c(k - 1),
      arith::FloorDivSIOp::create(
          b, loc,
          arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, hi, c(1)),
                                start),
          c(dilation)));
  Value count = arith::AddIOp::create(
      b, loc, arith::SubIOp::create(b, loc, last, first), c(1));
  return arith::MaxSIOp::create(b, loc, count, c(0));
}

/// countInRange over constants.
int64_t countInRange(int64_t start, int64_t k, int64_t dilation, int64_t lo,
                     int64_t hi) {
  int64_t count = 0;
  for (int64_t j = 0; j < k; ++j)
    count += start + j * dilation >= lo && start + j * dilation < hi;
  return count;
}

/// Output positions of a static table of window counts at most.
constexpr int64_t kMaxCountTable = 1 << 16;

/// The element count of each window over the output's spatial positions
/// (OH x OW x ...), as a constant of the result's element type, where the
/// input's and output's spatial sizes and the pads are static and the
/// table is small; else null. Counts as countInRange's, positions as
/// windowPosition's.
Value staticCounts(OpBuilder &b, Location loc, const SlidingWindow &window,
                   ArrayRef<OpFoldResult> inSizes,
                   ArrayRef<OpFoldResult> outSizes, bool includePad,
                   RankedTensorType resultType) {
  int64_t n = window.kernel.size();
  SmallVector<int64_t> outShape, lo(n), hi(n), padLow(n);
  int64_t total = 1;
  for (int64_t i = 0; i < n; ++i) {
    std::optional<int64_t> o = getConstantIntValue(outSizes[2 + i]);
    std::optional<int64_t> in = getConstantIntValue(inSizes[2 + i]);
    std::optional<int64_t> pl = getConstantIntValue(window.padLow[i]);
    std::optional<int64_t> ph = getConstantIntValue(window.padHigh[i]);
    if (!o || !in || !pl || !ph)
      return Value();
    outShape.push_back(*o);
    total *= *o;
    padLow[i] = *pl;
    lo[i] = includePad ? -*pl : 0;
    hi[i] = includePad ? *in + *ph : *in;
  }
  if (total > kMaxCountTable)
    return Value();
  auto elementType = cast<FloatType>(resultType.getElementType());
  SmallVector<APFloat> counts;
  SmallVector<int64_t> pos(n, 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t count = 1;
    for (int64_t i = 0; i < n; ++i) {
      int64_t start = pos[i] * window.strides[i] - padLow[i];
      count *= countInRange(start, window.kernel[i], window.dilations[i],
                            lo[i], hi[i]);
    }
    APFloat value(static_cast<double>(count));
    bool lost;
    value.convert(elementType.getFloatSemantics(),
                  APFloat::rmNearestTiesToEven, &lost);
    counts.push_back(value);
    for (int64_t i = n - 1; i >= 0; --i) {
      if (++pos[i] < outShape[i])
        break;
      pos[i] = 0;
    }
  }
  auto type = RankedTensorType::get(outShape, elementType);
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, counts));
}

class AveragePoolLowering : public OpConversionPattern<ONNXAveragePoolOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXAveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    auto window = getWindow(rewriter, op, adaptor.getX(), resultType,
                            op.getKernelShapeAttr(), op.getStridesAttr(),
                            op.getDilationsAttr(), op.getPadsAttr(),
                            op.getAutoPad(), op.getCeilMode() != 0);
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "unsupported window");
    Type onnxType = getONNXElementType(op.getX());
    if (!isa<FloatType>(onnxType))
      return rewriter.notifyMatchFailure(op, "element type");
    Value zero = createScalarConstant(rewriter, loc, onnxType, 0);
    Value x = padSpatial(rewriter, loc, adaptor.getX(), *window, zero);
    SmallVector<OpFoldResult> sizes =
        outputSizes(rewriter, loc, adaptor.getX(), *window);
    Value init = createFilled(rewriter, loc, resultType, sizes, zero);
    Value sum =
        buildPool(rewriter, loc, x, init, *window, onnxType, PoolKind::Sum, 0);

    // Each window counts the positions in [lo, hi): the input, with or
    // without the explicit padding. Where every window lies inside it (the
    // usual count_include_pad=1 case) the count is the kernel's size.
    bool includePad = op.getCountIncludePad() != 0;
    int64_t n = window->kernel.size();
    SmallVector<OpFoldResult> inSizes = getDims(rewriter, loc, adaptor.getX());
    bool constantCount = includePad;
    for (int64_t i = 0; i < n && constantCount; ++i)
      constantCount = getConstantIntValue(window->padHigh[i]).has_value() &&
                      getConstantIntValue(window->padHighCovering[i]) ==
                          getConstantIntValue(window->padHigh[i]);
    Value empty = createEmpty(rewriter, loc, resultType, sizes);
    int64_t rank = resultType.getRank();
    auto identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    // Where the sizes and pads are static, the counts are a constant over
    // the output's spatial positions, read along with the sum (the counts
    // computed in the body took index divisions per element, which stay
    // scalar: ShuffleNet's count_include_pad=0 pools ran serial and slow).
    if (!constantCount) {
      if (Value counts = staticCounts(rewriter, loc, *window, inSizes, sizes,
                                      includePad, resultType)) {
        SmallVector<AffineExpr> spatial;
        for (int64_t i = 0; i < n; ++i)
          spatial.push_back(rewriter.getAffineDimExpr(2 + i));
        AffineMap countMap = AffineMap::get(rank, 0, spatial, getContext());
        Value result =
            linalg::GenericOp::create(
                rewriter, loc, resultType, ValueRange{sum, counts},
                ValueRange{empty},
                SmallVector<AffineMap>{identity, countMap, identity}, iterators,
                [&](OpBuilder &b, Location l, ValueRange args) {
                  linalg::YieldOp::create(
                      b, l,
                      arith::DivFOp::create(b, l, args[0], args[1])
                          .getResult());
                })
                .getResult(0);
        rewriter.replaceOp(op, result);
        return success();
      }
    }
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, resultType, ValueRange{sum}, ValueRange{empty},
            SmallVector<AffineMap>{identity, identity}, iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value count;
              if (constantCount) {
                int64_t size = 1;
                for (int64_t k : window->kernel)
                  size *= k;
                count = createScalarConstant(b, l, args[0].getType(), size);
              } else {
                Value total;
                for (int64_t i = 0; i < n; ++i) {
                  auto v = [&](OpFoldResult ofr) {
                    return getValueOrCreateConstantIndexOp(b, l, ofr);
                  };
                  Value o = linalg::IndexOp::create(b, l, 2 + i);
                  Value start = windowPosition(b, l, o, window->strides[i],
                                               Value(), 1, window->padLow[i]);
                  Value lo, hi = v(inSizes[2 + i]);
                  if (includePad) {
                    lo = arith::SubIOp::create(
                        b, l, arith::ConstantIndexOp::create(b, l, 0),
                        v(window->padLow[i]));
                    hi = arith::AddIOp::create(b, l, hi, v(window->padHigh[i]));
                  } else {
                    lo = arith::ConstantIndexOp::create(b, l, 0);
                  }
                  Value c = countInRange(b, l, start, window->kernel[i],
                                         window->dilations[i], lo, hi);
                  total =
                      total ? arith::MulIOp::create(b, l, total, c).getResult()
                            : c;
                }
                Value asInt =
                    arith::IndexCastOp::create(b, l, b.getI64Type(), total);
                count = arith::SIToFPOp::create(b, l, args[0].getType(), asInt);
              }
              linalg::YieldOp::create(
                  b, l,
                  arith::DivFOp::create(b, l, args[0], count).getResult());
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

class LpPoolLowering : public OpConversionPattern<ONNXLpPoolOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXLpPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    auto window = getWindow(rewriter, op, adaptor.getX(), resultType,
                            op.getKernelShapeAttr(), op.getStridesAttr(),
                            op.getDilationsAttr(), op.getPadsAttr(),
                            op.getAutoPad(), op.getCeilMode() != 0);
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "unsupported window");
    Type onnxType = getONNXElementType(op.getX());
    int64_t p = op.getP();
    if (!isa<FloatType>(onnxType) || p < 1)
      return rewriter.notifyMatchFailure(op, "element type or p");
    Value zero = createScalarConstant(rewriter, loc, onnxType, 0);
    Value x = padSpatial(rewriter, loc, adaptor.getX(), *window, zero);
    SmallVector<OpFoldResult> sizes =
        outputSizes(rewriter, loc, adaptor.getX(), *window);
    Value init = createFilled(rewriter, loc, resultType, sizes, zero);
    Value sum =
        buildPool(rewriter, loc, x, init, *window, onnxType, PoolKind::Lp, p);
    Value result =
        buildElementwise(rewriter, loc, ValueRange{sum}, resultType,
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           return lpRoot(b, l, p, args[0]);
                         });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GlobalMaxPool, GlobalAveragePool, GlobalLpPool: reduce every spatial dim.
template <typename OpTy>
class GlobalPoolLowering : public OpConversionPattern<OpTy> {
public:
  GlobalPoolLowering(const TypeConverter &converter, MLIRContext *ctx,
                     PoolKind kind)
      : OpConversionPattern<OpTy>(converter, ctx), kind(kind) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*this->getTypeConverter(), op);
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!resultType || !xType || xType.getRank() < 3 ||
        resultType.getRank() != xType.getRank())
      return rewriter.notifyMatchFailure(op, "ranks");
    Type onnxType = getONNXElementType(op.getX());
    if (!isa<FloatType>(onnxType))
      return rewriter.notifyMatchFailure(op, "element type");
    int64_t p = 0;
    if constexpr (std::is_same_v<OpTy, ONNXGlobalLpPoolOp>) {
      p = op.getP();
      if (p < 1)
        return rewriter.notifyMatchFailure(op, "p < 1");
    }
    int64_t rank = xType.getRank();
    SmallVector<int64_t> axes;
    for (int64_t i = 2; i < rank; ++i)
      axes.push_back(i);
    Value init = padValue(rewriter, loc, onnxType, kind);
    PoolKind k = kind;
    Value reduced =
        buildReduction(rewriter, loc, x, axes, init,
                       [&](OpBuilder &b, Location l, Value elem, Value acc) {
                         return combine(b, l, onnxType, k, p, acc, elem);
                       });
    Value result = expandReducedDims(rewriter, loc, reduced, axes, rank);
    if (kind == PoolKind::Sum) {
      // Divide by the number of spatial elements.
      Value count = arith::ConstantIndexOp::create(rewriter, loc, 1);
      for (int64_t i = 2; i < rank; ++i)
        count = arith::MulIOp::create(rewriter, loc, count,
                                      getDimValue(rewriter, loc, x, i));
      Value asInt = arith::IndexCastOp::create(rewriter, loc,
                                               rewriter.getI64Type(), count);
      Value divisor = arith::SIToFPOp::create(
          rewriter, loc, resultType.getElementType(), asInt);
      result = buildElementwise(
          rewriter, loc, ValueRange{result}, resultType,
          [&](OpBuilder &b, Location l, ValueRange args) {
            return arith::DivFOp::create(b, l, args[0], divisor).getResult();
          });
    } else if (kind == PoolKind::Lp) {
      result = buildElementwise(rewriter, loc, ValueRange{result}, resultType,
                                [&](OpBuilder &b, Location l, ValueRange args) {
                                  return lpRoot(b, l, p, args[0]);
                                });
    }
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  PoolKind kind;
};

} // namespace

void mlir::onnxc::populatePoolingPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<MaxPoolLowering, AveragePoolLowering, LpPoolLowering>(converter,
                                                                     ctx);
  patterns.add<GlobalPoolLowering<ONNXGlobalMaxPoolOp>>(converter, ctx,
                                                        PoolKind::Max);
  patterns.add<GlobalPoolLowering<ONNXGlobalAveragePoolOp>>(converter, ctx,
                                                            PoolKind::Sum);
  patterns.add<GlobalPoolLowering<ONNXGlobalLpPoolOp>>(converter, ctx,
                                                       PoolKind::Lp);
}
