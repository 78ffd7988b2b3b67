//===- ModelImporterImpl.h - The importer's state, shared by its files -*- C++
//-*-===//
//
// The ModelImporter class (one per imported model) and the opset tables it
// consults. ModelImporter.cpp holds the opsets, types, graphs and the entry
// points; ImportNode.cpp the import of one node; ImportFunctions.cpp the
// inlining of ONNX functions (model-local and schema bodies).
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_LIB_IMPORTER_MODELIMPORTERIMPL_H
#define ONNXC_LIB_IMPORTER_MODELIMPORTERIMPL_H

#include "onnxc/Importer/Importer.h"

#include "NodeAdapters.h"

#include "onnxc/Dialect/ONNX/IR/ONNXOpInfo.h"
#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Support/ProtoConversion.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <onnx/defs/schema.h>

#include <map>

namespace mlir::onnxc::importer {

/// The newest ai.onnx opset whose operator versions the dialect models.
inline constexpr int kDialectOpset = 17;

enum class ChangeKind { TypesOnly, Semantic, New };
struct OpsetChange {
  const char *opType;
  int version;
  ChangeKind kind;
};
inline const OpsetChange kOpsetChanges[] = {
#define ONNX_OPSET_CHANGE(op, version, kind) {#op, version, ChangeKind::kind},
#include "OpsetChanges.def"
};

/// For an ai.onnx node of a model at `opset` > 17: the version that applies
/// (0 when none of opsets 18..`opset` changed the operator) and whether the
/// dialect's op, of version `dialectVersion`, models it: no version after
/// the dialect's up to `opset` changed more than type constraints.
inline std::pair<int, bool> classifyNewerVersion(StringRef opType, int opset,
                                                 int dialectVersion) {
  int version = 0;
  bool modelled = true;
  for (const OpsetChange &change : kOpsetChanges) {
    if (opType != change.opType || change.version > opset)
      continue;
    if (change.version > version)
      version = change.version;
    if (change.version > dialectVersion && change.kind != ChangeKind::TypesOnly)
      modelled = false;
  }
  return {version, modelled};
}

/// Whether a version of `opType` after `from`, up to `to`, changed more than
/// type constraints: a node of version `from` then needs an upgrade.
inline bool changedBetween(StringRef opType, int from, int to) {
  return llvm::any_of(kOpsetChanges, [&](const OpsetChange &change) {
    return opType == change.opType && change.version > from &&
           change.version <= to && change.kind == ChangeKind::Semantic;
  });
}

/// The version of ai.onnx operator `opType` at opset 17 (libonnx 1.12's
/// newest), 0 when it has none: what libonnx's version converter produces.
inline int opset17Version(StringRef opType) {
  const onnx::OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(opType.str(), kDialectOpset, "");
  return schema ? schema->since_version() : 0;
}

/// The newest ai.onnx.ml opset the dialect models (ONNX 1.12's registry).
inline constexpr int kDialectMLOpset = 3;

/// ai.onnx.ml operators that changed after opset 3 (ONNX Changelog-ml.md):
/// opset 4 LabelEncoder (tensor-valued keys/values/default, more types;
/// modelled at 4, which keeps every attribute of 2: utils/gen_onnx_ops.py's
/// ML_VERSIONS); opset 5 TreeEnsemble (new, modelled at 5),
/// TreeEnsembleClassifier/Regressor (deprecated, modelled at 3).
inline bool isModelledMLVersion(const onnx::NodeProto &node, int opset) {
  StringRef opType = node.op_type();
  if (opType == "TreeEnsembleClassifier" || opType == "TreeEnsembleRegressor")
    return opset < 5;
  return true;
}

inline std::string domainName(StringRef domain) {
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
    if (succeeded(
            upgradeNode(node, version, info.sinceVersion, adapter, reason)))
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
      auto dense =
          cst ? dyn_cast_or_null<DenseIntElementsAttr>(cst.getValueAttr())
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
      auto type =
          RankedTensorType::get({int64_t(values.size())}, builder.getI64Type());
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

} // namespace mlir::onnxc::importer

#endif // ONNXC_LIB_IMPORTER_MODELIMPORTERIMPL_H
