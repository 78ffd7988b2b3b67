//===- Training.cpp - ai.onnx.preview.training optimizers -> linalg -------===//
//
// Adagrad, Momentum and Adam update n tensors at once: their variadic
// inputs are R (learning rate), T (update count), then n X, n G and one or
// two groups of n per-tensor states (V, H). Each output is one elementwise
// linalg.generic over (R, T, X_i, G_i, V_i[, H_i]); an output that needs
// another one's new value (X_new needs H_new) recomputes it in its body, so
// the n * k generics stay independent and fuse with nothing else.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// Float arithmetic in one element type, constants folded in.
struct FloatMath {
  OpBuilder &b;
  Location loc;
  Type type;
  Value c(double v) const { return createScalarConstant(b, loc, type, v); }
  Value add(Value x, Value y) const {
    return arith::AddFOp::create(b, loc, x, y);
  }
  Value sub(Value x, Value y) const {
    return arith::SubFOp::create(b, loc, x, y);
  }
  Value mul(Value x, Value y) const {
    return arith::MulFOp::create(b, loc, x, y);
  }
  Value div(Value x, Value y) const {
    return arith::DivFOp::create(b, loc, x, y);
  }
  Value sqrt(Value x) const { return math::SqrtOp::create(b, loc, x); }
  /// `x` (a float of any width or an i64 count) in this type.
  Value from(Value x) const {
    if (x.getType() == type)
      return x;
    if (isa<IntegerType>(x.getType()))
      return arith::SIToFPOp::create(b, loc, type, x);
    if (x.getType().getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, type, x);
    return arith::TruncFOp::create(b, loc, type, x);
  }
  /// T > 0: the optimizers' "not the first update".
  Value positive(Value t) const {
    Value zero = arith::ConstantIntOp::create(b, loc, t.getType(), 0);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, t, zero);
  }
};

double attr(llvm::APFloat v) { return v.convertToDouble(); }

/// The scalar body of output group `j` (0 = X_new, then the states in the
/// order the op returns them). `a` = (r, t, x, g, states...).
Value optimizerBody(ONNXTrainingAdagradOp op, const FloatMath &m, unsigned j,
                    ValueRange a) {
  Value r = m.from(a[0]), t = m.from(a[1]), x = a[2], g = a[3], h = a[4];
  // r / (1 + T * decay_factor); G + norm_coefficient * X.
  Value rate =
      m.div(r, m.add(m.c(1), m.mul(t, m.c(attr(op.getDecayFactor())))));
  Value gReg = m.add(m.mul(m.c(attr(op.getNormCoefficient())), x), g);
  Value hNew = m.add(h, m.mul(gReg, gReg));
  if (j == 1)
    return hNew;
  Value hSqrt = m.add(m.sqrt(hNew), m.c(attr(op.getEpsilon())));
  return m.sub(x, m.div(m.mul(rate, gReg), hSqrt));
}

Value optimizerBody(ONNXTrainingMomentumOp op, const FloatMath &m, unsigned j,
                    ValueRange a) {
  Value r = m.from(a[0]), x = a[2], g = a[3], v = a[4];
  double alpha = attr(op.getAlpha());
  Value gReg = m.add(m.mul(m.c(attr(op.getNormCoefficient())), x), g);
  // The gradient's coefficient is 1 at the first update (T == 0).
  Value beta = arith::SelectOp::create(m.b, m.loc, m.positive(a[1]),
                                       m.c(attr(op.getBeta())), m.c(1));
  Value vNew = m.add(m.mul(m.c(alpha), v), m.mul(beta, gReg));
  if (j == 1)
    return vNew;
  if (op.getMode() == "nesterov")
    return m.sub(x, m.mul(r, m.add(gReg, m.mul(m.c(alpha), vNew))));
  return m.sub(x, m.mul(r, vNew));
}

Value optimizerBody(ONNXTrainingAdamOp op, const FloatMath &m, unsigned j,
                    ValueRange a) {
  Value r = m.from(a[0]), t = m.from(a[1]), x = a[2], g = a[3], v = a[4],
        h = a[5];
  double alpha = attr(op.getAlpha()), beta = attr(op.getBeta());
  Value gReg = m.add(m.mul(m.c(attr(op.getNormCoefficient())), x), g);
  Value vNew = m.add(m.mul(m.c(alpha), v), m.mul(m.c(1 - alpha), gReg));
  if (j == 1)
    return vNew;
  Value hNew =
      m.add(m.mul(m.c(beta), h), m.mul(m.c(1 - beta), m.mul(gReg, gReg)));
  if (j == 2)
    return hNew;
  Value hSqrt = m.add(m.sqrt(hNew), m.c(attr(op.getEpsilon())));
  // Bias correction from the second update on:
  // R * sqrt(1 - beta^T) / (1 - alpha^T).
  auto pow = [&](double base) {
    return math::PowFOp::create(m.b, m.loc, m.c(base), t).getResult();
  };
  Value corrected = m.div(m.mul(r, m.sqrt(m.sub(m.c(1), pow(beta)))),
                          m.sub(m.c(1), pow(alpha)));
  Value rate =
      arith::SelectOp::create(m.b, m.loc, m.positive(a[1]), corrected, r);
  Value xNew = m.sub(x, m.mul(rate, m.div(vNew, hSqrt)));
  return m.mul(m.c(1 - attr(op.getNormCoefficientPost())), xNew);
}

/// `groups` input groups of n tensors (X, G, states) after R and T; one
/// output group per group but G.
template <typename OpTy, unsigned groups>
class OptimizerLowering : public TensorPattern<OpTy> {
public:
  using TensorPattern<OpTy>::TensorPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange inputs = adaptor.getInputs();
    unsigned n = inputs.size() / groups;
    if (n == 0 || inputs.size() != n * groups ||
        op->getNumResults() != n * (groups - 1))
      return rewriter.notifyMatchFailure(
          op, "inputs are not n X, n G and the states of n tensors");
    Location loc = op.getLoc();
    SmallVector<Value> results(op->getNumResults());
    for (unsigned i = 0; i < n; ++i) {
      SmallVector<Value> operands{adaptor.getR(), adaptor.getT()};
      for (unsigned k = 0; k < groups; ++k)
        operands.push_back(inputs[k * n + i]);
      for (unsigned j = 0; j + 1 < groups; ++j) {
        RankedTensorType type = this->resultType(op, j * n + i);
        if (!type || !isa<FloatType>(type.getElementType()))
          return rewriter.notifyMatchFailure(op, "unranked or non-float");
        results[j * n + i] =
            buildElementwise(rewriter, loc, operands, type,
                             [&](OpBuilder &b, Location l, ValueRange args) {
                               FloatMath m{b, l, type.getElementType()};
                               return optimizerBody(op, m, j, args);
                             });
      }
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateTrainingPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<OptimizerLowering<ONNXTrainingAdagradOp, 3>,
               OptimizerLowering<ONNXTrainingMomentumOp, 3>,
               OptimizerLowering<ONNXTrainingAdamOp, 4>>(converter,
                                                         patterns.getContext());
}
