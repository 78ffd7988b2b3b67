//===- SchemaInference.cpp - ONNX schema type/shape inference -------------===//
//
// An onnx::InferenceContext over an MLIR op: operand types, constant operand
// data and attributes are handed to the schema's inference function as the
// protobuf messages it expects, and the TypeProtos it fills in come back as
// MLIR types.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/Transforms/SchemaInference.h"

#include "InferenceRules.h"
#include "RankRules.h"

#include "onnxc/Dialect/ONNX/IR/ONNXOpInfo.h"
#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/ConstantEvaluator.h"
#include "onnxc/Support/ProtoConversion.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>

using namespace mlir;
using namespace mlir::onnxc;
using namespace mlir::onnxc::inference;

/// The value of `v` when it is known at compile time: a constant, or the
/// Shape of a tensor whose shape is static.
ElementsAttr mlir::onnxc::inference::getKnownData(Value v) {
  if (auto cst = v.getDefiningOp<ONNXConstantOp>())
    return cst.getValueAttr();
  if (auto shape = v.getDefiningOp<ONNXShapeOp>()) {
    auto type = dyn_cast<RankedTensorType>(shape.getData().getType());
    if (!type || !type.hasStaticShape())
      return nullptr;
    std::optional<KnownTensor> dims = evaluateONNXOp(
        shape, [](Value) -> const KnownTensor * { return nullptr; },
        /*maxElements=*/INT64_MAX);
    return dims ? dims->toAttr(IntegerType::get(v.getContext(), 64)) : nullptr;
  }
  return nullptr;
}

namespace {

/// Constants with more elements than this are not handed to inference.
constexpr int64_t kMaxDataElements = 1 << 16;

/// Answers a subgraph inference request with the types the region's
/// terminator already has: regions are inferred before their parent op.
class RegionInferencer : public onnx::GraphInferencer {
public:
  explicit RegionInferencer(Region &region) : region(region) {}

  std::vector<const onnx::TypeProto *>
  doInferencing(const std::vector<const onnx::TypeProto *> &,
                const std::vector<const onnx::TensorProto *> &) override {
    std::vector<const onnx::TypeProto *> result;
    if (region.empty())
      return result;
    Operation *terminator = region.front().getTerminator();
    if (!terminator)
      return result;
    for (Value v : terminator->getOperands()) {
      auto &proto = types.emplace_back();
      if (!toTypeProto(v.getType(), proto))
        proto.Clear();
      result.push_back(&proto);
    }
    return result;
  }

private:
  Region &region;
  std::deque<onnx::TypeProto> types;
};

class OpInferenceContext : public onnx::InferenceContext {
public:
  OpInferenceContext(Operation *op, const ONNXOpInfo &info) {
    // Inputs, in ONNX positions: absent optionals keep their slot.
    for (auto [param, group] :
         llvm::zip(info.inputs, getONNXInputGroups(op, info))) {
      if (param.getOption() != ONNXParamOption::Variadic) {
        inputs.push_back(group.empty() ? Value() : group.front());
        continue;
      }
      inputs.append(group.begin(), group.end());
    }
    while (!inputs.empty() && !inputs.back())
      inputs.pop_back();
    inputTypes.resize(inputs.size());
    inputData.resize(inputs.size());
    for (auto [i, v] : llvm::enumerate(inputs)) {
      if (!v)
        continue;
      if (toTypeProto(v.getType(), inputTypes[i]))
        hasInputType.insert(i);
      if (ElementsAttr value = getKnownData(v))
        if (value.getNumElements() <= kMaxDataElements &&
            toTensorProto(value, inputData[i]))
          hasInputData.insert(i);
    }
    // Outputs, in ONNX positions.
    for (auto [param, group] :
         llvm::zip(info.outputs, getONNXOutputGroups(op, info))) {
      if (param.getOption() != ONNXParamOption::Variadic) {
        outputs.push_back(group.empty() ? Value() : group.front());
        continue;
      }
      outputs.append(group.begin(), group.end());
    }
    // An ONNX node leaves out its trailing optional outputs; inference
    // functions count them (BatchNormalization's one output when not
    // training).
    while (!outputs.empty() && !outputs.back())
      outputs.pop_back();
    outputTypes.resize(outputs.size());
    // Attributes present on the op; absent ones take the schema default.
    for (const ONNXAttrInfo &attrInfo : info.attrs) {
      if (attrInfo.isGraph())
        continue;
      Attribute attr =
          op->getInherentAttr(getODSAttrName(op->getName(), attrInfo.name))
              .value_or(Attribute());
      if (!attr)
        continue;
      onnx::AttributeProto proto;
      if (toAttributeProto(attrInfo.name, attr, attrInfo.type, proto))
        attributes.emplace(attrInfo.name, std::move(proto));
    }
    unsigned regionIndex = 0;
    for (const ONNXAttrInfo &attrInfo : info.attrs) {
      if (!attrInfo.isGraph())
        continue;
      if (regionIndex < op->getNumRegions()) {
        inferencers.emplace(attrInfo.name,
                            RegionInferencer(op->getRegion(regionIndex)));
        // ONNX checks that a graph attribute exists before asking for its
        // inferencer.
        onnx::AttributeProto proto;
        proto.set_name(attrInfo.name);
        proto.set_type(onnx::AttributeProto::GRAPH);
        proto.mutable_g();
        attributes.emplace(attrInfo.name, std::move(proto));
      }
      ++regionIndex;
    }
  }

  const onnx::AttributeProto *
  getAttribute(const std::string &name) const override {
    auto it = attributes.find(name);
    return it == attributes.end() ? nullptr : &it->second;
  }
  size_t getNumInputs() const override { return inputs.size(); }
  const onnx::TypeProto *getInputType(size_t i) const override {
    return i < inputs.size() && hasInputType.count(i) ? &inputTypes[i]
                                                      : nullptr;
  }
  const onnx::TensorProto *getInputData(size_t i) const override {
    return i < inputs.size() && hasInputData.count(i) ? &inputData[i] : nullptr;
  }
  size_t getNumOutputs() const override { return outputs.size(); }
  onnx::TypeProto *getOutputType(size_t i) override {
    // Inference functions use this pointer unchecked, and a malformed node
    // may have fewer results than its schema's inference writes (Adam with
    // one output: found by onnxc-fuzz-import). ONNX's own context throws too.
    if (i >= outputTypes.size())
      fail_type_inference("output ", i, " is out of bounds: the node has ",
                          outputTypes.size());
    return &outputTypes[i];
  }
  onnx::GraphInferencer *
  getGraphAttributeInferencer(const std::string &name) override {
    auto it = inferencers.find(name);
    return it == inferencers.end() ? nullptr : &it->second;
  }
  const onnx::SparseTensorProto *getInputSparseData(size_t) const override {
    return nullptr;
  }
  const onnx::TensorShapeProto *getSymbolicInput(size_t) const override {
    return nullptr;
  }

  SmallVector<Value> outputs;
  std::vector<onnx::TypeProto> outputTypes;

  SmallVector<Value> inputs;
  std::vector<onnx::TypeProto> inputTypes;
  std::vector<onnx::TensorProto> inputData;
  llvm::DenseSet<size_t> hasInputType, hasInputData;
  std::map<std::string, onnx::AttributeProto> attributes;
  std::map<std::string, RegionInferencer> inferencers;
};

/// The libonnx schema whose inference function infers `info`'s op. libonnx
/// 1.12 knows ai.onnx versions up to opset 17; of the newer versions the
/// dialect models, those listed here infer by an older schema with the same
/// inputs, attributes and rule, and the rest have no inference here.
const onnx::OpSchema *inferenceSchema(const ONNXOpInfo &info) {
  const onnx::ISchemaRegistry *registry = guardedONNXSchemaRegistry();
  StringRef name = info.onnxName;
  // GreaterOrEqual/LessOrEqual are functions in libonnx 1.12 (ONNX's graph
  // inference types them through the body): Greater's rule, broadcasting
  // to bool.
  if (StringRef(info.domain).empty() &&
      (name == "GreaterOrEqual" || name == "LessOrEqual"))
    return registry->GetSchema("Greater", 13, "");
  if (StringRef(info.domain).empty() && info.sinceVersion > 17) {
    // Reduce*-18/20: `axes` input, keepdims and noop_with_empty_axes, as in
    // ReduceSum-13.
    if (name.starts_with("Reduce"))
      return registry->GetSchema("ReduceSum", 13, "");
    // Elementwise: the result has the type and shape of the first input
    // (Relu), or of the inputs broadcast together (Add).
    // RMSNormalization's Y is X's shape with the scale's element type
    // (fixed up in inferTypesFromSchema).
    if (llvm::is_contained(
            {"BitwiseNot", "Gelu", "Mish", "RMSNormalization", "Swish"}, name))
      return registry->GetSchema("Relu", 14, "");
    if (llvm::is_contained({"BitwiseAnd", "BitwiseOr", "BitwiseXor"}, name))
      return registry->GetSchema("Add", 14, "");
    if (name == "CumProd")
      return registry->GetSchema("CumSum", 14, "");
    // Mod-28: Mod-13's broadcasting rule.
    if (name == "Mod")
      return registry->GetSchema("Mod", 13, "");
    // StringConcat-20: its inputs broadcast together (Add's rule);
    // RegexFullMatch-20: a bool per element (IsNaN's rule); DeformConv-22:
    // the output of Conv's window (X, W, kernel/pads/strides/dilations;
    // its third input, the offsets, does not enter the rule).
    if (name == "StringConcat")
      return registry->GetSchema("Add", 14, "");
    if (name == "RegexFullMatch")
      return registry->GetSchema("IsNaN", 13, "");
    if (name == "DeformConv")
      return registry->GetSchema("Conv", 11, "");
    // Split-18: Split-13's rule where the parts are equal; num_outputs'
    // uneven parts are fixed up in inferTypesFromSchema.
    if (name == "Split")
      return registry->GetSchema("Split", 13, "");
    if (name == "Range")
      return registry->GetSchema("Range", 11, "");
    // Resize-19 without axes or keep_aspect_ratio_policy (inferResize
    // handles those): Resize-13's rule.
    if (name == "Resize")
      return registry->GetSchema("Resize", 13, "");
    // AveragePool-22 / LpPool-22: MaxPool-12's rule has dilations and
    // ceil_mode (and Average/LpPool's pads and auto_pad).
    if (name == "AveragePool" || name == "LpPool")
      return registry->GetSchema("MaxPool", 12, "");
    // GridSample-22 on 4-D inputs: version 16's rule (N, C, grid H, W).
    if (name == "GridSample")
      return registry->GetSchema("GridSample", 16, "");
    // ScatterElements/ScatterND-18: the data's type, as in version 16.
    if (name == "ScatterElements" || name == "ScatterND")
      return registry->GetSchema(info.onnxName, 16, "");
    // Pad-25 without axes: Pad-13's rule (inferPad handles axes).
    if (name == "Pad")
      return registry->GetSchema("Pad", 13, "");
    // Versions that only widened the types of their opset-17 version.
    if (info.inferenceVersion)
      return registry->GetSchema(info.onnxName, info.inferenceVersion, "");
    return nullptr;
  }
  return registry->GetSchema(info.onnxName, info.sinceVersion, info.domain);
}

} // namespace

FailureOr<SmallVector<Type>>
mlir::onnxc::inferTypesFromSchema(Operation *op, std::string &error) {
  if (std::optional<SmallVector<Type>> types = inferTreeEnsemble(op))
    return *types;
  if (std::optional<SmallVector<Type>> types = inferML(op))
    return *types;
  if (std::optional<SmallVector<Type>> types = inferShapeFromOperand(op))
    return *types;
  if (std::optional<SmallVector<Type>> types = inferLinearAttention(op))
    return *types;
  if (std::optional<SmallVector<Type>> types = inferResize(op))
    return *types;
  if (std::optional<SmallVector<Type>> types = inferPad(op))
    return *types;
  if (std::optional<SmallVector<Type>> types = inferConversion(op)) {
    if (llvm::any_of(*types, [](Type t) { return !t; })) {
      error = "the element type it names is not supported (BitCast: or has "
              "another bit width)";
      return failure();
    }
    return *types;
  }
  const ONNXOpInfo *info = lookupONNXOpInfo(op->getName().getStringRef());
  if (!info) {
    error = "no ONNX schema for " + op->getName().getStringRef().str();
    return failure();
  }
  const onnx::OpSchema *schema = inferenceSchema(*info);
  if (!schema || !schema->has_type_and_shape_inference_function()) {
    // Operators libonnx 1.12 does not know: onnxc's own rules alone.
    SmallVector<Type> types(op->getNumResults());
    applyRankRules(op, types, /*onnxRefused=*/false);
    if (llvm::all_of(types, [](Type t) { return t; }))
      return types;
    error = std::string("ONNX defines no type inference for ") + info->onnxName;
    return failure();
  }
  OpInferenceContext ctx(op, *info);
  bool failedInference = false;
  try {
    schema->GetTypeAndShapeInferenceFunction()(ctx);
  } catch (const std::exception &e) {
    // What the function filled in before it threw is not used; the fixups
    // below may still type every result (Split-18's uneven parts, which
    // Split-13's rule refuses).
    error = e.what();
    failedInference = true;
  }
  SmallVector<Type> types(op->getNumResults());
  DenseMap<Value, unsigned> resultIndex;
  for (OpResult r : op->getResults())
    resultIndex[r] = r.getResultNumber();
  for (auto [value, proto] : llvm::zip(ctx.outputs, ctx.outputTypes)) {
    if (failedInference)
      break;
    if (!value || proto.value_case() == onnx::TypeProto::VALUE_NOT_SET)
      continue;
    types[resultIndex[value]] = convertTypeProto(op->getContext(), proto);
  }
  // Ranks that ONNX fixes even where libonnx gives no shape (RankRules.h).
  applyRankRules(op, types, failedInference);
  if (auto rms = dyn_cast<ONNXRMSNormalizationOp>(op))
    if (auto y = dyn_cast_or_null<RankedTensorType>(types[0]))
      if (auto scale = dyn_cast<ShapedType>(rms.getScale().getType()))
        types[0] = y.clone(scale.getElementType());
  if (failedInference && llvm::any_of(types, [](Type t) { return !t; }))
    return failure();
  return types;
}

Type mlir::onnxc::refineType(Type current, Type inferred) {
  if (!inferred || current == inferred)
    return current;
  if (!current || isa<NoneType>(current))
    return inferred;
  auto cur = dyn_cast<TensorType>(current);
  auto inf = dyn_cast<TensorType>(inferred);
  if (!cur || !inf) {
    if (auto cs = dyn_cast<SeqType>(current))
      if (auto is = dyn_cast<SeqType>(inferred)) {
        Type e = refineType(cs.getElementType(), is.getElementType());
        return e == cs.getElementType() ? current
                                        : SeqType::get(current.getContext(), e);
      }
    if (auto co = dyn_cast<OptType>(current))
      if (auto io = dyn_cast<OptType>(inferred)) {
        Type e = refineType(co.getElementType(), io.getElementType());
        return e == co.getElementType() ? current
                                        : OptType::get(current.getContext(), e);
      }
    return current;
  }
  if (cur.getElementType() != inf.getElementType())
    return current;
  if (!inf.hasRank())
    return current;
  if (!cur.hasRank())
    return inferred;
  if (cur.getRank() != inf.getRank())
    return current;
  SmallVector<int64_t> shape;
  for (auto [c, i] : llvm::zip(cur.getShape(), inf.getShape())) {
    if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(i) && c != i)
      return current;
    shape.push_back(ShapedType::isDynamic(c) ? i : c);
  }
  return RankedTensorType::get(shape, cur.getElementType());
}
