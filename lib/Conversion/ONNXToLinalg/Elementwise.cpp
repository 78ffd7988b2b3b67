//===- Elementwise.cpp - Elementwise onnx ops -> linalg.generic -----------===//
//
// Unary, binary and variadic math, logic, comparison and activation ops,
// Cast, Clip, Where and Identity: each becomes one linalg.generic over the
// numpy broadcast of its operands, with a scalar body chosen by element
// type (float, signed or unsigned integer, bool).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// Computes the scalar result from the scalar operands. `op` is the original
/// op: its operands still have ONNX types (with signedness).
using ScalarFn =
    std::function<Value(OpBuilder &b, Location loc, ValueRange args,
                        Operation *op)>;

/// Which element types an op's lowering handles.
enum class Types { Any, FloatOnly, NoString };

template <typename OpTy>
class ElementwiseLowering : public OpConversionPattern<OpTy> {
public:
  ElementwiseLowering(const TypeConverter &converter, MLIRContext *ctx,
                      ScalarFn fn, Types types = Types::NoString,
                      unsigned numOperands = ~0u)
      : OpConversionPattern<OpTy>(converter, ctx), fn(std::move(fn)),
        types(types), numOperands(numOperands) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *raw = op.getOperation();
    if (raw->getNumResults() < 1)
      return failure();
    auto resultType =
        getConvertedResultType(*this->getTypeConverter(), raw, 0);
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "result has no ranked type");
    if (llvm::any_of(raw->getResultTypes(), [](Type t) {
          return isa<StringType>(getElementTypeOrSelf(t));
        }))
      return rewriter.notifyMatchFailure(op, "string results");
    ValueRange operands = adaptor.getOperands();
    if (operands.size() > numOperands)
      operands = operands.take_front(numOperands);
    for (Value v : raw->getOperands().take_front(operands.size())) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        return rewriter.notifyMatchFailure(op, "operand is not ranked");
      if (isa<StringType>(t.getElementType()) ||
          isa<ComplexType>(t.getElementType()))
        return rewriter.notifyMatchFailure(op, "string/complex elements");
      if (types == Types::FloatOnly && !isa<FloatType>(t.getElementType()))
        return rewriter.notifyMatchFailure(op, "needs float elements");
    }
    if (failed(checkStaticBroadcast(raw, operands, resultType)))
      return failure();
    Value result = buildElementwise(
        rewriter, op.getLoc(), operands, resultType,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return fn(b, loc, args, raw);
        });
    SmallVector<Value> results{result};
    // Extra results (Dropout's mask) are handled by the op's own fn owner.
    if (raw->getNumResults() != 1)
      return failure();
    rewriter.replaceOp(op, results);
    return success();
  }

private:
  ScalarFn fn;
  Types types;
  unsigned numOperands;
};

Type elemOf(Operation *op, unsigned i = 0) {
  return getONNXElementType(op->getOperand(i));
}
bool isF(Type t) { return isa<FloatType>(t); }
bool isU(Type t) { return t.isUnsignedInteger() || t.isInteger(1); }

Value cst(OpBuilder &b, Location loc, Type t, double v) {
  return createScalarConstant(b, loc, toSignless(t), v);
}

FloatAttr getF(Operation *op, StringRef name, double dflt) {
  if (auto a = op->getInherentAttr(name).value_or(Attribute()))
    return cast<FloatAttr>(a);
  return FloatAttr::get(Float32Type::get(op->getContext()), dflt);
}
double getFloat(Operation *op, StringRef name, double dflt) {
  return getF(op, name, dflt).getValueAsDouble();
}
int64_t getInt(Operation *op, StringRef name, int64_t dflt) {
  if (auto a = op->getInherentAttr(name).value_or(Attribute()))
    return cast<IntegerAttr>(a).getInt();
  return dflt;
}

// Scalar arithmetic by element type.
Value addS(OpBuilder &b, Location l, Type t, Value x, Value y) {
  return isF(t) ? (Value)arith::AddFOp::create(b, l, x, y)
                : (Value)arith::AddIOp::create(b, l, x, y);
}
Value subS(OpBuilder &b, Location l, Type t, Value x, Value y) {
  return isF(t) ? (Value)arith::SubFOp::create(b, l, x, y)
                : (Value)arith::SubIOp::create(b, l, x, y);
}
Value mulS(OpBuilder &b, Location l, Type t, Value x, Value y) {
  return isF(t) ? (Value)arith::MulFOp::create(b, l, x, y)
                : (Value)arith::MulIOp::create(b, l, x, y);
}
Value divS(OpBuilder &b, Location l, Type t, Value x, Value y) {
  if (isF(t))
    return arith::DivFOp::create(b, l, x, y);
  return isU(t) ? (Value)arith::DivUIOp::create(b, l, x, y)
                : (Value)arith::DivSIOp::create(b, l, x, y);
}
Value maxS(OpBuilder &b, Location l, Type t, Value x, Value y) {
  if (isF(t))
    return arith::MaximumFOp::create(b, l, x, y);
  return isU(t) ? (Value)arith::MaxUIOp::create(b, l, x, y)
                : (Value)arith::MaxSIOp::create(b, l, x, y);
}
Value minS(OpBuilder &b, Location l, Type t, Value x, Value y) {
  if (isF(t))
    return arith::MinimumFOp::create(b, l, x, y);
  return isU(t) ? (Value)arith::MinUIOp::create(b, l, x, y)
                : (Value)arith::MinSIOp::create(b, l, x, y);
}
Value cmp(OpBuilder &b, Location l, Type t, arith::CmpFPredicate fp,
          arith::CmpIPredicate sp, arith::CmpIPredicate up, Value x, Value y) {
  if (isF(t))
    return arith::CmpFOp::create(b, l, fp, x, y);
  return arith::CmpIOp::create(b, l, isU(t) ? up : sp, x, y);
}
Value select(OpBuilder &b, Location l, Value c, Value x, Value y) {
  return arith::SelectOp::create(b, l, c, x, y);
}
Value exp(OpBuilder &b, Location l, Value x) {
  return math::ExpOp::create(b, l, x);
}

template <typename MathOp>
ScalarFn unaryMath() {
  return [](OpBuilder &b, Location l, ValueRange a, Operation *) -> Value {
    return MathOp::create(b, l, a[0]);
  };
}

template <typename OpTy>
void add(RewritePatternSet &patterns, const TypeConverter &converter,
         ScalarFn fn, Types types = Types::NoString,
         unsigned numOperands = ~0u) {
  patterns.add<ElementwiseLowering<OpTy>>(
      converter, patterns.getContext(), std::move(fn), types, numOperands);
}

/// ONNX Mod: fmod=1 is C fmod; fmod=0 gives the result the divisor's sign
/// (floats: Mod-28's floored modulus, a zero result signed like the
/// divisor; fmod's NaN for an infinite x or a zero y stays).
Value mod(OpBuilder &b, Location l, Operation *op, Value x, Value y) {
  Type t = elemOf(op);
  if (isF(t)) {
    Value r = arith::RemFOp::create(b, l, x, y);
    if (getInt(op, "fmod", 0))
      return r;
    using P = arith::CmpFPredicate;
    Value zero = cst(b, l, t, 0);
    Value isZero = arith::CmpFOp::create(b, l, P::OEQ, r, zero);
    Value signsDiffer = arith::XOrIOp::create(
        b, l, arith::CmpFOp::create(b, l, P::OLT, r, zero),
        arith::CmpFOp::create(b, l, P::OLT, y, zero));
    Value shifted =
        select(b, l, signsDiffer, arith::AddFOp::create(b, l, r, y), r);
    // copysign(0, y): the sign bit of y (y may be -0).
    Type bits = b.getIntegerType(t.getIntOrFloatBitWidth());
    Value yNegative = arith::CmpIOp::create(
        b, l, arith::CmpIPredicate::slt, arith::BitcastOp::create(b, l, bits, y),
        arith::ConstantIntOp::create(b, l, bits, 0));
    Value signedZero = select(b, l, yNegative, cst(b, l, t, -0.0), zero);
    return select(b, l, isZero, signedZero, shifted);
  }
  if (isU(t))
    return arith::RemUIOp::create(b, l, x, y);
  Value r = arith::RemSIOp::create(b, l, x, y);
  if (getInt(op, "fmod", 0))
    return r;
  Value zero = cst(b, l, t, 0);
  Value rNeg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, r, zero);
  Value yNeg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, y, zero);
  Value rNonZero =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, r, zero);
  Value signsDiffer = arith::XOrIOp::create(b, l, rNeg, yNeg);
  Value fix = arith::AndIOp::create(b, l, rNonZero, signsDiffer);
  return select(b, l, fix, arith::AddIOp::create(b, l, r, y), r);
}

Value pow(OpBuilder &b, Location l, Operation *op, Value x, Value y) {
  Type tx = elemOf(op, 0), ty = elemOf(op, 1);
  if (isF(tx)) {
    Value yy = castScalar(b, l, y, ty, tx);
    return math::PowFOp::create(b, l, x, yy);
  }
  // Integer base: compute in f64 like numpy's float power, then convert.
  Type f64 = b.getF64Type();
  Value xf = castScalar(b, l, x, tx, f64);
  Value yf = castScalar(b, l, y, ty, f64);
  return castScalar(b, l, math::PowFOp::create(b, l, xf, yf), f64, tx);
}

class DropoutLowering : public OpConversionPattern<ONNXDropoutOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXDropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Inference only: training_mode must be absent or a constant false.
    if (Value mode = op.getTrainingMode()) {
      auto values = getConstantIntValues(mode);
      if (failed(values) || values->size() != 1 || (*values)[0] != 0)
        return rewriter.notifyMatchFailure(op, "training mode");
    }
    SmallVector<Value> results{adaptor.getData()};
    if (Value mask = op.getMask()) {
      auto type = getConvertedResultType(*getTypeConverter(), op, 1);
      if (!type)
        return failure();
      Value one = arith::ConstantOp::create(rewriter, op.getLoc(),
                                            rewriter.getBoolAttr(true));
      results.push_back(createFilled(rewriter, op.getLoc(), type,
                                     getDims(rewriter, op.getLoc(),
                                             adaptor.getData()),
                                     one));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// PRelu broadcasts its slope numpy-style; a 1-D slope that cannot
/// broadcast that way but matches the channel dim (PRelu-6 models, which
/// the version converter leaves as they are) applies per channel.
class PReluLowering : public OpConversionPattern<ONNXPReluOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXPReluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    auto x = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto slopeType = dyn_cast<RankedTensorType>(adaptor.getSlope().getType());
    if (!resultType || !x || !slopeType)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    Location loc = op.getLoc();
    Value slope = adaptor.getSlope();
    if (slopeType.getRank() == 1 && x.getRank() >= 2 &&
        !slopeType.isDynamicDim(0) && slopeType.getDimSize(0) != 1 &&
        x.getDimSize(1) == slopeType.getDimSize(0) &&
        x.getDimSize(x.getRank() - 1) != slopeType.getDimSize(0)) {
      SmallVector<int64_t> shape(x.getRank() - 1, 1);
      shape[0] = slopeType.getDimSize(0);
      SmallVector<ReassociationIndices> groups(1);
      for (int64_t i = 0; i < x.getRank() - 1; ++i)
        groups[0].push_back(i);
      slope = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(shape, slopeType.getElementType()), slope,
          groups);
    }
    Type t = getONNXElementType(op.getX());
    Value result = buildElementwise(
        rewriter, loc, {adaptor.getX(), slope}, resultType,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value neg = cmp(b, l, t, arith::CmpFPredicate::OLT,
                          arith::CmpIPredicate::slt, arith::CmpIPredicate::ult,
                          a[0], cst(b, l, t, 0));
          return select(b, l, neg, mulS(b, l, t, a[1], a[0]), a[0]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename OpTy>
class IdentityLowering : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value in = adaptor.getOperands()[0];
    if (!isa<TensorType>(in.getType()))
      return failure();
    Type resultType = this->getTypeConverter()->convertType(op.getType());
    if (in.getType() != resultType)
      in = tensor::CastOp::create(rewriter, op.getLoc(), resultType, in);
    rewriter.replaceOp(op, in);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateElementwisePatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  using P = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  auto &c = converter;
  // Binary arithmetic.
  add<ONNXAddOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                 Operation *op) {
    return addS(b, l, elemOf(op), a[0], a[1]);
  });
  add<ONNXSubOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                 Operation *op) {
    return subS(b, l, elemOf(op), a[0], a[1]);
  });
  add<ONNXMulOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                 Operation *op) {
    return mulS(b, l, elemOf(op), a[0], a[1]);
  });
  add<ONNXDivOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                 Operation *op) {
    return divS(b, l, elemOf(op), a[0], a[1]);
  });
  add<ONNXModOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                 Operation *op) {
    return mod(b, l, op, a[0], a[1]);
  });
  add<ONNXPowOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                 Operation *op) {
    return pow(b, l, op, a[0], a[1]);
  });
  add<ONNXBitShiftOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                      Operation *op) -> Value {
    auto dir = op->getInherentAttr("direction").value_or(Attribute());
    if (dir && cast<StringAttr>(dir).getValue() == "LEFT")
      return arith::ShLIOp::create(b, l, a[0], a[1]);
    return arith::ShRUIOp::create(b, l, a[0], a[1]);
  });
  // Variadic.
  auto fold = [](Value (*fn)(OpBuilder &, Location, Type, Value, Value)) {
    return [fn](OpBuilder &b, Location l, ValueRange a, Operation *op) {
      Value r = a[0];
      for (Value v : a.drop_front())
        r = fn(b, l, elemOf(op), r, v);
      return r;
    };
  };
  add<ONNXMaxOp>(patterns, c, fold(maxS));
  add<ONNXMinOp>(patterns, c, fold(minS));
  add<ONNXSumOp>(patterns, c, fold(addS));
  add<ONNXMeanOp>(patterns, c, [fold](OpBuilder &b, Location l, ValueRange a,
                                      Operation *op) {
    Value s = fold(addS)(b, l, a, op);
    return divS(b, l, elemOf(op), s, cst(b, l, elemOf(op), a.size()));
  }, Types::FloatOnly);
  // Logic and comparison.
  // And/Or/Xor/Not on bool and the Bitwise ops on integers are the same
  // integer operations; Not flips all bits (of an i1: true).
  auto binaryInt = [](auto opTag) -> ScalarFn {
    using OpT = typename decltype(opTag)::type;
    return [](OpBuilder &b, Location l, ValueRange a, Operation *) -> Value {
      return OpT::create(b, l, a[0], a[1]);
    };
  };
  ScalarFn andI = binaryInt(llvm::type_identity<arith::AndIOp>());
  ScalarFn orI = binaryInt(llvm::type_identity<arith::OrIOp>());
  ScalarFn xorI = binaryInt(llvm::type_identity<arith::XOrIOp>());
  ScalarFn notI = [](OpBuilder &b, Location l, ValueRange a,
                     Operation *) -> Value {
    Type t = a[0].getType();
    return arith::XOrIOp::create(
        b, l, a[0],
        arith::ConstantOp::create(
            b, l, b.getIntegerAttr(t, APInt::getAllOnes(
                                          t.getIntOrFloatBitWidth()))));
  };
  add<ONNXAndOp>(patterns, c, andI);
  add<ONNXOrOp>(patterns, c, orI);
  add<ONNXXorOp>(patterns, c, xorI);
  add<ONNXNotOp>(patterns, c, notI);
  add<ONNXBitwiseAndOp>(patterns, c, andI);
  add<ONNXBitwiseOrOp>(patterns, c, orI);
  add<ONNXBitwiseXorOp>(patterns, c, xorI);
  add<ONNXBitwiseNotOp>(patterns, c, notI);
  auto compare = [](P fp, I sp, I up) {
    return [=](OpBuilder &b, Location l, ValueRange a, Operation *op) {
      return cmp(b, l, elemOf(op), fp, sp, up, a[0], a[1]);
    };
  };
  add<ONNXEqualOp>(patterns, c, compare(P::OEQ, I::eq, I::eq));
  add<ONNXLessOp>(patterns, c, compare(P::OLT, I::slt, I::ult));
  add<ONNXLessOrEqualOp>(patterns, c, compare(P::OLE, I::sle, I::ule));
  add<ONNXGreaterOp>(patterns, c, compare(P::OGT, I::sgt, I::ugt));
  add<ONNXGreaterOrEqualOp>(patterns, c, compare(P::OGE, I::sge, I::uge));
  add<ONNXWhereOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                   Operation *) {
    return select(b, l, a[0], a[1], a[2]);
  });
  add<ONNXIsNaNOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                   Operation *) -> Value {
    return arith::CmpFOp::create(b, l, P::UNO, a[0], a[0]);
  }, Types::FloatOnly);
  add<ONNXIsInfOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                   Operation *op) -> Value {
    Type t = elemOf(op);
    Value inf = cst(b, l, t, INFINITY), ninf = cst(b, l, t, -INFINITY);
    Value pos = arith::CmpFOp::create(b, l, P::OEQ, a[0], inf);
    Value neg = arith::CmpFOp::create(b, l, P::OEQ, a[0], ninf);
    Value f = arith::ConstantOp::create(b, l, b.getBoolAttr(false));
    if (!getInt(op, "detect_positive", 1))
      pos = f;
    if (!getInt(op, "detect_negative", 1))
      neg = f;
    return arith::OrIOp::create(b, l, pos, neg);
  }, Types::FloatOnly);

  // Unary math.
  add<ONNXAbsOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                 Operation *op) -> Value {
    Type t = elemOf(op);
    if (isF(t))
      return math::AbsFOp::create(b, l, a[0]);
    if (isU(t))
      return a[0];
    // select(x < 0, -x, x): math.absi has no lowering to LLVM here.
    Value zero = cst(b, l, t, 0);
    Value neg = arith::CmpIOp::create(b, l, I::slt, a[0], zero);
    return select(b, l, neg, arith::SubIOp::create(b, l, zero, a[0]), a[0]);
  });
  add<ONNXNegOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                 Operation *op) -> Value {
    Type t = elemOf(op);
    if (isF(t))
      return arith::NegFOp::create(b, l, a[0]);
    return arith::SubIOp::create(b, l, cst(b, l, t, 0), a[0]);
  });
  add<ONNXSignOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                  Operation *op) -> Value {
    Type t = elemOf(op);
    Value zero = cst(b, l, t, 0), one = cst(b, l, t, 1);
    Value gt = cmp(b, l, t, P::OGT, I::sgt, I::ugt, a[0], zero);
    if (isU(t))
      return select(b, l, gt, one, zero);
    Value lt = cmp(b, l, t, P::OLT, I::slt, I::ult, a[0], zero);
    Value r = select(b, l, lt, cst(b, l, t, -1), zero);
    r = select(b, l, gt, one, r);
    if (isF(t)) // NaN stays NaN.
      r = select(b, l, arith::CmpFOp::create(b, l, P::UNO, a[0], a[0]), a[0],
                 r);
    return r;
  });
  add<ONNXExpOp>(patterns, c, unaryMath<math::ExpOp>(), Types::FloatOnly);
  add<ONNXLogOp>(patterns, c, unaryMath<math::LogOp>(), Types::FloatOnly);
  add<ONNXSqrtOp>(patterns, c, unaryMath<math::SqrtOp>(), Types::FloatOnly);
  add<ONNXTanhOp>(patterns, c, unaryMath<math::TanhOp>(), Types::FloatOnly);
  add<ONNXErfOp>(patterns, c, unaryMath<math::ErfOp>(), Types::FloatOnly);
  add<ONNXFloorOp>(patterns, c, unaryMath<math::FloorOp>(), Types::FloatOnly);
  add<ONNXCeilOp>(patterns, c, unaryMath<math::CeilOp>(), Types::FloatOnly);
  add<ONNXRoundOp>(patterns, c, unaryMath<math::RoundEvenOp>(),
                   Types::FloatOnly);
  add<ONNXSinOp>(patterns, c, unaryMath<math::SinOp>(), Types::FloatOnly);
  add<ONNXCosOp>(patterns, c, unaryMath<math::CosOp>(), Types::FloatOnly);
  add<ONNXTanOp>(patterns, c, unaryMath<math::TanOp>(), Types::FloatOnly);
  add<ONNXAsinOp>(patterns, c, unaryMath<math::AsinOp>(), Types::FloatOnly);
  add<ONNXAcosOp>(patterns, c, unaryMath<math::AcosOp>(), Types::FloatOnly);
  add<ONNXAtanOp>(patterns, c, unaryMath<math::AtanOp>(), Types::FloatOnly);
  add<ONNXSinhOp>(patterns, c, unaryMath<math::SinhOp>(), Types::FloatOnly);
  add<ONNXCoshOp>(patterns, c, unaryMath<math::CoshOp>(), Types::FloatOnly);
  add<ONNXAsinhOp>(patterns, c, unaryMath<math::AsinhOp>(), Types::FloatOnly);
  add<ONNXAcoshOp>(patterns, c, unaryMath<math::AcoshOp>(), Types::FloatOnly);
  add<ONNXAtanhOp>(patterns, c, unaryMath<math::AtanhOp>(), Types::FloatOnly);
  add<ONNXReciprocalOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                        Operation *op) {
    return divS(b, l, elemOf(op), cst(b, l, elemOf(op), 1), a[0]);
  }, Types::FloatOnly);

  // Activations.
  add<ONNXReluOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                  Operation *op) {
    return maxS(b, l, elemOf(op), a[0], cst(b, l, elemOf(op), 0));
  });
  add<ONNXSigmoidOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                     Operation *op) -> Value {
    Type t = elemOf(op);
    Value e = exp(b, l, arith::NegFOp::create(b, l, a[0]));
    return arith::DivFOp::create(
        b, l, cst(b, l, t, 1), arith::AddFOp::create(b, l, cst(b, l, t, 1), e));
  }, Types::FloatOnly);
  // Swish-24: x * sigmoid(alpha * x).
  add<ONNXSwishOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                   Operation *op) -> Value {
    Type t = elemOf(op);
    Value alpha = cst(b, l, t, getFloat(op, "alpha", 1.0));
    Value e = exp(b, l,
                  arith::NegFOp::create(
                      b, l, arith::MulFOp::create(b, l, alpha, a[0])));
    return arith::DivFOp::create(
        b, l, a[0], arith::AddFOp::create(b, l, cst(b, l, t, 1), e));
  }, Types::FloatOnly);
  // Mish-18: x * tanh(softplus(x)).
  add<ONNXMishOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                  Operation *) -> Value {
    Value softplus = math::Log1pOp::create(b, l, exp(b, l, a[0]));
    return arith::MulFOp::create(b, l, a[0],
                                 math::TanhOp::create(b, l, softplus));
  }, Types::FloatOnly);
  // Gelu-20: 0.5 x (1 + erf(x / sqrt 2)), or with approximate = "tanh"
  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
  add<ONNXGeluOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                  Operation *op) -> Value {
    Type t = elemOf(op);
    Value x = a[0], inner;
    if (cast<ONNXGeluOp>(op).getApproximate() == "tanh") {
      Value x3 = arith::MulFOp::create(
          b, l, x, arith::MulFOp::create(b, l, x, x));
      Value sum = arith::AddFOp::create(
          b, l, x, arith::MulFOp::create(b, l, cst(b, l, t, 0.044715), x3));
      inner = math::TanhOp::create(
          b, l,
          arith::MulFOp::create(b, l, cst(b, l, t, std::sqrt(2.0 / M_PI)),
                                sum));
    } else {
      inner = math::ErfOp::create(
          b, l, arith::MulFOp::create(b, l, x, cst(b, l, t, M_SQRT1_2)));
    }
    Value half = arith::MulFOp::create(b, l, cst(b, l, t, 0.5), x);
    return arith::MulFOp::create(
        b, l, half, arith::AddFOp::create(b, l, cst(b, l, t, 1), inner));
  }, Types::FloatOnly);
  add<ONNXLeakyReluOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                       Operation *op) {
    Type t = elemOf(op);
    Value alpha = cst(b, l, t, getFloat(op, "alpha", 0.01));
    Value neg = arith::CmpFOp::create(b, l, P::OLT, a[0], cst(b, l, t, 0));
    return select(b, l, neg, arith::MulFOp::create(b, l, alpha, a[0]), a[0]);
  }, Types::FloatOnly);
  patterns.add<PReluLowering>(converter, patterns.getContext());
  add<ONNXEluOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                 Operation *op) {
    Type t = elemOf(op);
    Value alpha = cst(b, l, t, getFloat(op, "alpha", 1.0));
    Value neg = arith::CmpFOp::create(b, l, P::OLT, a[0], cst(b, l, t, 0));
    Value em1 = arith::SubFOp::create(b, l, exp(b, l, a[0]), cst(b, l, t, 1));
    return select(b, l, neg, arith::MulFOp::create(b, l, alpha, em1), a[0]);
  }, Types::FloatOnly);
  add<ONNXSeluOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                  Operation *op) {
    Type t = elemOf(op);
    Value alpha = cst(b, l, t, getFloat(op, "alpha", 1.67326319217681884765625));
    Value gamma = cst(b, l, t, getFloat(op, "gamma", 1.05070102214813232421875));
    Value le = arith::CmpFOp::create(b, l, P::OLE, a[0], cst(b, l, t, 0));
    Value negPart = arith::SubFOp::create(
        b, l, arith::MulFOp::create(b, l, alpha, exp(b, l, a[0])), alpha);
    Value r = select(b, l, le, negPart, a[0]);
    return arith::MulFOp::create(b, l, gamma, r);
  }, Types::FloatOnly);
  add<ONNXCeluOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                  Operation *op) {
    Type t = elemOf(op);
    Value alpha = cst(b, l, t, getFloat(op, "alpha", 1.0));
    Value zero = cst(b, l, t, 0);
    Value em1 = arith::SubFOp::create(
        b, l, exp(b, l, arith::DivFOp::create(b, l, a[0], alpha)),
        cst(b, l, t, 1));
    Value negPart = arith::MinimumFOp::create(
        b, l, zero, arith::MulFOp::create(b, l, alpha, em1));
    return arith::AddFOp::create(
        b, l, arith::MaximumFOp::create(b, l, zero, a[0]), negPart);
  }, Types::FloatOnly);
  add<ONNXHardSigmoidOp>(patterns, c, [](OpBuilder &b, Location l,
                                         ValueRange a, Operation *op) {
    Type t = elemOf(op);
    Value alpha = cst(b, l, t, getFloat(op, "alpha", 0.2));
    Value beta = cst(b, l, t, getFloat(op, "beta", 0.5));
    Value y = arith::AddFOp::create(
        b, l, arith::MulFOp::create(b, l, alpha, a[0]), beta);
    y = arith::MinimumFOp::create(b, l, y, cst(b, l, t, 1));
    return arith::MaximumFOp::create(b, l, y, cst(b, l, t, 0));
  }, Types::FloatOnly);
  add<ONNXHardSwishOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                       Operation *op) {
    Type t = elemOf(op);
    Value y = arith::AddFOp::create(
        b, l, arith::MulFOp::create(b, l, a[0], cst(b, l, t, 1.0 / 6)),
        cst(b, l, t, 0.5));
    y = arith::MinimumFOp::create(b, l, y, cst(b, l, t, 1));
    y = arith::MaximumFOp::create(b, l, y, cst(b, l, t, 0));
    return arith::MulFOp::create(b, l, a[0], y);
  }, Types::FloatOnly);
  add<ONNXSoftplusOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                      Operation *) -> Value {
    return math::Log1pOp::create(b, l, exp(b, l, a[0]));
  }, Types::FloatOnly);
  add<ONNXSoftsignOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                      Operation *op) -> Value {
    Type t = elemOf(op);
    Value d = arith::AddFOp::create(b, l, cst(b, l, t, 1),
                                    math::AbsFOp::create(b, l, a[0]));
    return arith::DivFOp::create(b, l, a[0], d);
  }, Types::FloatOnly);
  add<ONNXThresholdedReluOp>(patterns, c, [](OpBuilder &b, Location l,
                                             ValueRange a, Operation *op) {
    Type t = elemOf(op);
    Value alpha = cst(b, l, t, getFloat(op, "alpha", 1.0));
    Value gt = arith::CmpFOp::create(b, l, P::OGT, a[0], alpha);
    return select(b, l, gt, a[0], cst(b, l, t, 0));
  }, Types::FloatOnly);
  add<ONNXShrinkOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                    Operation *op) {
    Type t = elemOf(op);
    Type f64 = b.getF64Type();
    Value x = castScalar(b, l, a[0], t, f64);
    Value bias = cst(b, l, f64, getFloat(op, "bias", 0.0));
    Value lambd = cst(b, l, f64, getFloat(op, "lambd", 0.5));
    Value nlambd = arith::NegFOp::create(b, l, lambd);
    Value lo = arith::CmpFOp::create(b, l, P::OLT, x, nlambd);
    Value hi = arith::CmpFOp::create(b, l, P::OGT, x, lambd);
    Value r = select(b, l, hi, arith::SubFOp::create(b, l, x, bias),
                     cst(b, l, f64, 0));
    r = select(b, l, lo, arith::AddFOp::create(b, l, x, bias), r);
    return castScalar(b, l, r, f64, t);
  });
  add<ONNXClipOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                  Operation *op) {
    auto clip = cast<ONNXClipOp>(op);
    Type t = elemOf(op);
    Value r = a[0];
    unsigned next = 1;
    if (clip.getMin())
      r = maxS(b, l, t, r, a[next++]);
    if (clip.getMax())
      r = minS(b, l, t, r, a[next++]);
    return r;
  });
  add<ONNXCastOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                  Operation *op) {
    auto castOp = cast<ONNXCastOp>(op);
    return castScalar(b, l, a[0], elemOf(op),
                      getONNXElementType(op->getResult(0)),
                      {castOp.getSaturate() != 0, castOp.getRoundMode()});
  });
  add<ONNXCastLikeOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                      Operation *op) {
    auto castOp = cast<ONNXCastLikeOp>(op);
    return castScalar(b, l, a[0], elemOf(op),
                      getONNXElementType(op->getResult(0)),
                      {castOp.getSaturate() != 0, castOp.getRoundMode()});
  }, Types::NoString, /*numOperands=*/1);
  add<ONNXBitCastOp>(patterns, c, [](OpBuilder &b, Location l, ValueRange a,
                                     Operation *op) {
    return bitcastScalar(b, l, a[0], elemOf(op),
                         getONNXElementType(op->getResult(0)));
  });
  patterns.add<DropoutLowering, IdentityLowering<ONNXIdentityOp>>(
      converter, patterns.getContext());
}
