//===- GuardedSchemas.cpp - ONNX schemas safe on malformed nodes ----------===//
//
// libonnx 1.12's inference and data-propagation functions trust the node they
// are given: on a malformed node (an operand without a type, an operand of
// the wrong kind, attributes whose lengths disagree with the data's rank) they
// dereference null pointers or index past vectors, and onnxc crashed inside
// ONNX's graph shape inference. onnxc-fuzz-import found each case below.
//
// The registry here hands out copies of ONNX's schemas whose functions first
// check what the original would trust and skip inference when it does not
// hold. Skipping is safe: the node keeps an unknown type, and the import
// diagnoses what is wrong with it (or infers it from the MLIR op).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/Transforms/SchemaInference.h"

#include "llvm/ADT/StringSwitch.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <map>
#include <memory>
#include <mutex>

using namespace mlir::onnxc;

namespace {

/// The rank of input `i` when the context knows it, else -1.
int64_t inputRank(onnx::InferenceContext &ctx, size_t i) {
  const onnx::TypeProto *t =
      i < ctx.getNumInputs() ? ctx.getInputType(i) : nullptr;
  return t && t->has_tensor_type() && t->tensor_type().has_shape()
             ? t->tensor_type().shape().dim_size()
             : -1;
}

/// The number of ints of attribute `name`, or -1 without it.
int64_t attrLength(onnx::InferenceContext &ctx, const char *name) {
  const onnx::AttributeProto *attr = ctx.getAttribute(name);
  return attr ? attr->ints_size() : -1;
}

/// Every attribute the schema requires is present.
template <typename Context>
bool hasRequiredAttributes(const onnx::OpSchema &schema, Context &ctx) {
  for (const auto &[name, attr] : schema.attributes())
    if (attr.required && !ctx.getAttribute(name))
      return false;
  return true;
}

/// The kind of a type ("tensor", "seq", "optional", ...): how ONNX's type
/// strings ("seq(tensor(float))") begin.
std::string typeKind(const onnx::TypeProto &type) {
  switch (type.value_case()) {
  case onnx::TypeProto::kTensorType:
    return "tensor";
  case onnx::TypeProto::kSequenceType:
    return "seq";
  case onnx::TypeProto::kMapType:
    return "map";
  case onnx::TypeProto::kOptionalType:
    return "optional";
  case onnx::TypeProto::kSparseTensorType:
    return "sparse_tensor";
  default:
    return "";
  }
}

/// Every input the node gives has a type of a kind its formal parameter
/// allows, and every required (single or variadic) input is given.
/// Inference functions read `getInputType(i)->tensor_type()` of required
/// inputs unchecked, and a sequence where a tensor belongs made
/// propagateShape merge the wrong proto. Element types are not checked:
/// libonnx 1.12's constraints do not know the newer ones (float8, int4)
/// that its inference propagates correctly.
bool inputsFitSchema(const onnx::OpSchema &schema,
                     onnx::InferenceContext &ctx) {
  const auto &formals = schema.inputs();
  if (formals.empty())
    return true;
  for (size_t i = 0, e = ctx.getNumInputs(); i < e; ++i) {
    const onnx::OpSchema::FormalParameter &formal =
        formals[std::min(i, formals.size() - 1)];
    if (i >= formals.size() &&
        formal.GetOption() != onnx::OpSchema::Variadic)
      return false; // More inputs than the schema has.
    const onnx::TypeProto *type = ctx.getInputType(i);
    if (!type || type->value_case() == onnx::TypeProto::VALUE_NOT_SET) {
      // An omitted optional input has no type either.
      if (formal.GetOption() == onnx::OpSchema::Optional)
        continue;
      return false;
    }
    if (type->has_tensor_type() &&
        type->tensor_type().elem_type() == onnx::TensorProto::UNDEFINED)
      return false;
    std::string kind = typeKind(*type) + "(";
    bool allowed = formal.GetTypes().empty();
    for (onnx::DataType allowedType : formal.GetTypes())
      allowed |= allowedType && allowedType->rfind(kind, 0) == 0;
    if (!allowed)
      return false;
  }
  return true;
}

/// Conv and pooling ops index vectors of the data's spatial rank with the
/// lengths of kernel_shape, pads, strides and dilations, divide by strides,
/// and Conv-like ops without kernel_shape take it from the weights' shape.
bool convPoolAttributesFit(const std::string &key,
                           onnx::InferenceContext &ctx) {
  int weights = llvm::StringSwitch<int>(key)
                    .Cases({"Conv", "ConvInteger", "ConvTranspose"}, 1)
                    .Case("QLinearConv", 3)
                    .Cases({"AveragePool", "MaxPool", "LpPool"}, 0)
                    .Default(-1);
  if (weights < 0)
    return true;
  int64_t rank = inputRank(ctx, 0);
  if (rank < 0)
    return true; // libonnx gives up without the data's shape.
  if (rank < 2)
    return false;
  int64_t spatial = rank - 2;
  for (const char *name : {"kernel_shape", "strides", "dilations",
                           "output_padding", "output_shape"}) {
    int64_t length = attrLength(ctx, name);
    if (length >= 0 && length != spatial)
      return false;
  }
  // Strides divide (a stride of 0 was a division by zero).
  for (const char *name : {"kernel_shape", "strides", "dilations"})
    if (const onnx::AttributeProto *attr = ctx.getAttribute(name))
      for (int64_t v : attr->ints())
        if (v < 1)
          return false;
  int64_t pads = attrLength(ctx, "pads");
  if (pads >= 0 && pads != 2 * spatial)
    return false;
  // The filter has the data's rank (ConvTranspose's inference reads its
  // dim 1 whenever it has a shape); without kernel_shape it must have one.
  if (weights > 0) {
    int64_t filterRank = inputRank(ctx, weights);
    if (filterRank >= 0 ? filterRank != rank
                        : !ctx.getAttribute("kernel_shape"))
      return false;
  }
  return true;
}

/// Ops whose libonnx inference assumes a rank the spec requires.
bool ranksFit(const std::string &key, onnx::InferenceContext &ctx) {
  if (key == "LayerNormalization") {
    int64_t rank = inputRank(ctx, 0);
    const onnx::AttributeProto *axis = ctx.getAttribute("axis");
    int64_t a = axis ? axis->i() : -1;
    return rank < 0 || (rank >= 1 && a >= -rank && a < rank);
  }
  if (key == "Gemm") {
    int64_t a = inputRank(ctx, 0), b = inputRank(ctx, 1);
    return (a < 0 || a == 2) && (b < 0 || b == 2);
  }
  if (key == "STFT") {
    int64_t rank = inputRank(ctx, 0);
    return rank < 0 || rank == 3;
  }
  // MaxUnpool's inference reads the indices' shape unchecked, as X's (the
  // spec: the same shape), and output_shape as a 1-D tensor.
  if (key == "MaxUnpool") {
    int64_t x = inputRank(ctx, 0), output = inputRank(ctx, 2);
    return x < 0 || (inputRank(ctx, 1) == x && (output < 0 || output == 1));
  }
  // The recurrent ops' first versions read dims 0 and 1 of X unchecked.
  if (key == "RNN" || key == "GRU" || key == "LSTM") {
    int64_t rank = inputRank(ctx, 0);
    return rank < 0 || rank == 3;
  }
  return true;
}

/// Add/Sub/Mul/Div's data propagation reads dim(0) of both operands'
/// shape data and broadcasts only equal lengths or a length of 1.
bool mathDataFits(onnx::DataPropagationContext &ctx) {
  const onnx::TensorShapeProto *lhs = ctx.getInputData(0);
  const onnx::TensorShapeProto *rhs = ctx.getInputData(1);
  if (!lhs || !rhs)
    return true;
  int l = lhs->dim_size(), r = rhs->dim_size();
  return l > 0 && r > 0 && (l == r || l == 1 || r == 1);
}

class GuardedSchemaRegistry final : public onnx::ISchemaRegistry {
public:
  const onnx::OpSchema *GetSchema(const std::string &key,
                                  const int maxInclusiveVersion,
                                  const std::string &domain) const override {
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(key, maxInclusiveVersion, domain);
    if (!schema || (!schema->has_type_and_shape_inference_function() &&
                    !schema->has_data_propagation_function()))
      return schema;
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<onnx::OpSchema> &guarded = schemas[schema];
    if (guarded)
      return guarded.get();
    guarded = std::make_unique<onnx::OpSchema>(*schema);
    // `schema` lives as long as ONNX's registry: the guards may keep it.
    bool standard = domain.empty() || domain == "ai.onnx";
    std::string op = standard ? key : std::string();
    if (schema->has_type_and_shape_inference_function())
      guarded->TypeAndShapeInferenceFunction(
          [infer = schema->GetTypeAndShapeInferenceFunction(), schema,
           op](onnx::InferenceContext &ctx) {
            // Inference functions index their outputs (Split divides by
            // their number): a node with too few or too many is left to
            // the schema check.
            size_t outputs = ctx.getNumOutputs();
            if (outputs < static_cast<size_t>(schema->min_output()) ||
                outputs > static_cast<size_t>(schema->max_output()))
              return;
            // A node that does not fit its operator is refused as the
            // inference functions refuse one, so that onnxc's own rank
            // rules (RankRules.h) leave it untyped too.
            if (!hasRequiredAttributes(*schema, ctx) ||
                !inputsFitSchema(*schema, ctx) ||
                !convPoolAttributesFit(op, ctx) || !ranksFit(op, ctx))
              fail_shape_inference("the node's inputs or attributes do not "
                                   "fit the operator");
            infer(ctx);
          });
    if (schema->has_data_propagation_function()) {
      bool math = standard && (key == "Add" || key == "Sub" || key == "Mul" ||
                               key == "Div");
      guarded->PartialDataPropagationFunction(
          [propagate = schema->GetDataPropagationFunction(), schema,
           math](onnx::DataPropagationContext &ctx) {
            // Shape dereferences its input's type: null when nothing typed
            // the input (an undefined name, an untyped graph input, a custom
            // op's result), which then has no shape data anyway.
            for (size_t i = 0, e = ctx.getNumInputs(); i < e; ++i)
              if (!ctx.getInputType(i) && i < schema->inputs().size() &&
                  schema->inputs()[i].GetOption() !=
                      onnx::OpSchema::Optional)
                return;
            if (hasRequiredAttributes(*schema, ctx) &&
                (!math || mathDataFits(ctx)))
              propagate(ctx);
          });
    }
    return guarded.get();
  }

private:
  mutable std::mutex mutex;
  mutable std::map<const onnx::OpSchema *, std::unique_ptr<onnx::OpSchema>>
      schemas;
};

} // namespace

const onnx::ISchemaRegistry *mlir::onnxc::guardedONNXSchemaRegistry() {
  static GuardedSchemaRegistry registry;
  return &registry;
}
