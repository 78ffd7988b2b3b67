//===- InferenceRules.cpp - onnxc's own type rules for some ops -----------===//
//
// See InferenceRules.h. The helpers before the rules are private to them.
//
//===----------------------------------------------------------------------===//

#include "InferenceRules.h"

#include "onnxc/Dialect/ONNX/IR/ONNXOpInfo.h"
#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Support/ProtoConversion.h"

#include <optional>

using namespace mlir;
using namespace mlir::onnxc;
using namespace mlir::onnxc::inference;

namespace {

/// The type of a result with `like`'s shape and element type `elementType`.
Type withElementType(Type like, Type elementType) {
  if (!elementType)
    return nullptr;
  if (auto ranked = dyn_cast<RankedTensorType>(like))
    return ranked.clone(elementType);
  return UnrankedTensorType::get(elementType);
}

/// The element type an ONNX data type attribute names; null for 0 or one the
/// dialect has no type for.
Type elementTypeOf(MLIRContext *ctx, int64_t dataType) {
  return dataType ? convertONNXElementType(ctx, int32_t(dataType)) : Type();
}

/// Conversions whose result is the input's shape with an element type the
/// op names (Cast, CastLike, BitCast) or derives (QuantizeLinear,
/// DequantizeLinear). Their versions after opset 17 name types (float8, int4,
/// ...) libonnx 1.12 cannot express. Nothing when `op` is not one of them.
} // namespace

std::optional<SmallVector<Type>>
mlir::onnxc::inference::inferConversion(Operation *op) {
  MLIRContext *ctx = op->getContext();
  if (auto cast = dyn_cast<ONNXCastOp>(op))
    return SmallVector<Type>{withElementType(cast.getInput().getType(),
                                             elementTypeOf(ctx, cast.getTo()))};
  if (auto cast = dyn_cast<ONNXCastLikeOp>(op))
    return SmallVector<Type>{
        withElementType(cast.getInput().getType(),
                        getElementTypeOrSelf(cast.getTargetType().getType()))};
  if (auto cast = dyn_cast<ONNXBitCastOp>(op)) {
    Type from = getElementTypeOrSelf(cast.getInput().getType());
    Type to = elementTypeOf(ctx, cast.getTo());
    // Same bit width (bool counts as a byte): else no type.
    auto bits = [](Type t) -> unsigned {
      if (t.isInteger(1))
        return 8;
      if (auto c = dyn_cast<ComplexType>(t))
        return 2 * c.getElementType().getIntOrFloatBitWidth();
      return t.isIntOrFloat() ? t.getIntOrFloatBitWidth() : 0;
    };
    if (to && bits(from) != bits(to))
      to = nullptr;
    return SmallVector<Type>{withElementType(cast.getInput().getType(), to)};
  }
  // OptionalHasElement-18+: a bool scalar (the input may be absent).
  if (isa<ONNXOptionalHasElementOp>(op))
    return SmallVector<Type>{
        RankedTensorType::get({}, IntegerType::get(ctx, 1))};
  // TensorScatter-24: the past cache's type.
  if (auto scatter = dyn_cast<ONNXTensorScatterOp>(op))
    return SmallVector<Type>{scatter.getPastCache().getType()};
  if (auto q = dyn_cast<ONNXQuantizeLinearOp>(op)) {
    Type elem = elementTypeOf(ctx, q.getOutputDtype());
    if (!elem && q.getYZeroPoint())
      elem = getElementTypeOrSelf(q.getYZeroPoint().getType());
    if (!elem)
      elem = IntegerType::get(ctx, 8, IntegerType::Unsigned);
    return SmallVector<Type>{withElementType(q.getX().getType(), elem)};
  }
  if (auto dq = dyn_cast<ONNXDequantizeLinearOp>(op)) {
    Type elem = elementTypeOf(ctx, dq.getOutputDtype());
    if (!elem)
      elem = getElementTypeOrSelf(dq.getXScale().getType());
    return SmallVector<Type>{withElementType(dq.getX().getType(), elem)};
  }
  return std::nullopt;
}

/// Resize-18+ with `axes` or a keep_aspect_ratio_policy, which Resize-13's
/// rule cannot read: the dims not named keep their size; a named dim is
/// floor(size * scale), sizes[i], or round_int(size * common scale) under a
/// policy; dynamic where the values are not known. Nothing for other ops.
std::optional<SmallVector<Type>>
mlir::onnxc::inference::inferResize(Operation *op) {
  auto resize = dyn_cast<ONNXResizeOp>(op);
  if (!resize ||
      (!resize.getAxesAttr() && resize.getKeepAspectRatioPolicy() == "stretch"))
    return std::nullopt;
  auto in = dyn_cast<RankedTensorType>(resize.getX().getType());
  if (!in)
    return std::nullopt;
  int64_t rank = in.getRank();
  SmallVector<int64_t> axes;
  if (ArrayAttr attr = resize.getAxesAttr()) {
    for (APInt v : attr.getAsValueRange<IntegerAttr>()) {
      int64_t a = v.getSExtValue();
      if (a < -rank || a >= rank)
        return std::nullopt;
      axes.push_back(a < 0 ? a + rank : a);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  auto values = [&](Value v) -> std::optional<SmallVector<double>> {
    ElementsAttr data = v ? getKnownData(v) : nullptr;
    if (!data || data.getNumElements() == 0)
      return std::nullopt;
    SmallVector<double> out;
    if (auto f = dyn_cast<DenseFPElementsAttr>(data))
      for (const APFloat &x : f.getValues<APFloat>())
        out.push_back(x.convertToDouble());
    else if (auto i = dyn_cast<DenseIntElementsAttr>(data))
      for (const APInt &x : i.getValues<APInt>())
        out.push_back(double(x.getSExtValue()));
    else
      return std::nullopt;
    if (out.size() != axes.size())
      return std::nullopt;
    return out;
  };
  SmallVector<int64_t> shape(in.getShape());
  for (int64_t d : axes)
    shape[d] = ShapedType::kDynamic;
  if (auto scales = values(resize.getScales())) {
    for (auto [i, d] : llvm::enumerate(axes))
      if (!in.isDynamicDim(d))
        shape[d] = int64_t(std::floor(double(in.getDimSize(d)) * (*scales)[i]));
  } else if (auto sizes = values(resize.getSizes())) {
    StringRef policy = resize.getKeepAspectRatioPolicy();
    if (policy == "stretch") {
      for (auto [i, d] : llvm::enumerate(axes))
        shape[d] = int64_t((*sizes)[i]);
    } else if (llvm::none_of(axes,
                             [&](int64_t d) { return in.isDynamicDim(d); })) {
      std::optional<double> common;
      for (auto [i, d] : llvm::enumerate(axes)) {
        double r = (*sizes)[i] / double(in.getDimSize(d));
        common = !common                  ? r
                 : policy == "not_larger" ? std::min(*common, r)
                                          : std::max(*common, r);
      }
      for (int64_t d : axes)
        shape[d] = int64_t(std::floor(*common * in.getDimSize(d) + 0.5));
    }
  }
  return SmallVector<Type>{RankedTensorType::get(shape, in.getElementType())};
}

/// The values of a constant 1-D integer operand (getKnownData), if known.
static std::optional<SmallVector<int64_t>> knownInts(Value v) {
  auto data = dyn_cast_or_null<DenseIntElementsAttr>(getKnownData(v));
  if (!data)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &x : data.getValues<APInt>())
    out.push_back(x.getSExtValue());
  return out;
}

/// Pad-18+ with `axes`: the data's rank; a dim not named keeps its size, a
/// named one grows by its pads where they and the axes are known.
std::optional<SmallVector<Type>>
mlir::onnxc::inference::inferPad(Operation *op) {
  auto pad = dyn_cast<ONNXPadOp>(op);
  if (!pad || !pad.getAxes() || isa<NoneType>(pad.getAxes().getType()))
    return std::nullopt;
  auto in = dyn_cast<RankedTensorType>(pad.getData().getType());
  if (!in)
    return std::nullopt;
  int64_t rank = in.getRank();
  SmallVector<int64_t> shape(in.getShape());
  auto axes = knownInts(pad.getAxes());
  auto pads = knownInts(pad.getPads());
  if (!axes || !pads || pads->size() != 2 * axes->size()) {
    // Which dims change is not known.
    return SmallVector<Type>{RankedTensorType::get(
        SmallVector<int64_t>(rank, ShapedType::kDynamic), in.getElementType())};
  }
  for (auto [i, a] : llvm::enumerate(*axes)) {
    int64_t d = a < 0 ? a + rank : a;
    if (d < 0 || d >= rank)
      return std::nullopt;
    if (!in.isDynamicDim(d))
      shape[d] += (*pads)[i] + (*pads)[i + axes->size()];
  }
  return SmallVector<Type>{RankedTensorType::get(shape, in.getElementType())};
}

/// LinearAttention-27: output (B, T, q_num_heads * d_v) in the query's type,
/// present_state (B, kv_num_heads, d_k, d_v) in past_state's type (the
/// query's without one), with d_k = query's last dim / q_num_heads and d_v
/// = value's last dim / kv_num_heads.
std::optional<SmallVector<Type>>
mlir::onnxc::inference::inferLinearAttention(Operation *op) {
  auto la = dyn_cast<ONNXLinearAttentionOp>(op);
  if (!la)
    return std::nullopt;
  auto q = dyn_cast<RankedTensorType>(la.getQuery().getType());
  auto v = dyn_cast<RankedTensorType>(la.getValue().getType());
  int64_t hq = la.getQNumHeads(), hkv = la.getKvNumHeads();
  if (!q || !v || q.getRank() != 3 || v.getRank() != 3 || hq <= 0 || hkv <= 0)
    return std::nullopt;
  int64_t dyn = ShapedType::kDynamic;
  auto per = [&](int64_t size, int64_t heads) {
    return ShapedType::isDynamic(size) || size % heads ? dyn : size / heads;
  };
  int64_t dk = per(q.getDimSize(2), hq), dv = per(v.getDimSize(2), hkv);
  Type stateElem = q.getElementType();
  if (Value past = la.getPastState())
    stateElem = getElementTypeOrSelf(past.getType());
  return SmallVector<Type>{
      RankedTensorType::get({q.getDimSize(0), q.getDimSize(1),
                             ShapedType::isDynamic(dv) ? dyn : hq * dv},
                            q.getElementType()),
      RankedTensorType::get({q.getDimSize(0), hkv, dk, dv}, stateElem)};
}

/// Col2Im-18: (N, C, image_shape...) with C = input's dim 1 / prod(block
/// shape); AffineGrid-20: (N, H, W, 2) or (N, D, H, W, 3) from `size` = (N,
/// C, (D,) H, W). The rank comes from the static length of image_shape or
/// size, the dims from their values where they are constants.
std::optional<SmallVector<Type>>
mlir::onnxc::inference::inferShapeFromOperand(Operation *op) {
  int64_t dyn = ShapedType::kDynamic;
  if (auto col = dyn_cast<ONNXCol2ImOp>(op)) {
    auto in = dyn_cast<RankedTensorType>(col.getInput().getType());
    auto image = dyn_cast<RankedTensorType>(col.getImageShape().getType());
    if (!in || in.getRank() != 3 || !image || image.getRank() != 1 ||
        image.isDynamicDim(0))
      return std::nullopt;
    SmallVector<int64_t> shape{in.getDimSize(0), dyn};
    auto block = knownInts(col.getBlockShape());
    if (block && !in.isDynamicDim(1)) {
      int64_t k = 1;
      for (int64_t b : *block)
        k *= b;
      if (k > 0 && in.getDimSize(1) % k == 0)
        shape[1] = in.getDimSize(1) / k;
    }
    if (auto dims = knownInts(col.getImageShape()))
      shape.append(dims->begin(), dims->end());
    else
      shape.append(image.getDimSize(0), dyn);
    return SmallVector<Type>{RankedTensorType::get(shape, in.getElementType())};
  }
  // DFT-20: the input's shape with 2 parts (1 for an inverse onesided
  // transform); the signal axis (-2 by default) holds dft_length or the
  // input's length (2 (n - 1) for that inverse), n / 2 + 1 of them when a
  // forward transform is onesided. With a run-time axis every signal dim
  // that may change is dynamic.
  if (auto dft = dyn_cast<ONNXDFTOp>(op)) {
    auto in = dyn_cast<RankedTensorType>(dft.getInput().getType());
    if (!in || in.getRank() < 3)
      return std::nullopt;
    int64_t rank = in.getRank();
    bool inverse = dft.getInverse() != 0, onesided = dft.getOnesided() != 0;
    SmallVector<int64_t> shape(in.getShape());
    shape[rank - 1] = inverse && onesided ? 1 : 2;
    std::optional<int64_t> axis = -2;
    if (Value a = dft.getAxis()) {
      auto values = knownInts(a);
      axis = values && values->size() == 1 ? std::optional((*values)[0])
                                           : std::nullopt;
    }
    std::optional<int64_t> length;
    if (Value len = dft.getDftLength()) {
      auto values = knownInts(len);
      if (values && values->size() == 1)
        length = (*values)[0];
    }
    auto newSize = [&](int64_t inSize) -> int64_t {
      int64_t n = length ? *length : inSize;
      if (!length && inverse && onesided && !ShapedType::isDynamic(inSize))
        n = 2 * (inSize - 1);
      if (ShapedType::isDynamic(n))
        return dyn;
      return onesided && !inverse ? n / 2 + 1 : n;
    };
    if (axis) {
      int64_t d = *axis < 0 ? *axis + rank : *axis;
      if (d < 1 || d > rank - 2)
        return std::nullopt;
      shape[d] = (dft.getDftLength() && !length) ? dyn : newSize(shape[d]);
    } else if (dft.getDftLength() || onesided) {
      for (int64_t d = 1; d <= rank - 2; ++d)
        shape[d] = dyn;
    }
    return SmallVector<Type>{RankedTensorType::get(shape, in.getElementType())};
  }
  // StringSplit-20: the substrings (input dims, then the most pieces of
  // any element) and their counts (the input's shape).
  if (auto split = dyn_cast<ONNXStringSplitOp>(op)) {
    auto in = dyn_cast<RankedTensorType>(split.getX().getType());
    if (!in)
      return std::nullopt;
    SmallVector<int64_t> shape(in.getShape());
    shape.push_back(dyn);
    return SmallVector<Type>{
        RankedTensorType::get(shape, in.getElementType()),
        RankedTensorType::get(in.getShape(),
                              IntegerType::get(op->getContext(), 64))};
  }
  // ImageDecoder-20: (H, W, C) uint8, known only once decoded.
  // The channels: 3 for RGB and BGR, 1 for Grayscale.
  if (auto dec = dyn_cast<ONNXImageDecoderOp>(op))
    return SmallVector<Type>{RankedTensorType::get(
        {dyn, dyn, dec.getPixelFormat() == "Grayscale" ? 1 : 3},
        getElementTypeOrSelf(dec.getEncodedStream().getType()))};
  if (auto ag = dyn_cast<ONNXAffineGridOp>(op)) {
    auto theta = dyn_cast<RankedTensorType>(ag.getTheta().getType());
    auto size = dyn_cast<RankedTensorType>(ag.getSize().getType());
    if (!theta || !size || size.getRank() != 1 || size.isDynamicDim(0) ||
        (size.getDimSize(0) != 4 && size.getDimSize(0) != 5))
      return std::nullopt;
    int64_t spatial = size.getDimSize(0) - 2;
    SmallVector<int64_t> shape{theta.getRank() == 3 ? theta.getDimSize(0)
                                                    : dyn};
    if (auto dims = knownInts(ag.getSize()))
      shape.append(dims->begin() + 2, dims->end());
    else
      shape.append(spatial, dyn);
    shape.push_back(spatial);
    return SmallVector<Type>{
        RankedTensorType::get(shape, theta.getElementType())};
  }
  return std::nullopt;
}

/// The tree ensembles (ai.onnx.ml), whose libonnx 1.12 rules give no shape
/// (TreeEnsembleRegressor/Classifier-3) or which it does not know
/// (TreeEnsemble-5): for X [N, F] (a 1-D X is one row), scores [N,
/// n_targets] (Regressor: f32; TreeEnsemble: X's type); Classifier: labels
/// [N] (int64 or string) and f32 scores [N, number of labels].
std::optional<SmallVector<Type>>
mlir::onnxc::inference::inferTreeEnsemble(Operation *op) {
  if (!isa<ONNXMLTreeEnsembleRegressorOp, ONNXMLTreeEnsembleClassifierOp,
           ONNXMLTreeEnsembleOp>(op))
    return std::nullopt;
  int64_t dyn = ShapedType::kDynamic;
  Type xType = op->getOperand(0).getType();
  int64_t rows = dyn;
  if (auto x = dyn_cast<RankedTensorType>(xType))
    rows = x.getRank() == 1 ? 1 : x.getRank() == 2 ? x.getDimSize(0) : dyn;
  MLIRContext *ctx = op->getContext();
  auto scores = [&](std::optional<uint64_t> n, Type elem) -> Type {
    return RankedTensorType::get({rows, n ? int64_t(*n) : dyn}, elem);
  };
  if (auto reg = dyn_cast<ONNXMLTreeEnsembleRegressorOp>(op))
    return SmallVector<Type>{scores(reg.getNTargets(), Float32Type::get(ctx))};
  if (auto te = dyn_cast<ONNXMLTreeEnsembleOp>(op))
    return SmallVector<Type>{
        scores(te.getNTargets(), getElementTypeOrSelf(xType))};
  auto cls = cast<ONNXMLTreeEnsembleClassifierOp>(op);
  std::optional<uint64_t> classes;
  Type label = IntegerType::get(ctx, 64);
  if (auto strings = cls.getClasslabelsStrings()) {
    classes = strings->size();
    label = StringType::get(ctx);
  } else if (auto ints = cls.getClasslabelsInt64s()) {
    classes = ints->size();
  }
  return SmallVector<Type>{RankedTensorType::get({rows}, label),
                           scores(classes, Float32Type::get(ctx))};
}

/// The ai.onnx.ml ops whose libonnx 1.12 rules give no shape (or no rule),
/// with the shapes the lowering (lib/Conversion/ONNXToLinalg/ML*.cpp,
/// Maps.cpp) produces. X [F] counts as one row (onnxruntime). A result whose
/// operands' ranks fix nothing stays unranked (its element type is still
/// given where the op fixes it).
std::optional<SmallVector<Type>>
mlir::onnxc::inference::inferML(Operation *op) {
  if (!isa<ONNXMLArrayFeatureExtractorOp, ONNXMLOneHotEncoderOp, ONNXMLScalerOp,
           ONNXMLNormalizerOp, ONNXMLImputerOp, ONNXMLBinarizerOp,
           ONNXMLFeatureVectorizerOp, ONNXMLLinearRegressorOp,
           ONNXMLSVMRegressorOp, ONNXMLLinearClassifierOp,
           ONNXMLSVMClassifierOp, ONNXMLLabelEncoderOp, ONNXMLCategoryMapperOp,
           ONNXMLDictVectorizerOp, ONNXMLCastMapOp, ONNXMLZipMapOp>(op))
    return std::nullopt;
  MLIRContext *ctx = op->getContext();
  int64_t dyn = ShapedType::kDynamic;
  Type f32 = Float32Type::get(ctx), i64 = IntegerType::get(ctx, 64);
  Type str = StringType::get(ctx);
  Type xType = op->getNumOperands() ? op->getOperand(0).getType() : Type();
  auto x = dyn_cast_or_null<RankedTensorType>(xType);
  Type xElem = getElementTypeOrSelf(xType);
  auto one = [](Type t) { return SmallVector<Type>{t}; };

  // Elementwise: X's shape, with `elem` (X's own by default).
  if (isa<ONNXMLImputerOp, ONNXMLBinarizerOp>(op))
    return one(xType);
  if (isa<ONNXMLScalerOp, ONNXMLNormalizerOp>(op))
    return one(withElementType(xType, f32));
  if (auto le = dyn_cast<ONNXMLLabelEncoderOp>(op)) {
    Type elem = le.getValuesTensorAttr()
                    ? le.getValuesTensorAttr().getElementType()
                : le.getValuesStringsAttr() ? str
                : le.getValuesInt64sAttr()  ? i64
                : le.getValuesFloatsAttr()  ? f32
                                            : Type();
    return one(elem ? withElementType(xType, elem) : Type());
  }
  if (isa<ONNXMLCategoryMapperOp>(op)) {
    Type elem = isa<StringType>(xElem) ? i64
                : xElem.isInteger(64)  ? str
                                       : Type();
    return one(elem ? withElementType(xType, elem) : Type());
  }
  // OneHotEncoder: X's shape + [number of categories].
  if (auto ohe = dyn_cast<ONNXMLOneHotEncoderOp>(op)) {
    int64_t cats = ohe.getCatsStringsAttr()  ? ohe.getCatsStringsAttr().size()
                   : ohe.getCatsInt64sAttr() ? ohe.getCatsInt64sAttr().size()
                                             : dyn;
    if (!x)
      return one(UnrankedTensorType::get(f32));
    SmallVector<int64_t> shape(x.getShape());
    shape.push_back(cats);
    return one(RankedTensorType::get(shape, f32));
  }
  // ArrayFeatureExtractor: X [.., C] -> [.., number of indices]; a 1-D X
  // gives [1, number of indices].
  if (auto afe = dyn_cast<ONNXMLArrayFeatureExtractorOp>(op)) {
    auto y = dyn_cast<RankedTensorType>(afe.getY().getType());
    if (!x || x.getRank() < 1)
      return one(UnrankedTensorType::get(xElem));
    SmallVector<int64_t> shape(x.getShape());
    if (x.getRank() == 1)
      shape.insert(shape.begin(), 1);
    shape.back() = y && y.hasStaticShape() ? y.getNumElements() : dyn;
    return one(RankedTensorType::get(shape, xElem));
  }
  // FeatureVectorizer: [N, sum(inputdimensions)], N the first input's rows.
  if (auto fv = dyn_cast<ONNXMLFeatureVectorizerOp>(op)) {
    int64_t rows = !x ? dyn : x.getRank() == 1 ? 1 : x.getDimSize(0);
    if (x && x.getRank() == 0)
      return one(UnrankedTensorType::get(f32));
    int64_t total = dyn;
    if (ArrayAttr dims = fv.getInputdimensionsAttr()) {
      total = 0;
      for (Attribute a : dims)
        total += cast<IntegerAttr>(a).getInt();
    }
    return one(RankedTensorType::get({rows, total}, f32));
  }
  // DictVectorizer: [1, vocabulary size] of the map's value type.
  if (auto dv = dyn_cast<ONNXMLDictVectorizerOp>(op)) {
    auto map = dyn_cast<MapType>(dv.getX().getType());
    if (!map)
      return one(Type());
    int64_t v =
        dv.getStringVocabularyAttr()  ? dv.getStringVocabularyAttr().size()
        : dv.getInt64VocabularyAttr() ? dv.getInt64VocabularyAttr().size()
                                      : dyn;
    return one(RankedTensorType::get({1, v}, map.getValueType()));
  }
  // CastMap: [1, n] (DENSE: the map's size) or [1, max_map] (SPARSE).
  if (auto cm = dyn_cast<ONNXMLCastMapOp>(op)) {
    StringRef to = cm.getCastTo();
    Type elem = to == "TO_FLOAT"    ? f32
                : to == "TO_INT64"  ? i64
                : to == "TO_STRING" ? str
                                    : Type();
    if (!elem)
      return one(Type());
    int64_t n = cm.getMapForm() == "SPARSE" && cm.getMaxMap() > 0
                    ? int64_t(cm.getMaxMap())
                    : dyn;
    return one(RankedTensorType::get({1, n}, elem));
  }
  // ZipMap: a sequence of maps from the labels to f32.
  if (auto zm = dyn_cast<ONNXMLZipMapOp>(op)) {
    Type key = zm.getClasslabelsStringsAttr()  ? str
               : zm.getClasslabelsInt64sAttr() ? i64
                                               : Type();
    if (!key)
      return one(Type());
    return one(SeqType::get(ctx, MapType::get(ctx, key, f32)));
  }

  // The models: X [F] or [N, F]; rows N (1 for [F]).
  std::optional<int64_t> rows;
  if (!x)
    rows = dyn;
  else if (x.getRank() == 1)
    rows = 1;
  else if (x.getRank() == 2)
    rows = x.getDimSize(0);
  auto matrix = [&](int64_t cols) -> Type {
    if (!rows)
      return UnrankedTensorType::get(f32);
    return RankedTensorType::get({*rows, cols}, f32);
  };
  auto labels = [&](ArrayAttr strings) -> Type {
    Type elem = strings ? str : i64;
    if (!rows)
      return UnrankedTensorType::get(elem);
    return RankedTensorType::get({*rows}, elem);
  };
  if (auto lr = dyn_cast<ONNXMLLinearRegressorOp>(op))
    return one(matrix(lr.getTargets() >= 1 ? int64_t(lr.getTargets()) : dyn));
  if (isa<ONNXMLSVMRegressorOp>(op))
    return one(matrix(1));
  auto count = [](ArrayAttr a) -> int64_t { return a ? a.size() : 0; };
  if (auto lc = dyn_cast<ONNXMLLinearClassifierOp>(op)) {
    int64_t numLabels = lc.getClasslabelsStringsAttr()
                            ? count(lc.getClasslabelsStringsAttr())
                            : count(lc.getClasslabelsIntsAttr());
    // One row of scores per intercept, else per feature count (as the
    // lowering); a single one gives [N, 2] with two labels, else [N, 1].
    int64_t coef = count(lc.getCoefficientsAttr());
    int64_t bias = count(lc.getInterceptsAttr());
    int64_t f = x && x.getRank() >= 1 ? x.getDimSize(x.getRank() - 1) : dyn;
    int64_t t = bias                                 ? bias
                : !ShapedType::isDynamic(f) && f > 0 ? coef / f
                                                     : dyn;
    int64_t cols = t == 1 ? (numLabels == 2 ? 2 : 1) : t >= 1 ? t : dyn;
    return SmallVector<Type>{labels(lc.getClasslabelsStringsAttr()),
                             matrix(cols)};
  }
  auto svc = cast<ONNXMLSVMClassifierOp>(op);
  int64_t c = svc.getClasslabelsStringsAttr()
                  ? count(svc.getClasslabelsStringsAttr())
                  : count(svc.getClasslabelsIntsAttr());
  int64_t vectors = 0;
  if (ArrayAttr perClass = svc.getVectorsPerClassAttr())
    for (Attribute a : perClass)
      vectors += cast<IntegerAttr>(a).getInt();
  // liblinear (no support vectors) and Platt probabilities: a score per
  // class; two classes: [N, 2]; else one per pair of classes.
  int64_t cols = c < 1 ? dyn
                 : vectors == 0 || (c >= 2 && svc.getProbAAttr()) || c == 2 ? c
                 : c > 2 ? c * (c - 1) / 2
                         : dyn;
  return SmallVector<Type>{labels(svc.getClasslabelsStringsAttr()),
                           matrix(cols)};
}
