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

#include "FunctionExpansions.h"
#include "NodeAdapters.h"
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

namespace {

/// The newest ai.onnx opset whose operator versions the dialect models.
constexpr int kDialectOpset = 17;

enum class ChangeKind { TypesOnly, Semantic, New };
struct OpsetChange {
  const char *opType;
  int version;
  ChangeKind kind;
};
const OpsetChange kOpsetChanges[] = {
#define ONNX_OPSET_CHANGE(op, version, kind) {#op, version, ChangeKind::kind},
#include "OpsetChanges.def"
};

/// For an ai.onnx node of a model at `opset` > 17: the version that applies
/// (0 when none of opsets 18..`opset` changed the operator) and whether the
/// dialect's op, of version `dialectVersion`, models it: no version after
/// the dialect's up to `opset` changed more than type constraints.
std::pair<int, bool> classifyNewerVersion(StringRef opType, int opset,
                                          int dialectVersion) {
  int version = 0;
  bool modelled = true;
  for (const OpsetChange &change : kOpsetChanges) {
    if (opType != change.opType || change.version > opset)
      continue;
    if (change.version > version)
      version = change.version;
    if (change.version > dialectVersion &&
        change.kind != ChangeKind::TypesOnly)
      modelled = false;
  }
  return {version, modelled};
}

/// Whether a version of `opType` after `from`, up to `to`, changed more than
/// type constraints: a node of version `from` then needs an upgrade.
bool changedBetween(StringRef opType, int from, int to) {
  return llvm::any_of(kOpsetChanges, [&](const OpsetChange &change) {
    return opType == change.opType && change.version > from &&
           change.version <= to && change.kind == ChangeKind::Semantic;
  });
}

/// The version of ai.onnx operator `opType` at opset 17 (libonnx 1.12's
/// newest), 0 when it has none: what libonnx's version converter produces.
int opset17Version(StringRef opType) {
  const onnx::OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(opType.str(), kDialectOpset, "");
  return schema ? schema->since_version() : 0;
}

/// The newest ai.onnx.ml opset the dialect models (ONNX 1.12's registry).
constexpr int kDialectMLOpset = 3;

/// ai.onnx.ml operators that changed after opset 3 (ONNX Changelog-ml.md):
/// opset 4 LabelEncoder (tensor-valued keys/values/default, more types;
/// modelled at 4, which keeps every attribute of 2: utils/gen_onnx_ops.py's
/// ML_VERSIONS); opset 5 TreeEnsemble (new, modelled at 5),
/// TreeEnsembleClassifier/Regressor (deprecated, modelled at 3).
bool isModelledMLVersion(const onnx::NodeProto &node, int opset) {
  StringRef opType = node.op_type();
  if (opType == "TreeEnsembleClassifier" || opType == "TreeEnsembleRegressor")
    return opset < 5;
  return true;
}

std::string domainName(StringRef domain) {
  return domain.empty() ? "ai.onnx" : domain.str();
}

struct UnsupportedOp {
  std::string reason;
  std::vector<std::string> nodes;
};

class ModelImporter {
public:
  ModelImporter(MLIRContext *ctx, onnx::ModelProto &model, StringRef fileName,
                StringRef baseDir, const ImportOptions &options)
      : ctx(ctx), builder(ctx), model(model), fileName(fileName.str()),
        options(options) {
    tensorOptions.baseDir = baseDir.str();
    tensorOptions.resourceThreshold = options.resourceThreshold;
  }

  OwningOpRef<ModuleOp> run();

private:
  Location fileLoc() { return FileLineColLoc::get(ctx, fileName, 0, 0); }
  Location nodeLoc(const onnx::NodeProto &node) {
    std::string name = node.name().empty()
                           ? node.op_type() + "#" + std::to_string(nodeCounter)
                           : node.name();
    return NameLoc::get(StringAttr::get(ctx, name), fileLoc());
  }
  std::string nodeLabel(const onnx::NodeProto &node) {
    std::string name = node.name().empty()
                           ? "(unnamed, output '" +
                                 (node.output_size() ? node.output(0) : "") +
                                 "')"
                           : "'" + node.name() + "'";
    return name;
  }

  LogicalResult normaliseOpsets();
  void runONNXShapeInference();
  void collectTypes(const onnx::GraphProto &graph);
  Value lookup(StringRef name) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end())
        return found->second;
    }
    return nullptr;
  }
  void define(StringRef name, Value value) { scopes.back()[name] = value; }

  LogicalResult importInitializers(onnx::GraphProto &graph);
  LogicalResult importNodes(onnx::GraphProto &graph);
  LogicalResult importNode(onnx::NodeProto &node);
  LogicalResult addGradientOperands(const onnx::NodeProto &node,
                                    OperationState &state);
  LogicalResult getSchemaFunction(onnx::NodeProto &node,
                                  onnx::FunctionProto &body);
  LogicalResult convertFunctionBody(const onnx::NodeProto &node,
                                    onnx::FunctionProto &body);
  LogicalResult inlineFunction(onnx::NodeProto &node,
                               const onnx::FunctionProto &function);
  /// inlineFunction for a body in opset-17 ai.onnx operators (schema
  /// function bodies, FunctionExpansions.cpp), whatever the model's opset.
  LogicalResult inlineDialectOpsetFunction(onnx::NodeProto &node,
                                           const onnx::FunctionProto &body) {
    int saved = opsets[""];
    opsets[""] = kDialectOpset;
    LogicalResult result = inlineFunction(node, body);
    opsets[""] = saved;
    return result;
  }
  /// Brings `node`, of ai.onnx operator version `version`, up to `info`'s
  /// (the dialect's) where a version in between changed more than type
  /// constraints; notes the node unsupported when there is no upgrade.
  bool upgradeToDialect(onnx::NodeProto &node, int version,
                        const ONNXOpInfo &info) {
    if (!changedBetween(node.op_type(), version, info.sinceVersion))
      return true;
    AdapterContext adapter = makeAdapterContext();
    std::string reason;
    if (succeeded(upgradeNode(node, version, info.sinceVersion, adapter,
                              reason)))
      return true;
    noteUnsupported(node, "", version, reason);
    return false;
  }
  LogicalResult importSubgraph(Region &region, onnx::GraphProto &graph,
                               const onnx::NodeProto &owner);
  Attribute convertAttribute(onnx::AttributeProto &attr, int expectedType,
                             const onnx::NodeProto &node, std::string &error);
  void normaliseConstant(OperationState &state);
  void noteUnsupported(const onnx::NodeProto &node, StringRef domain,
                       int version, std::string reason) {
    std::string key = domainName(domain) + "::" + node.op_type();
    if (version >= 0) // -1: the model does not import the domain.
      key += "-" + std::to_string(version);
    UnsupportedOp &entry = unsupported[key];
    if (entry.reason.empty())
      entry.reason = std::move(reason);
    entry.nodes.push_back(nodeLabel(node));
  }
  AdapterContext makeAdapterContext() {
    AdapterContext ctx;
    ctx.constantInts =
        [this](StringRef name) -> std::optional<SmallVector<int64_t>> {
      Value v = name.empty() ? Value() : lookup(name);
      auto cst = v ? v.getDefiningOp<ONNXConstantOp>() : ONNXConstantOp();
      auto dense = cst ? dyn_cast_or_null<DenseIntElementsAttr>(
                             cst.getValueAttr())
                       : DenseIntElementsAttr();
      if (!dense)
        return std::nullopt;
      SmallVector<int64_t> values;
      for (const APInt &x : dense.getValues<APInt>())
        values.push_back(x.getSExtValue());
      return values;
    };
    ctx.typeOf = [this](StringRef name) -> Type {
      Value v = name.empty() ? Value() : lookup(name);
      return v ? v.getType() : Type();
    };
    ctx.makeInt64Constant = [this](ArrayRef<int64_t> values) {
      std::string name = "onnxc.adapted." + std::to_string(adaptedCounter++);
      auto type = RankedTensorType::get({int64_t(values.size())},
                                        builder.getI64Type());
      OperationState state(fileLoc(), "onnx.Constant");
      state.addAttribute("value", DenseElementsAttr::get(type, values));
      state.addTypes(type);
      define(name, builder.create(state)->getResult(0));
      return name;
    };
    return ctx;
  }
  int opsetOf(StringRef domain) {
    auto it = opsets.find(domain == "ai.onnx" ? "" : domain.str());
    return it == opsets.end() ? -1 : it->second;
  }

  MLIRContext *ctx;
  OpBuilder builder;
  onnx::ModelProto &model;
  std::string fileName;
  ImportOptions options;
  TensorDataOptions tensorOptions;
  std::map<std::string, int> opsets;
  std::map<std::string, const onnx::FunctionProto *> functions;
  llvm::StringMap<onnx::TypeProto> valueTypes;
  SmallVector<llvm::StringMap<Value>> scopes;
  std::map<std::string, UnsupportedOp> unsupported;
  /// The dim_param names the model declares on its graph's values, before
  /// ONNX's shape inference adds names of its own ("unk__0", ...).
  llvm::StringSet<> declaredDimParams;
  unsigned nodeCounter = 0;
  unsigned inlineCounter = 0;
  unsigned adaptedCounter = 0;
};

} // namespace

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
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g() && graphNeedsConversion(attr.g(), opset))
        return true;
      for (const onnx::GraphProto &g : attr.graphs())
        if (graphNeedsConversion(g, opset))
          return true;
    }
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
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g() && !graphNamesDefined(attr.g(), defined, error))
        return false;
      for (const onnx::GraphProto &g : attr.graphs())
        if (!graphNamesDefined(g, defined, error))
          return false;
    }
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
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g() && !graphNodesFitSchemas(attr.g(), opset, error))
        return false;
      for (const onnx::GraphProto &g : attr.graphs())
        if (!graphNodesFitSchemas(g, opset, error))
          return false;
    }
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
  if (!graphNamesDefined(model.graph(), {}, invalid,
                         model.ir_version() >= 4) ||
      !graphNodesFitSchemas(model.graph(), opset, invalid)) {
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
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        collectTypes(attr.g());
      for (const onnx::GraphProto &g : attr.graphs())
        collectTypes(g);
    }
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

/// A Gradient node refers by name to the values that define the
/// differentiated computation (xs, zs) and to the differentiated value (y);
/// the onnx op takes those values as operands after its inputs, so that
/// onnx-derive-gradients finds them in SSA form.
LogicalResult ModelImporter::addGradientOperands(const onnx::NodeProto &node,
                                                 OperationState &state) {
  Location loc = state.location;
  SmallVector<std::string> names;
  std::string y;
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.name() == "xs")
      names.insert(names.begin(), attr.strings().begin(), attr.strings().end());
    else if (attr.name() == "y")
      y = attr.s();
  }
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == "zs")
      names.append(attr.strings().begin(), attr.strings().end());
  if (int(names.size()) != node.input_size())
    return emitError(loc) << "Gradient node " << nodeLabel(node) << " has "
                          << node.input_size() << " inputs for " << names.size()
                          << " names in xs and zs";
  names.push_back(y);
  for (const std::string &name : names) {
    Value v = name.empty() ? Value() : lookup(name);
    if (!v)
      return emitError(loc)
             << "Gradient node " << nodeLabel(node) << " names '" << name
             << "', which is not computed before the node";
    state.addOperands(v);
  }
  return success();
}

LogicalResult ModelImporter::importNode(onnx::NodeProto &node) {
  StringRef domain =
      node.domain() == "ai.onnx" ? StringRef() : StringRef(node.domain());
  Location loc = nodeLoc(node);

  auto fn = functions.find(domain.str() + "|" + node.op_type());
  if (fn != functions.end())
    return inlineFunction(node, *fn->second);
  // Old-opset nodes kept from the version converter: their old semantics
  // in opset-17 operators.
  if (isLegacyDomain(domain)) {
    onnx::FunctionProto body;
    std::string reason;
    auto typeOf = [this](StringRef name) -> Type {
      Value v = name.empty() ? Value() : lookup(name);
      return v ? v.getType() : Type();
    };
    if (failed(buildLegacyExpansion(node, typeOf, body, reason))) {
      noteUnsupported(node, "", -1, node.op_type() + " " + reason);
      for (const std::string &out : node.output())
        if (!out.empty())
          define(out, Value());
      return success();
    }
    return inlineDialectOpsetFunction(node, body);
  }
  // ai.onnx.preview operators defined by a context-dependent function
  // (FlexAttention): the body's ai.onnx operators are at the model's opset,
  // as the modifier subgraphs spliced into it are.
  if (domain == "ai.onnx.preview" &&
      hasPreviewFunctionExpansion(node.op_type(), opsetOf(domain))) {
    onnx::FunctionProto body;
    std::string reason;
    auto typeOf = [this](StringRef name) -> Type {
      Value v = name.empty() ? Value() : lookup(name);
      return v ? v.getType() : Type();
    };
    if (failed(buildFlexAttention(node, typeOf, body, reason))) {
      noteUnsupported(node, domain, opsetOf(domain),
                      node.op_type() + "-" + std::to_string(opsetOf(domain)) +
                          " " + reason);
      for (const std::string &out : node.output())
        if (!out.empty())
          define(out, Value());
      return success();
    }
    // A model importing only the preview domain: ai.onnx at the dialect's
    // opset.
    if (opsetOf("") >= 1)
      return inlineFunction(node, body);
    opsets[""] = kDialectOpset;
    LogicalResult result = inlineFunction(node, body);
    opsets.erase("");
    return result;
  }
  // Operators the dialect has no op for, defined by a context-dependent
  // function whose body FunctionExpansions.cpp builds (Attention).
  if (domain.empty() && opsetOf("") > kDialectOpset) {
    int version = classifyNewerVersion(node.op_type(), opsetOf(""), 0).first;
    if (hasFunctionExpansion(node.op_type(), version)) {
      onnx::FunctionProto body;
      std::string reason;
      auto typeOf = [this](StringRef name) -> Type {
        Value v = name.empty() ? Value() : lookup(name);
        return v ? v.getType() : Type();
      };
      if (failed(buildFunctionExpansion(node, version, typeOf, body,
                                        reason))) {
        noteUnsupported(node, domain, version,
                        node.op_type() + "-" + std::to_string(version) + " " +
                            reason);
        for (const std::string &out : node.output())
          if (!out.empty())
            define(out, Value());
        return success();
      }
      return inlineDialectOpsetFunction(node, body);
    }
  }
  if (domain.empty() && options.expandFunctionOps.count(node.op_type()) &&
      unsupported.empty()) {
    onnx::FunctionProto body;
    // The body is at opset kDialectOpset now (see getSchemaFunction).
    if (succeeded(getSchemaFunction(node, body)))
      return inlineDialectOpsetFunction(node, body);
  }

  int opset = opsetOf(domain);
  const ONNXOpInfo *info = lookupONNXOpInfo(domain, node.op_type());
  bool usable = info != nullptr;
  int version = opset;
  if (!info) {
    noteUnsupported(node, domain, opset,
                    "the onnx dialect has no operator of this name");
  } else if (opset < 0) {
    usable = false;
    noteUnsupported(node, domain, opset,
                    "the model does not import the operator's domain");
  } else if (domain.empty() && opset > kDialectOpset) {
    auto [newVersion, modelled] =
        classifyNewerVersion(node.op_type(), opset, info->sinceVersion);
    version = newVersion ? newVersion : opset17Version(node.op_type());
    if (modelled && version && !upgradeToDialect(node, version, *info))
      usable = false;
    if (!modelled) {
      usable = false;
      noteUnsupported(node, domain, version,
                      "version " + std::to_string(version) +
                          " changed the operator; the dialect models "
                          "version " +
                          std::to_string(info->sinceVersion));
    }
  } else if (domain == "ai.onnx.ml" && opset > kDialectMLOpset &&
             !isModelledMLVersion(node, opset)) {
    usable = false;
    noteUnsupported(node, domain, opset,
                    "ai.onnx.ml opset " + std::to_string(opset) +
                        " changed the operator; the dialect models ai.onnx.ml "
                        "opset " +
                        std::to_string(kDialectMLOpset));
  } else if (domain == "ai.onnx.ml" && info->sinceVersion > kDialectMLOpset) {
    // An operator modelled at a version newer than libonnx 1.12's
    // ai.onnx.ml (TreeEnsemble-5, LabelEncoder-4), which takes the nodes of
    // the older versions whose attributes it keeps (LabelEncoder-2's), or
    // upgraded to them (LabelEncoder-1's).
    version = info->sinceVersion;
    bool labelEncoder = node.op_type() == "LabelEncoder";
    int oldest = labelEncoder ? 1 : info->sinceVersion;
    std::string reason;
    if (opset < oldest) {
      usable = false;
      noteUnsupported(node, domain, opset,
                      "the operator is not defined at this opset");
    } else if (labelEncoder && opset < 2) {
      AdapterContext adapter = makeAdapterContext();
      if (failed(upgradeLabelEncoder1(node, adapter, reason))) {
        usable = false;
        noteUnsupported(node, domain, opset, reason);
      }
    }
  } else {
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(node.op_type(), opset, domain.str());
    version = schema ? schema->since_version() : opset;
    if (!schema) {
      usable = false;
      noteUnsupported(node, domain, opset,
                      "the operator is not defined at this opset");
    } else if (schema->since_version() < info->sinceVersion &&
               domain.empty()) {
      usable = upgradeToDialect(node, version, *info);
    } else if (schema->since_version() != info->sinceVersion) {
      usable = false;
      noteUnsupported(node, domain, version,
                      "the dialect models version " +
                          std::to_string(info->sinceVersion) +
                          " and no conversion applies");
    }
  }

  // Keep scanning for further unsupported ops, but build nothing.
  auto defineUnknown = [&]() {
    for (const std::string &out : node.output())
      if (!out.empty())
        define(out, Value());
    for (onnx::AttributeProto &attr : *node.mutable_attribute())
      if (attr.has_g())
        for (onnx::NodeProto &inner : *attr.mutable_g()->mutable_node())
          if (failed(importNode(inner)))
            return failure();
    return success();
  };
  if (!usable || !unsupported.empty())
    return defineUnknown();
  (void)version;

  OperationState state(loc, "onnx." + std::string(info->mnemonic));
  // Operands, in ONNX positions.
  SmallVector<int32_t> operandSegments;
  size_t pos = 0;
  for (const ONNXParamInfo &param : info->inputs) {
    int32_t count = 0;
    auto take = [&](size_t i) -> LogicalResult {
      Value v = lookup(node.input(i));
      if (!v) {
        emitError(loc) << "input '" << node.input(i) << "' of node "
                       << nodeLabel(node) << " (" << node.op_type()
                       << ") is not defined before the node";
        return failure();
      }
      state.addOperands(v);
      ++count;
      return success();
    };
    if (param.getOption() == ONNXParamOption::Variadic) {
      for (; pos < size_t(node.input_size()); ++pos) {
        if (node.input(pos).empty()) {
          emitError(loc) << "node " << nodeLabel(node) << " ("
                         << node.op_type()
                         << ") leaves an input of variadic '" << param.name
                         << "' empty";
          return failure();
        }
        if (failed(take(pos)))
          return failure();
      }
    } else {
      bool present = pos < size_t(node.input_size()) && !node.input(pos).empty();
      if (present && failed(take(pos)))
        return failure();
      if (!present && param.getOption() == ONNXParamOption::Single) {
        emitError(loc) << "node " << nodeLabel(node) << " (" << node.op_type()
                       << ") lacks required input '" << param.name << "'";
        return failure();
      }
      ++pos;
    }
    operandSegments.push_back(count);
  }
  if (pos < size_t(node.input_size())) {
    emitError(loc) << "node " << nodeLabel(node) << " (" << node.op_type()
                   << ") has " << node.input_size() << " inputs, "
                   << node.op_type() << " takes at most "
                   << info->inputs.size();
    return failure();
  }
  if (info->attrSizedOperands)
    state.addAttribute("operandSegmentSizes",
                       builder.getDenseI32ArrayAttr(operandSegments));
  if (domain == "ai.onnx.preview.training" && node.op_type() == "Gradient" &&
      failed(addGradientOperands(node, state)))
    return failure();

  // Results, in ONNX positions.
  SmallVector<int32_t> resultSegments;
  SmallVector<std::string> resultNames;
  pos = 0;
  for (const ONNXParamInfo &param : info->outputs) {
    int32_t count = 0;
    auto add = [&](size_t i) {
      auto it = valueTypes.find(node.output(i));
      Type type = it == valueTypes.end() ? Type()
                                         : convertTypeProto(ctx, it->second);
      state.addTypes(type ? type : builder.getNoneType());
      resultNames.push_back(node.output(i));
      ++count;
    };
    if (param.getOption() == ONNXParamOption::Variadic) {
      for (; pos < size_t(node.output_size()); ++pos)
        add(pos);
    } else {
      bool present =
          pos < size_t(node.output_size()) && !node.output(pos).empty();
      if (present)
        add(pos);
      else if (param.getOption() == ONNXParamOption::Single) {
        emitError(loc) << "node " << nodeLabel(node) << " (" << node.op_type()
                       << ") lacks required output '" << param.name << "'";
        return failure();
      }
      ++pos;
    }
    resultSegments.push_back(count);
  }
  if (pos < size_t(node.output_size())) {
    emitError(loc) << "node " << nodeLabel(node) << " (" << node.op_type()
                   << ") has " << node.output_size() << " outputs, "
                   << node.op_type() << " has at most "
                   << info->outputs.size();
    return failure();
  }
  if (info->attrSizedResults)
    state.addAttribute("resultSegmentSizes",
                       builder.getDenseI32ArrayAttr(resultSegments));

  // Attributes; GRAPH attributes become regions, in schema order.
  SmallVector<onnx::AttributeProto *> graphs(info->getRegionNames().size());
  SmallVector<StringRef> regionNames = info->getRegionNames();
  for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
    const ONNXAttrInfo *attrInfo = info->findAttr(attr.name());
    if (!attrInfo) {
      emitError(loc) << "node " << nodeLabel(node) << " (" << node.op_type()
                     << ") has attribute '" << attr.name()
                     << "', which " << node.op_type() << "-"
                     << info->sinceVersion << " does not define";
      return failure();
    }
    if (attrInfo->isGraph()) {
      auto *it = llvm::find(regionNames, attr.name());
      graphs[it - regionNames.begin()] = &attr;
      continue;
    }
    std::string error;
    Attribute value = convertAttribute(attr, attrInfo->type, node, error);
    if (!value) {
      emitError(loc) << "node " << nodeLabel(node) << " (" << node.op_type()
                     << "): " << error;
      return failure();
    }
    state.addAttribute(getODSAttrName(state.name, attr.name()), value);
  }
  for (const ONNXAttrInfo &attrInfo : info->attrs)
    if (attrInfo.required && !attrInfo.isGraph() &&
        !state.attributes.get(getODSAttrName(state.name, attrInfo.name))) {
      emitError(loc) << "node " << nodeLabel(node) << " (" << node.op_type()
                     << ") lacks required attribute '" << attrInfo.name
                     << "'";
      return failure();
    }
  if (info->mnemonic == StringRef("Constant"))
    normaliseConstant(state);

  for (size_t i = 0; i < graphs.size(); ++i)
    state.addRegion();
  Operation *op = builder.create(state);
  for (auto [i, attr] : llvm::enumerate(graphs)) {
    if (!attr) {
      emitError(loc) << "node " << nodeLabel(node) << " (" << node.op_type()
                     << ") lacks graph attribute '" << regionNames[i] << "'";
      return failure();
    }
    OpBuilder::InsertionGuard guard(builder);
    if (failed(importSubgraph(op->getRegion(i), *attr->mutable_g(), node)))
      return failure();
  }
  // A subgraph used an unsupported op: the op stays incomplete (the import
  // fails once every node was seen) and its results unknown.
  if (!unsupported.empty()) {
    for (const std::string &name : resultNames)
      define(name, Value());
    return success();
  }

  // A Gradient's outputs have the types of its xs inputs.
  if (isa<ONNXTrainingGradientOp>(op))
    for (auto [result, input] : llvm::zip(op->getResults(), op->getOperands()))
      result.setType(refineType(result.getType(), input.getType()));

  // Results whose type the model does not state: ask the schema.
  bool missing = llvm::any_of(op->getResultTypes(), llvm::IsaPred<NoneType>);
  bool unranked = llvm::any_of(op->getResultTypes(), [](Type t) {
    return isa<UnrankedTensorType>(t);
  });
  if (missing || unranked) {
    std::string error;
    FailureOr<SmallVector<Type>> inferred = inferTypesFromSchema(op, error);
    if (succeeded(inferred))
      for (auto [result, type] : llvm::zip(op->getResults(), *inferred))
        result.setType(refineType(result.getType(), type));
    for (auto [i, result] : llvm::enumerate(op->getResults()))
      if (isa<NoneType>(result.getType())) {
        emitError(loc) << "cannot infer the type of output '"
                       << resultNames[i] << "' of node " << nodeLabel(node)
                       << " (" << node.op_type() << ")"
                       << (error.empty() ? "" : ": " + error);
        return failure();
      }
  }
  for (auto [name, result] : llvm::zip(resultNames, op->getResults()))
    define(name, result);
  return success();
}

/// The ONNX function body of a schema operator, specialised for `node`
/// (context-dependent bodies depend on the input types and attributes).
/// Attributes the node leaves out get the schema's defaults, since the body
/// refers to them by name.
LogicalResult ModelImporter::getSchemaFunction(onnx::NodeProto &node,
                                               onnx::FunctionProto &body) {
  const ONNXOpInfo *info = lookupONNXOpInfo("", node.op_type());
  if (!info)
    return failure();
  const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
      node.op_type(), info->sinceVersion, "");
  if (!schema)
    return failure();
  for (const auto &entry : schema->attributes()) {
    const std::string &name = entry.first;
    const onnx::OpSchema::Attribute &attr = entry.second;
    bool present = llvm::any_of(node.attribute(), [&](const auto &a) {
      return a.name() == name;
    });
    if (!present && attr.default_value.type() !=
                        onnx::AttributeProto::UNDEFINED)
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
static void bindAttributeRefs(
    google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes,
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
        for (auto *infos : {g.mutable_input(), g.mutable_output(),
                            g.mutable_value_info()})
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
