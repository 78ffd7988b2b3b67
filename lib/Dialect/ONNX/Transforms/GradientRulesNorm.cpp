//===- GradientRulesNorm.cpp - Gradients of the normalisations -----------===//
//
// Gradient rules (see Autodiff.h) of BatchNormalization (inference and
// training mode) and LayerNormalization. (The losses
// SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss are replaced by
// their ONNX function bodies at import, whose ops have rules.)
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/Autodiff.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Grads = MutableArrayRef<Value>;

/// The mean of `v` over `axes`, kept as size-1 dims.
Value meanOver(GradientEmitter &e, Value v, ArrayRef<int64_t> axes) {
  return e.make("ReduceMean", {v, e.i64s(axes)}, {{"keepdims", e.i64Attr(1)}});
}

/// 1 / sqrt(var + eps).
Value invStdOf(GradientEmitter &e, Value var, double eps) {
  return e.make("Reciprocal",
                {e.make("Sqrt", {e.add(var, e.scalar(var, eps))})});
}

/// The gradient of x -> xhat = (x - mean(x)) / sqrt(var(x) + eps) over
/// `axes` (biased variance: batch and layer normalisation), for dxhat =
/// `gxhat`: invstd (gxhat - mean(gxhat) - xhat mean(gxhat xhat)). Sets
/// `xhat`, which the affine parameters' gradients need.
Value normalizedGrad(GradientEmitter &e, Value x, Value gxhat,
                     ArrayRef<int64_t> axes, double eps, Value &xhat) {
  Value xc = e.sub(x, meanOver(e, x, axes));
  Value invStd = invStdOf(e, meanOver(e, e.mul(xc, xc), axes), eps);
  xhat = e.mul(xc, invStd);
  return e.mul(invStd,
               e.sub(e.sub(gxhat, meanOver(e, gxhat, axes)),
                     e.mul(xhat, meanOver(e, e.mul(gxhat, xhat), axes))));
}

LogicalResult batchNormGrad(GradientEmitter &e, Operation *op,
                            ArrayRef<Value> rg, Grads grads, std::string &why) {
  auto bn = cast<ONNXBatchNormalizationOp>(op);
  Value x = bn.getX(), g = rg[0];
  int64_t r = rankOf(x);
  if (r < 2) {
    why = "the input's rank is unknown or below 2";
    return failure();
  }
  if ((rg.size() > 1 && rg[1]) || (rg.size() > 2 && rg[2])) {
    why = "a gradient through the running statistics";
    return failure();
  }
  if (!g)
    return success();
  double eps = bn.getEpsilon().convertToDouble();
  SmallVector<int64_t> axes = allButChannels(r);
  Value scale = e.perChannel(bn.getScale(), r);
  Value sumG = e.reduceSum(g, axes, true);
  if (!bn.getTrainingMode()) {
    // Statistics are inputs: y = (x - mean) a + B, a = scale / sqrt(var+eps).
    Value mean = e.perChannel(bn.getInputMean(), r);
    Value var = e.perChannel(bn.getInputVar(), r);
    Value invStd = invStdOf(e, var, eps);
    Value xc = e.sub(x, mean);
    Value sumGxc = e.reduceSum(e.mul(g, xc), axes, false);
    grads[0] = e.mul(g, e.mul(scale, invStd));
    Value invStdVec = invStdOf(e, bn.getInputVar(), eps);
    grads[1] = e.mul(sumGxc, invStdVec);
    grads[2] = e.reshapeLike(sumG, bn.getB());
    grads[3] = e.neg(
        e.mul(e.reshapeLike(sumG, bn.getB()), e.mul(bn.getScale(), invStdVec)));
    // d/dvar: -scale/2 (var+eps)^(-3/2) sum(g (x-mean)).
    Value cube = e.mul(invStdVec, e.mul(invStdVec, invStdVec));
    grads[4] =
        e.mul(e.mul(sumGxc, e.scalar(x, -0.5)), e.mul(bn.getScale(), cube));
    return success();
  }
  // Training mode: statistics of the batch (biased variance).
  Value xhat;
  grads[0] = normalizedGrad(e, x, e.mul(g, scale), axes, eps, xhat);
  grads[1] =
      e.reshapeLike(e.reduceSum(e.mul(g, xhat), axes, false), bn.getScale());
  grads[2] = e.reshapeLike(sumG, bn.getB());
  return success();
}

LogicalResult layerNormGrad(GradientEmitter &e, Operation *op,
                            ArrayRef<Value> rg, Grads grads, std::string &why) {
  auto ln = cast<ONNXLayerNormalizationOp>(op);
  Value x = ln.getX(), g = rg[0];
  int64_t r = rankOf(x);
  if (r < 0) {
    why = "the input's rank is unknown";
    return failure();
  }
  if ((rg.size() > 1 && rg[1]) || (rg.size() > 2 && rg[2])) {
    why = "a gradient through its Mean or InvStdDev output";
    return failure();
  }
  if (!g)
    return success();
  int64_t axis = int64_t(ln.getAxis());
  if (axis < 0)
    axis += r;
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(axis, r));
  double eps = ln.getEpsilon().convertToDouble();
  Value xhat;
  grads[0] = normalizedGrad(e, x, e.mul(g, ln.getScale()), axes, eps, xhat);
  FailureOr<Value> gScale =
      e.sumToOperand(e.mul(g, xhat), ln.getScale(), {x}, why);
  if (failed(gScale))
    return failure();
  grads[1] = *gScale;
  if (Value b = ln.getB()) {
    FailureOr<Value> gb = e.sumToOperand(g, b, {x}, why);
    if (failed(gb))
      return failure();
    grads[2] = *gb;
  }
  return success();
}

} // namespace

void mlir::onnxc::registerNormGradientRules(
    llvm::StringMap<GradientRule> &rules) {
  rules["onnx.BatchNormalization"] = batchNormGrad;
  rules["onnx.LayerNormalization"] = layerNormGrad;
}
