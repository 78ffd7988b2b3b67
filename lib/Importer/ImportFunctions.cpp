//===- ImportFunctions.cpp - ONNX functions inlined at their call sites ---===//
//
// Model-local functions and the function bodies of schema operators the
// dialect does not model: the body specialised for the node, its attribute
// references bound, and its nodes imported in place of the call.
//
//===----------------------------------------------------------------------===//

#include "ModelImporterImpl.h"

#include "FunctionExpansions.h"
#include "TrainingInfo.h"

#include "onnxc/Dialect/ONNX/Transforms/SchemaInference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

using namespace mlir;
using namespace mlir::onnxc;
using namespace mlir::onnxc::importer;

/// The ONNX function body of a schema operator, specialised for `node`
/// (context-dependent bodies depend on the input types and attributes).
/// Attributes the node leaves out get the schema's defaults, since the body
/// refers to them by name.
LogicalResult ModelImporter::getSchemaFunction(onnx::NodeProto &node,
                                               onnx::FunctionProto &body) {
  const ONNXOpInfo *info = lookupONNXOpInfo("", node.op_type());
  if (!info)
    return failure();
  const onnx::OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), info->sinceVersion, "");
  if (!schema)
    return failure();
  for (const auto &entry : schema->attributes()) {
    const std::string &name = entry.first;
    const onnx::OpSchema::Attribute &attr = entry.second;
    bool present = llvm::any_of(
        node.attribute(), [&](const auto &a) { return a.name() == name; });
    if (!present &&
        attr.default_value.type() != onnx::AttributeProto::UNDEFINED)
      *node.add_attribute() = attr.default_value;
  }
  try {
    if (schema->HasFunction() && schema->GetFunction()) {
      body = *schema->GetFunction();
      return convertFunctionBody(node, body);
    }
    if (!schema->HasContextDependentFunction())
      return failure();
    std::vector<onnx::TypeProto> inputTypes;
    for (const std::string &name : node.input()) {
      onnx::TypeProto type;
      Value v = name.empty() ? Value() : lookup(name);
      if (v)
        (void)toTypeProto(v.getType(), type);
      inputTypes.push_back(type);
    }
    onnx::FunctionBodyBuildContextImpl context(node, inputTypes);
    if (!schema->BuildContextDependentFunction(context, body))
      return failure();
  } catch (const std::exception &) {
    return failure();
  }
  return convertFunctionBody(node, body);
}

/// Replaces attribute references (ref_attr_name) in `nodes`, and in their
/// subgraphs, by the caller's attributes; unset references are dropped.
static void
bindAttributeRefs(google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes,
                  const onnx::NodeProto &caller) {
  for (onnx::NodeProto &n : nodes) {
    google::protobuf::RepeatedPtrField<onnx::AttributeProto> attrs;
    for (onnx::AttributeProto &attr : *n.mutable_attribute()) {
      if (attr.ref_attr_name().empty()) {
        if (attr.has_g())
          bindAttributeRefs(*attr.mutable_g()->mutable_node(), caller);
        *attrs.Add() = attr;
        continue;
      }
      for (const onnx::AttributeProto &actual : caller.attribute())
        if (actual.name() == attr.ref_attr_name()) {
          onnx::AttributeProto bound = actual;
          bound.set_name(attr.name());
          *attrs.Add() = bound;
        }
    }
    n.mutable_attribute()->Swap(&attrs);
  }
}

/// Brings a function body written for an older opset to the dialect's
/// opset with libonnx's version converter, through a model of its own.
LogicalResult ModelImporter::convertFunctionBody(const onnx::NodeProto &node,
                                                 onnx::FunctionProto &body) {
  // The converter's IR loses attribute references: bind them first.
  bindAttributeRefs(*body.mutable_node(), node);
  int opset = -1;
  for (const auto &o : body.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = o.version();
  if (opset < 0 || opset == kDialectOpset)
    return success();
  if (opset > kDialectOpset)
    return failure();
  onnx::ModelProto wrapper;
  wrapper.set_ir_version(8);
  auto *imp = wrapper.add_opset_import();
  imp->set_domain("");
  imp->set_version(opset);
  onnx::GraphProto *graph = wrapper.mutable_graph();
  graph->set_name(body.name());
  for (int i = 0; i < body.input_size(); ++i) {
    auto *in = graph->add_input();
    in->set_name(body.input(i));
    Value v = i < node.input_size() && !node.input(i).empty()
                  ? lookup(node.input(i))
                  : Value();
    if (v)
      (void)toTypeProto(v.getType(), *in->mutable_type());
  }
  // Only outputs some node produces: libonnx's IR import dereferences the
  // producer of every graph output (a context-dependent body may leave out
  // an output the node does not ask for).
  std::set<std::string> produced;
  for (const onnx::NodeProto &n : body.node())
    produced.insert(n.output().begin(), n.output().end());
  for (const std::string &out : body.output())
    if (produced.count(out))
      graph->add_output()->set_name(out);
  *graph->mutable_node() = body.node();
  try {
    onnx::ShapeInferenceOptions opts;
    opts.error_mode = 0;
    onnx::shape_inference::InferShapes(wrapper, guardedONNXSchemaRegistry(),
                                       opts);
    onnx::ModelProto converted =
        onnx::version_conversion::ConvertVersion(wrapper, kDialectOpset);
    *body.mutable_node() = converted.graph().node();
  } catch (const std::exception &) {
    return failure();
  }
  return success();
}

/// Expands a call of a model-local function in place: the body's nodes are
/// imported with their values renamed apart, formal parameters bound to the
/// caller's values and attribute references to the caller's attributes.
LogicalResult ModelImporter::inlineFunction(onnx::NodeProto &node,
                                            const onnx::FunctionProto &fn) {
  std::string prefix = (node.name().empty() ? node.op_type() : node.name()) +
                       "/" + std::to_string(inlineCounter++) + "/";
  std::map<std::string, std::string> rename;
  for (int i = 0; i < fn.input_size(); ++i)
    rename[fn.input(i)] = i < node.input_size() ? node.input(i) : "";
  for (int i = 0; i < fn.output_size(); ++i)
    rename[fn.output(i)] = i < node.output_size() ? node.output(i) : "";
  std::map<std::string, const onnx::AttributeProto *> actuals;
  // ONNX 1.12's FunctionProto has no attribute defaults (attribute_proto
  // arrived with IR version 9): unset references leave the attribute out.
  for (const onnx::AttributeProto &attr : node.attribute())
    actuals[attr.name()] = &attr;
  auto mapName = [&](const std::string &name) -> std::string {
    if (name.empty())
      return name;
    auto it = rename.find(name);
    return it != rename.end() ? it->second : prefix + name;
  };
  // Renames values and binds attribute references, also inside the
  // subgraphs of the body's nodes (which may use the body's values).
  std::function<void(onnx::NodeProto &)> rewrite;
  std::function<void(onnx::GraphProto &)> rewriteGraph =
      [&](onnx::GraphProto &g) {
        for (auto *infos :
             {g.mutable_input(), g.mutable_output(), g.mutable_value_info()})
          for (onnx::ValueInfoProto &vi : *infos)
            vi.set_name(mapName(vi.name()));
        for (onnx::TensorProto &t : *g.mutable_initializer())
          t.set_name(mapName(t.name()));
        for (onnx::NodeProto &n : *g.mutable_node())
          rewrite(n);
      };
  rewrite = [&](onnx::NodeProto &copy) {
    for (std::string &in : *copy.mutable_input())
      in = mapName(in);
    for (std::string &out : *copy.mutable_output())
      out = mapName(out);
    if (!copy.name().empty())
      copy.set_name(prefix + copy.name());
    google::protobuf::RepeatedPtrField<onnx::AttributeProto> attrs;
    for (const onnx::AttributeProto &attr : copy.attribute()) {
      if (attr.ref_attr_name().empty()) {
        *attrs.Add() = attr;
        continue;
      }
      auto it = actuals.find(attr.ref_attr_name());
      if (it == actuals.end())
        continue; // Unset reference: the attribute is absent.
      onnx::AttributeProto bound = *it->second;
      bound.set_name(attr.name());
      *attrs.Add() = bound;
    }
    for (onnx::AttributeProto &attr : attrs) {
      if (attr.has_g())
        rewriteGraph(*attr.mutable_g());
      for (onnx::GraphProto &g : *attr.mutable_graphs())
        rewriteGraph(g);
    }
    copy.mutable_attribute()->Swap(&attrs);
  };
  for (const onnx::NodeProto &inner : fn.node()) {
    onnx::NodeProto copy = inner;
    rewrite(copy);
    ++nodeCounter;
    if (failed(importNode(copy)))
      return failure();
  }
  return success();
}
