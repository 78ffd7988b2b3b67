//===- GradientRules.cpp - Gradients of elementwise ops and products ------===//
//
// Gradient rules (see Autodiff.h) of the elementwise arithmetic, the
// activations, MatMul and Gemm. A broadcast operand's gradient is summed
// back to its shape (GradientEmitter::sumToOperand).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/Autodiff.h"

#include <cmath>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Grads = MutableArrayRef<Value>;

/// Sets operandGrads[i] to `g` summed back to operand i's shape.
LogicalResult setBroadcast(GradientEmitter &e, Operation *op, Grads grads,
                           unsigned i, Value g, std::string &why) {
  SmallVector<Value> others;
  for (auto [j, v] : llvm::enumerate(op->getOperands()))
    if (j != i)
      others.push_back(v);
  FailureOr<Value> r = e.sumToOperand(g, op->getOperand(i), others, why);
  if (failed(r))
    return failure();
  grads[i] = *r;
  return success();
}

Value boolOf(GradientEmitter &e, StringRef cmp, Value a, Value b) {
  return e.make(cmp, {a, b}, {}, e.b.getI1Type());
}

/// g where `cond`, 0 elsewhere.
Value maskGrad(GradientEmitter &e, Value cond, Value g) {
  return e.make("Where", {cond, g, e.scalar(g, 0.0)});
}

//===- Arithmetic ---------------------------------------------------------===//

LogicalResult addGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                      Grads grads, std::string &why) {
  if (failed(setBroadcast(e, op, grads, 0, rg[0], why)))
    return failure();
  return setBroadcast(e, op, grads, 1, rg[0], why);
}

LogicalResult subGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                      Grads grads, std::string &why) {
  if (failed(setBroadcast(e, op, grads, 0, rg[0], why)))
    return failure();
  return setBroadcast(e, op, grads, 1, e.neg(rg[0]), why);
}

LogicalResult mulGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                      Grads grads, std::string &why) {
  Value a = op->getOperand(0), b = op->getOperand(1);
  if (failed(setBroadcast(e, op, grads, 0, e.mul(rg[0], b), why)))
    return failure();
  return setBroadcast(e, op, grads, 1, e.mul(rg[0], a), why);
}

LogicalResult divGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                      Grads grads, std::string &why) {
  // d(a/b)/da = 1/b, d(a/b)/db = -(a/b)/b.
  Value b = op->getOperand(1), y = op->getResult(0);
  if (failed(setBroadcast(e, op, grads, 0, e.div(rg[0], b), why)))
    return failure();
  return setBroadcast(e, op, grads, 1, e.neg(e.div(e.mul(rg[0], y), b)), why);
}

LogicalResult powGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                      Grads grads, std::string &why) {
  Value x = op->getOperand(0), y = op->getResult(0);
  Value p = e.castLike(op->getOperand(1), x);
  // d(x^p)/dx = p x^(p-1); d(x^p)/dp = x^p ln x.
  Value dx =
      e.mul(e.mul(rg[0], p), e.make("Pow", {x, e.sub(p, e.scalar(x, 1.0))}));
  if (failed(setBroadcast(e, op, grads, 0, dx, why)))
    return failure();
  if (!isa<FloatType>(getElementTypeOrSelf(op->getOperand(1).getType())))
    return success();
  Value dp = e.mul(e.mul(rg[0], y), e.make("Log", {x}));
  return setBroadcast(e, op, grads, 1, dp, why);
}

/// Sum, Mean, Max, Min (variadic, broadcasting).
template <int Kind> // 0 Sum, 1 Mean, 2 Max/Min
LogicalResult variadicGrad(GradientEmitter &e, Operation *op,
                           ArrayRef<Value> rg, Grads grads, std::string &why) {
  Value g = rg[0], y = op->getResult(0);
  unsigned n = op->getNumOperands();
  if (Kind == 1)
    g = e.mul(g, e.scalar(g, 1.0 / n));
  Value count;
  if (Kind == 2) {
    // Ties share the gradient evenly (as PyTorch's maximum/minimum do).
    for (Value v : op->getOperands()) {
      Value hit = e.castLike(boolOf(e, "Equal", v, y), y);
      count = count ? e.add(count, hit) : hit;
    }
  }
  for (unsigned i = 0; i < n; ++i) {
    Value gi = g;
    if (Kind == 2)
      gi = e.div(
          e.mul(g, e.castLike(boolOf(e, "Equal", op->getOperand(i), y), y)),
          count);
    if (failed(setBroadcast(e, op, grads, i, gi, why)))
      return failure();
  }
  return success();
}

//===- Unary math and activations -----------------------------------------===//

/// A unary op whose derivative is `derivative(e, x, y)`.
template <Value (*Derivative)(GradientEmitter &, Operation *, Value, Value)>
LogicalResult unaryGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                        Grads grads, std::string &) {
  grads[0] =
      e.mul(rg[0], Derivative(e, op, op->getOperand(0), op->getResult(0)));
  return success();
}

LogicalResult identityGrad(GradientEmitter &, Operation *, ArrayRef<Value> rg,
                           Grads grads, std::string &) {
  grads[0] = rg[0];
  return success();
}

LogicalResult negGrad(GradientEmitter &e, Operation *, ArrayRef<Value> rg,
                      Grads grads, std::string &) {
  grads[0] = e.neg(rg[0]);
  return success();
}

LogicalResult reluGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                       Grads grads, std::string &) {
  Value x = op->getOperand(0);
  grads[0] = maskGrad(e, boolOf(e, "Greater", x, e.scalar(x, 0.0)), rg[0]);
  return success();
}

LogicalResult leakyReluGrad(GradientEmitter &e, Operation *op,
                            ArrayRef<Value> rg, Grads grads, std::string &) {
  Value x = op->getOperand(0), g = rg[0];
  double alpha = cast<ONNXLeakyReluOp>(op).getAlpha().convertToDouble();
  grads[0] = e.make("Where", {boolOf(e, "Greater", x, e.scalar(x, 0.0)), g,
                              e.mul(g, e.scalar(g, alpha))});
  return success();
}

LogicalResult eluGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                      Grads grads, std::string &) {
  // x > 0: 1; else alpha e^x = y + alpha.
  Value x = op->getOperand(0), y = op->getResult(0), g = rg[0];
  double alpha = cast<ONNXEluOp>(op).getAlpha().convertToDouble();
  grads[0] = e.make("Where", {boolOf(e, "Greater", x, e.scalar(x, 0.0)), g,
                              e.mul(g, e.add(y, e.scalar(y, alpha)))});
  return success();
}

LogicalResult seluGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                       Grads grads, std::string &) {
  // x > 0: gamma; else y + alpha gamma.
  auto selu = cast<ONNXSeluOp>(op);
  double alpha = selu.getAlpha().convertToDouble();
  double gamma = selu.getGamma().convertToDouble();
  Value x = op->getOperand(0), y = op->getResult(0), g = rg[0];
  grads[0] = e.make("Where", {boolOf(e, "Greater", x, e.scalar(x, 0.0)),
                              e.mul(g, e.scalar(g, gamma)),
                              e.mul(g, e.add(y, e.scalar(y, alpha * gamma)))});
  return success();
}

LogicalResult clipGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                       Grads grads, std::string &) {
  auto clip = cast<ONNXClipOp>(op);
  Value x = clip.getInput();
  Value inside;
  if (Value lo = clip.getMin())
    inside = boolOf(e, "GreaterOrEqual", x, lo);
  if (Value hi = clip.getMax()) {
    Value below = boolOf(e, "LessOrEqual", x, hi);
    inside = inside ? e.make("And", {inside, below}) : below;
  }
  grads[0] = inside ? maskGrad(e, inside, rg[0]) : rg[0];
  return success();
}

Value sigmoidD(GradientEmitter &e, Operation *, Value, Value y) {
  return e.mul(y, e.sub(e.scalar(y, 1.0), y));
}
Value hardSigmoidD(GradientEmitter &e, Operation *op, Value x, Value) {
  auto hs = cast<ONNXHardSigmoidOp>(op);
  double alpha = hs.getAlpha().convertToDouble();
  double beta = hs.getBeta().convertToDouble();
  // alpha inside (-beta/alpha, (1-beta)/alpha), 0 outside.
  Value lin = e.add(e.mul(x, e.scalar(x, alpha)), e.scalar(x, beta));
  Value inside = e.make("And", {boolOf(e, "Greater", lin, e.scalar(x, 0.0)),
                                boolOf(e, "Less", lin, e.scalar(x, 1.0))});
  return e.make("Where", {inside, e.scalar(x, alpha), e.scalar(x, 0.0)});
}
Value tanhD(GradientEmitter &e, Operation *, Value, Value y) {
  return e.sub(e.scalar(y, 1.0), e.mul(y, y));
}
Value expD(GradientEmitter &, Operation *, Value, Value y) { return y; }
Value logD(GradientEmitter &e, Operation *, Value x, Value) {
  return e.make("Reciprocal", {x});
}
Value sqrtD(GradientEmitter &e, Operation *, Value, Value y) {
  return e.div(e.scalar(y, 0.5), y);
}
Value reciprocalD(GradientEmitter &e, Operation *, Value, Value y) {
  return e.neg(e.mul(y, y));
}
Value absD(GradientEmitter &e, Operation *, Value x, Value) {
  return e.make("Sign", {x});
}
Value erfD(GradientEmitter &e, Operation *, Value x, Value) {
  return e.mul(e.scalar(x, 2.0 / std::sqrt(M_PI)),
               e.make("Exp", {e.neg(e.mul(x, x))}));
}
Value softplusD(GradientEmitter &e, Operation *, Value x, Value) {
  return e.make("Sigmoid", {x});
}
Value softsignD(GradientEmitter &e, Operation *, Value x, Value) {
  Value d = e.add(e.scalar(x, 1.0), e.make("Abs", {x}));
  return e.make("Reciprocal", {e.mul(d, d)});
}
Value sinD(GradientEmitter &e, Operation *, Value x, Value) {
  return e.make("Cos", {x});
}
Value cosD(GradientEmitter &e, Operation *, Value x, Value) {
  return e.neg(e.make("Sin", {x}));
}
Value geluD(GradientEmitter &e, Operation *op, Value x, Value) {
  auto gelu = cast<ONNXGeluOp>(op);
  auto s = [&](double v) { return e.scalar(x, v); };
  if (gelu.getApproximate() == "tanh") {
    // u = c (x + 0.044715 x^3), y = x (1 + tanh u) / 2:
    // dy/dx = (1 + t)/2 + x (1 - t^2) c (1 + 3 0.044715 x^2) / 2.
    double c = std::sqrt(2.0 / M_PI);
    Value x2 = e.mul(x, x);
    Value u = e.mul(s(c), e.add(x, e.mul(s(0.044715), e.mul(x2, x))));
    Value t = e.make("Tanh", {u});
    Value du = e.mul(s(c), e.add(s(1.0), e.mul(s(3 * 0.044715), x2)));
    return e.add(
        e.mul(s(0.5), e.add(s(1.0), t)),
        e.mul(e.mul(s(0.5), x), e.mul(e.sub(s(1.0), e.mul(t, t)), du)));
  }
  // y = x Phi(x): dy/dx = Phi(x) + x phi(x).
  Value phi = e.mul(s(1.0 / std::sqrt(2 * M_PI)),
                    e.make("Exp", {e.mul(s(-0.5), e.mul(x, x))}));
  Value cdf =
      e.mul(s(0.5), e.add(s(1.0), e.make("Erf", {e.mul(x, s(M_SQRT1_2))})));
  return e.add(cdf, e.mul(x, phi));
}

LogicalResult castGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                       Grads grads, std::string &) {
  if (isa<FloatType>(getElementTypeOrSelf(op->getOperand(0).getType())))
    grads[0] = e.castLike(rg[0], op->getOperand(0));
  return success();
}

/// CastLike: like Cast; the second operand only gives the type.
LogicalResult castLikeGrad(GradientEmitter &e, Operation *op,
                           ArrayRef<Value> rg, Grads grads, std::string &) {
  if (isa<FloatType>(getElementTypeOrSelf(op->getOperand(0).getType())))
    grads[0] = e.castLike(rg[0], op->getOperand(0));
  return success();
}

LogicalResult whereGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                        Grads grads, std::string &why) {
  Value cond = op->getOperand(0), g = rg[0], zero = e.scalar(g, 0.0);
  if (failed(
          setBroadcast(e, op, grads, 1, e.make("Where", {cond, g, zero}), why)))
    return failure();
  return setBroadcast(e, op, grads, 2, e.make("Where", {cond, zero, g}), why);
}

LogicalResult preluGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                        Grads grads, std::string &why) {
  Value x = op->getOperand(0), slope = op->getOperand(1), g = rg[0];
  Value pos = boolOf(e, "Greater", x, e.scalar(x, 0.0));
  Value zero = e.scalar(g, 0.0);
  grads[0] = e.make("Where", {pos, g, e.mul(g, slope)});
  return setBroadcast(e, op, grads, 1,
                      e.make("Where", {pos, zero, e.mul(g, x)}), why);
}

//===- Products -----------------------------------------------------------===//

Value swapLastTwo(GradientEmitter &e, Value v) {
  int64_t r = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, r));
  std::swap(perm[r - 1], perm[r - 2]);
  return e.transpose(v, perm);
}

LogicalResult matMulGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                         Grads grads, std::string &why) {
  Value a = op->getOperand(0), b = op->getOperand(1), g = rg[0];
  auto aType = dyn_cast<RankedTensorType>(a.getType());
  auto bType = dyn_cast<RankedTensorType>(b.getType());
  if (!aType || !bType) {
    why = "the operands' ranks are unknown";
    return failure();
  }
  if (aType.getRank() == 1 && bType.getRank() == 1) {
    grads[0] = e.mul(g, b);
    grads[1] = e.mul(g, a);
    return success();
  }
  // Vectors as matrices: A (K) as (1, K), B (K) as (K, 1).
  Value a2 = a, b2 = b, g2 = g;
  if (aType.getRank() == 1) {
    a2 = e.make("Unsqueeze", {a, e.i64s({0})});
    g2 = e.make("Unsqueeze", {g, e.i64s({-2})});
  }
  if (bType.getRank() == 1) {
    b2 = e.make("Unsqueeze", {b, e.i64s({1})});
    g2 = e.make("Unsqueeze", {g, e.i64s({-1})});
  }
  Value ga = e.make("MatMul", {g2, swapLastTwo(e, b2)});
  Value gb = e.make("MatMul", {swapLastTwo(e, a2), g2});
  FailureOr<Value> ra = e.sumToOperand(ga, a2, {b2}, why, 2);
  if (failed(ra))
    return failure();
  FailureOr<Value> rb = e.sumToOperand(gb, b2, {a2}, why, 2);
  if (failed(rb))
    return failure();
  grads[0] = e.reshapeLike(*ra, a);
  grads[1] = e.reshapeLike(*rb, b);
  return success();
}

LogicalResult gemmGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                       Grads grads, std::string &why) {
  auto gemm = cast<ONNXGemmOp>(op);
  Value a = gemm.getA(), b = gemm.getB(), g = rg[0];
  bool ta = gemm.getTransA() != 0, tb = gemm.getTransB() != 0;
  double alpha = gemm.getAlpha().convertToDouble();
  double beta = gemm.getBeta().convertToDouble();
  auto product = [&](Value x, Value y, bool tx, bool ty) {
    return e.make("Gemm", {x, y},
                  {{"alpha", e.f32Attr(alpha)},
                   {"transA", e.i64Attr(tx)},
                   {"transB", e.i64Attr(ty)}});
  };
  // Y = alpha op(A) op(B) + beta C.
  grads[0] = ta ? product(b, g, tb, true) : product(g, b, false, !tb);
  grads[1] = tb ? product(g, a, true, ta) : product(a, g, !ta, false);
  if (Value c = gemm.getC()) {
    Value gc = beta == 1.0 ? g : e.mul(g, e.scalar(g, beta));
    FailureOr<Value> r = e.sumToOperand(gc, c, {g}, why);
    if (failed(r))
      return failure();
    grads[2] = *r;
  }
  return success();
}

} // namespace

void mlir::onnxc::registerElementwiseGradientRules(
    llvm::StringMap<GradientRule> &rules) {
  rules["onnx.Add"] = addGrad;
  rules["onnx.Sub"] = subGrad;
  rules["onnx.Mul"] = mulGrad;
  rules["onnx.Div"] = divGrad;
  rules["onnx.Pow"] = powGrad;
  rules["onnx.Sum"] = variadicGrad<0>;
  rules["onnx.Mean"] = variadicGrad<1>;
  rules["onnx.Max"] = variadicGrad<2>;
  rules["onnx.Min"] = variadicGrad<2>;
  rules["onnx.Identity"] = identityGrad;
  rules["onnx.Neg"] = negGrad;
  rules["onnx.Relu"] = reluGrad;
  rules["onnx.LeakyRelu"] = leakyReluGrad;
  rules["onnx.Elu"] = eluGrad;
  rules["onnx.Selu"] = seluGrad;
  rules["onnx.Clip"] = clipGrad;
  rules["onnx.PRelu"] = preluGrad;
  rules["onnx.Sigmoid"] = unaryGrad<sigmoidD>;
  rules["onnx.HardSigmoid"] = unaryGrad<hardSigmoidD>;
  rules["onnx.Tanh"] = unaryGrad<tanhD>;
  rules["onnx.Exp"] = unaryGrad<expD>;
  rules["onnx.Log"] = unaryGrad<logD>;
  rules["onnx.Sqrt"] = unaryGrad<sqrtD>;
  rules["onnx.Reciprocal"] = unaryGrad<reciprocalD>;
  rules["onnx.Abs"] = unaryGrad<absD>;
  rules["onnx.Erf"] = unaryGrad<erfD>;
  rules["onnx.Softplus"] = unaryGrad<softplusD>;
  rules["onnx.Softsign"] = unaryGrad<softsignD>;
  rules["onnx.Sin"] = unaryGrad<sinD>;
  rules["onnx.Cos"] = unaryGrad<cosD>;
  rules["onnx.Gelu"] = unaryGrad<geluD>;
  rules["onnx.Cast"] = castGrad;
  rules["onnx.CastLike"] = castLikeGrad;
  rules["onnx.Where"] = whereGrad;
  rules["onnx.MatMul"] = matMulGrad;
  rules["onnx.Gemm"] = gemmGrad;
}
