//===- GradientRulesTensor.cpp - Gradients of data movement and reductions ===//
//
// Gradient rules (see Autodiff.h) of the ops that move or select elements
// (Reshape and friends, Transpose, Expand, Concat, Split, Slice, Pad,
// Gather, GatherElements, Dropout) and of the reductions.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/Autodiff.h"
#include "onnxc/Dialect/ONNX/Transforms/GraphUtils.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Grads = MutableArrayRef<Value>;

/// The values of a constant integer tensor.
std::optional<SmallVector<int64_t>> constantInts(Value v) {
  DenseIntElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return llvm::to_vector(
      llvm::map_range(attr.getValues<APInt>(),
                      [](const APInt &i) { return i.getSExtValue(); }));
}

LogicalResult reshapeGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                          Grads grads, std::string &) {
  grads[0] = e.reshapeLike(rg[0], op->getOperand(0));
  return success();
}

LogicalResult transposeGrad(GradientEmitter &e, Operation *op,
                            ArrayRef<Value> rg, Grads grads, std::string &why) {
  auto t = cast<ONNXTransposeOp>(op);
  int64_t r = rankOf(t.getData());
  if (r < 0) {
    why = "the rank is unknown";
    return failure();
  }
  SmallVector<int64_t> perm;
  if (auto p = t.getPerm())
    for (Attribute a : *p)
      perm.push_back(cast<IntegerAttr>(a).getInt());
  else
    for (int64_t i = r - 1; i >= 0; --i)
      perm.push_back(i);
  SmallVector<int64_t> inverse(r);
  for (int64_t i = 0; i < r; ++i)
    inverse[perm[i]] = i;
  grads[0] = e.transpose(rg[0], inverse);
  return success();
}

LogicalResult expandGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                         Grads grads, std::string &why) {
  FailureOr<Value> r = e.sumToOperand(rg[0], op->getOperand(0), {rg[0]}, why);
  if (failed(r))
    return failure();
  grads[0] = *r;
  return success();
}

/// The axes a reduction reduces, normalised, sorted; all axes when `axes`
/// is absent (or empty without noop_with_empty_axes); none for a no-op.
FailureOr<SmallVector<int64_t>>
reductionAxes(Value data, Value axes, bool noopWhenEmpty, std::string &why) {
  int64_t r = rankOf(data);
  if (r < 0) {
    why = "the rank is unknown";
    return failure();
  }
  std::optional<SmallVector<int64_t>> given =
      axes ? constantInts(axes) : SmallVector<int64_t>{};
  if (!given) {
    why = "the axes are not a constant";
    return failure();
  }
  SmallVector<int64_t> result;
  if (given->empty()) {
    if (!noopWhenEmpty)
      result = llvm::to_vector(llvm::seq<int64_t>(0, r));
    return result;
  }
  for (int64_t a : *given)
    result.push_back(a < 0 ? a + r : a);
  llvm::sort(result);
  return result;
}

/// `g` (a reduction's result gradient) broadcast back over `data`'s shape.
Value expandBack(GradientEmitter &e, Value g, Value data,
                 ArrayRef<int64_t> axes, bool keepDims) {
  if (!keepDims && !axes.empty())
    g = e.make("Unsqueeze", {g, e.i64s(axes)});
  Value r = e.make("Expand", {g, e.shapeOf(data)});
  if (auto t = dyn_cast<RankedTensorType>(data.getType()))
    r.setType(t);
  return r;
}

/// ReduceSum (0), ReduceMean (1), ReduceSumSquare (2), ReduceMax/ReduceMin
/// (3), ReduceLogSumExp (4), ReduceL2 (5), ReduceL1 (6).
template <typename OpT, int Kind>
LogicalResult reduceGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                         Grads grads, std::string &why) {
  auto reduce = cast<OpT>(op);
  Value x = reduce.getData(), y = reduce.getReduced();
  bool keep = reduce.getKeepdims() != 0;
  FailureOr<SmallVector<int64_t>> axes = reductionAxes(
      x, reduce.getAxes(), reduce.getNoopWithEmptyAxes() != 0, why);
  if (failed(axes))
    return failure();
  Value g = expandBack(e, rg[0], x, *axes, keep);
  Value yFull = Kind >= 3 ? expandBack(e, y, x, *axes, keep) : Value();
  switch (Kind) {
  case 0:
    break;
  case 1: {
    // Divided by the number of elements reduced into each result.
    Value count =
        e.div(e.castLike(e.make("Size", {x}, {}, e.b.getI64Type()), x),
              e.castLike(e.make("Size", {y}, {}, e.b.getI64Type()), x));
    g = e.div(g, count);
    break;
  }
  case 2:
    g = e.mul(g, e.mul(x, e.scalar(x, 2.0)));
    break;
  case 3: {
    // Ties share the gradient evenly.
    Value hit = e.castLike(e.make("Equal", {x, yFull}, {}, e.b.getI1Type()), x);
    Value count = e.reduceSum(hit, *axes, /*keepDims=*/true);
    g = e.div(e.mul(g, hit), count);
    break;
  }
  case 4:
    g = e.mul(g, e.make("Exp", {e.sub(x, yFull)}));
    break;
  case 5:
    g = e.mul(g, e.div(x, yFull));
    break;
  case 6:
    g = e.mul(g, e.make("Sign", {x}));
    break;
  }
  if (auto t = dyn_cast<RankedTensorType>(x.getType()))
    g.setType(t);
  grads[0] = g;
  return success();
}

LogicalResult concatGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                         Grads grads, std::string &why) {
  auto concat = cast<ONNXConcatOp>(op);
  int64_t r = rankOf(concat.getConcatResult());
  int64_t axis = concat.getAxis();
  if (r < 0) {
    why = "the rank is unknown";
    return failure();
  }
  if (axis < 0)
    axis += r;
  SmallVector<int64_t> sizes;
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || t.isDynamicDim(axis)) {
      why = "an input's size along the axis is not static";
      return failure();
    }
    sizes.push_back(t.getDimSize(axis));
  }
  Operation *split = e.create("Split", {rg[0], e.i64s(sizes)},
                              {{"axis", e.i64Attr(axis)}}, sizes.size());
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    Value gi = split->getResult(i);
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      gi.setType(t);
    grads[i] = gi;
  }
  return success();
}

LogicalResult splitGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                        Grads grads, std::string &why) {
  auto split = cast<ONNXSplitOp>(op);
  SmallVector<Value> parts;
  for (auto [result, g] : llvm::zip(op->getResults(), rg))
    parts.push_back(g ? g : e.filledLike(result, 0.0));
  int64_t axis = split.getAxis();
  Value r = e.make("Concat", parts, {{"axis", e.i64Attr(axis)}});
  grads[0] = e.reshapeLike(r, split.getInput());
  return success();
}

/// The gradient of an op that picks elements of `x` (each result element is
/// one element of x, maybe picked more than once): `pick` applies the same
/// op to an int64 tensor of x's shape holding each element's flat index,
/// and each result element's gradient `g` is summed into the element it
/// came from.
Value gradientOfPick(GradientEmitter &e, Value x, Value g,
                     function_ref<Value(Value indices)> pick) {
  Type i64 = e.b.getI64Type();
  Value flat =
      e.make("Range", {e.intScalar(i64, 0), e.make("Size", {x}, {}, i64),
                       e.intScalar(i64, 1)});
  Value source = pick(e.make("Reshape", {flat, e.shapeOf(x)}));
  Value sum =
      e.make("ScatterElements",
             {e.make("Reshape", {e.filledLike(x, 0.0), e.i64s({-1})}),
              e.make("Reshape", {source, e.i64s({-1})}),
              e.make("Reshape", {g, e.i64s({-1})})},
             {{"axis", e.i64Attr(0)}, {"reduction", e.b.getStringAttr("add")}});
  return e.reshapeLike(sum, x);
}

LogicalResult sliceGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                        Grads grads, std::string &why) {
  auto slice = cast<ONNXSliceOp>(op);
  auto type = dyn_cast<RankedTensorType>(slice.getData().getType());
  std::optional<SmallVector<int64_t>> starts = constantInts(slice.getStarts());
  std::optional<SmallVector<int64_t>> ends = constantInts(slice.getEnds());
  std::optional<SmallVector<int64_t>> axes =
      slice.getAxes() ? constantInts(slice.getAxes()) : std::nullopt;
  std::optional<SmallVector<int64_t>> steps =
      slice.getSteps() ? constantInts(slice.getSteps()) : std::nullopt;
  bool unitSteps =
      !slice.getSteps() ||
      (steps && llvm::all_of(*steps, [](int64_t s) { return s == 1; }));
  if (!type || !type.hasStaticShape() || !starts || !ends ||
      (slice.getAxes() && !axes) || !unitSteps) {
    // Any slice (steps, dynamic shapes, starts from values): the same
    // Slice of the elements' indices says where each element came from.
    if (!type) {
      why = "the data's rank is unknown";
      return failure();
    }
    grads[0] = gradientOfPick(e, slice.getData(), rg[0], [&](Value indices) {
      SmallVector<Value> operands(op->getOperands());
      operands[0] = indices;
      return e.make("Slice", operands, {}, e.b.getI64Type());
    });
    return success();
  }
  int64_t r = type.getRank();
  if (!axes)
    axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  // The slice of each dim as [begin, end) with step 1 becomes a Pad of the
  // gradient by begin before and dim - end after.
  SmallVector<int64_t> pads(2 * r, 0);
  for (size_t i = 0; i < axes->size(); ++i) {
    int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + r : (*axes)[i];
    int64_t dim = type.getDimSize(axis);
    auto clampIndex = [&](int64_t v) {
      if (v < 0)
        v += dim;
      return std::clamp<int64_t>(v, 0, dim);
    };
    int64_t begin = clampIndex((*starts)[i]);
    int64_t end = std::max(begin, clampIndex((*ends)[i]));
    pads[axis] = begin;
    pads[r + axis] = dim - end;
  }
  Value r2 = e.make("Pad", {rg[0], e.i64s(pads)});
  r2.setType(type);
  grads[0] = r2;
  return success();
}

LogicalResult padGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                      Grads grads, std::string &why) {
  auto pad = cast<ONNXPadOp>(op);
  std::optional<SmallVector<int64_t>> pads = constantInts(pad.getPads());
  int64_t r = rankOf(pad.getData());
  if (pad.getMode() != "constant" || pad.getAxes() || !pads || r < 0 ||
      int64_t(pads->size()) != 2 * r ||
      llvm::any_of(*pads, [](int64_t p) { return p < 0; })) {
    why = "only constant padding by constant, non-negative pads of all axes "
          "is differentiated";
    return failure();
  }
  SmallVector<int64_t> starts, ends;
  for (int64_t i = 0; i < r; ++i) {
    starts.push_back((*pads)[i]);
    ends.push_back((*pads)[r + i] ? -(*pads)[r + i]
                                  : std::numeric_limits<int64_t>::max());
  }
  Value s = e.make("Slice", {rg[0], e.i64s(starts), e.i64s(ends)});
  grads[0] = e.reshapeLike(s, pad.getData());
  return success();
}

/// Normalises negative indices into [0, dim) along `axis` of `data`.
Value positiveIndices(GradientEmitter &e, Value indices, Value data,
                      int64_t axis) {
  Value dim = e.make(
      "Gather", {e.make("Shape", {data}, {}, e.b.getI64Type()), e.i64s({axis})},
      {{"axis", e.i64Attr(0)}});
  dim = e.castLike(dim, indices);
  Value zero = e.castLike(e.i64s({0}), indices);
  Value negative = e.make("Less", {indices, zero}, {}, e.b.getI1Type());
  return e.make("Where", {negative, e.add(indices, dim), indices});
}

LogicalResult gatherElementsGrad(GradientEmitter &e, Operation *op,
                                 ArrayRef<Value> rg, Grads grads,
                                 std::string &why) {
  auto gather = cast<ONNXGatherElementsOp>(op);
  Value data = gather.getData();
  int64_t axis = gather.getAxis();
  Value r = e.make(
      "ScatterElements", {e.filledLike(data, 0.0), gather.getIndices(), rg[0]},
      {{"axis", e.i64Attr(axis)}, {"reduction", e.b.getStringAttr("add")}});
  r.setType(data.getType());
  grads[0] = r;
  return success();
}

LogicalResult gatherGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                         Grads grads, std::string &why) {
  auto gather = cast<ONNXGatherOp>(op);
  Value data = gather.getData(), indices = gather.getIndices();
  int64_t r = rankOf(data), q = rankOf(indices);
  if (r < 0 || q < 0) {
    why = "a rank is unknown";
    return failure();
  }
  int64_t axis = int64_t(gather.getAxis());
  if (axis < 0)
    axis += r;
  // The gradient with the index dims merged into one, and indices along
  // `axis` broadcast to its shape: a ScatterElements adding into zeros.
  auto dataType = cast<RankedTensorType>(data.getType());
  Value flatIndices = e.make("Reshape", {indices, e.i64s({-1})});
  flatIndices = positiveIndices(e, flatIndices, data, axis);
  Value flatGrad;
  if (dataType.hasStaticShape()) {
    SmallVector<int64_t> shape(dataType.getShape());
    shape[axis] = -1;
    flatGrad = e.make("Reshape", {rg[0], e.i64s(shape)});
  } else {
    Value shape = e.make("Shape", {data}, {}, e.b.getI64Type());
    SmallVector<Value> parts;
    if (axis > 0)
      parts.push_back(e.make("Slice", {shape, e.i64s({0}), e.i64s({axis})}));
    parts.push_back(e.i64s({-1}));
    if (axis + 1 < r)
      parts.push_back(
          e.make("Slice", {shape, e.i64s({axis + 1}), e.i64s({r})}));
    flatGrad = e.make(
        "Reshape", {rg[0], e.make("Concat", parts, {{"axis", e.i64Attr(0)}})});
  }
  SmallVector<int64_t> indexShape(r, 1);
  indexShape[axis] = -1;
  Value spread =
      e.make("Expand", {e.make("Reshape", {flatIndices, e.i64s(indexShape)}),
                        e.make("Shape", {flatGrad}, {}, e.b.getI64Type())});
  Value result = e.make(
      "ScatterElements", {e.filledLike(data, 0.0), spread, flatGrad},
      {{"axis", e.i64Attr(axis)}, {"reduction", e.b.getStringAttr("add")}});
  result.setType(data.getType());
  grads[0] = result;
  (void)q;
  return success();
}

/// Resize in nearest mode: each output element is one input element, found
/// by resizing the input's flat indices the same way; the gradient is
/// added back at those indices.
/// Resize in linear or cubic mode is separable and linear in x: along each
/// resized axis (length n -> m) y = x R with R (n x m) the response of the
/// same Resize to each unit vector, so the gradient is g R^T per axis. R
/// is what Resize computes on an n x n identity with this axis's scale (or
/// size) on its last dim: the forward's own arithmetic, weights only.
LogicalResult interpolationGrad(GradientEmitter &e, ONNXResizeOp resize,
                                Value g, Grads grads, std::string &why) {
  Value x = resize.getX();
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  auto yType = dyn_cast<RankedTensorType>(resize.getY().getType());
  if (!xType || !yType) {
    why = "the ranks are unknown";
    return failure();
  }
  int64_t r = xType.getRank();
  // The scale (or size) of each axis.
  SmallVector<int64_t> axes;
  if (ArrayAttr list = resize.getAxesAttr()) {
    for (Attribute a : list) {
      int64_t v = cast<IntegerAttr>(a).getInt();
      axes.push_back(v < 0 ? v + r : v);
    }
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, r));
  }
  SmallVector<double> scales(r, 1.0);
  bool byScales = false;
  DenseFPElementsAttr scaleAttr;
  if (resize.getScales() &&
      matchPattern(resize.getScales(), m_Constant(&scaleAttr)) &&
      scaleAttr.getNumElements() > 0) {
    if (scaleAttr.getNumElements() != int64_t(axes.size())) {
      why = "the scales do not match the axes";
      return failure();
    }
    byScales = true;
    for (auto [axis, v] : llvm::zip(axes, scaleAttr.getValues<APFloat>()))
      scales[axis] = v.convertToDouble();
  } else if (!resize.getSizes()) {
    why = "the scales are not a constant";
    return failure();
  } else if (resize.getKeepAspectRatioPolicy() != "stretch") {
    why = "sizes with keep_aspect_ratio_policy other than stretch";
    return failure();
  }
  SmallVector<std::pair<StringRef, Attribute>> attrs;
  for (NamedAttribute a : resize->getAttrs())
    if (a.getName() != "operandSegmentSizes" && a.getName() != "axes" &&
        a.getName() != "keep_aspect_ratio_policy")
      attrs.push_back({a.getName().getValue(), a.getValue()});
  Type element = xType.getElementType();
  Value grad = g;
  for (int64_t axis = 0; axis < r; ++axis) {
    int64_t n = xType.getDimSize(axis), m = yType.getDimSize(axis);
    bool resized = byScales ? scales[axis] != 1.0 : n != m;
    if (!resized)
      continue;
    if (ShapedType::isDynamic(n) || ShapedType::isDynamic(m)) {
      why = "a resized dim is dynamic";
      return failure();
    }
    Attribute one = e.b.getFloatAttr(element, 1.0),
              zero = e.b.getFloatAttr(element, 0.0);
    SmallVector<Attribute> eye;
    for (int64_t i = 0; i < n * n; ++i)
      eye.push_back(i % (n + 1) == 0 ? one : zero);
    Value identity =
        e.create("Constant", {},
                 {{"value", DenseElementsAttr::get(
                                RankedTensorType::get({n, n}, element), eye)}},
                 1, element)
            ->getResult(0);
    Value response;
    if (byScales) {
      auto f32 = RankedTensorType::get({2}, e.b.getF32Type());
      Value s =
          e.create("Constant", {},
                   {{"value",
                     DenseElementsAttr::get(
                         f32, ArrayRef<float>{1.0f, float(scales[axis])})}},
                   1, e.b.getF32Type())
              ->getResult(0);
      response = e.make("Resize", {identity, Value(), s, Value()}, attrs);
    } else {
      response =
          e.make("Resize", {identity, Value(), Value(), e.i64s({n, m})}, attrs);
    }
    // grad (.., m at axis, ..) -> axis last, times R^T (m x n), back.
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, r));
    std::swap(perm[axis], perm[r - 1]);
    Value moved = axis == r - 1 ? grad : e.transpose(grad, perm);
    Value product = e.make("MatMul", {moved, e.transpose(response, {1, 0})});
    grad = axis == r - 1 ? product : e.transpose(product, perm);
  }
  grads[0] = e.reshapeLike(grad, x);
  return success();
}

LogicalResult resizeGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                         Grads grads, std::string &why) {
  auto resize = cast<ONNXResizeOp>(op);
  Value x = resize.getX();
  if (resize.getCoordinateTransformationMode() == "tf_crop_and_resize") {
    why = "tf_crop_and_resize (its extrapolation value is not linear in the "
          "input) is not differentiated";
    return failure();
  }
  if (resize.getMode() != "nearest")
    return interpolationGrad(e, resize, rg[0], grads, why);
  if (!isa<RankedTensorType>(x.getType()) ||
      !isa<RankedTensorType>(resize.getY().getType())) {
    why = "the ranks are unknown";
    return failure();
  }
  // Each element comes from one element of x: Resize of the indices.
  grads[0] = gradientOfPick(e, x, rg[0], [&](Value indices) {
    SmallVector<Value> operands{indices, resize.getRoi(), resize.getScales(),
                                resize.getSizes()};
    SmallVector<std::pair<StringRef, Attribute>> attrs;
    for (NamedAttribute a : op->getAttrs())
      if (a.getName() != "operandSegmentSizes")
        attrs.push_back({a.getName().getValue(), a.getValue()});
    return e.make("Resize", operands, attrs, e.b.getI64Type());
  });
  return success();
}

LogicalResult dropoutGrad(GradientEmitter &e, Operation *op, ArrayRef<Value> rg,
                          Grads grads, std::string &why) {
  auto dropout = cast<ONNXDropoutOp>(op);
  Value g = rg[0];
  if (!g)
    return success();
  Value mode = dropout.getTrainingMode();
  DenseElementsAttr modeValue;
  bool inference = !mode || (matchPattern(mode, m_Constant(&modeValue)) &&
                             !modeValue.getSplatValue<bool>());
  if (inference) {
    grads[0] = g;
    return success();
  }
  Value mask = dropout.getMask();
  if (!mask) {
    why = "in training mode without its mask (buildGradients adds it)";
    return failure();
  }
  // y = x * mask / (1 - ratio).
  Value ratio =
      dropout.getRatio() ? e.castLike(dropout.getRatio(), g) : e.scalar(g, 0.5);
  Value scale = e.div(e.scalar(g, 1.0), e.sub(e.scalar(g, 1.0), ratio));
  grads[0] = e.mul(e.mul(g, e.castLike(mask, g)), scale);
  return success();
}

} // namespace

void mlir::onnxc::registerTensorGradientRules(
    llvm::StringMap<GradientRule> &rules) {
  rules["onnx.Reshape"] = reshapeGrad;
  rules["onnx.Flatten"] = reshapeGrad;
  rules["onnx.Squeeze"] = reshapeGrad;
  rules["onnx.Unsqueeze"] = reshapeGrad;
  rules["onnx.Transpose"] = transposeGrad;
  rules["onnx.Expand"] = expandGrad;
  rules["onnx.Concat"] = concatGrad;
  rules["onnx.Split"] = splitGrad;
  rules["onnx.Slice"] = sliceGrad;
  rules["onnx.Pad"] = padGrad;
  rules["onnx.Gather"] = gatherGrad;
  rules["onnx.GatherElements"] = gatherElementsGrad;
  rules["onnx.Dropout"] = dropoutGrad;
  rules["onnx.Resize"] = resizeGrad;
  rules["onnx.ReduceSum"] = reduceGrad<ONNXReduceSumOp, 0>;
  rules["onnx.ReduceMean"] = reduceGrad<ONNXReduceMeanOp, 1>;
  rules["onnx.ReduceSumSquare"] = reduceGrad<ONNXReduceSumSquareOp, 2>;
  rules["onnx.ReduceMax"] = reduceGrad<ONNXReduceMaxOp, 3>;
  rules["onnx.ReduceMin"] = reduceGrad<ONNXReduceMinOp, 3>;
  rules["onnx.ReduceLogSumExp"] = reduceGrad<ONNXReduceLogSumExpOp, 4>;
  rules["onnx.ReduceL2"] = reduceGrad<ONNXReduceL2Op, 5>;
  rules["onnx.ReduceL1"] = reduceGrad<ONNXReduceL1Op, 6>;
}
