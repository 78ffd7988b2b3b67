//===- Gather.cpp - Index-driven onnx ops -> linalg and scf ---------------===//
//
// Gather, GatherElements, GatherND, OneHot and ReverseSequence read their
// input at computed indices inside one linalg.generic (tensor.extract).
// Scatter, ScatterElements, ScatterND, CumSum, TopK, NonZero and Compress
// write at computed positions: scf.for loops over tensors that carry the
// result (tensor.insert / insert_slice), which bufferize in place.
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

SmallVector<Value> dimValues(OpBuilder &b, Location loc, Value t) {
  SmallVector<Value> r;
  for (OpFoldResult d : getDims(b, loc, t))
    r.push_back(getValueOrCreateConstantIndexOp(b, loc, d));
  return r;
}

/// A loop nest over [0, ubs) carrying `iterArgs`.
SmallVector<Value> loopNest(
    OpBuilder &b, Location loc, ArrayRef<Value> ubs, ValueRange iterArgs,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange,
                                    ValueRange)>
        body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> lbs(ubs.size(), zero), steps(ubs.size(), one);
  scf::LoopNest nest =
      scf::buildLoopNest(b, loc, lbs, ubs, steps, iterArgs, body);
  return nest.results;
}

/// `x != 0` for a scalar of ONNX type `t`.
Value isNonZero(OpBuilder &b, Location loc, Value x, Type t) {
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(x.getType()));
  if (isa<FloatType>(t))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
  return arith::CmpIOp::create(b, loc, Pred::ne, x, zero);
}

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

//===----------------------------------------------------------------------===//
// CumSum
//===----------------------------------------------------------------------===//

class CumSumLowering : public TensorPattern<ONNXCumSumOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXCumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value x = adaptor.getX();
    auto xType = getMovableRankedType(x);
    if (!type || !xType || xType.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "unranked or scalar data");
    int64_t rank = xType.getRank();
    IndexMath m(rewriter, loc);
    Value axis;
    if (auto values = getConstantIntValues(op.getAxis());
        succeeded(values) && values->size() == 1)
      axis = m.c(normalizeAxis((*values)[0], rank));
    else
      axis = m.wrapNegative(
          scalarToIndex(rewriter, loc,
                        extractScalar(rewriter, loc, adaptor.getAxis()),
                        nullptr),
          m.c(rank));
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    bool isF = isa<FloatType>(type.getElementType());
    // One element at a time, in an order where the previous element along
    // the axis is already written: out[p] = out[prev] + x[p] (inclusive) or
    // out[prev] + x[prev] (exclusive).
    SmallVector<Value> dims = dimValues(rewriter, loc, x);
    Value out0 = createEmpty(rewriter, loc, type, getDims(rewriter, loc, x));
    SmallVector<Value> results = loopNest(
        rewriter, loc, dims, out0,
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange acc) -> SmallVector<Value> {
          IndexMath mm(b, l);
          SmallVector<Value> p, prev;
          Value first;
          for (int64_t d = 0; d < rank; ++d) {
            Value isAxis = mm.cmp(Pred::eq, axis, mm.c(d));
            Value last = mm.sub(dims[d], mm.c(1));
            Value pd = reverse ? mm.select(isAxis, mm.sub(last, ivs[d]), ivs[d])
                               : ivs[d];
            Value step = mm.select(isAxis, mm.c(reverse ? 1 : -1), mm.c(0));
            prev.push_back(mm.clamp(mm.add(pd, step), mm.c(0), last));
            p.push_back(pd);
            Value f = arith::AndIOp::create(
                b, l, isAxis, mm.cmp(Pred::eq, ivs[d], mm.c(0)));
            first = first ? arith::OrIOp::create(b, l, first, f) : f;
          }
          auto add = [&](Value u, Value v) -> Value {
            if (isF)
              return arith::AddFOp::create(b, l, u, v);
            return arith::AddIOp::create(b, l, u, v);
          };
          Value prevOut = tensor::ExtractOp::create(b, l, acc[0], prev);
          Value xp = tensor::ExtractOp::create(b, l, x, p);
          Value v;
          if (exclusive) {
            Value xprev = tensor::ExtractOp::create(b, l, x, prev);
            Value zero = arith::ConstantOp::create(
                b, l, b.getZeroAttr(type.getElementType()));
            v = arith::SelectOp::create(b, l, first, zero,
                                        add(prevOut, xprev));
          } else {
            v = arith::SelectOp::create(b, l, first, xp, add(prevOut, xp));
          }
          return {tensor::InsertOp::create(b, l, v, acc[0], p)};
        });
    rewriter.replaceOp(op, results[0]);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// TopK, NonZero, Compress
//===----------------------------------------------------------------------===//

class TopKLowering : public TensorPattern<ONNXTopKOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXTopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto valType = resultType(op, 0), idxType = resultType(op, 1);
    Value x = adaptor.getX();
    auto xType = getMovableRankedType(x);
    if (!valType || !idxType || !xType || xType.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "unranked data");
    int64_t rank = xType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    Type onnxElem = getONNXElementType(op.getX());
    bool largest = op.getLargest();
    Value k = scalarToIndex(rewriter, loc,
                            extractScalar(rewriter, loc, adaptor.getK()),
                            nullptr);
    {
      IndexMath m(rewriter, loc);
      Value n = getDimValue(rewriter, loc, x, axis);
      Value failed = arith::OrIOp::create(rewriter, loc,
                                          m.cmp(Pred::slt, k, m.c(0)),
                                          m.cmp(Pred::sgt, k, n));
      emitRuntimeCheck(rewriter, loc, op, failed,
                       "k = {0} is outside [0, {1}] (the size of axis " +
                           Twine(axis) + ")",
                       {k, n});
      if (!valType.isDynamicDim(axis))
        emitRuntimeCheck(rewriter, loc, op,
                         m.cmp(Pred::ne, k, m.c(valType.getDimSize(axis))),
                         "k = {0} differs from the inferred output size {1}",
                         {k, m.c(valType.getDimSize(axis))});
    }
    // The position of each element in the sorted order: how many elements
    // of its row come first (ties: the lower index first).
    MLIRContext *ctx = getContext();
    auto rankType = RankedTensorType::get(xType.getShape(),
                                          rewriter.getIndexType());
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, x);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ranks0 = createFilled(rewriter, loc, rankType, dims, zero);
    SmallVector<AffineExpr> selfExprs, otherExprs;
    for (int64_t d = 0; d < rank; ++d) {
      selfExprs.push_back(getAffineDimExpr(d, ctx));
      otherExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
    }
    AffineMap self = AffineMap::get(rank + 1, 0, selfExprs, ctx);
    AffineMap other = AffineMap::get(rank + 1, 0, otherExprs, ctx);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    bool isF = isa<FloatType>(onnxElem);
    bool isU = onnxElem.isUnsignedInteger();
    Value ranks =
        linalg::GenericOp::create(
            rewriter, loc, rankType, ValueRange{x, x}, ranks0,
            ArrayRef<AffineMap>{self, other, self}, iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              IndexMath m(b, l);
              Value a = args[0], o = args[1];
              Value before, equal;
              if (isF) {
                before = arith::CmpFOp::create(
                    b, l,
                    largest ? arith::CmpFPredicate::OGT
                            : arith::CmpFPredicate::OLT,
                    o, a);
                equal = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                              o, a);
              } else {
                Pred p = largest ? (isU ? Pred::ugt : Pred::sgt)
                                 : (isU ? Pred::ult : Pred::slt);
                before = arith::CmpIOp::create(b, l, p, o, a);
                equal = arith::CmpIOp::create(b, l, Pred::eq, o, a);
              }
              Value j = linalg::IndexOp::create(b, l, rank);
              Value i = linalg::IndexOp::create(b, l, axis);
              Value earlier = arith::AndIOp::create(
                  b, l, equal, m.cmp(Pred::slt, j, i));
              Value first = arith::OrIOp::create(b, l, before, earlier);
              Value inc = m.select(first, m.c(1), m.c(0));
              linalg::YieldOp::create(b, l, m.add(args[2], inc));
            })
            .getResult(0);
    SmallVector<OpFoldResult> outSizes(dims);
    outSizes[axis] = k;
    Value vals0 =
        createEmpty(rewriter, loc, valType, preferStatic(rewriter, valType,
                                                         outSizes));
    Value idxs0 =
        createEmpty(rewriter, loc, idxType, preferStatic(rewriter, idxType,
                                                         outSizes));
    SmallVector<Value> results = loopNest(
        rewriter, loc, dimValues(rewriter, loc, x), ValueRange{vals0, idxs0},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange iter) -> SmallVector<Value> {
          IndexMath m(b, l);
          Value pos = tensor::ExtractOp::create(b, l, ranks, ivs);
          Value keep = m.cmp(Pred::slt, pos, k);
          auto ifOp = scf::IfOp::create(b, l, iter.getTypes(), keep,
                                        /*withElseRegion=*/true);
          {
            OpBuilder::InsertionGuard g(b);
            b.setInsertionPointToStart(ifOp.thenBlock());
            SmallVector<Value> at(ivs);
            at[axis] = pos;
            Value v = tensor::ExtractOp::create(b, l, x, ivs);
            Value vals = tensor::InsertOp::create(b, l, v, iter[0], at);
            Value i64 =
                arith::IndexCastOp::create(b, l, b.getI64Type(), ivs[axis]);
            Value idxs = tensor::InsertOp::create(b, l, i64, iter[1], at);
            scf::YieldOp::create(b, l, ValueRange{vals, idxs});
            b.setInsertionPointToStart(ifOp.elseBlock());
            scf::YieldOp::create(b, l, iter);
          }
          return SmallVector<Value>(ifOp.getResults());
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

class NonZeroLowering : public TensorPattern<ONNXNonZeroOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXNonZeroOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value x = adaptor.getX();
    auto xType = getMovableRankedType(x);
    if (!type || !xType || xType.getRank() < 1 || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "unranked or scalar data");
    int64_t rank = xType.getRank();
    Type onnxElem = getONNXElementType(op.getX());
    SmallVector<Value> dims = dimValues(rewriter, loc, x);
    // First pass: count; second: write the coordinates.
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    SmallVector<Value> count = loopNest(
        rewriter, loc, dims, zero,
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange iter) -> SmallVector<Value> {
          IndexMath m(b, l);
          Value v = tensor::ExtractOp::create(b, l, x, ivs);
          Value nz = isNonZero(b, l, v, onnxElem);
          return {m.add(iter[0], m.select(nz, m.c(1), m.c(0)))};
        });
    Value out0 = createEmpty(
        rewriter, loc, type,
        preferStatic(rewriter, type,
                     {rewriter.getIndexAttr(rank), count[0]}));
    SmallVector<Value> results = loopNest(
        rewriter, loc, dims, ValueRange{out0, zero},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange iter) -> SmallVector<Value> {
          IndexMath m(b, l);
          Value v = tensor::ExtractOp::create(b, l, x, ivs);
          Value nz = isNonZero(b, l, v, onnxElem);
          auto ifOp = scf::IfOp::create(b, l, iter.getTypes(), nz,
                                        /*withElseRegion=*/true);
          {
            OpBuilder::InsertionGuard g(b);
            b.setInsertionPointToStart(ifOp.thenBlock());
            Value out = iter[0];
            for (int64_t d = 0; d < rank; ++d) {
              Value c =
                  arith::IndexCastOp::create(b, l, b.getI64Type(), ivs[d]);
              out = tensor::InsertOp::create(b, l, c, out,
                                             ValueRange{m.c(d), iter[1]});
            }
            scf::YieldOp::create(b, l, ValueRange{out, m.add(iter[1], m.c(1))});
            b.setInsertionPointToStart(ifOp.elseBlock());
            scf::YieldOp::create(b, l, iter);
          }
          return SmallVector<Value>(ifOp.getResults());
        });
    rewriter.replaceOp(op, results[0]);
    return success();
  }
};

class CompressLowering : public TensorPattern<ONNXCompressOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXCompressOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput(), cond = adaptor.getCondition();
    auto inType = getMovableRankedType(in), condType = getMovableRankedType(cond);
    if (!type || !inType || !condType || condType.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "unranked data");
    IndexMath m(rewriter, loc);
    int64_t axis = 0;
    if (auto a = op.getAxis()) {
      axis = normalizeAxis(*a, inType.getRank());
    } else {
      // No axis: work on the flattened input.
      SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in);
      Value total = m.c(1);
      for (OpFoldResult d : dims)
        total = m.mul(total, m.v(d));
      auto flatType = RankedTensorType::get(
          {inType.hasStaticShape() ? inType.getNumElements()
                                   : ShapedType::kDynamic},
          inType.getElementType());
      in = reshapeTo(rewriter, loc, in, flatType, {getAsOpFoldResult(total)});
      inType = flatType;
    }
    int64_t rank = inType.getRank();
    if (type.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "result rank mismatch");
    Value n = m.min(getDimValue(rewriter, loc, in, axis),
                    getDimValue(rewriter, loc, cond, 0));
    auto condAt = [&](OpBuilder &b, Location l, Value t) {
      return tensor::ExtractOp::create(b, l, cond, t).getResult();
    };
    SmallVector<Value> count = loopNest(
        rewriter, loc, n, m.c(0),
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange iter) -> SmallVector<Value> {
          IndexMath mm(b, l);
          return {mm.add(iter[0], mm.select(condAt(b, l, ivs[0]), mm.c(1),
                                            mm.c(0)))};
        });
    // The input positions along the axis that are kept, in order; the
    // result gathers them.
    auto selType = RankedTensorType::get({ShapedType::kDynamic},
                                         rewriter.getIndexType());
    Value sel0 = tensor::EmptyOp::create(rewriter, loc, selType, count[0]);
    SmallVector<Value> sel = loopNest(
        rewriter, loc, n, ValueRange{sel0, m.c(0)},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange iter) -> SmallVector<Value> {
          IndexMath mm(b, l);
          auto ifOp = scf::IfOp::create(b, l, iter.getTypes(),
                                        condAt(b, l, ivs[0]),
                                        /*withElseRegion=*/true);
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(ifOp.thenBlock());
          Value s = tensor::InsertOp::create(b, l, ivs[0], iter[0], iter[1]);
          scf::YieldOp::create(b, l, ValueRange{s, mm.add(iter[1], mm.c(1))});
          b.setInsertionPointToStart(ifOp.elseBlock());
          scf::YieldOp::create(b, l, iter);
          return SmallVector<Value>(ifOp.getResults());
        });
    SmallVector<OpFoldResult> outSizes = getDims(rewriter, loc, in);
    outSizes[axis] = count[0];
    Value result = buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, outSizes), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          SmallVector<Value> at(ivs);
          at[axis] = tensor::ExtractOp::create(b, l, sel[0], ivs[axis]);
          return tensor::ExtractOp::create(b, l, in, at);
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
               OneHotLowering, ReverseSequenceLowering, CumSumLowering,
               TopKLowering, NonZeroLowering, CompressLowering>(
      converter, patterns.getContext());
}
