//===- Selection.cpp - Scans and selections -> scf loops ------------------===//
//
// CumSum, TopK, NonZero, Compress and Unique produce each output element from a
// scan over the input: scf.for loops over tensors that carry the result
// (tensor.insert / insert_slice), which bufferize in place.
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

//===----------------------------------------------------------------------===//
// CumSum, CumProd
//===----------------------------------------------------------------------===//

/// CumSum-14 and CumProd-26: the running sum or product along `axis`.
template <typename OpTy, bool isProduct>
class CumulativeLowering : public TensorPattern<OpTy> {
public:
  using TensorPattern<OpTy>::TensorPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = this->resultType(op);
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
            Value f = arith::AndIOp::create(b, l, isAxis,
                                            mm.cmp(Pred::eq, ivs[d], mm.c(0)));
            first = first ? arith::OrIOp::create(b, l, first, f) : f;
          }
          auto add = [&](Value u, Value v) -> Value {
            if (isProduct)
              return isF ? (Value)arith::MulFOp::create(b, l, u, v)
                         : (Value)arith::MulIOp::create(b, l, u, v);
            if (isF)
              return arith::AddFOp::create(b, l, u, v);
            return arith::AddIOp::create(b, l, u, v);
          };
          Value prevOut = tensor::ExtractOp::create(b, l, acc[0], prev);
          Value xp = tensor::ExtractOp::create(b, l, x, p);
          Value v;
          if (exclusive) {
            Value xprev = tensor::ExtractOp::create(b, l, x, prev);
            // The empty sum or product.
            Value identity =
                isProduct ? createScalarConstant(b, l, type.getElementType(), 1)
                          : arith::ConstantOp::create(
                                b, l, b.getZeroAttr(type.getElementType()));
            v = arith::SelectOp::create(b, l, first, identity,
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
    Value k = scalarToIndex(
        rewriter, loc, extractScalar(rewriter, loc, adaptor.getK()), nullptr);
    {
      IndexMath m(rewriter, loc);
      Value n = getDimValue(rewriter, loc, x, axis);
      Value failed = arith::OrIOp::create(
          rewriter, loc, m.cmp(Pred::slt, k, m.c(0)), m.cmp(Pred::sgt, k, n));
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
    auto rankType =
        RankedTensorType::get(xType.getShape(), rewriter.getIndexType());
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
                before =
                    arith::CmpFOp::create(b, l,
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
              Value earlier =
                  arith::AndIOp::create(b, l, equal, m.cmp(Pred::slt, j, i));
              Value first = arith::OrIOp::create(b, l, before, earlier);
              Value inc = m.select(first, m.c(1), m.c(0));
              linalg::YieldOp::create(b, l, m.add(args[2], inc));
            })
            .getResult(0);
    SmallVector<OpFoldResult> outSizes(dims);
    outSizes[axis] = k;
    Value vals0 = createEmpty(rewriter, loc, valType,
                              preferStatic(rewriter, valType, outSizes));
    Value idxs0 = createEmpty(rewriter, loc, idxType,
                              preferStatic(rewriter, idxType, outSizes));
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
    SmallVector<Value> count =
        loopNest(rewriter, loc, dims, zero,
                 [&](OpBuilder &b, Location l, ValueRange ivs,
                     ValueRange iter) -> SmallVector<Value> {
                   IndexMath m(b, l);
                   Value v = tensor::ExtractOp::create(b, l, x, ivs);
                   Value nz = isNonZero(b, l, v, onnxElem);
                   return {m.add(iter[0], m.select(nz, m.c(1), m.c(0)))};
                 });
    Value out0 = createEmpty(
        rewriter, loc, type,
        preferStatic(rewriter, type, {rewriter.getIndexAttr(rank), count[0]}));
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
    auto inType = getMovableRankedType(in),
         condType = getMovableRankedType(cond);
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
      auto flatType = RankedTensorType::get({inType.hasStaticShape()
                                                 ? inType.getNumElements()
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
    SmallVector<Value> count =
        loopNest(rewriter, loc, n, m.c(0),
                 [&](OpBuilder &b, Location l, ValueRange ivs,
                     ValueRange iter) -> SmallVector<Value> {
                   IndexMath mm(b, l);
                   return {mm.add(iter[0], mm.select(condAt(b, l, ivs[0]),
                                                     mm.c(1), mm.c(0)))};
                 });
    // The input positions along the axis that are kept, in order; the
    // result gathers them.
    auto selType =
        RankedTensorType::get({ShapedType::kDynamic}, rewriter.getIndexType());
    Value sel0 = tensor::EmptyOp::create(rewriter, loc, selType, count[0]);
    SmallVector<Value> sel = loopNest(
        rewriter, loc, n, ValueRange{sel0, m.c(0)},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange iter) -> SmallVector<Value> {
          IndexMath mm(b, l);
          auto ifOp =
              scf::IfOp::create(b, l, iter.getTypes(), condAt(b, l, ivs[0]),
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

//===----------------------------------------------------------------------===//
// Unique
//===----------------------------------------------------------------------===//

/// -1, 0 or 1 (i8) as `a` sorts before, with or after `b`; NaNs are equal to
/// each other and sort after every number (numpy.unique).
Value compareScalars(OpBuilder &b, Location l, Value a, Value v,
                     Type onnxElem) {
  IndexMath m(b, l);
  Type i8 = b.getI8Type();
  auto c = [&](int64_t x) -> Value {
    return arith::ConstantIntOp::create(b, l, i8, x);
  };
  auto sel = [&](Value cond, Value x, Value y) -> Value {
    return arith::SelectOp::create(b, l, cond, x, y);
  };
  if (auto ft = dyn_cast<FloatType>(a.getType())) {
    using F = arith::CmpFPredicate;
    auto f = [&](F p, Value x, Value y) -> Value {
      return arith::CmpFOp::create(b, l, p, x, y);
    };
    Value aNaN = f(F::UNO, a, a), vNaN = f(F::UNO, v, v);
    // Unordered: both NaN -> 0, a NaN -> 1, v NaN -> -1.
    Value unordered = sel(aNaN, sel(vNaN, c(0), c(1)), c(-1));
    Value ordered =
        sel(f(F::OLT, a, v), c(-1), sel(f(F::OGT, a, v), c(1), c(0)));
    return sel(f(F::UNO, a, v), unordered, ordered);
  }
  bool isU = onnxElem.isUnsignedInteger() || onnxElem.isInteger(1);
  Value lt = m.cmp(isU ? Pred::ult : Pred::slt, a, v);
  Value gt = m.cmp(isU ? Pred::ugt : Pred::sgt, a, v);
  return sel(lt, c(-1), sel(gt, c(1), c(0)));
}

/// Unique-11: the distinct slices of X along `axis` (or distinct elements of
/// the flattened X). X is viewed as [A, N, B]; slice i is X[:, i, :]. Pairs
/// of slices are compared lexicographically (the first element that differs
/// decides) where needed, in O(N) memory and O(N^2) time: each slice's first
/// equal slice and count, then the output position of each first
/// occurrence (sorted: the distinct slices ordered before it; else: the
/// first occurrences before it).
class UniqueLowering : public TensorPattern<ONNXUniqueOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXUniqueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto yType = resultType(op, 0);
    Value x = adaptor.getX();
    auto xType = getMovableRankedType(x);
    Type onnxElem = getONNXElementType(op.getX());
    if (!yType || !xType || !onnxElem.isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "unranked or non-numeric data");
    int64_t rank = xType.getRank();
    std::optional<int64_t> axis;
    if (auto a = op.getAxis()) {
      axis = normalizeAxis(*a, rank);
      if (*axis < 0 || *axis >= rank)
        return rewriter.notifyMatchFailure(op, "axis out of range");
    }
    if (yType.getRank() != (axis ? rank : 1))
      return rewriter.notifyMatchFailure(op, "result rank mismatch");
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, x);
    Value outer = m.c(1), n = m.c(1), inner = m.c(1);
    for (int64_t d = 0; d < rank; ++d) {
      Value v = m.v(dims[d]);
      if (!axis)
        n = m.mul(n, v);
      else if (d < *axis)
        outer = m.mul(outer, v);
      else if (d == *axis)
        n = v;
      else
        inner = m.mul(inner, v);
    }
    int64_t dyn = ShapedType::kDynamic;
    Type elem = xType.getElementType();
    Value x3 = reshapeTo(rewriter, loc, x,
                         RankedTensorType::get({dyn, dyn, dyn}, elem),
                         {outer, n, inner});
    Type i8 = rewriter.getI8Type(), indexType = rewriter.getIndexType();
    auto listType = RankedTensorType::get({dyn}, indexType);
    // Slice i compared with slice j (-1, 0, 1), computed where it is needed:
    // an N x N table would not fit for large inputs.
    auto tableAt = [&](OpBuilder &b, Location l, Value i, Value j) -> Value {
      Value zero = arith::ConstantIntOp::create(b, l, i8, 0);
      return loopNest(b, l, SmallVector<Value>{outer, inner}, zero,
                      [&](OpBuilder &b2, Location l2, ValueRange ab,
                          ValueRange acc) -> SmallVector<Value> {
                        Value u = tensor::ExtractOp::create(
                            b2, l2, x3, ValueRange{ab[0], i, ab[1]});
                        Value v = tensor::ExtractOp::create(
                            b2, l2, x3, ValueRange{ab[0], j, ab[1]});
                        Value z = arith::ConstantIntOp::create(b2, l2, i8, 0);
                        Value undecided =
                            arith::CmpIOp::create(b2, l2, Pred::eq, acc[0], z);
                        return {arith::SelectOp::create(
                            b2, l2, undecided,
                            compareScalars(b2, l2, u, v, onnxElem), acc[0])};
                      })[0];
    };
    auto isZero = [&](OpBuilder &b, Location l, Value v) -> Value {
      return arith::CmpIOp::create(b, l, Pred::eq, v,
                                   arith::ConstantIntOp::create(b, l, i8, 0));
    };
    // first[i]: the lowest j equal to i; count[i]: how many are.
    Value first0 = tensor::EmptyOp::create(rewriter, loc, listType, n);
    Value count0 = tensor::EmptyOp::create(rewriter, loc, listType, n);
    SmallVector<Value> fc = loopNest(
        rewriter, loc, n, ValueRange{first0, count0},
        [&](OpBuilder &b, Location l, ValueRange i,
            ValueRange it) -> SmallVector<Value> {
          IndexMath mm(b, l);
          SmallVector<Value> r = loopNest(
              b, l, n, ValueRange{n, mm.c(0)},
              [&](OpBuilder &b2, Location l2, ValueRange j,
                  ValueRange acc) -> SmallVector<Value> {
                IndexMath m2(b2, l2);
                Value eq = isZero(b2, l2, tableAt(b2, l2, i[0], j[0]));
                Value firstSeen = arith::AndIOp::create(
                    b2, l2, eq, m2.cmp(Pred::eq, acc[0], n));
                return {m2.select(firstSeen, j[0], acc[0]),
                        m2.add(acc[1], m2.select(eq, m2.c(1), m2.c(0)))};
              });
          return {tensor::InsertOp::create(b, l, r[0], it[0], i[0]),
                  tensor::InsertOp::create(b, l, r[1], it[1], i[0])};
        });
    Value first = fc[0], count = fc[1];
    auto isFirst = [&](OpBuilder &b, Location l, Value i) -> Value {
      IndexMath mm(b, l);
      return mm.cmp(Pred::eq, tensor::ExtractOp::create(b, l, first, i), i);
    };
    // pos[i] (meaningful where i is a first occurrence) and their number.
    bool sorted = op.getSorted() != 0;
    Value pos0 = tensor::EmptyOp::create(rewriter, loc, listType, n);
    SmallVector<Value> pu = loopNest(
        rewriter, loc, n, ValueRange{pos0, m.c(0)},
        [&](OpBuilder &b, Location l, ValueRange i,
            ValueRange it) -> SmallVector<Value> {
          IndexMath mm(b, l);
          Value p = loopNest(
              b, l, n, mm.c(0),
              [&](OpBuilder &b2, Location l2, ValueRange j,
                  ValueRange acc) -> SmallVector<Value> {
                IndexMath m2(b2, l2);
                Value before;
                if (sorted)
                  before = arith::CmpIOp::create(
                      b2, l2, Pred::slt, tableAt(b2, l2, j[0], i[0]),
                      arith::ConstantIntOp::create(b2, l2, i8, 0));
                else
                  before = m2.cmp(Pred::slt, j[0], i[0]);
                Value inc = arith::AndIOp::create(b2, l2, before,
                                                  isFirst(b2, l2, j[0]));
                return {m2.add(acc[0], m2.select(inc, m2.c(1), m2.c(0)))};
              })[0];
          Value f = isFirst(b, l, i[0]);
          return {tensor::InsertOp::create(b, l, p, it[0], i[0]),
                  mm.add(it[1], mm.select(f, mm.c(1), mm.c(0)))};
        });
    Value pos = pu[0], numUnique = pu[1];
    // src[u]: the slice that output position u copies.
    Value src0 = tensor::EmptyOp::create(rewriter, loc, listType, numUnique);
    Value src = loopNest(
        rewriter, loc, n, src0,
        [&](OpBuilder &b, Location l, ValueRange i,
            ValueRange it) -> SmallVector<Value> {
          auto ifOp =
              scf::IfOp::create(b, l, it.getTypes(), isFirst(b, l, i[0]),
                                /*withElseRegion=*/true);
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(ifOp.thenBlock());
          Value p = tensor::ExtractOp::create(b, l, pos, i[0]);
          scf::YieldOp::create(
              b, l, tensor::InsertOp::create(b, l, i[0], it[0], p).getResult());
          b.setInsertionPointToStart(ifOp.elseBlock());
          scf::YieldOp::create(b, l, it);
          return SmallVector<Value>(ifOp.getResults());
        })[0];

    SmallVector<Value> results;
    // Y: [A, U, B] gathered, then reshaped to X's dims with U on the axis.
    auto y3Type = RankedTensorType::get({dyn, dyn, dyn}, elem);
    Value y3 = buildIndexedGeneric(
        rewriter, loc, y3Type,
        {getAsOpFoldResult(outer), getAsOpFoldResult(numUnique),
         getAsOpFoldResult(inner)},
        {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          Value i = tensor::ExtractOp::create(b, l, src, ivs[1]);
          return tensor::ExtractOp::create(b, l, x3,
                                           ValueRange{ivs[0], i, ivs[2]});
        });
    SmallVector<OpFoldResult> ySizes;
    if (axis) {
      ySizes.assign(dims.begin(), dims.end());
      ySizes[*axis] = numUnique;
    } else {
      ySizes.push_back(numUnique);
    }
    results.push_back(reshapeTo(rewriter, loc, y3, yType,
                                preferStatic(rewriter, yType, ySizes)));
    // The index outputs, each a 1-D i64 list.
    auto i64List = [&](unsigned r, Value size,
                       function_ref<Value(OpBuilder &, Location, Value)> at) {
      RankedTensorType t = resultType(op, r);
      auto flat = RankedTensorType::get({dyn}, rewriter.getI64Type());
      Value v = buildIndexedGeneric(
          rewriter, loc, flat, {getAsOpFoldResult(size)}, {}, {},
          [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
            return arith::IndexCastOp::create(b, l, b.getI64Type(),
                                              at(b, l, ivs[0]));
          });
      if (t && t != v.getType())
        v = tensor::CastOp::create(rewriter, loc, t, v);
      results.push_back(v);
    };
    unsigned next = 1;
    if (op.getIndices())
      i64List(next++, numUnique, [&](OpBuilder &b, Location l, Value u) {
        return tensor::ExtractOp::create(b, l, src, u).getResult();
      });
    if (op.getInverseIndices())
      i64List(next++, n, [&](OpBuilder &b, Location l, Value j) {
        Value f = tensor::ExtractOp::create(b, l, first, j);
        return tensor::ExtractOp::create(b, l, pos, f).getResult();
      });
    if (op.getCounts())
      i64List(next++, numUnique, [&](OpBuilder &b, Location l, Value u) {
        Value i = tensor::ExtractOp::create(b, l, src, u);
        return tensor::ExtractOp::create(b, l, count, i).getResult();
      });
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateSelectionPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<CumulativeLowering<ONNXCumSumOp, false>,
               CumulativeLowering<ONNXCumProdOp, true>, TopKLowering,
               NonZeroLowering, CompressLowering, UniqueLowering>(
      converter, patterns.getContext());
}
