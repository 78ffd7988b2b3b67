//===- Reduction.cpp - Reduce*, ArgMax, ArgMin -> linalg ------------------===//
//
// Each Reduce* op becomes one linalg.generic with reduction iterators whose
// accumulator is filled with the reduction's identity (so empty reductions
// give it), an elementwise epilogue where the op needs one (Mean, L2,
// LogSum, LogSumExp), and a tensor.expand_shape for keepdims. f16 and bf16
// accumulate in f32. ArgMax/ArgMin reduce (value, index) pairs.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

#include <functional>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

enum class Kind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  LogSum,
  LogSumExp,
  SumSquare
};

bool isUnsignedOrBool(Type t) {
  return t.isUnsignedInteger() || t.isInteger(1);
}

/// The type the reduction accumulates in: f32 for the narrow floats.
Type accumulatorType(Type onnxElem) {
  if (onnxElem.isF16() || onnxElem.isBF16())
    return Float32Type::get(onnxElem.getContext());
  return toSignless(onnxElem);
}

/// The largest or smallest value of a (signless) type with ONNX signedness
/// `onnxElem`: +-inf for floats.
Value extremeValue(OpBuilder &b, Location loc, Type type, Type onnxElem,
                   bool largest) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(f, largest ? INFINITY : -INFINITY));
  unsigned width = type.getIntOrFloatBitWidth();
  APInt v;
  if (isUnsignedOrBool(onnxElem))
    v = largest ? APInt::getMaxValue(width) : APInt::getMinValue(width);
  else
    v = largest ? APInt::getSignedMaxValue(width)
                : APInt::getSignedMinValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

Value identity(OpBuilder &b, Location loc, Kind kind, Type accT,
               Type onnxElem) {
  switch (kind) {
  case Kind::Max:
    return extremeValue(b, loc, accT, onnxElem, /*largest=*/false);
  case Kind::Min:
    return extremeValue(b, loc, accT, onnxElem, /*largest=*/true);
  case Kind::Prod:
    return createScalarConstant(b, loc, accT, 1);
  default:
    return createScalarConstant(b, loc, accT, 0);
  }
}

Value combine(OpBuilder &b, Location loc, Kind kind, Type onnxElem, Type accT,
              Value x, Value acc) {
  bool isFloat = isa<FloatType>(accT);
  bool isUnsigned = isUnsignedOrBool(onnxElem);
  x = castScalar(b, loc, x, onnxElem, accT);
  auto add = [&](Value l, Value r) -> Value {
    return isFloat ? (Value)arith::AddFOp::create(b, loc, l, r)
                   : (Value)arith::AddIOp::create(b, loc, l, r);
  };
  auto mul = [&](Value l, Value r) -> Value {
    return isFloat ? (Value)arith::MulFOp::create(b, loc, l, r)
                   : (Value)arith::MulIOp::create(b, loc, l, r);
  };
  switch (kind) {
  case Kind::Max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, x, acc);
    return isUnsigned ? (Value)arith::MaxUIOp::create(b, loc, x, acc)
                      : (Value)arith::MaxSIOp::create(b, loc, x, acc);
  case Kind::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, x, acc);
    return isUnsigned ? (Value)arith::MinUIOp::create(b, loc, x, acc)
                      : (Value)arith::MinSIOp::create(b, loc, x, acc);
  case Kind::Prod:
    return mul(acc, x);
  case Kind::L1:
    if (isFloat)
      x = math::AbsFOp::create(b, loc, x);
    else if (!isUnsigned) // math.absi has no lowering to LLVM here.
      x = arith::SelectOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x,
                                createScalarConstant(b, loc, accT, 0)),
          arith::SubIOp::create(b, loc, createScalarConstant(b, loc, accT, 0),
                                x),
          x);
    return add(acc, x);
  case Kind::L2:
  case Kind::SumSquare:
    return add(acc, mul(x, x));
  case Kind::LogSumExp: // The input is already exp(x - max).
  default:
    return add(acc, x);
  }
}

/// `s` where finite, else 0: LogSumExp's shift for an all -inf (or empty)
/// slice, where -inf - -inf would be NaN.
Value finiteOrZero(OpBuilder &b, Location loc, Value s) {
  Type t = s.getType();
  Value finite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OLT, math::AbsFOp::create(b, loc, s),
      createScalarConstant(b, loc, t, INFINITY));
  return arith::SelectOp::create(b, loc, finite, s,
                                 createScalarConstant(b, loc, t, 0));
}

Value buildEpilogue(OpBuilder &b, Location loc, Kind kind, Value reduced,
                    Value shift, Value count, Type dataONNX, Type accT,
                    Type sumONNX);

/// Reduces `input` (signless, ONNX element type `dataONNX`) over the sorted,
/// distinct `axes` and returns a tensor of `resultType` (the keepdims form
/// when `keepdims`).
Value lowerReduce(OpBuilder &b, Location loc, Kind kind, Value input,
                  Type dataONNX, ArrayRef<int64_t> axes, bool keepdims,
                  RankedTensorType resultType) {
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t rank = inType.getRank();
  Type accT = accumulatorType(dataONNX);
  // The ONNX type of accumulated values: unsigned integers stay unsigned.
  Type accONNX = isa<FloatType>(accT) ? accT : dataONNX;
  Value count =
      kind == Kind::Mean ? reducedElementCount(b, loc, input, axes, accT)
                         : Value();

  // LogSumExp: shift by the max so that exp cannot overflow; the sum of
  // exp(x - shift) is taken in accT for floats, f64 for integers.
  Value shift;
  Type sumONNX = dataONNX;
  if (kind == Kind::LogSumExp) {
    shift = buildReduction(
        b, loc, input, axes, identity(b, loc, Kind::Max, accT, dataONNX),
        [&](OpBuilder &nb, Location nl, Value x, Value acc) {
          return combine(nb, nl, Kind::Max, dataONNX, accT, x, acc);
        });
    Value shiftFull = expandReducedDims(b, loc, shift, axes, rank);
    Type expT = isa<FloatType>(accT) ? accT : b.getF64Type();
    input = buildElementwise(
        b, loc, {input, shiftFull}, inType.clone(expT),
        [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          Value x = castScalar(nb, nl, a[0], dataONNX, expT);
          Value s = castScalar(nb, nl, a[1], accONNX, expT);
          if (isa<FloatType>(accT))
            s = finiteOrZero(nb, nl, s);
          return math::ExpOp::create(nb, nl,
                                     arith::SubFOp::create(nb, nl, x, s));
        });
    sumONNX = expT;
  }

  Type sumAccT = kind == Kind::LogSumExp ? sumONNX : accT;
  Value reduced = buildReduction(
      b, loc, input, axes, identity(b, loc, kind, sumAccT, sumONNX),
      [&](OpBuilder &nb, Location nl, Value x, Value acc) {
        return combine(nb, nl, kind, sumONNX, sumAccT, x, acc);
      });

  // Epilogue: finish the reduction and return to the element type.
  bool needsEpilogue = kind == Kind::Mean || kind == Kind::L2 ||
                       kind == Kind::LogSum || kind == Kind::LogSumExp ||
                       accT != toSignless(dataONNX);
  if (needsEpilogue)
    reduced = buildEpilogue(b, loc, kind, reduced, shift, count, dataONNX, accT,
                            sumONNX);
  if (keepdims)
    reduced = expandReducedDims(b, loc, reduced, axes, rank);
  if (reduced.getType() != resultType)
    reduced = tensor::CastOp::create(b, loc, resultType, reduced);
  return reduced;
}

/// Finishes a reduction elementwise (Mean's division, L2's sqrt, the logs)
/// and converts from the accumulator type back to `dataONNX`.
Value buildEpilogue(OpBuilder &b, Location loc, Kind kind, Value reduced,
                    Value shift, Value count, Type dataONNX, Type accT,
                    Type sumONNX) {
  Type accONNX = isa<FloatType>(accT) ? accT : dataONNX;
  auto reducedType = cast<RankedTensorType>(reduced.getType());
  SmallVector<Value> operands{reduced};
  if (shift)
    operands.push_back(shift);
  return buildElementwise(
      b, loc, operands, reducedType.clone(toSignless(dataONNX)),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value v = a[0];
        Type vONNX = kind == Kind::LogSumExp ? sumONNX : accONNX;
        // Integer L2/LogSum compute their float part in f64.
        Type fT = isa<FloatType>(vONNX) ? vONNX : nb.getF64Type();
        switch (kind) {
        case Kind::Mean:
          if (isa<FloatType>(accT))
            v = arith::DivFOp::create(nb, nl, v, count);
          else if (isUnsignedOrBool(dataONNX))
            v = arith::DivUIOp::create(nb, nl, v, count);
          else
            v = arith::DivSIOp::create(nb, nl, v, count);
          break;
        case Kind::L2:
          v = math::SqrtOp::create(nb, nl, castScalar(nb, nl, v, vONNX, fT));
          vONNX = fT;
          break;
        case Kind::LogSum:
          v = math::LogOp::create(nb, nl, castScalar(nb, nl, v, vONNX, fT));
          vONNX = fT;
          break;
        case Kind::LogSumExp: {
          Value s = castScalar(nb, nl, a[1], accONNX, fT);
          if (isa<FloatType>(accT))
            s = finiteOrZero(nb, nl, s);
          v = arith::AddFOp::create(nb, nl, math::LogOp::create(nb, nl, v), s);
          break;
        }
        default:
          break;
        }
        return castScalar(nb, nl, v, vONNX, dataONNX);
      });
}

/// Sorted, distinct, non-negative axes; all dims when `axes` is empty.
FailureOr<SmallVector<int64_t>> normalizeAxes(ArrayRef<int64_t> axes,
                                              int64_t rank) {
  SmallVector<int64_t> result;
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d)
      result.push_back(d);
    return result;
  }
  for (int64_t a : axes) {
    int64_t n = normalizeAxis(a, rank);
    if (n < 0 || n >= rank)
      return failure();
    result.push_back(n);
  }
  llvm::sort(result);
  result.erase(llvm::unique(result), result.end());
  return result;
}

/// The sets of reduced dims that agree with the static shapes when a Reduce*
/// op's `numAxes` axes are only known at run time, at most `limit` of
/// them. Sets that differ only in unit dims give the same result and are
/// kept once.
SmallVector<SmallVector<int64_t>> axesFromShapes(RankedTensorType in,
                                                 RankedTensorType out,
                                                 int64_t numAxes, bool keepdims,
                                                 size_t limit = 8) {
  SmallVector<SmallVector<int64_t>> found;
  int64_t rank = in.getRank();
  auto isUnit = [&](int64_t d) { return in.getDimSize(d) == 1; };
  auto addUnique = [&](SmallVector<int64_t> set) {
    SmallVector<int64_t> key;
    for (int64_t d : set)
      if (!isUnit(d))
        key.push_back(d);
    for (auto &f : found) {
      SmallVector<int64_t> fk;
      for (int64_t d : f)
        if (!isUnit(d))
          fk.push_back(d);
      if (fk == key)
        return;
    }
    found.push_back(std::move(set));
  };
  auto compatible = [](int64_t a, int64_t b) {
    return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
  };
  if (keepdims) {
    if (out.getRank() != rank)
      return found;
    SmallVector<int64_t> set;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t i = in.getDimSize(d), o = out.getDimSize(d);
      if (i == 1 || (i == o && !ShapedType::isDynamic(i)))
        continue; // Not reduced, or a unit dim that may be: same result.
      if (o == 1) {
        set.push_back(d);
        continue;
      }
      return found; // Dynamic or contradictory: cannot tell.
    }
    found.push_back(set);
    return found;
  }
  if (out.getRank() != rank - numAxes)
    return found;
  // Choose which dims to drop so that the rest matches `out` in order.
  SmallVector<int64_t> set;
  std::function<void(int64_t, int64_t)> walk = [&](int64_t d, int64_t o) {
    if (found.size() > limit)
      return;
    if (d == rank) {
      if (o == out.getRank())
        addUnique(set);
      return;
    }
    if (int64_t(set.size()) < numAxes) {
      set.push_back(d);
      walk(d + 1, o);
      set.pop_back();
    }
    if (o < out.getRank() && compatible(in.getDimSize(d), out.getDimSize(o)))
      walk(d + 1, o + 1);
  };
  walk(0, 0);
  if (found.size() > limit)
    found.clear();
  return found;
}

/// The `numAxes` run-time axes (a 1-D i64 tensor), negative ones counted
/// from the back of a rank-`rank` tensor.
SmallVector<Value> runtimeAxes(OpBuilder &b, Location loc, Value axes,
                               int64_t numAxes, int64_t rank) {
  SmallVector<Value> values;
  Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  Value rankV = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(rank));
  for (int64_t j = 0; j < numAxes; ++j) {
    Value idx = arith::ConstantIndexOp::create(b, loc, j);
    Value a = tensor::ExtractOp::create(b, loc, axes, idx);
    Value neg =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, zero);
    a = arith::SelectOp::create(b, loc, neg,
                                arith::AddIOp::create(b, loc, a, rankV), a);
    values.push_back(a);
  }
  return values;
}

/// Whether dim `d` is one of the (normalized) run-time `axes`.
Value isNamed(OpBuilder &b, Location loc, ArrayRef<Value> axes, int64_t d) {
  Value dV = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(d));
  Value named;
  for (Value a : axes) {
    Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, dV);
    named = named ? arith::OrIOp::create(b, loc, named, eq) : eq;
  }
  return named;
}

/// True when the run-time `axes` (a 1-D i64 tensor) name exactly the
/// non-unit dims of `set`.
Value axesMatch(OpBuilder &b, Location loc, Value axes, int64_t numAxes,
                RankedTensorType in, ArrayRef<int64_t> set) {
  int64_t rank = in.getRank();
  SmallVector<Value> values = runtimeAxes(b, loc, axes, numAxes, rank);
  Value all, trueV = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  for (int64_t d = 0; d < rank; ++d) {
    if (in.getDimSize(d) == 1)
      continue;
    Value named = isNamed(b, loc, values, d);
    if (!llvm::is_contained(set, d))
      named = arith::XOrIOp::create(b, loc, named, trueV);
    all = all ? arith::AndIOp::create(b, loc, all, named) : named;
  }
  return all ? all : trueV;
}

/// A reduction over `numAxes` run-time axes that the shapes do not pin:
/// each dim is reduced (keeping it) under an scf.if on whether the axes
/// name it, on a tensor of dynamic dims, in the accumulator type; the
/// elementwise steps come before (abs, square) and after (mean, sqrt, log).
/// keepdims = 0 then reshapes to the kept dims, found at run time.
/// LogSumExp (its max shift) is not covered.
FailureOr<Value> lowerRuntimeAxesReduce(OpBuilder &b, Location loc, Kind kind,
                                        Value input, Type dataONNX, Value axes,
                                        int64_t numAxes, bool keepdims,
                                        RankedTensorType resultType) {
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t rank = inType.getRank();
  if (kind == Kind::LogSumExp || numAxes > rank ||
      resultType.getRank() != (keepdims ? rank : rank - numAxes))
    return failure();
  Type accT = accumulatorType(dataONNX);
  Type accONNX = isa<FloatType>(accT) ? accT : dataONNX;
  SmallVector<Value> named = runtimeAxes(b, loc, axes, numAxes, rank);
  SmallVector<Value> mask;
  for (int64_t d = 0; d < rank; ++d)
    mask.push_back(isNamed(b, loc, named, d));

  // The per-element step (L1's abs, L2's and SumSquare's square), then
  // reductions that combine partial results: sums, or Max/Min/Prod.
  Kind step = kind == Kind::Max || kind == Kind::Min || kind == Kind::Prod
                  ? kind
                  : Kind::Sum;
  Value x = buildElementwise(
      b, loc, input, inType.clone(accT),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        if (kind == Kind::L1 || kind == Kind::L2 || kind == Kind::SumSquare)
          return combine(nb, nl, kind, dataONNX, accT, a[0],
                         createScalarConstant(nb, nl, accT, 0));
        return castScalar(nb, nl, a[0], dataONNX, accT);
      });
  auto dynType = RankedTensorType::get(
      SmallVector<int64_t>(rank, ShapedType::kDynamic), accT);
  x = tensor::CastOp::create(b, loc, dynType, x);
  for (int64_t d = 0; d < rank; ++d) {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{dynType}, mask[d],
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value r = buildReduction(
        b, loc, x, {d}, identity(b, loc, step, accT, accONNX),
        [&](OpBuilder &nb, Location nl, Value e, Value acc) {
          return combine(nb, nl, step, accONNX, accT, e, acc);
        });
    r = expandReducedDims(b, loc, r, {d}, rank);
    scf::YieldOp::create(
        b, loc, ValueRange{tensor::CastOp::create(b, loc, dynType, r)});
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, ValueRange{x});
    b.setInsertionPointAfter(ifOp);
    x = ifOp.getResult(0);
  }

  // The element count of a mean: the product of the named dims.
  IndexMath m(b, loc);
  Value count;
  if (kind == Kind::Mean) {
    Value n = m.c(1);
    for (int64_t d = 0; d < rank; ++d)
      n = m.mul(n, m.select(mask[d], getDimValue(b, loc, input, d), m.c(1)));
    count = castScalar(b, loc,
                       arith::IndexCastOp::create(b, loc, b.getI64Type(), n),
                       b.getI64Type(), accT);
  }
  bool needsEpilogue = kind == Kind::Mean || kind == Kind::L2 ||
                       kind == Kind::LogSum || accT != toSignless(dataONNX);
  if (needsEpilogue)
    x = buildEpilogue(b, loc, kind, x, Value(), count, dataONNX, accT,
                      dataONNX);
  if (!keepdims) {
    // Output dim i is the i-th dim the axes do not name.
    int64_t outRank = rank - numAxes;
    SmallVector<Value> kept, position;
    Value seen = m.c(0);
    Value trueV = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    for (int64_t d = 0; d < rank; ++d) {
      position.push_back(seen);
      seen = m.add(seen, m.select(mask[d], m.c(0), m.c(1)));
    }
    for (int64_t i = 0; i < outRank; ++i) {
      Value size = m.c(0);
      for (int64_t d = 0; d < rank; ++d) {
        Value here = arith::AndIOp::create(
            b, loc, arith::XOrIOp::create(b, loc, mask[d], trueV),
            m.cmp(arith::CmpIPredicate::eq, position[d], m.c(i)));
        size = m.add(size, m.select(here, getDimValue(b, loc, input, d),
                                    m.c(0)));
      }
      kept.push_back(size);
    }
    Value shape = tensor::FromElementsOp::create(
        b, loc, RankedTensorType::get({outRank}, b.getIndexType()), kept);
    x = tensor::ReshapeOp::create(
        b, loc,
        RankedTensorType::get(SmallVector<int64_t>(outRank,
                                                   ShapedType::kDynamic),
                              cast<RankedTensorType>(x.getType())
                                  .getElementType()),
        x, shape);
  }
  if (x.getType() != resultType)
    x = tensor::CastOp::create(b, loc, resultType, x);
  return x;
}

/// Whether reducing over no axes still changes the data: the composite
/// reductions keep their elementwise steps (ReduceSumSquare squares,
/// ReduceLogSum takes the log).
bool hasElementwiseSteps(Kind kind) {
  return kind == Kind::L1 || kind == Kind::L2 || kind == Kind::LogSum ||
         kind == Kind::SumSquare;
}

/// ONNX's keepdims is 0 or 1 (its shape inference keeps the reduced dims
/// only for 1; the lowering for any non-zero value): other values are the
/// model's error.
LogicalResult checkKeepdims(Operation *op, int64_t keepdims) {
  if (keepdims == 0 || keepdims == 1)
    return success();
  return op->emitOpError() << "keepdims is " << keepdims
                           << ", but must be 0 (drop the reduced dims) or 1 "
                              "(keep them)";
}

/// Reduce* (ReduceSum since version 13, the others since 18): `axes` is an
/// optional input. Constant axes are read; otherwise the reduced dims follow
/// from the static shapes (the result type pins them), and where several
/// sets fit, the run-time axes pick one.
template <typename OpTy>
class ReduceLowering : public OpConversionPattern<OpTy> {
public:
  ReduceLowering(const TypeConverter &converter, MLIRContext *ctx, Kind kind)
      : OpConversionPattern<OpTy>(converter, ctx), kind(kind) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = dyn_cast<RankedTensorType>(op.getData().getType());
    auto resultType = getConvertedResultType(*this->getTypeConverter(), op);
    if (!inType || !resultType)
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    int64_t rank = inType.getRank();
    if (failed(checkKeepdims(op, op.getKeepdims())))
      return failure();
    bool keepdims = op.getKeepdims() != 0;
    Type elem = inType.getElementType();
    Value data = adaptor.getData();

    auto reduceOver = [&](ArrayRef<int64_t> axes) {
      if (axes.empty() && op.getNoopWithEmptyAxes() != 0) {
        // A reduction over no axes: the data, after the elementwise steps.
        if (hasElementwiseSteps(kind))
          return lowerReduce(rewriter, loc, kind, data, elem, {},
                             /*keepdims=*/false, resultType);
        Value v = data;
        if (v.getType() != resultType)
          v = tensor::CastOp::create(rewriter, loc, resultType, v);
        return v;
      }
      SmallVector<int64_t> all = *normalizeAxes({}, rank);
      return lowerReduce(rewriter, loc, kind, data, elem,
                         axes.empty() ? ArrayRef<int64_t>(all) : axes, keepdims,
                         resultType);
    };
    // Known axes: the reduced shape must agree with the declared one.
    auto replaceReduced = [&](ArrayRef<int64_t> axes) -> LogicalResult {
      SmallVector<int64_t> shape;
      bool noop = axes.empty() && op.getNoopWithEmptyAxes() != 0;
      for (int64_t d = 0; d < rank; ++d) {
        bool reduced = !noop && (axes.empty() || llvm::is_contained(axes, d));
        if (!reduced)
          shape.push_back(inType.getDimSize(d));
        else if (keepdims)
          shape.push_back(1);
      }
      auto computed = RankedTensorType::get(shape, resultType.getElementType());
      if (!tensor::CastOp::areCastCompatible(computed, resultType))
        return op.emitOpError()
               << "computes its result as " << computed
               << " (keepdims = " << op.getKeepdims()
               << "), but the model declares " << resultType;
      rewriter.replaceOp(op, reduceOver(axes));
      return success();
    };

    Value axesIn = op.getAxes();
    if (!axesIn)
      return replaceReduced({});
    auto axesType = dyn_cast<RankedTensorType>(axesIn.getType());
    if (!axesType || axesType.getRank() != 1 || axesType.isDynamicDim(0))
      return rewriter.notifyMatchFailure(op, "axes of unknown length");
    int64_t numAxes = axesType.getDimSize(0);
    if (numAxes == 0)
      return replaceReduced({});
    if (auto values = getConstantIntValues(axesIn); succeeded(values)) {
      auto axes = normalizeAxes(*values, rank);
      if (failed(axes))
        return rewriter.notifyMatchFailure(op, "axis out of range");
      return replaceReduced(*axes);
    }

    // Run-time axes: a non-empty list, so noop_with_empty_axes is moot.
    auto candidates = axesFromShapes(
        inType, cast<RankedTensorType>(op.getReduced().getType()), numAxes,
        keepdims);
    if (candidates.empty()) {
      FailureOr<Value> general =
          lowerRuntimeAxesReduce(rewriter, loc, kind, data, elem,
                                 adaptor.getAxes(), numAxes, keepdims,
                                 resultType);
      if (failed(general))
        return rewriter.notifyMatchFailure(
            op, "LogSumExp over run-time axes the shapes do not determine");
      rewriter.replaceOp(op, *general);
      return success();
    }
    auto lower = [&](ArrayRef<int64_t> axes) {
      return lowerReduce(rewriter, loc, kind, data, elem, axes, keepdims,
                         resultType);
    };
    if (candidates.size() == 1) {
      rewriter.replaceOp(op, lower(candidates.front()));
      return success();
    }
    // Several sets fit: an scf.if chain on the run-time axes picks one.
    std::function<Value(size_t)> choose = [&](size_t i) -> Value {
      if (i + 1 == candidates.size())
        return lower(candidates[i]);
      Value cond = axesMatch(rewriter, loc, adaptor.getAxes(), numAxes, inType,
                             candidates[i]);
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{resultType}, cond,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(rewriter, loc, lower(candidates[i]));
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(rewriter, loc, choose(i + 1));
      return ifOp.getResult(0);
    };
    rewriter.replaceOp(op, choose(0));
    return success();
  }

private:
  Kind kind;
};

/// ArgMax/ArgMin: a linalg.generic reducing (value, index) pairs along the
/// axis; NaN wins like in numpy.
template <typename OpTy, bool isMax>
class ArgLowering : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = dyn_cast<RankedTensorType>(op.getData().getType());
    auto resultType = getConvertedResultType(*this->getTypeConverter(), op);
    if (!inType || !resultType)
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    int64_t rank = inType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    if (failed(checkKeepdims(op, op.getKeepdims())))
      return failure();
    Type onnxElem = inType.getElementType();
    Type elem = toSignless(onnxElem);
    bool last = op.getSelectLastIndex() != 0;
    bool isF = isa<FloatType>(elem);
    bool isU = isUnsignedOrBool(onnxElem);
    Value input = adaptor.getData();
    MLIRContext *ctx = rewriter.getContext();

    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, input);
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> sizes;
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis) {
        iterators.push_back(utils::IteratorType::reduction);
        continue;
      }
      iterators.push_back(utils::IteratorType::parallel);
      shape.push_back(inType.getDimSize(d));
      sizes.push_back(dims[d]);
      outExprs.push_back(getAffineDimExpr(d, ctx));
    }
    Type i64 = rewriter.getI64Type();
    Value values = createFilled(
        rewriter, loc, RankedTensorType::get(shape, elem), sizes,
        extremeValue(rewriter, loc, elem, onnxElem, /*largest=*/!isMax));
    Value indices =
        createFilled(rewriter, loc, RankedTensorType::get(shape, i64), sizes,
                     arith::ConstantOp::create(rewriter, loc,
                                               rewriter.getI64IntegerAttr(0)));
    AffineMap outMap = AffineMap::get(rank, 0, outExprs, ctx);
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank), outMap,
                                outMap};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{values.getType(), indices.getType()}, input,
        ValueRange{values, indices}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIdx = args[2];
          Value better;
          if (isF) {
            using P = arith::CmpFPredicate;
            P strict = isMax ? P::OGT : P::OLT, loose = isMax ? P::OGE : P::OLE;
            Value xNaN = arith::CmpFOp::create(b, l, P::UNO, x, x);
            if (last) {
              // The last NaN, or the last extreme value.
              better = arith::OrIOp::create(
                  b, l, arith::CmpFOp::create(b, l, loose, x, best), xNaN);
            } else {
              // The first NaN, or the first extreme value.
              Value bestNotNaN =
                  arith::CmpFOp::create(b, l, P::ORD, best, best);
              better = arith::OrIOp::create(
                  b, l, arith::CmpFOp::create(b, l, strict, x, best),
                  arith::AndIOp::create(b, l, xNaN, bestNotNaN));
            }
          } else {
            using P = arith::CmpIPredicate;
            P strict =
                isMax ? (isU ? P::ugt : P::sgt) : (isU ? P::ult : P::slt);
            P loose = isMax ? (isU ? P::uge : P::sge) : (isU ? P::ule : P::sle);
            better =
                arith::CmpIOp::create(b, l, last ? loose : strict, x, best);
          }
          Value idx = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, x, best),
                         arith::SelectOp::create(b, l, better, idx, bestIdx)});
        });
    Value result = generic.getResult(1);
    if (op.getKeepdims() != 0)
      result = expandReducedDims(rewriter, loc, result, {axis}, rank);
    FailureOr<Value> cast =
        castOrReport(rewriter, loc, op, result, resultType);
    if (failed(cast))
      return failure();
    rewriter.replaceOp(op, *cast);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateReductionPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReduceLowering<ONNXReduceSumOp>>(converter, ctx, Kind::Sum);
  patterns.add<ReduceLowering<ONNXReduceMeanOp>>(converter, ctx, Kind::Mean);
  patterns.add<ReduceLowering<ONNXReduceMaxOp>>(converter, ctx, Kind::Max);
  patterns.add<ReduceLowering<ONNXReduceMinOp>>(converter, ctx, Kind::Min);
  patterns.add<ReduceLowering<ONNXReduceProdOp>>(converter, ctx, Kind::Prod);
  patterns.add<ReduceLowering<ONNXReduceL1Op>>(converter, ctx, Kind::L1);
  patterns.add<ReduceLowering<ONNXReduceL2Op>>(converter, ctx, Kind::L2);
  patterns.add<ReduceLowering<ONNXReduceLogSumOp>>(converter, ctx,
                                                   Kind::LogSum);
  patterns.add<ReduceLowering<ONNXReduceLogSumExpOp>>(converter, ctx,
                                                      Kind::LogSumExp);
  patterns.add<ReduceLowering<ONNXReduceSumSquareOp>>(converter, ctx,
                                                      Kind::SumSquare);
  patterns.add<ArgLowering<ONNXArgMaxOp, true>>(converter, ctx);
  patterns.add<ArgLowering<ONNXArgMinOp, false>>(converter, ctx);
}
