//===- Gather.cpp - Index-driven onnx ops -> linalg and scf ---------------===//
//
// Gather, GatherElements, GatherND, OneHot and ReverseSequence read their
// input at computed indices inside one linalg.generic (tensor.extract).
// Scatter, ScatterElements and ScatterND write at computed positions: scf.for
// loops over tensors that carry the result (tensor.insert / insert_slice),
// which bufferize in place. CumSum, TopK, NonZero, Compress: Selection.cpp.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Pred = arith::CmpIPredicate;

/// Run-time check that dim `i` of `a` is `pred` to dim `j` of `b` (e.g.
/// `ule`: indices may not be longer than the data); the message reads
/// "<aName> has size X in dim i, <bName> has Y in dim j".
void checkDims(OpBuilder &b, Location loc, Operation *op, Value a, int64_t i,
               StringRef aName, Pred pred, Value other, int64_t j,
               StringRef bName) {
  Value x = getDimValue(b, loc, a, i), y = getDimValue(b, loc, other, j);
  Value ok = arith::CmpIOp::create(b, loc, pred, x, y);
  Value failed = arith::XOrIOp::create(
      b, loc, ok, arith::ConstantIntOp::create(b, loc, 1, 1));
  emitRuntimeCheck(b, loc, op, failed,
                   aName + " has size {0} in dim " + Twine(i) + ", " + bName +
                       " has {1} in dim " + Twine(j),
                   {x, y});
}

/// The index components of GatherND/ScatterND: indices[..., j] lies in
/// [-d, d) for dim `firstDim + j` of `data`, for each j < k.
void checkIndexTuples(OpBuilder &b, Location loc, Operation *op, Value indices,
                      Value data, int64_t firstDim, int64_t k) {
  auto indType = cast<RankedTensorType>(indices.getType());
  int64_t q = indType.getRank();
  SmallVector<OpFoldResult> sizes = getDims(b, loc, indices);
  sizes.back() = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(q, b.getIndexAttr(1));
  for (int64_t j = 0; j < k; ++j) {
    SmallVector<OpFoldResult> offsets(q, b.getIndexAttr(0));
    offsets.back() = b.getIndexAttr(j);
    Value slice =
        tensor::ExtractSliceOp::create(b, loc, indices, offsets, sizes, strides);
    emitIndexRangeCheck(b, loc, op, slice,
                        getDimValue(b, loc, data, firstDim + j),
                        /*allowNegative=*/true,
                        "in component " + Twine(j) + " (data axis " +
                            Twine(firstDim + j) + ")");
  }
}

//===----------------------------------------------------------------------===//
// Gather, GatherElements, GatherND
//===----------------------------------------------------------------------===//

class GatherLowering : public TensorPattern<ONNXGatherOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXGatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = getMovableRankedType(data), indType = getMovableRankedType(indices);
    if (!type || !dataType || !indType)
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t r = dataType.getRank(), q = indType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), r);
    if (axis < 0 || axis >= r || type.getRank() != r + q - 1)
      return rewriter.notifyMatchFailure(op, "bad axis");
    Type indOnnx = getONNXElementType(op.getIndices());
    SmallVector<OpFoldResult> dataDims = getDims(rewriter, loc, data);
    SmallVector<OpFoldResult> sizes(ArrayRef(dataDims).take_front(axis));
    llvm::append_range(sizes, getDims(rewriter, loc, indices));
    llvm::append_range(sizes, ArrayRef(dataDims).drop_front(axis + 1));
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < q; ++i)
      exprs.push_back(rewriter.getAffineDimExpr(axis + i));
    AffineMap map = AffineMap::get(r + q - 1, 0, exprs, getContext());
    Value axisDim =
        getValueOrCreateConstantIndexOp(rewriter, loc, dataDims[axis]);
    emitIndexRangeCheck(rewriter, loc, op, indices, axisDim,
                        /*allowNegative=*/true, "on axis " + Twine(axis));
    Value result = buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, sizes), indices, map,
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> Value {
          IndexMath m(b, l);
          Value idx = m.wrapNegative(scalarToIndex(b, l, args[0], indOnnx),
                                     axisDim);
          SmallVector<Value> at(ivs.take_front(axis));
          at.push_back(idx);
          llvm::append_range(at, ivs.drop_front(axis + q));
          return tensor::ExtractOp::create(b, l, data, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

class GatherElementsLowering : public TensorPattern<ONNXGatherElementsOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXGatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = getMovableRankedType(data), indType = getMovableRankedType(indices);
    if (!type || !dataType || !indType ||
        dataType.getRank() != indType.getRank())
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t axis = normalizeAxis(op.getAxis(), dataType.getRank());
    Type indOnnx = getONNXElementType(op.getIndices());
    Value axisDim = getDimValue(rewriter, loc, data, axis);
    for (int64_t i = 0; i < dataType.getRank(); ++i)
      if (i != axis)
        checkDims(rewriter, loc, op, indices, i, "indices", Pred::ule, data, i,
                  "data");
    emitIndexRangeCheck(rewriter, loc, op, indices, axisDim,
                        /*allowNegative=*/true, "on axis " + Twine(axis));
    Value result = buildIndexedGeneric(
        rewriter, loc, type,
        preferStatic(rewriter, type, getDims(rewriter, loc, indices)), indices,
        {},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> Value {
          IndexMath m(b, l);
          SmallVector<Value> at(ivs);
          at[axis] = m.wrapNegative(scalarToIndex(b, l, args[0], indOnnx),
                                    axisDim);
          return tensor::ExtractOp::create(b, l, data, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

class GatherNDLowering : public TensorPattern<ONNXGatherNDOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXGatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = getMovableRankedType(data), indType = getMovableRankedType(indices);
    if (!type || !dataType || !indType || indType.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t r = dataType.getRank(), q = indType.getRank();
    int64_t bd = op.getBatchDims();
    int64_t k = indType.getDimSize(q - 1);
    if (ShapedType::isDynamic(k) || bd + k > r ||
        type.getRank() != q - 1 + r - bd - k)
      return rewriter.notifyMatchFailure(op, "index depth unknown");
    SmallVector<OpFoldResult> sizes(
        ArrayRef(getDims(rewriter, loc, indices)).drop_back());
    llvm::append_range(sizes,
                       ArrayRef(getDims(rewriter, loc, data)).drop_front(bd + k));
    SmallVector<Value> dataDims = dimValues(rewriter, loc, data);
    for (int64_t i = 0; i < bd; ++i)
      checkDims(rewriter, loc, op, indices, i, "indices", Pred::eq, data, i,
                "data");
    checkIndexTuples(rewriter, loc, op, indices, data, bd, k);
    Value result = buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, sizes), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath m(b, l);
          SmallVector<Value> at(ivs.take_front(bd));
          SmallVector<Value> indAt(ivs.take_front(q - 1));
          indAt.push_back(Value());
          for (int64_t j = 0; j < k; ++j) {
            indAt.back() = m.c(j);
            Value e = tensor::ExtractOp::create(b, l, indices, indAt);
            at.push_back(m.wrapNegative(scalarToIndex(b, l, e, nullptr),
                                        dataDims[bd + j]));
          }
          llvm::append_range(at, ivs.drop_front(q - 1));
          return tensor::ExtractOp::create(b, l, data, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Scatter, ScatterElements, ScatterND
//===----------------------------------------------------------------------===//

/// Combines an existing element with an update for `reduction`.
Value combine(OpBuilder &b, Location loc, StringRef reduction, Type t,
              Value old, Value upd) {
  bool f = isa<FloatType>(t), u = t.isUnsignedInteger() || t.isInteger(1);
  if (reduction == "add")
    return f ? (Value)arith::AddFOp::create(b, loc, old, upd)
             : (Value)arith::AddIOp::create(b, loc, old, upd);
  if (reduction == "mul")
    return f ? (Value)arith::MulFOp::create(b, loc, old, upd)
             : (Value)arith::MulIOp::create(b, loc, old, upd);
  if (reduction == "max")
    return f   ? (Value)arith::MaximumFOp::create(b, loc, old, upd)
           : u ? (Value)arith::MaxUIOp::create(b, loc, old, upd)
               : (Value)arith::MaxSIOp::create(b, loc, old, upd);
  if (reduction == "min")
    return f   ? (Value)arith::MinimumFOp::create(b, loc, old, upd)
           : u ? (Value)arith::MinUIOp::create(b, loc, old, upd)
               : (Value)arith::MinSIOp::create(b, loc, old, upd);
  return upd;
}

bool knownReduction(StringRef r) {
  return r == "none" || r == "add" || r == "mul" || r == "max" || r == "min";
}

/// ScatterElements (and the older Scatter): one loop over the indices.
LogicalResult lowerScatterElements(Operation *op, Value data, Value indices,
                                   Value updates, int64_t axis,
                                   StringRef reduction, Type indOnnx,
                                   RankedTensorType type,
                                   ConversionPatternRewriter &rewriter) {
  Location loc = op->getLoc();
  auto dataType = getMovableRankedType(data), indType = getMovableRankedType(indices);
  if (!type || !dataType || !indType || !getMovableRankedType(updates) ||
      dataType.getRank() != indType.getRank() || !knownReduction(reduction))
    return rewriter.notifyMatchFailure(op, "unranked or string data");
  axis = normalizeAxis(axis, dataType.getRank());
  Type elemOnnx = getONNXElementType(op->getOperand(0));
  Value axisDim = getDimValue(rewriter, loc, data, axis);
  for (int64_t i = 0; i < dataType.getRank(); ++i) {
    checkDims(rewriter, loc, op, updates, i, "updates", Pred::eq, indices, i,
              "indices");
    if (i != axis)
      checkDims(rewriter, loc, op, indices, i, "indices", Pred::ule, data, i,
                "data");
  }
  emitIndexRangeCheck(rewriter, loc, op, indices, axisDim,
                      /*allowNegative=*/true, "on axis " + Twine(axis));
  Value init = data;
  if (init.getType() != type)
    init = tensor::CastOp::create(rewriter, loc, type, init);
  SmallVector<Value> results = loopNest(
      rewriter, loc, dimValues(rewriter, loc, indices), init,
      [&](OpBuilder &b, Location l, ValueRange ivs,
          ValueRange acc) -> SmallVector<Value> {
        IndexMath m(b, l);
        Value idx = tensor::ExtractOp::create(b, l, indices, ivs);
        SmallVector<Value> at(ivs);
        at[axis] = m.wrapNegative(scalarToIndex(b, l, idx, indOnnx), axisDim);
        Value upd = tensor::ExtractOp::create(b, l, updates, ivs);
        if (reduction != "none") {
          Value old = tensor::ExtractOp::create(b, l, acc[0], at);
          upd = combine(b, l, reduction, elemOnnx, old, upd);
        }
        return {tensor::InsertOp::create(b, l, upd, acc[0], at)};
      });
  rewriter.replaceOp(op, results[0]);
  return success();
}

class ScatterElementsLowering : public TensorPattern<ONNXScatterElementsOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXScatterElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerScatterElements(op, adaptor.getData(), adaptor.getIndices(),
                                adaptor.getUpdates(), op.getAxis(),
                                op.getReduction(),
                                getONNXElementType(op.getIndices()),
                                resultType(op), rewriter);
  }
};

class ScatterLowering : public TensorPattern<ONNXScatterOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerScatterElements(op, adaptor.getData(), adaptor.getIndices(),
                                adaptor.getUpdates(), op.getAxis(), "none",
                                getONNXElementType(op.getIndices()),
                                resultType(op), rewriter);
  }
};

class ScatterNDLowering : public TensorPattern<ONNXScatterNDOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXScatterNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value data = adaptor.getData(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    auto dataType = getMovableRankedType(data), indType = getMovableRankedType(indices),
         updType = getMovableRankedType(updates);
    StringRef reduction = op.getReduction();
    if (!type || !dataType || !indType || !updType || indType.getRank() < 1 ||
        !knownReduction(reduction))
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t r = dataType.getRank(), q = indType.getRank();
    int64_t k = indType.getDimSize(q - 1);
    if (ShapedType::isDynamic(k) || k > r ||
        updType.getRank() != q - 1 + r - k)
      return rewriter.notifyMatchFailure(op, "index depth unknown");
    Type elemOnnx = getONNXElementType(op.getData());
    SmallVector<Value> dataDims = dimValues(rewriter, loc, data);
    for (int64_t i = 0; i + 1 < q; ++i)
      checkDims(rewriter, loc, op, updates, i, "updates", Pred::eq, indices, i,
                "indices");
    for (int64_t i = k; i < r; ++i)
      checkDims(rewriter, loc, op, updates, q - 1 + i - k, "updates", Pred::eq,
                data, i, "data");
    checkIndexTuples(rewriter, loc, op, indices, data, 0, k);
    Value init = data;
    if (init.getType() != type)
      init = tensor::CastOp::create(rewriter, loc, type, init);
    SmallVector<Value> results = loopNest(
        rewriter, loc, dimValues(rewriter, loc, updates), init,
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange acc) -> SmallVector<Value> {
          IndexMath m(b, l);
          SmallVector<Value> at, indAt(ivs.take_front(q - 1));
          indAt.push_back(Value());
          for (int64_t j = 0; j < k; ++j) {
            indAt.back() = m.c(j);
            Value e = tensor::ExtractOp::create(b, l, indices, indAt);
            at.push_back(
                m.wrapNegative(scalarToIndex(b, l, e, nullptr), dataDims[j]));
          }
          llvm::append_range(at, ivs.drop_front(q - 1));
          Value upd = tensor::ExtractOp::create(b, l, updates, ivs);
          if (reduction != "none") {
            Value old = tensor::ExtractOp::create(b, l, acc[0], at);
            upd = combine(b, l, reduction, elemOnnx, old, upd);
          }
          return {tensor::InsertOp::create(b, l, upd, acc[0], at)};
        });
    rewriter.replaceOp(op, results[0]);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// OneHot, ReverseSequence
//===----------------------------------------------------------------------===//

class OneHotLowering : public TensorPattern<ONNXOneHotOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXOneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value indices = adaptor.getIndices(), values = adaptor.getValues();
    auto indType = getMovableRankedType(indices), valType = getMovableRankedType(values);
    if (!type || !indType || !valType || valType.getRank() != 1 ||
        valType.getDimSize(0) != 2 || type.getRank() != indType.getRank() + 1)
      return rewriter.notifyMatchFailure(op, "unranked or bad values");
    int64_t rank = type.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    Type indOnnx = getONNXElementType(op.getIndices());
    Value depth = scalarToIndex(
        rewriter, loc, extractScalar(rewriter, loc, adaptor.getDepth()),
        getONNXElementType(op.getDepth()));
    Value off = tensor::ExtractOp::create(
        rewriter, loc, values,
        ValueRange{arith::ConstantIndexOp::create(rewriter, loc, 0)});
    Value on = tensor::ExtractOp::create(
        rewriter, loc, values,
        ValueRange{arith::ConstantIndexOp::create(rewriter, loc, 1)});
    {
      IndexMath m(rewriter, loc);
      Value failed = m.cmp(Pred::slt, depth, m.c(0));
      if (!type.isDynamicDim(axis))
        failed = arith::OrIOp::create(
            rewriter, loc, failed,
            m.cmp(Pred::ne, depth, m.c(type.getDimSize(axis))));
      emitRuntimeCheck(rewriter, loc, op, failed,
                       "depth {0} is negative or differs from the inferred "
                       "output size {1}",
                       {depth, type.isDynamicDim(axis)
                                   ? depth
                                   : m.c(type.getDimSize(axis))});
    }
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, indices);
    sizes.insert(sizes.begin() + axis, depth);
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        exprs.push_back(rewriter.getAffineDimExpr(d));
    AffineMap map = AffineMap::get(rank, 0, exprs, getContext());
    Value result = buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, sizes), indices, map,
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> Value {
          IndexMath m(b, l);
          Value idx =
              m.wrapNegative(scalarToIndex(b, l, args[0], indOnnx), depth);
          Value hit = m.cmp(Pred::eq, idx, ivs[axis]);
          return arith::SelectOp::create(b, l, hit, on, off);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

class ReverseSequenceLowering
    : public TensorPattern<ONNXReverseSequenceOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXReverseSequenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput(), lens = adaptor.getSequenceLens();
    auto inType = getMovableRankedType(in);
    if (!type || !inType || inType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t batchAxis = op.getBatchAxis(), timeAxis = op.getTimeAxis();
    checkDims(rewriter, loc, op, lens, 0, "sequence_lens", Pred::eq, in,
              batchAxis, "input");
    {
      IndexMath m(rewriter, loc);
      emitIndexRangeCheck(rewriter, loc, op, lens,
                          m.add(getDimValue(rewriter, loc, in, timeAxis), m.c(1)),
                          /*allowNegative=*/false,
                          "(a sequence length, at most the time axis' size)");
    }
    Value result = buildIndexedGeneric(
        rewriter, loc, type, getDims(rewriter, loc, in), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath m(b, l);
          Value len = scalarToIndex(
              b, l, tensor::ExtractOp::create(b, l, lens, ivs[batchAxis]),
              nullptr);
          Value t = ivs[timeAxis];
          Value reversed = m.sub(m.sub(len, m.c(1)), t);
          SmallVector<Value> at(ivs);
          at[timeAxis] = m.select(m.cmp(Pred::slt, t, len), reversed, t);
          return tensor::ExtractOp::create(b, l, in, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// MaxUnpool: zeros of the output's (static) shape with each X element
/// written where its index (MaxPool's, flat over the whole output) says;
/// one loop over X, the indices checked to lie in the output.
class MaxUnpoolLowering : public TensorPattern<ONNXMaxUnpoolOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXMaxUnpoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value x = adaptor.getX(), indices = adaptor.getI();
    auto xType = getMovableRankedType(x);
    if (!type || !type.hasStaticShape() || !xType ||
        !getMovableRankedType(indices) ||
        !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a static float result");
    for (int64_t i = 0; i < xType.getRank(); ++i)
      checkDims(rewriter, loc, op, indices, i, "I", Pred::eq, x, i, "X");
    // The indices count in the shape MaxPool's input had, (in - 1) * stride
    // + kernel - pads per spatial dim; an output_shape input only pads that
    // shape at the end of each dim.
    int64_t rank = type.getRank(), n = rank - 2;
    auto ints = [](std::optional<ArrayAttr> attr, int64_t count,
                   int64_t dflt) {
      SmallVector<int64_t> v(count, dflt);
      if (attr)
        for (auto [i, a] : llvm::enumerate(attr->getAsRange<IntegerAttr>()))
          if (int64_t(i) < count)
            v[i] = a.getInt();
      return v;
    };
    SmallVector<int64_t> kernel = ints(op.getKernelShape(), n, 1),
                         strides = ints(op.getStrides(), n, 1),
                         pads = ints(op.getPads(), 2 * n, 0);
    SmallVector<int64_t> pooled(type.getShape());
    for (int64_t i = 0; i < n; ++i) {
      if (xType.isDynamicDim(2 + i))
        return rewriter.notifyMatchFailure(op, "dynamic spatial dims");
      pooled[2 + i] = (xType.getDimSize(2 + i) - 1) * strides[i] + kernel[i] -
                      pads[i] - pads[i + n];
      if (pooled[2 + i] > type.getDimSize(2 + i) || pooled[2 + i] <= 0)
        return op.emitError() << "'onnx.MaxUnpool': the unpooled size "
                              << pooled[2 + i] << " of spatial dim " << i
                              << " does not fit the output's "
                              << type.getDimSize(2 + i);
    }
    int64_t total = 1;
    for (int64_t d : pooled)
      total *= d;
    emitIndexRangeCheck(rewriter, loc, op, indices,
                        arith::ConstantIndexOp::create(rewriter, loc, total),
                        /*allowNegative=*/false, "(a flat output position)");
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
    Value init = createFilled(rewriter, loc, type, {}, zero);
    Type indOnnx = getONNXElementType(op.getI());
    SmallVector<Value> results = loopNest(
        rewriter, loc, dimValues(rewriter, loc, x), init,
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange acc) -> SmallVector<Value> {
          IndexMath m(b, l);
          Value flat = scalarToIndex(
              b, l, tensor::ExtractOp::create(b, l, indices, ivs), indOnnx);
          SmallVector<Value> at(type.getRank());
          for (int64_t d = type.getRank() - 1; d >= 0; --d) {
            at[d] = m.rem(flat, m.c(pooled[d]));
            flat = m.div(flat, m.c(pooled[d]));
          }
          Value v = tensor::ExtractOp::create(b, l, x, ivs);
          return {tensor::InsertOp::create(b, l, v, acc[0], at)};
        });
    rewriter.replaceOp(op, results[0]);
    return success();
  }
};

/// TensorScatter-24 (a KV-cache update): the past cache with `update`
/// written along `axis` from write_indices[batch] (0 when absent), modulo
/// the cache's length in circular mode. Each output element reads the
/// update where it falls inside the written window, else the past cache.
class TensorScatterLowering : public TensorPattern<ONNXTensorScatterOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXTensorScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value past = adaptor.getPastCache(), update = adaptor.getUpdate();
    auto pastType = getMovableRankedType(past);
    auto updType = getMovableRankedType(update);
    if (!type || !pastType || !updType ||
        pastType.getRank() != updType.getRank() || pastType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "unranked or mismatched ranks");
    int64_t rank = pastType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis <= 0 || axis >= rank)
      return op.emitError() << "'onnx.TensorScatter': axis " << op.getAxis()
                            << " is not a sequence axis (1 .. rank - 1)";
    bool circular = op.getMode() == "circular";
    if (!circular && op.getMode() != "linear")
      return op.emitError() << "'onnx.TensorScatter': unknown mode '"
                            << op.getMode() << "'";
    Value indices = op.getWriteIndices() ? adaptor.getWriteIndices() : Value();
    if (indices)
      checkDims(rewriter, loc, op, indices, 0, "write_indices", Pred::eq, past,
                0, "past_cache");
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        checkDims(rewriter, loc, op, update, d, "update", Pred::eq, past, d,
                  "past_cache");
    Value seqLen = getDimValue(rewriter, loc, update, axis);
    Value maxLen = getDimValue(rewriter, loc, past, axis);
    Value result = buildIndexedGeneric(
        rewriter, loc, type, getDims(rewriter, loc, past), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath m(b, l);
          Value start = indices ? scalarToIndex(b, l,
                                                tensor::ExtractOp::create(
                                                    b, l, indices, ivs[0]),
                                                nullptr)
                                : m.c(0);
          Value rel = m.sub(ivs[axis], start);
          if (circular) {
            rel = m.rem(rel, maxLen);
            rel = m.select(m.cmp(Pred::slt, rel, m.c(0)), m.add(rel, maxLen),
                           rel);
          }
          Value inside = arith::AndIOp::create(
              b, l, m.cmp(Pred::sge, rel, m.c(0)),
              m.cmp(Pred::slt, rel, seqLen));
          SmallVector<Value> at(ivs);
          at[axis] = m.clamp(rel, m.c(0), m.sub(seqLen, m.c(1)));
          Value fromUpdate = tensor::ExtractOp::create(b, l, update, at);
          Value fromPast = tensor::ExtractOp::create(b, l, past, ivs);
          return arith::SelectOp::create(b, l, inside, fromUpdate, fromPast);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateGatherScatterPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<GatherLowering, GatherElementsLowering, GatherNDLowering,
               ScatterElementsLowering, ScatterLowering, ScatterNDLowering,
               OneHotLowering, ReverseSequenceLowering, TensorScatterLowering,
               MaxUnpoolLowering>(
      converter, patterns.getContext());
  populateSelectionPatterns(converter, patterns);
}
