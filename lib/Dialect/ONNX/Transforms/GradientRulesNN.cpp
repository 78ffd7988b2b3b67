//===- GradientRulesNN.cpp - Gradients of the neural-network operators ----===//
//
// Gradient rules (see Autodiff.h) of Softmax/LogSoftmax, Conv, the poolings,
// BatchNormalization, LayerNormalization and the losses
// SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss, written with onnx
// ops (a Conv's input gradient is a ConvTranspose, its filter gradient a
// Conv of the input by the output gradient).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/Autodiff.h"

#include <numeric>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Grads = MutableArrayRef<Value>;

SmallVector<int64_t> intsOr(std::optional<ArrayAttr> attr, size_t n,
                            int64_t fill) {
  if (!attr)
    return SmallVector<int64_t>(n, fill);
  return llvm::to_vector(llvm::map_range(
      *attr, [](Attribute a) { return cast<IntegerAttr>(a).getInt(); }));
}

RankedTensorType staticType(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() ? t : RankedTensorType();
}

/// `v`'s type when every dim but the batch (dim 0) is static.
RankedTensorType staticButBatch(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() < 1 ||
      llvm::any_of(t.getShape().drop_front(), ShapedType::isDynamic))
    return RankedTensorType();
  return t;
}

//===- Softmax ------------------------------------------------------------===//

int64_t normalisedAxis(int64_t axis, Value v) {
  return axis < 0 ? axis + cast<RankedTensorType>(v.getType()).getRank() : axis;
}

LogicalResult softmaxGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                          Grads grads, std::string &why) {
  auto softmax = cast<ONNXSoftmaxOp>(op);
  Value y = softmax.getOutput(), g = rg[0];
  if (!isa<RankedTensorType>(y.getType())) {
    why = "the rank is unknown";
    return failure();
  }
  int64_t axis = normalisedAxis(softmax.getAxis(), y);
  Value dot = e.reduceSum(e.mul(g, y), {axis}, true);
  grads[0] = e.mul(y, e.sub(g, dot));
  return success();
}

LogicalResult logSoftmaxGrad(GradientEmitter &e, Operation *op,
                             ArrayRef<Value> rg, Grads grads,
                             std::string &why) {
  auto logSoftmax = cast<ONNXLogSoftmaxOp>(op);
  Value y = logSoftmax.getOutput(), g = rg[0];
  if (!isa<RankedTensorType>(y.getType())) {
    why = "the rank is unknown";
    return failure();
  }
  int64_t axis = normalisedAxis(logSoftmax.getAxis(), y);
  Value total = e.reduceSum(g, {axis}, true);
  grads[0] = e.sub(g, e.mul(e.make("Exp", {y}), total));
  return success();
}

//===- Convolution and pooling --------------------------------------------===//

/// A convolution-like window: kernel, strides, dilations and explicit pads
/// (auto_pad resolved against the static shapes).
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

FailureOr<Window> windowOf(StringRef autoPad, std::optional<ArrayAttr> kernel,
                           std::optional<ArrayAttr> strides,
                           std::optional<ArrayAttr> dilations,
                           std::optional<ArrayAttr> pads,
                           RankedTensorType xType, RankedTensorType yType,
                           ArrayRef<int64_t> kernelFallback, std::string &why) {
  size_t n = xType.getRank() - 2;
  Window w;
  w.kernel =
      kernel ? intsOr(kernel, n, 1) : SmallVector<int64_t>(kernelFallback);
  w.strides = intsOr(strides, n, 1);
  w.dilations = intsOr(dilations, n, 1);
  w.pads = intsOr(pads, 2 * n, 0);
  if (w.kernel.size() != n || w.strides.size() != n ||
      w.dilations.size() != n || w.pads.size() != 2 * n) {
    why = "its window attributes do not match the input's rank";
    return failure();
  }
  if (autoPad == "VALID")
    w.pads.assign(2 * n, 0);
  else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      int64_t in = xType.getDimSize(i + 2), out = yType.getDimSize(i + 2);
      int64_t total =
          std::max<int64_t>((out - 1) * w.strides[i] +
                                (w.kernel[i] - 1) * w.dilations[i] + 1 - in,
                            0);
      int64_t small = total / 2;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : total - small;
      w.pads[i + n] = total - w.pads[i];
    }
  } else if (autoPad != "NOTSET") {
    why = "auto_pad " + autoPad.str();
    return failure();
  }
  return w;
}

/// The output_padding a ConvTranspose with window `w` needs to map the
/// spatial dims of `yType` back to those of `xType`; fails when the forward
/// op's output is not the floor formula's (ceil_mode).
FailureOr<SmallVector<int64_t>> outputPadding(const Window &w,
                                              RankedTensorType xType,
                                              RankedTensorType yType,
                                              std::string &why) {
  size_t n = w.kernel.size();
  SmallVector<int64_t> outputPad;
  for (size_t i = 0; i < n; ++i) {
    int64_t in = xType.getDimSize(i + 2), out = yType.getDimSize(i + 2);
    int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t back =
        w.strides[i] * (out - 1) + extent - w.pads[i] - w.pads[i + n];
    int64_t p = in - back;
    if (p < 0 || p >= std::max<int64_t>(w.strides[i], w.dilations[i])) {
      why = "its output size is not the floor of the window formula "
            "(ceil_mode)";
      return failure();
    }
    outputPad.push_back(p);
  }
  return outputPad;
}

/// The gradient of a convolution's filter `w`, for a window `win` sliding
/// over `padded` (N, Cp, ...) against `other` (N, Co, ...):
/// dW[o, p, k] = sum over n, i of other[n, o, i] padded[n, p, i s + k d]
/// (Conv: padded = X, other = dY; ConvTranspose: padded = dY, other = X). A
/// Conv of `padded` with batch and channels swapped by `other` likewise,
/// strides and dilations exchanged, gives every (p, o) pair; a grouped
/// convolution keeps those in the same group.
Value filterGrad(GradientEmitter &e, Value padded, Value other, Value w,
                 const Window &win, int64_t group) {
  auto pType = cast<RankedTensorType>(padded.getType());
  auto oType = cast<RankedTensorType>(other.getType());
  int64_t r = pType.getRank(), n = r - 2;
  SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, r));
  std::swap(swap[0], swap[1]);
  Value full =
      e.make("Conv", {e.transpose(padded, swap), e.transpose(other, swap)},
             {{"strides", e.i64ArrayAttr(win.dilations)},
              {"dilations", e.i64ArrayAttr(win.strides)},
              {"pads", e.i64ArrayAttr(win.pads)}});
  // (Cp, Co, k') -> (Cp, Co, k): the window positions past the kernel.
  SmallVector<int64_t> zeros(n, 0), axes;
  for (int64_t i = 0; i < n; ++i)
    axes.push_back(i + 2);
  full =
      e.make("Slice", {full, e.i64s(zeros), e.i64s(win.kernel), e.i64s(axes)});
  if (group == 1)
    return e.reshapeLike(e.transpose(full, swap), w);
  int64_t kernelSize = std::accumulate(win.kernel.begin(), win.kernel.end(),
                                       int64_t(1), std::multiplies<>());
  int64_t pg = pType.getDimSize(1) / group, og = oType.getDimSize(1) / group;
  // (G, Pg, G, Og, K) -> (G, G, Pg, Og, K) -> the diagonal (G, Pg, Og, K)
  // -> (G, Og, Pg, K) -> (Co, Pg, k...).
  Value v =
      e.make("Reshape", {full, e.i64s({group, pg, group, og, kernelSize})});
  v = e.transpose(v, {0, 2, 1, 3, 4});
  v = e.make("Reshape", {v, e.i64s({group * group, pg * og * kernelSize})});
  SmallVector<int64_t> diagonal;
  for (int64_t i = 0; i < group; ++i)
    diagonal.push_back(i * group + i);
  v = e.make("Gather", {v, e.i64s(diagonal)}, {{"axis", e.i64Attr(0)}});
  v = e.make("Reshape", {v, e.i64s({group, pg, og, kernelSize})});
  return e.reshapeLike(e.transpose(v, {0, 2, 1, 3}), w);
}

LogicalResult convGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                       Grads grads, std::string &why) {
  auto conv = cast<ONNXConvOp>(op);
  Value x = conv.getX(), w = conv.getW(), g = rg[0];
  RankedTensorType xType = staticButBatch(x), wType = staticType(w),
                   yType = staticButBatch(conv.getY());
  if (!xType || !wType || !yType) {
    why = "the shapes of X and Y must be static but for the batch, W's static";
    return failure();
  }
  int64_t r = xType.getRank(), group = conv.getGroup();
  FailureOr<Window> win =
      windowOf(conv.getAutoPad(), conv.getKernelShape(), conv.getStrides(),
               conv.getDilations(), conv.getPads(), xType, yType,
               wType.getShape().drop_front(2), why);
  if (failed(win))
    return failure();
  FailureOr<SmallVector<int64_t>> outPad =
      outputPadding(*win, xType, yType, why);
  if (failed(outPad))
    return failure();
  // dX: the transposed convolution of dY by W.
  Value gx = e.make("ConvTranspose", {g, w},
                    {{"strides", e.i64ArrayAttr(win->strides)},
                     {"dilations", e.i64ArrayAttr(win->dilations)},
                     {"pads", e.i64ArrayAttr(win->pads)},
                     {"group", e.i64Attr(group)},
                     {"output_padding", e.i64ArrayAttr(*outPad)}});
  gx.setType(xType);
  grads[0] = gx;
  grads[1] = filterGrad(e, x, g, w, *win, group);
  if (Value b = conv.getB())
    grads[2] = e.reshapeLike(e.reduceSum(g, allButChannels(r), false), b);
  return success();
}

LogicalResult convTransposeGrad(GradientEmitter &e, Operation *op,
                                ArrayRef<Value> rg, Grads grads,
                                std::string &why) {
  auto conv = cast<ONNXConvTransposeOp>(op);
  Value x = conv.getX(), w = conv.getW(), g = rg[0];
  RankedTensorType xType = staticButBatch(x), wType = staticType(w),
                   yType = staticButBatch(conv.getY());
  if (!xType || !wType || !yType) {
    why = "the shapes of X and Y must be static but for the batch, W's static";
    return failure();
  }
  int64_t r = xType.getRank(), group = conv.getGroup();
  std::optional<ArrayAttr> pads = conv.getPads();
  StringRef autoPad = conv.getAutoPad();
  if (autoPad == "VALID") {
    pads = std::nullopt;
  } else if (autoPad != "NOTSET" || conv.getOutputShape()) {
    // The pads that give Y's size (ONNX's equations for output_shape and
    // SAME_*): total = s (X - 1) + output_padding + (k - 1) d + 1 - Y,
    // the smaller half first for SAME_UPPER, last otherwise.
    if (autoPad != "NOTSET" && autoPad != "SAME_UPPER" &&
        autoPad != "SAME_LOWER") {
      why = "auto_pad " + autoPad.str();
      return failure();
    }
    int64_t n = r - 2;
    SmallVector<int64_t> kernel =
        conv.getKernelShape()
            ? intsOr(conv.getKernelShape(), n, 1)
            : SmallVector<int64_t>(wType.getShape().drop_front(2));
    SmallVector<int64_t> strides = intsOr(conv.getStrides(), n, 1),
                         dilations = intsOr(conv.getDilations(), n, 1),
                         outPad = intsOr(conv.getOutputPadding(), n, 0);
    if (int64_t(kernel.size()) != n || int64_t(strides.size()) != n ||
        int64_t(dilations.size()) != n || int64_t(outPad.size()) != n) {
      why = "its window attributes do not match the input's rank";
      return failure();
    }
    SmallVector<int64_t> explicitPads(2 * n);
    for (int64_t i = 0; i < n; ++i) {
      int64_t total = strides[i] * (xType.getDimSize(i + 2) - 1) + outPad[i] +
                      (kernel[i] - 1) * dilations[i] + 1 -
                      yType.getDimSize(i + 2);
      explicitPads[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      explicitPads[i + n] = total - explicitPads[i];
    }
    pads = e.b.getI64ArrayAttr(explicitPads);
  }
  FailureOr<Window> win = windowOf(
      "NOTSET", conv.getKernelShape(), conv.getStrides(), conv.getDilations(),
      pads, xType, yType, wType.getShape().drop_front(2), why);
  if (failed(win))
    return failure();
  // X = the adjoint: dX is the convolution of dY by W with the same window.
  Value gx = e.make("Conv", {g, w},
                    {{"strides", e.i64ArrayAttr(win->strides)},
                     {"dilations", e.i64ArrayAttr(win->dilations)},
                     {"pads", e.i64ArrayAttr(win->pads)},
                     {"group", e.i64Attr(group)}});
  gx.setType(xType);
  grads[0] = gx;
  grads[1] = filterGrad(e, g, x, w, *win, group);
  if (Value b = conv.getB())
    grads[2] = e.reshapeLike(e.reduceSum(g, allButChannels(r), false), b);
  return success();
}

LogicalResult maxPoolGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                          Grads grads, std::string &why) {
  auto pool = cast<ONNXMaxPoolOp>(op);
  Value x = pool.getX(), g = rg[0];
  if (!g)
    return success();
  if (!isa<RankedTensorType>(x.getType())) {
    why = "the input's rank is unknown";
    return failure();
  }
  // The same pooling with the argmax (row-major flat indices into X), whose
  // gradient is scattered back and added where windows overlap.
  SmallVector<std::pair<StringRef, Attribute>> attrs;
  for (NamedAttribute a : op->getAttrs())
    if (a.getName() != "storage_order")
      attrs.push_back({a.getName().getValue(), a.getValue()});
  Operation *argmax =
      e.create("MaxPool", {x}, attrs, 2, getElementTypeOrSelf(x.getType()));
  argmax->getResult(1).setType(
      cast<RankedTensorType>(argmax->getResult(0).getType())
          .clone(e.b.getI64Type()));
  Value zeros = e.make("Reshape", {e.filledLike(x, 0.0), e.i64s({-1})});
  Value flat =
      e.make("ScatterElements",
             {zeros, e.make("Reshape", {argmax->getResult(1), e.i64s({-1})}),
              e.make("Reshape", {g, e.i64s({-1})})},
             {{"axis", e.i64Attr(0)}, {"reduction", e.b.getStringAttr("add")}});
  grads[0] = e.reshapeLike(flat, x);
  return success();
}

LogicalResult averagePoolGrad(GradientEmitter &e, Operation *op,
                              ArrayRef<Value> rg, Grads grads,
                              std::string &why) {
  auto pool = cast<ONNXAveragePoolOp>(op);
  Value x = pool.getX(), g = rg[0];
  RankedTensorType xType = staticButBatch(x),
                   yType = staticButBatch(pool.getY());
  if (!xType || !yType) {
    why = "the shapes of X and Y must be static but for the batch";
    return failure();
  }
  FailureOr<Window> win =
      windowOf(pool.getAutoPad(), pool.getKernelShape(), pool.getStrides(),
               pool.getDilations(), pool.getPads(), xType, yType, {}, why);
  if (failed(win))
    return failure();
  FailureOr<SmallVector<int64_t>> outPad =
      outputPadding(*win, xType, yType, why);
  if (failed(outPad))
    return failure();
  int64_t r = xType.getRank(), c = xType.getDimSize(1);
  Type element = xType.getElementType();
  bool padded = llvm::any_of(win->pads, [](int64_t p) { return p != 0; });
  // Each output's divisor: the window size, or with count_include_pad 0 the
  // number of the window's positions inside X.
  Value divided;
  SmallVector<int64_t> onesKernel{1, 1};
  onesKernel.append(win->kernel);
  auto windowAttrs = [&](bool transposed) {
    SmallVector<std::pair<StringRef, Attribute>> attrs{
        {"strides", e.i64ArrayAttr(win->strides)},
        {"dilations", e.i64ArrayAttr(win->dilations)},
        {"pads", e.i64ArrayAttr(win->pads)}};
    if (transposed) {
      attrs.push_back({"group", e.i64Attr(c)});
      attrs.push_back({"output_padding", e.i64ArrayAttr(*outPad)});
    }
    return attrs;
  };
  if (padded && !pool.getCountIncludePad()) {
    SmallVector<int64_t> onesShape{1, 1};
    onesShape.append(xType.getShape().drop_front(2).begin(),
                     xType.getShape().end());
    Value ones = e.filled(onesShape, element, 1.0);
    Value kernelOnes = e.filled(onesKernel, element, 1.0);
    Value count = e.make("Conv", {ones, kernelOnes}, windowAttrs(false));
    divided = e.div(g, count);
  } else {
    int64_t size = std::accumulate(win->kernel.begin(), win->kernel.end(),
                                   int64_t(1), std::multiplies<>());
    divided = e.mul(g, e.scalar(g, 1.0 / size));
  }
  SmallVector<int64_t> kernelShape{c, 1};
  kernelShape.append(win->kernel);
  Value kernel = e.filled(kernelShape, element, 1.0);
  Value gx = e.make("ConvTranspose", {divided, kernel}, windowAttrs(true));
  gx.setType(xType);
  grads[0] = gx;
  (void)r;
  return success();
}

} // namespace

namespace {

LogicalResult globalAveragePoolGrad(GradientEmitter &e, Operation *op,
                                    ArrayRef<Value> rg, Grads grads,
                                    std::string &) {
  Value x = op->getOperand(0), y = op->getResult(0);
  Value size = e.div(e.castLike(e.make("Size", {x}, {}, e.b.getI64Type()), x),
                     e.castLike(e.make("Size", {y}, {}, e.b.getI64Type()), x));
  Value g = e.make("Expand", {e.div(rg[0], size), e.shapeOf(x)});
  g.setType(x.getType());
  grads[0] = g;
  return success();
}

LogicalResult globalMaxPoolGrad(GradientEmitter &e, Operation *op,
                                ArrayRef<Value> rg, Grads grads,
                                std::string &why) {
  Value x = op->getOperand(0), y = op->getResult(0);
  int64_t r = cast<RankedTensorType>(x.getType()).getRank();
  // Ties share the gradient evenly.
  Value hit = e.castLike(e.make("Equal", {x, y}, {}, e.b.getI1Type()), x);
  Value count =
      e.reduceSum(hit, llvm::to_vector(llvm::seq<int64_t>(2, r)), true);
  Value g = e.div(e.mul(hit, rg[0]), count);
  g.setType(x.getType());
  grads[0] = g;
  return success();
}

} // namespace

void mlir::onnxc::registerNNGradientRules(
    llvm::StringMap<GradientRule> &rules) {
  rules["onnx.Softmax"] = softmaxGrad;
  rules["onnx.LogSoftmax"] = logSoftmaxGrad;
  rules["onnx.Conv"] = convGrad;
  rules["onnx.ConvTranspose"] = convTransposeGrad;
  rules["onnx.MaxPool"] = maxPoolGrad;
  rules["onnx.AveragePool"] = averagePoolGrad;
  rules["onnx.GlobalAveragePool"] = globalAveragePoolGrad;
  rules["onnx.GlobalMaxPool"] = globalMaxPoolGrad;
}
