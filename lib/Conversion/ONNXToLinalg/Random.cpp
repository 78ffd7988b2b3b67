//===- Random.cpp - Random*, Bernoulli, Multinomial, Dropout -> linalg ----===//
//
// The random operators draw from a counter-based generator: element i of a
// node's stream is splitmix64(key + i * golden), key from the node's `seed`
// (its float bits) or, without one, from the node's name, so a compiled
// model gives the same values on every run and thread (ONNX leaves the
// generator to the implementation; the values differ from numpy's).
// Uniform [0, 1) takes the top 24 (f32) or 53 (f64) bits; normal values
// come from Box-Muller over elements 2i and 2i + 1. Training-mode Dropout
// keeps an element when its uniform draw is >= ratio and scales it by
// 1 / (1 - ratio); with training_mode false (at run time) it is the
// identity with an all-true mask.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// The stream key of `op`: its seed (the float's bits, or Dropout's
/// integer), else an FNV-1a hash of its node description (stable across
/// compiles).
uint64_t streamKey(Operation *op, std::optional<uint64_t> seed) {
  if (seed)
    return 0x5EEDull << 40 ^ *seed;
  uint64_t h = 1469598103934665603ull;
  for (char c : describeNode(op)) {
    h ^= uint8_t(c);
    h *= 1099511628211ull;
  }
  return h;
}

std::optional<uint64_t> seedBits(std::optional<llvm::APFloat> seed) {
  if (!seed)
    return std::nullopt;
  float f = seed->convertToFloat();
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

/// splitmix64(key + counter * golden) for an i64 `counter`.
Value randomBits(OpBuilder &b, Location l, Value counter, uint64_t key) {
  Type i64 = b.getI64Type();
  auto c = [&](uint64_t v) {
    return arith::ConstantIntOp::create(b, l, i64, int64_t(v)).getResult();
  };
  Value z = arith::AddIOp::create(
      b, l, c(key),
      arith::MulIOp::create(b, l, counter, c(0x9E3779B97F4A7C15ull)));
  auto mix = [&](Value v, uint64_t shift, uint64_t mul) -> Value {
    Value x = arith::XOrIOp::create(b, l, v,
                                    arith::ShRUIOp::create(b, l, v, c(shift)));
    return mul ? arith::MulIOp::create(b, l, x, c(mul)).getResult() : x;
  };
  z = mix(z, 30, 0xBF58476D1CE4E5B9ull);
  z = mix(z, 27, 0x94D049BB133111EBull);
  return mix(z, 31, 0);
}

/// A uniform value in [0, 1) of float type `ft` from element `counter`.
Value uniform(OpBuilder &b, Location l, Value counter, uint64_t key, Type ft) {
  Value bits = randomBits(b, l, counter, key);
  bool wide = ft.isF64();
  int keep = wide ? 53 : 24;
  Type i64 = b.getI64Type();
  Value top = arith::ShRUIOp::create(
      b, l, bits, arith::ConstantIntOp::create(b, l, i64, 64 - keep));
  Type calc = wide ? Type(b.getF64Type()) : Type(b.getF32Type());
  Value f = arith::UIToFPOp::create(b, l, calc, top);
  f = arith::MulFOp::create(
      b, l, f, createScalarConstant(b, l, calc, std::ldexp(1.0, -keep)));
  return f;
}

/// A standard normal value (Box-Muller on elements 2i, 2i + 1).
Value normal(OpBuilder &b, Location l, Value counter, uint64_t key, Type calc) {
  Type i64 = b.getI64Type();
  Value two = arith::ConstantIntOp::create(b, l, i64, 2);
  Value c0 = arith::MulIOp::create(b, l, counter, two);
  Value c1 = arith::AddIOp::create(b, l, c0,
                                   arith::ConstantIntOp::create(b, l, i64, 1));
  // 1 - u lies in (0, 1]: its log is finite.
  Value u1 = arith::SubFOp::create(b, l, createScalarConstant(b, l, calc, 1),
                                   uniform(b, l, c0, key, calc));
  Value u2 = uniform(b, l, c1, key, calc);
  Value r = math::SqrtOp::create(
      b, l,
      arith::MulFOp::create(b, l, createScalarConstant(b, l, calc, -2),
                            math::LogOp::create(b, l, u1)));
  Value theta = arith::MulFOp::create(
      b, l, createScalarConstant(b, l, calc, 2 * M_PI), u2);
  return arith::MulFOp::create(b, l, r, math::CosOp::create(b, l, theta));
}

/// The row-major linear index of `ivs` in `sizes` as an i64.
Value linearIndex(OpBuilder &b, Location l, ValueRange ivs,
                  ArrayRef<OpFoldResult> sizes) {
  IndexMath m(b, l);
  Value idx = m.c(0);
  for (auto [iv, size] : llvm::zip(ivs, sizes))
    idx = m.add(m.mul(idx, m.v(size)), iv);
  return arith::IndexCastOp::create(b, l, b.getI64Type(), idx);
}

/// The float type random values are computed in for an ONNX type `t`.
Type calcType(OpBuilder &b, Type t) {
  return t.isF64() ? Type(b.getF64Type()) : Type(b.getF32Type());
}

/// RandomUniform/RandomNormal(-Like): one generic over the result.
template <typename OpTy, bool isNormal, bool isLike>
class RandomLowering : public TensorPattern<OpTy> {
public:
  using TensorPattern<OpTy>::TensorPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = this->resultType(op);
    if (!type || !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "float result");
    SmallVector<OpFoldResult> sizes;
    if constexpr (isLike) {
      Value in = adaptor.getInput();
      if (!isa<RankedTensorType>(in.getType()))
        return rewriter.notifyMatchFailure(op, "unranked input");
      sizes = getDims(rewriter, loc, in);
    } else {
      if (!type.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "shape attribute");
      for (int64_t d : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(d));
    }
    uint64_t key = streamKey(op, seedBits(op.getSeed()));
    Type onnxElem = getONNXElementType(op.getOutput());
    Type calc = calcType(rewriter, onnxElem);
    double a, s;
    if constexpr (isNormal) {
      a = op.getMean().convertToDouble();
      s = op.getScale().convertToDouble();
    } else {
      a = op.getLow().convertToDouble();
      s = op.getHigh().convertToDouble() - a;
    }
    Value result = buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, sizes), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          Value i = linearIndex(b, l, ivs, sizes);
          Value v = isNormal ? normal(b, l, i, key, calc)
                             : uniform(b, l, i, key, calc);
          v = arith::AddFOp::create(
              b, l, createScalarConstant(b, l, calc, a),
              arith::MulFOp::create(b, l, v,
                                    createScalarConstant(b, l, calc, s)));
          return castScalar(b, l, v, calc, onnxElem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Bernoulli: 1 where a uniform draw is below the probability.
class BernoulliLowering : public TensorPattern<ONNXBernoulliOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXBernoulliOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value p = adaptor.getInput();
    if (!type || !isa<RankedTensorType>(p.getType()))
      return rewriter.notifyMatchFailure(op, "ranked probabilities");
    uint64_t key = streamKey(op, seedBits(op.getSeed()));
    Type pElem = getONNXElementType(op.getInput());
    Type outElem = getONNXElementType(op.getOutput());
    Type calc = calcType(rewriter, pElem);
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, p);
    Value result = buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, sizes), {p}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> Value {
          Value u = uniform(b, l, linearIndex(b, l, ivs, sizes), key, calc);
          Value hit =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, u,
                                    castScalar(b, l, args[0], pElem, calc));
          return castScalar(b, l, hit, b.getI1Type(), outElem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Multinomial: per row of unnormalised log-probabilities, sample_size
/// draws; draw s is the first class whose running sum of exp(x - max)
/// exceeds u * total.
class MultinomialLowering : public TensorPattern<ONNXMultinomialOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXMultinomialOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value x = adaptor.getInput();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!type || !xType || xType.getRank() != 2 || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "(batch, classes) input");
    uint64_t key = streamKey(op, seedBits(op.getSeed()));
    Type xElem = getONNXElementType(op.getInput());
    Type calc = calcType(rewriter, xElem);
    Type outElem = getONNXElementType(op.getOutput());
    Value classes = getDimValue(rewriter, loc, x, 1);
    SmallVector<OpFoldResult> sizes{getDims(rewriter, loc, x)[0],
                                    rewriter.getIndexAttr(op.getSampleSize())};
    Value result = buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, sizes), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath m(b, l);
          auto at = [&](Value j) {
            Value v = tensor::ExtractOp::create(b, l, x, ValueRange{ivs[0], j});
            return castScalar(b, l, v, xElem, calc);
          };
          Value lowest = createScalarConstant(b, l, calc, -INFINITY);
          Value max = loopNest(
              b, l, SmallVector<Value>{classes}, lowest,
              [&](OpBuilder &, Location, ValueRange j,
                  ValueRange acc) -> SmallVector<Value> {
                return {arith::MaximumFOp::create(b, l, acc[0], at(j[0]))};
              })[0];
          auto weight = [&](Value j) -> Value {
            return math::ExpOp::create(b, l,
                                       arith::SubFOp::create(b, l, at(j), max));
          };
          Value total = loopNest(
              b, l, SmallVector<Value>{classes},
              createScalarConstant(b, l, calc, 0),
              [&](OpBuilder &, Location, ValueRange j,
                  ValueRange acc) -> SmallVector<Value> {
                return {arith::AddFOp::create(b, l, acc[0], weight(j[0]))};
              })[0];
          Value u = uniform(b, l, linearIndex(b, l, ivs, sizes), key, calc);
          Value target = arith::MulFOp::create(b, l, u, total);
          // (running sum, chosen class; classes - 1 if rounding leaves the
          // target above every running sum).
          SmallVector<Value> pick = loopNest(
              b, l, SmallVector<Value>{classes},
              ValueRange{createScalarConstant(b, l, calc, 0),
                         m.sub(classes, m.c(1))},
              [&](OpBuilder &, Location, ValueRange j,
                  ValueRange acc) -> SmallVector<Value> {
                IndexMath mm(b, l);
                Value sum = arith::AddFOp::create(b, l, acc[0], weight(j[0]));
                Value crossed = arith::AndIOp::create(
                    b, l,
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, sum,
                                          target),
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE,
                                          acc[0], target));
                return {sum, mm.select(crossed, j[0], acc[1])};
              });
          Value cls = arith::IndexCastOp::create(b, l, b.getI64Type(), pick[1]);
          return castScalar(b, l, cls, b.getI64Type(), outElem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Dropout whose training_mode is true or known only at run time (without
/// one, or with a constant false, it is the identity: Elementwise.cpp).
class TrainingDropoutLowering : public TensorPattern<ONNXDropoutOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXDropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value mode = op.getTrainingMode();
    if (!mode)
      return rewriter.notifyMatchFailure(op, "inference mode");
    if (auto values = getConstantIntValues(mode);
        succeeded(values) && values->size() == 1 && (*values)[0] == 0)
      return rewriter.notifyMatchFailure(op, "inference mode");
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value x = adaptor.getData();
    if (!type || !isa<RankedTensorType>(x.getType()) ||
        !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "ranked float data");
    Type elem = getONNXElementType(op.getData());
    Type calc = calcType(rewriter, elem);
    std::optional<uint64_t> seed;
    if (auto s = op.getSeed())
      seed = uint64_t(*s);
    uint64_t key = streamKey(op, seed);
    // ratio (default 0.5) and training_mode (default false) as scalars.
    Value ratio = createScalarConstant(rewriter, loc, calc, 0.5);
    if (Value r = adaptor.getRatio())
      ratio = castScalar(rewriter, loc, extractScalar(rewriter, loc, r),
                         getONNXElementType(op.getRatio()), calc);
    Value training = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
    if (Value t = adaptor.getTrainingMode())
      training = extractScalar(rewriter, loc, t);
    Value one = createScalarConstant(rewriter, loc, calc, 1);
    emitRuntimeCheck(
        rewriter, loc, op,
        arith::AndIOp::create(
            rewriter, loc, training,
            arith::OrIOp::create(
                rewriter, loc,
                arith::CmpFOp::create(
                    rewriter, loc, arith::CmpFPredicate::ULT, ratio,
                    createScalarConstant(rewriter, loc, calc, 0)),
                arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::UGE,
                                      ratio, one))),
        "ratio is not in [0, 1)");
    Value scale = arith::DivFOp::create(
        rewriter, loc, one, arith::SubFOp::create(rewriter, loc, one, ratio));
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, x);
    auto keepAt = [&](OpBuilder &b, Location l, ValueRange ivs) -> Value {
      Value u = uniform(b, l, linearIndex(b, l, ivs, sizes), key, calc);
      Value keep =
          arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, u, ratio);
      Value notTraining = arith::XOrIOp::create(
          b, l, training, arith::ConstantIntOp::create(b, l, 1, 1));
      return arith::OrIOp::create(b, l, keep, notTraining);
    };
    SmallVector<Value> results;
    results.push_back(buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, sizes), {x}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> Value {
          Value v = castScalar(b, l, args[0], elem, calc);
          Value scaled = arith::SelectOp::create(
              b, l, training, arith::MulFOp::create(b, l, v, scale), v);
          Value out =
              arith::SelectOp::create(b, l, keepAt(b, l, ivs), scaled,
                                      createScalarConstant(b, l, calc, 0));
          return castScalar(b, l, out, calc, elem);
        }));
    if (op.getMask()) {
      auto maskType = resultType(op, 1);
      if (!maskType)
        return rewriter.notifyMatchFailure(op, "mask type");
      results.push_back(buildIndexedGeneric(
          rewriter, loc, maskType, preferStatic(rewriter, maskType, sizes), {},
          {}, [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
            return keepAt(b, l, ivs);
          }));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateRandomPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<RandomLowering<ONNXRandomUniformOp, false, false>,
               RandomLowering<ONNXRandomUniformLikeOp, false, true>,
               RandomLowering<ONNXRandomNormalOp, true, false>,
               RandomLowering<ONNXRandomNormalLikeOp, true, true>,
               BernoulliLowering, MultinomialLowering, TrainingDropoutLowering>(
      converter, patterns.getContext());
}
