//===- GradientRulesNorm.cpp - Gradients of normalisations and losses -----===//
//
// Gradient rules (see Autodiff.h) of BatchNormalization (inference and
// training mode), LayerNormalization, SoftmaxCrossEntropyLoss and
// NegativeLogLikelihoodLoss (every reduction, ignore_index, class weights).
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
    Value invStd = e.make("Reciprocal",
                          {e.make("Sqrt", {e.add(var, e.scalar(var, eps))})});
    Value xc = e.sub(x, mean);
    Value sumGxc = e.reduceSum(e.mul(g, xc), axes, false);
    grads[0] = e.mul(g, e.mul(scale, invStd));
    Value invStdVec =
        e.make("Reciprocal",
               {e.make("Sqrt", {e.add(bn.getInputVar(), e.scalar(x, eps))})});
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
  // Training mode: statistics of the batch (biased variance), so
  // dx = scale invstd (g - mean(g) - xhat mean(g xhat)).
  Value mean = meanOver(e, x, axes);
  Value xc = e.sub(x, mean);
  Value var = meanOver(e, e.mul(xc, xc), axes);
  Value invStd =
      e.make("Reciprocal", {e.make("Sqrt", {e.add(var, e.scalar(var, eps))})});
  Value xhat = e.mul(xc, invStd);
  Value meanG = meanOver(e, g, axes);
  Value meanGx = meanOver(e, e.mul(g, xhat), axes);
  grads[0] =
      e.mul(e.mul(scale, invStd), e.sub(e.sub(g, meanG), e.mul(xhat, meanGx)));
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
  Value mean = meanOver(e, x, axes);
  Value xc = e.sub(x, mean);
  Value var = meanOver(e, e.mul(xc, xc), axes);
  Value invStd =
      e.make("Reciprocal", {e.make("Sqrt", {e.add(var, e.scalar(var, eps))})});
  Value xhat = e.mul(xc, invStd);
  Value gs = e.mul(g, ln.getScale());
  grads[0] =
      e.mul(invStd, e.sub(e.sub(gs, meanOver(e, gs, axes)),
                          e.mul(xhat, meanOver(e, e.mul(gs, xhat), axes))));
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

/// The gradient of a negative log-likelihood loss with respect to its
/// log-probabilities `logProb` (N, C, d...) for `labels` (N, d...): for each
/// element -w[label] where the class is the label (0 for ignored labels),
/// times the loss's gradient, divided by the sum of the weights for 'mean'.
FailureOr<Value> nllGrad(GradientEmitter &e, Value logProb, Value labels,
                         Value weights, std::optional<int64_t> ignoreIndex,
                         StringRef reduction, Value g, std::string &why) {
  auto lpType = dyn_cast<RankedTensorType>(logProb.getType());
  if (!lpType || lpType.getRank() < 2 || lpType.isDynamicDim(1)) {
    why = "the number of classes must be static";
    return failure();
  }
  int64_t r = lpType.getRank(), classes = lpType.getDimSize(1);
  Value safe = labels;
  Value kept;
  if (ignoreIndex) {
    Value ignored = e.castLike(e.i64s({*ignoreIndex}), labels);
    kept = e.make("Not",
                  {e.make("Equal", {labels, ignored}, {}, e.b.getI1Type())});
    safe = e.make("Where", {kept, labels, e.castLike(e.i64s({0}), labels)});
  }
  // Per element weight (N, d...).
  Value w;
  if (weights)
    w = e.make("Gather", {weights, safe}, {{"axis", e.i64Attr(0)}});
  if (kept) {
    Value k = e.castLike(kept, logProb);
    w = w ? e.mul(w, k) : k;
  }
  // One-hot of the labels along axis 1.
  SmallVector<int64_t> classShape(r, 1);
  classShape[1] = classes;
  SmallVector<int64_t> classIds =
      llvm::to_vector(llvm::seq<int64_t>(0, classes));
  Value ids = e.make(
      "Reshape", {e.castLike(e.i64s(classIds), labels), e.i64s(classShape)});
  Value onehot = e.castLike(
      e.make("Equal", {e.make("Unsqueeze", {safe, e.i64s({1})}), ids}, {},
             e.b.getI1Type()),
      logProb);
  Value scale = g; // (N, d...) for 'none', a scalar otherwise.
  if (reduction == "mean") {
    Value total =
        w ? e.make("ReduceSum", {w}, {{"keepdims", e.i64Attr(0)}})
          : e.castLike(e.make("Size", {labels}, {}, e.b.getI64Type()), logProb);
    scale = e.div(g, total);
  } else if (reduction != "sum" && reduction != "none") {
    why = "reduction '" + reduction.str() + "'";
    return failure();
  }
  Value perElement = w ? e.mul(w, scale) : scale;
  if (reduction == "none" || w)
    perElement = e.make("Unsqueeze", {perElement, e.i64s({1})});
  Value result = e.neg(e.mul(onehot, perElement));
  result.setType(lpType);
  return result;
}

LogicalResult nllLossGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                          Grads grads, std::string &why) {
  auto nll = cast<ONNXNegativeLogLikelihoodLossOp>(op);
  FailureOr<Value> gi =
      nllGrad(e, nll.getInput(), nll.getTarget(), nll.getWeight(),
              nll.getIgnoreIndex(), nll.getReduction(), rg[0], why);
  if (failed(gi))
    return failure();
  grads[0] = *gi;
  return success();
}

LogicalResult sceLossGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                          Grads grads, std::string &why) {
  auto sce = cast<ONNXSoftmaxCrossEntropyLossOp>(op);
  Value scores = sce.getScores();
  // loss = NLL(LogSoftmax(scores, axis 1)); log_prob is that LogSoftmax.
  Value logProb = e.make("LogSoftmax", {scores}, {{"axis", e.i64Attr(1)}});
  Value glp = rg.size() > 1 ? rg[1] : Value();
  if (rg[0]) {
    FailureOr<Value> g =
        nllGrad(e, logProb, sce.getLabels(), sce.getWeights(),
                sce.getIgnoreIndex(), sce.getReduction(), rg[0], why);
    if (failed(g))
      return failure();
    glp = glp ? e.add(glp, *g) : *g;
  }
  if (!glp)
    return success();
  Value total = e.reduceSum(glp, {1}, true);
  Value gs = e.sub(glp, e.mul(e.make("Exp", {logProb}), total));
  gs.setType(scores.getType());
  grads[0] = gs;
  return success();
}

} // namespace

void mlir::onnxc::registerNormGradientRules(
    llvm::StringMap<GradientRule> &rules) {
  rules["onnx.BatchNormalization"] = batchNormGrad;
  rules["onnx.LayerNormalization"] = layerNormGrad;
  rules["onnx.NegativeLogLikelihoodLoss"] = nllLossGrad;
  rules["onnx.SoftmaxCrossEntropyLoss"] = sceLossGrad;
}
