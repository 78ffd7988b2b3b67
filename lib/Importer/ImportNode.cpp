//===- ImportNode.cpp - One ONNX node -> one onnx dialect op --------------===//
//
// ModelImporter::importNode: the node's domain and version checked against
// what the dialect models (upgraded, adapted or expanded where it can),
// its attributes converted, its subgraphs imported as regions, its results
// defined; a Gradient node's operands added.
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
      if (failed(buildFunctionExpansion(node, version, typeOf, body, reason))) {
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
    } else if (schema->since_version() < info->sinceVersion && domain.empty()) {
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
          emitError(loc) << "node " << nodeLabel(node) << " (" << node.op_type()
                         << ") leaves an input of variadic '" << param.name
                         << "' empty";
          return failure();
        }
        if (failed(take(pos)))
          return failure();
      }
    } else {
      bool present =
          pos < size_t(node.input_size()) && !node.input(pos).empty();
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
      Type type =
          it == valueTypes.end() ? Type() : convertTypeProto(ctx, it->second);
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
                   << node.op_type() << " has at most " << info->outputs.size();
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
                     << ") has attribute '" << attr.name() << "', which "
                     << node.op_type() << "-" << info->sinceVersion
                     << " does not define";
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
                     << ") lacks required attribute '" << attrInfo.name << "'";
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
  bool unranked = llvm::any_of(
      op->getResultTypes(), [](Type t) { return isa<UnrankedTensorType>(t); });
  if (missing || unranked) {
    std::string error;
    FailureOr<SmallVector<Type>> inferred = inferTypesFromSchema(op, error);
    if (succeeded(inferred))
      for (auto [result, type] : llvm::zip(op->getResults(), *inferred))
        result.setType(refineType(result.getType(), type));
    for (auto [i, result] : llvm::enumerate(op->getResults()))
      if (isa<NoneType>(result.getType())) {
        emitError(loc) << "cannot infer the type of output '" << resultNames[i]
                       << "' of node " << nodeLabel(node) << " ("
                       << node.op_type() << ")"
                       << (error.empty() ? "" : ": " + error);
        return failure();
      }
  }
  for (auto [name, result] : llvm::zip(resultNames, op->getResults()))
    define(name, result);
  return success();
}
