//===- ModelImporter.cpp - ONNX ModelProto -> onnx dialect ----------------===//
//
// Turns a ModelProto into a builtin.module holding one func.func for the main
// graph. Steps: parse (with size limits), normalise old opsets to the
// versions the dialect models (libonnx's version converter), seed types with
// ONNX's graph-level shape inference, then build one op per node, regions for
// subgraph attributes, constants for initializers, and inline model-local
// functions. Every node that the dialect cannot represent is collected and
// reported in one diagnostic.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Importer/Importer.h"

#include "ModelImporterImpl.h"

#include "FunctionExpansions.h"
#include "NodeAdapters.h"
#include "ShapeOverrides.h"
#include "TrainingInfo.h"

#include "onnxc/Dialect/ONNX/IR/ONNXOpInfo.h"
#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/SchemaInference.h"
#include "onnxc/Support/ProtoConversion.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <climits>
#include <map>

using namespace mlir;
using namespace mlir::onnxc;
using namespace mlir::onnxc::importer;


//===----------------------------------------------------------------------===//
// Opsets and types
//===----------------------------------------------------------------------===//

/// libonnx's Reshape 4->5 adapter turns the `shape` attribute into a Constant
/// without dims: a rank-0 tensor holding several values, which can only mean
/// a 1-D one.
static void repairConvertedConstants(onnx::GraphProto &graph) {
  for (onnx::NodeProto &node : *graph.mutable_node())
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (node.op_type() == "Constant" && attr.has_t()) {
        onnx::TensorProto &t = *attr.mutable_t();
        if (t.dims_size() == 0 && t.int64_data_size() > 1)
          t.add_dims(t.int64_data_size());
      }
      if (attr.has_g())
        repairConvertedConstants(*attr.mutable_g());
    }
}

/// Whether `pred` holds for every subgraph of `node`'s attributes (a graph,
/// or each of a list of graphs).
static bool
allSubgraphs(const onnx::NodeProto &node,
             llvm::function_ref<bool(const onnx::GraphProto &)> pred) {
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.has_g() && !pred(attr.g()))
      return false;
    for (const onnx::GraphProto &g : attr.graphs())
      if (!pred(g))
        return false;
  }
  return true;
}

static bool graphNeedsConversion(const onnx::GraphProto &graph, int opset) {
  for (const onnx::NodeProto &node : graph.node()) {
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      continue;
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "");
    const ONNXOpInfo *info = lookupONNXOpInfo("", node.op_type());
    if (schema && info &&
        schema->since_version() != opset17Version(node.op_type()))
      return true;
    if (!allSubgraphs(node, [&](const onnx::GraphProto &g) {
          return !graphNeedsConversion(g, opset);
        }))
      return true;
  }
  return false;
}

/// Whether every value `graph` uses (node inputs, graph outputs) is defined
/// before its use, by the graph, a node before it, or an enclosing graph.
/// Before IR version 4 an initializer defines a value only as a graph input
/// too (`initializersDefine` false); libonnx's IR import then has no value
/// for it.
static bool graphNamesDefined(const onnx::GraphProto &graph,
                              std::set<std::string> defined,
                              std::string &error,
                              bool initializersDefine = true) {
  for (const auto &vi : graph.input())
    defined.insert(vi.name());
  if (initializersDefine) {
    for (const auto &t : graph.initializer())
      defined.insert(t.name());
    for (const auto &t : graph.sparse_initializer())
      defined.insert(t.values().name());
  }
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &in : node.input())
      if (!in.empty() && !defined.count(in)) {
        error = "input '" + in + "' of node '" + node.name() + "' (" +
                node.op_type() + ") is not defined before the node";
        return false;
      }
    if (!allSubgraphs(node, [&](const onnx::GraphProto &g) {
          return graphNamesDefined(g, defined, error);
        }))
      return false;
    for (const std::string &out : node.output())
      if (!out.empty())
        defined.insert(out);
  }
  for (const auto &vi : graph.output())
    if (!defined.count(vi.name())) {
      error = "output '" + vi.name() + "' of graph '" + graph.name() +
              "' is not produced by any node";
      return false;
    }
  return true;
}

/// Whether every node of the default domain in `graph` (and its subgraphs)
/// fits its schema at `opset`: input and output counts, attribute names and
/// kinds. libonnx's version converter builds its IR trusting all of that
/// (a node without inputs, an attribute of no kind crashed it).
static bool graphNodesFitSchemas(const onnx::GraphProto &graph, int opset,
                                 std::string &error) {
  for (const onnx::NodeProto &node : graph.node()) {
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      continue;
    if (const onnx::OpSchema *schema =
            onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "")) {
      try {
        schema->Verify(node);
      } catch (const std::exception &e) {
        error = "node '" + node.name() + "' (" + node.op_type() +
                ") does not fit its schema: " + e.what();
        return false;
      }
    }
    if (!allSubgraphs(node, [&](const onnx::GraphProto &g) {
          return graphNodesFitSchemas(g, opset, error);
        }))
      return false;
  }
  return true;
}

/// libonnx's Gemm 6 -> 7 adapter indexes the shapes of A and B (as the
/// graph's value types give them) as matrices, unchecked: both must be of
/// known rank 2. `ranks` holds the ranks of the enclosing graphs' values.
static bool gemmOperandsAreMatrices(const onnx::GraphProto &graph,
                                    llvm::StringMap<int> ranks,
                                    std::string &error) {
  auto note = [&](const onnx::ValueInfoProto &vi) {
    if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape())
      ranks[vi.name()] = vi.type().tensor_type().shape().dim_size();
  };
  for (const auto &vi : graph.input())
    note(vi);
  for (const auto &vi : graph.value_info())
    note(vi);
  for (const auto &vi : graph.output())
    note(vi);
  for (const onnx::TensorProto &t : graph.initializer())
    ranks[t.name()] = t.dims_size();
  for (const onnx::NodeProto &node : graph.node()) {
    if (node.op_type() == "Gemm" &&
        (node.domain().empty() || node.domain() == "ai.onnx"))
      for (int i = 0; i < 2; ++i) {
        auto it =
            i < node.input_size() ? ranks.find(node.input(i)) : ranks.end();
        if (it == ranks.end() || it->second != 2) {
          error = "node '" + node.name() +
                  "' (Gemm): converting it to opset 7 or later needs its "
                  "inputs A and B of known rank 2";
          return false;
        }
      }
    if (!allSubgraphs(node, [&](const onnx::GraphProto &g) {
          return gemmOperandsAreMatrices(g, ranks, error);
        }))
      return false;
  }
  return true;
}

LogicalResult ModelImporter::normaliseOpsets() {
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    opsets[opset.domain() == "ai.onnx" ? "" : opset.domain()] =
        opset.version();
  if (!opsets.count("") && model.ir_version() < 3)
    opsets[""] = 1; // IR v1/v2 models predate opset_import.
  int opset = opsetOf("");
  if (opset <= 0 || opset >= kDialectOpset ||
      !graphNeedsConversion(model.graph(), opset))
    return success();
  // Old operator versions: let libonnx's version converter rewrite the model
  // to opset 17, where every op has the version the dialect models. Its IR
  // import dereferences every name it meets: check them first.
  std::string invalid;
  if (!graphNamesDefined(model.graph(), {}, invalid, model.ir_version() >= 4) ||
      !graphNodesFitSchemas(model.graph(), opset, invalid) ||
      (opset < 7 && !gemmOperandsAreMatrices(model.graph(), {}, invalid))) {
    emitError(fileLoc()) << invalid;
    return failure();
  }
  try {
    // Nodes the converter would assert on go around it (LegacyNodes.cpp).
    onnx::ModelProto input = model;
    std::vector<onnx::NodeProto> legacy =
        takeOutLegacyNodes(*input.mutable_graph(), opset);
    onnx::ModelProto converted =
        onnx::version_conversion::ConvertVersion(input, kDialectOpset);
    putBackLegacyNodes(*converted.mutable_graph(), legacy,
                       model.graph().input_size(),
                       model.graph().output_size());
    // The converter's IR knows only tensor types: take the types of graph
    // inputs and outputs from the original model.
    std::map<std::string, onnx::TypeProto> types;
    for (const auto &vi : model.graph().input())
      types[vi.name()] = vi.type();
    for (const auto &vi : model.graph().output())
      types[vi.name()] = vi.type();
    auto restore = [&](google::protobuf::RepeatedPtrField<
                       onnx::ValueInfoProto> &infos) {
      for (onnx::ValueInfoProto &vi : infos) {
        auto it = types.find(vi.name());
        if (it != types.end() && it->second.value_case() !=
                                     onnx::TypeProto::VALUE_NOT_SET)
          *vi.mutable_type() = it->second;
      }
    };
    restore(*converted.mutable_graph()->mutable_input());
    restore(*converted.mutable_graph()->mutable_output());
    repairConvertedConstants(*converted.mutable_graph());
    model.Swap(&converted);
  } catch (const std::exception &e) {
    emitError(fileLoc()) << "cannot convert the model from opset " << opset
                         << " to opset " << kDialectOpset << ": "
                         << StringRef(e.what()).split('\n').first;
    return failure();
  }
  opsets.clear();
  for (const onnx::OperatorSetIdProto &o : model.opset_import())
    opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = o.version();
  // The converted nodes need value_info of their own.
  if (options.onnxShapeInference)
    runONNXShapeInference();
  return success();
}

/// ONNX's graph-level inference, run before version conversion (adapters
/// need input shapes) and, when the model was converted, after it
/// (value_info for the new ops).
void ModelImporter::runONNXShapeInference() {
  onnx::ShapeInferenceOptions opts;
  opts.check_type = false;
  opts.error_mode = 0;
  opts.enable_data_propagation = true;
  try {
    onnx::shape_inference::InferShapes(model, guardedONNXSchemaRegistry(),
                                       opts);
  } catch (const std::exception &) {
    // Types then come from the per-node inference during import.
  }
}

void ModelImporter::collectTypes(const onnx::GraphProto &graph) {
  auto add = [&](const onnx::ValueInfoProto &vi) {
    if (vi.has_type() && !vi.name().empty())
      valueTypes[vi.name()] = vi.type();
  };
  for (const auto &vi : graph.value_info())
    add(vi);
  for (const auto &vi : graph.output())
    add(vi);
  for (const auto &vi : graph.input())
    add(vi);
  for (const onnx::NodeProto &node : graph.node())
    allSubgraphs(node, [&](const onnx::GraphProto &g) {
      collectTypes(g);
      return true;
    });
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

Attribute ModelImporter::convertAttribute(onnx::AttributeProto &attr,
                                          int expectedType,
                                          const onnx::NodeProto &node,
                                          std::string &error) {
  using onnx::AttributeProto;
  int type = attr.type() != AttributeProto::UNDEFINED ? attr.type()
                                                      : expectedType;
  if (type != expectedType) {
    error = "attribute '" + attr.name() + "' has type " +
            AttributeProto::AttributeType_Name(
                static_cast<AttributeProto::AttributeType>(type)) +
            ", the schema expects " +
            AttributeProto::AttributeType_Name(
                static_cast<AttributeProto::AttributeType>(expectedType));
    return nullptr;
  }
  Builder &b = builder;
  switch (type) {
  case AttributeProto::FLOAT:
    return b.getF32FloatAttr(attr.f());
  case AttributeProto::INT:
    return b.getI64IntegerAttr(attr.i());
  case AttributeProto::STRING:
    return b.getStringAttr(attr.s());
  case AttributeProto::FLOATS: {
    SmallVector<float> v(attr.floats().begin(), attr.floats().end());
    return b.getF32ArrayAttr(v);
  }
  case AttributeProto::INTS: {
    SmallVector<int64_t> v(attr.ints().begin(), attr.ints().end());
    return b.getI64ArrayAttr(v);
  }
  case AttributeProto::STRINGS: {
    SmallVector<StringRef> v(attr.strings().begin(), attr.strings().end());
    return b.getStrArrayAttr(v);
  }
  case AttributeProto::TENSOR:
    return convertTensorProto(ctx, *attr.mutable_t(), tensorOptions, error);
  case AttributeProto::TENSORS: {
    SmallVector<Attribute> v;
    for (onnx::TensorProto &t : *attr.mutable_tensors()) {
      Attribute e = convertTensorProto(ctx, t, tensorOptions, error);
      if (!e)
        return nullptr;
      v.push_back(e);
    }
    return b.getArrayAttr(v);
  }
  case AttributeProto::TYPE_PROTO: {
    Type t = convertTypeProto(ctx, attr.tp());
    if (!t) {
      error = "attribute '" + attr.name() + "' holds an unsupported type";
      return nullptr;
    }
    return TypeAttr::get(t);
  }
  case AttributeProto::SPARSE_TENSOR: {
    onnx::SparseTensorProto &sparse = *attr.mutable_sparse_tensor();
    TensorDataOptions dense = tensorOptions;
    dense.resourceThreshold = SIZE_MAX;
    auto values = dyn_cast_or_null<DenseElementsAttr>(
        convertTensorProto(ctx, *sparse.mutable_values(), dense, error));
    auto indices = dyn_cast_or_null<DenseElementsAttr>(
        convertTensorProto(ctx, *sparse.mutable_indices(), dense, error));
    if (!values || !indices)
      return nullptr;
    SmallVector<int64_t> shape(sparse.dims().begin(), sparse.dims().end());
    int64_t nnz = values.getNumElements();
    int64_t rank = shape.size();
    SmallVector<int64_t> coords;
    auto idx = llvm::to_vector(indices.getValues<int64_t>());
    if (indices.getType().getRank() == 1) {
      // Linearised indices -> coordinates.
      for (int64_t linear : idx) {
        SmallVector<int64_t> c(rank);
        for (int64_t d = rank - 1; d >= 0; --d) {
          c[d] = shape[d] ? linear % shape[d] : 0;
          linear = shape[d] ? linear / shape[d] : 0;
        }
        coords.append(c);
      }
    } else {
      coords = idx;
    }
    if (int64_t(coords.size()) != nnz * rank) {
      error = "sparse tensor indices do not match its values";
      return nullptr;
    }
    auto indexType = RankedTensorType::get({nnz, rank}, b.getI64Type());
    auto valueType = RankedTensorType::get(
        shape, values.getType().getElementType());
    return SparseElementsAttr::get(
        valueType, DenseElementsAttr::get(indexType, ArrayRef(coords)),
        values.reshape(RankedTensorType::get({nnz},
                                             values.getType().getElementType())));
  }
  default:
    error = "attribute '" + attr.name() + "' has an unsupported type";
    return nullptr;
  }
}

/// ONNX's Constant has eight ways to spell its value; the dialect keeps the
/// tensor ones (`value`, `sparse_value`) and turns the scalar and list forms
/// into an equivalent `value` tensor.
void ModelImporter::normaliseConstant(OperationState &state) {
  Builder &b = builder;
  NamedAttrList attrs(state.attributes);
  auto replace = [&](StringRef name, ElementsAttr value) {
    attrs.erase(name);
    attrs.set("value", value);
  };
  if (auto f = attrs.get("value_float"))
    replace("value_float",
            DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                   cast<FloatAttr>(f).getValue()));
  else if (auto i = attrs.get("value_int"))
    replace("value_int",
            DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                   cast<IntegerAttr>(i).getValue()));
  else if (auto s = attrs.get("value_string"))
    replace("value_string",
            DenseStringElementsAttr::get(
                RankedTensorType::get({}, StringType::get(ctx)),
                {cast<StringAttr>(s).getValue()}));
  else if (auto fs = attrs.get("value_floats")) {
    SmallVector<float> v;
    for (Attribute a : cast<ArrayAttr>(fs))
      v.push_back(cast<FloatAttr>(a).getValueAsDouble());
    replace("value_floats",
            DenseElementsAttr::get(
                RankedTensorType::get({int64_t(v.size())}, b.getF32Type()),
                ArrayRef(v)));
  } else if (auto is = attrs.get("value_ints")) {
    SmallVector<int64_t> v;
    for (Attribute a : cast<ArrayAttr>(is))
      v.push_back(cast<IntegerAttr>(a).getInt());
    replace("value_ints",
            DenseElementsAttr::get(
                RankedTensorType::get({int64_t(v.size())}, b.getI64Type()),
                ArrayRef(v)));
  } else if (auto ss = attrs.get("value_strings")) {
    SmallVector<StringRef> v;
    for (Attribute a : cast<ArrayAttr>(ss))
      v.push_back(cast<StringAttr>(a).getValue());
    replace("value_strings",
            DenseStringElementsAttr::get(
                RankedTensorType::get({int64_t(v.size())}, StringType::get(ctx)),
                v));
  }
  state.attributes = attrs;
  if (auto value = dyn_cast_or_null<ElementsAttr>(attrs.get("value")))
    if (!state.types.empty())
      state.types[0] = value.getShapedType();
}

//===----------------------------------------------------------------------===//
// Graphs and nodes
//===----------------------------------------------------------------------===//

LogicalResult ModelImporter::importInitializers(onnx::GraphProto &graph) {
  for (onnx::TensorProto &tensor : *graph.mutable_initializer()) {
    std::string error;
    ElementsAttr value = convertTensorProto(ctx, tensor, tensorOptions, error);
    if (!value) {
      emitError(fileLoc()) << "initializer: " << error;
      return failure();
    }
    Location loc = NameLoc::get(StringAttr::get(ctx, tensor.name()), fileLoc());
    OperationState state(loc, "onnx.Constant");
    state.addAttribute("value", value);
    if (options.markInitializers)
      state.addAttribute("onnx.initializer",
                         StringAttr::get(ctx, tensor.name()));
    state.addTypes(value.getShapedType());
    define(tensor.name(), builder.create(state)->getResult(0));
  }
  for (onnx::SparseTensorProto &sparse : *graph.mutable_sparse_initializer()) {
    onnx::AttributeProto attr;
    attr.set_name("sparse_value");
    attr.set_type(onnx::AttributeProto::SPARSE_TENSOR);
    *attr.mutable_sparse_tensor() = sparse;
    std::string error;
    onnx::NodeProto dummy;
    Attribute value = convertAttribute(attr, attr.type(), dummy, error);
    if (!value) {
      emitError(fileLoc()) << "sparse initializer: " << error;
      return failure();
    }
    std::string name = sparse.values().name();
    OperationState state(NameLoc::get(StringAttr::get(ctx, name), fileLoc()),
                         "onnx.Constant");
    state.addAttribute("sparse_value", value);
    state.addTypes(cast<ElementsAttr>(value).getShapedType());
    define(name, builder.create(state)->getResult(0));
  }
  return success();
}

LogicalResult ModelImporter::importNodes(onnx::GraphProto &graph) {
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    ++nodeCounter;
    if (failed(importNode(node)))
      return failure();
  }
  return success();
}

LogicalResult ModelImporter::importSubgraph(Region &region,
                                            onnx::GraphProto &graph,
                                            const onnx::NodeProto &owner) {
  Block *block = builder.createBlock(&region);
  scopes.emplace_back();
  for (const onnx::ValueInfoProto &input : graph.input()) {
    Type type = input.has_type() ? convertTypeProto(ctx, input.type()) : Type();
    if (!type) {
      emitError(nodeLoc(owner))
          << "input '" << input.name() << "' of subgraph '" << graph.name()
          << "' of node " << nodeLabel(owner) << " has no usable type";
      return failure();
    }
    define(input.name(), block->addArgument(type, nodeLoc(owner)));
  }
  if (failed(importInitializers(graph)) || failed(importNodes(graph)))
    return failure();
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    Value v = lookup(output.name());
    if (!v) {
      // Left undefined by an unsupported op: reported with the others once
      // every node was seen.
      if (!unsupported.empty()) {
        scopes.pop_back();
        return success();
      }
      emitError(nodeLoc(owner))
          << "output '" << output.name() << "' of subgraph '" << graph.name()
          << "' of node " << nodeLabel(owner) << " is not defined";
      return failure();
    }
    results.push_back(v);
  }
  ONNXYieldOp::create(builder, nodeLoc(owner), results);
  scopes.pop_back();
  return success();
}

OwningOpRef<ModuleOp> ModelImporter::run() {
  if (!model.has_graph()) {
    emitError(fileLoc()) << "the model has no graph";
    return nullptr;
  }
  auto declare = [&](const onnx::ValueInfoProto &vi) {
    if (vi.type().has_tensor_type())
      for (const auto &dim : vi.type().tensor_type().shape().dim())
        if (dim.has_dim_param())
          declaredDimParams.insert(dim.dim_param());
  };
  for (const auto &vi : model.graph().input())
    declare(vi);
  for (const auto &vi : model.graph().output())
    declare(vi);
  for (const auto &vi : model.graph().value_info())
    declare(vi);
  if (options.onnxShapeInference)
    runONNXShapeInference();
  if (failed(normaliseOpsets()))
    return nullptr;
  for (const onnx::FunctionProto &fn : model.functions())
    functions[(fn.domain() == "ai.onnx" ? "" : fn.domain()) + "|" +
              fn.name()] = &fn;

  collectTypes(model.graph());

  onnx::GraphProto &graph = *model.mutable_graph();
  auto module = ModuleOp::create(fileLoc());
  OwningOpRef<ModuleOp> owner(module);
  module->setAttr("onnx.ir_version", builder.getI64IntegerAttr(model.ir_version()));
  if (!model.producer_name().empty())
    module->setAttr("onnx.producer_name",
                    builder.getStringAttr(model.producer_name()));
  SmallVector<NamedAttribute> opsetAttrs;
  for (auto &[domain, version] : opsets)
    opsetAttrs.push_back(builder.getNamedAttr(
        domainName(domain), builder.getI64IntegerAttr(version)));
  module->setAttr("onnx.opset_import", builder.getDictionaryAttr(opsetAttrs));

  // Inputs that are initializers are constants (IR < 4 lists both).
  std::set<std::string> initialized;
  for (const onnx::TensorProto &t : graph.initializer())
    initialized.insert(t.name());
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  SmallVector<std::string> argNames;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initialized.count(input.name()))
      continue;
    SmallVector<std::string> dimParams;
    Type type = input.has_type()
                    ? convertTypeProto(ctx, input.type(), &dimParams)
                    : Type();
    if (!type) {
      emitError(fileLoc()) << "graph input '" << input.name()
                           << "' has no supported type";
      return nullptr;
    }
    argTypes.push_back(type);
    argNames.push_back(input.name());
    SmallVector<NamedAttribute> attrs{builder.getNamedAttr(
        "onnx.name", builder.getStringAttr(input.name()))};
    if (llvm::any_of(dimParams, [](auto &s) { return !s.empty(); })) {
      SmallVector<StringRef> refs(dimParams.begin(), dimParams.end());
      attrs.push_back(
          builder.getNamedAttr("onnx.dim_params", builder.getStrArrayAttr(refs)));
    }
    argAttrs.push_back(builder.getDictionaryAttr(attrs));
  }

  builder.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(builder, fileLoc(), options.entryName,
                                   builder.getFunctionType(argTypes, {}));
  func.setAllArgAttrs(argAttrs);
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  scopes.emplace_back();
  for (auto [name, arg] : llvm::zip(argNames, entry->getArguments()))
    define(name, arg);

  if (failed(importInitializers(graph)) || failed(importNodes(graph)))
    return nullptr;
  if (!unsupported.empty()) {
    InFlightDiagnostic diag = emitError(fileLoc());
    diag << "the model uses " << unsupported.size()
         << " operator(s) not supported by onnxc:";
    for (auto &[key, entry] : unsupported) {
      diag << "\n  " << key << " (" << entry.reason << "), used by "
           << entry.nodes.size() << " node(s): ";
      for (size_t i = 0; i < entry.nodes.size() && i < 8; ++i)
        diag << (i ? ", " : "") << entry.nodes[i];
      if (entry.nodes.size() > 8)
        diag << ", ...";
    }
    return nullptr;
  }

  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    Value v = lookup(output.name());
    if (!v) {
      emitError(fileLoc()) << "graph output '" << output.name()
                           << "' is not produced by any node";
      return nullptr;
    }
    results.push_back(v);
    SmallVector<NamedAttribute> attrs{builder.getNamedAttr(
        "onnx.name", builder.getStringAttr(output.name()))};
    SmallVector<std::string> dimParams;
    if (output.has_type())
      (void)convertTypeProto(ctx, output.type(), &dimParams);
    // Keep the model's names, not those ONNX's inference made up.
    for (std::string &param : dimParams)
      if (!declaredDimParams.contains(param))
        param.clear();
    if (llvm::any_of(dimParams, [](auto &s) { return !s.empty(); })) {
      SmallVector<StringRef> refs(dimParams.begin(), dimParams.end());
      attrs.push_back(builder.getNamedAttr("onnx.dim_params",
                                           builder.getStrArrayAttr(refs)));
    }
    resultAttrs.push_back(builder.getDictionaryAttr(attrs));
  }
  func::ReturnOp::create(builder, fileLoc(), results);
  func.setType(builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  func.setAllResultAttrs(resultAttrs);

  if (failed(verify(module)))
    return nullptr;
  return owner;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> mlir::onnxc::importONNXModelBuffer(
    MLIRContext *ctx, StringRef buffer, StringRef bufferName,
    StringRef baseDir, const ImportOptions &options) {
  ctx->loadDialect<ONNXDialect, func::FuncDialect>();
  Location loc = FileLineColLoc::get(ctx, bufferName, 0, 0);
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(buffer.data()), buffer.size());
  stream.SetTotalBytesLimit(INT_MAX);
  if (buffer.size() > size_t(INT_MAX)) {
    emitError(loc) << "the model is " << buffer.size()
                   << " bytes; protobuf limits a model to 2 GiB, store the "
                      "weights as external data";
    return nullptr;
  }
  if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    emitError(loc) << "not a valid ONNX model: the protobuf is truncated or "
                      "malformed";
    return nullptr;
  }
  if (!model.has_graph() || model.ir_version() <= 0) {
    emitError(loc) << "not a valid ONNX model: "
                   << (model.has_graph() ? "no ir_version" : "no graph");
    return nullptr;
  }
  TrainingInfoResult training;
  std::string error = applyTrainingInfo(model, options.trainingGraph, training);
  if (!error.empty()) {
    emitError(loc) << "TrainingInfoProto: " << error;
    return nullptr;
  }
  error = applyShapeOverrides(model, options);
  if (!error.empty()) {
    emitError(loc) << error;
    return nullptr;
  }
  ModelImporter importer(ctx, model, bufferName, baseDir, options);
  OwningOpRef<ModuleOp> module = importer.run();
  if (!module || options.trainingGraph == TrainingGraph::Inference)
    return module;
  Builder b(ctx);
  if (training.hasInitialization)
    (*module)->setAttr("onnxc.has_initialization", b.getUnitAttr());
  if (options.trainingGraph == TrainingGraph::Algorithm &&
      training.hasAlgorithm) {
    SmallVector<Attribute> pairs;
    for (auto &[key, value] : training.update)
      pairs.push_back(b.getStrArrayAttr({key, value}));
    (*module)->setAttr("onnxc.update_binding", b.getArrayAttr(pairs));
  }
  if (options.trainingGraph == TrainingGraph::Initialization) {
    // Each output is named after the initializer it sets.
    auto f = (*module).lookupSymbol<func::FuncOp>(options.entryName);
    for (auto [i, key] : llvm::enumerate(training.initialized))
      f.setResultAttr(i, "onnx.name", b.getStringAttr(key));
  }
  return module;
}

OwningOpRef<ModuleOp> mlir::onnxc::importONNXModelFile(
    MLIRContext *ctx, StringRef path, const ImportOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    emitError(FileLineColLoc::get(ctx, path, 0, 0))
        << "cannot read '" << path << "': " << buffer.getError().message();
    return nullptr;
  }
  StringRef dir = llvm::sys::path::parent_path(path);
  return importONNXModelBuffer(ctx, (*buffer)->getBuffer(), path,
                               dir.empty() ? "." : dir, options);
}
