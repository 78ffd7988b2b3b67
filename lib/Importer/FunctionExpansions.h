//===- FunctionExpansions.h - Operators imported as functions ---*- C++ -*-===//
//
// Operators whose ONNX definition is a context-dependent function (its body
// depends on the node's attributes and input types), which the dialect has
// no op for: the importer builds the body here, in opset-17 operators, and
// inlines it. libonnx 1.12 does not know these operators, so the bodies are
// written from the ONNX 1.23.1 specification (the schema's `doc`).
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_LIB_IMPORTER_FUNCTIONEXPANSIONS_H
#define ONNXC_LIB_IMPORTER_FUNCTIONEXPANSIONS_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <string>
#include <vector>

namespace mlir::onnxc {

/// Whether the importer expands ai.onnx operator `opType` of version
/// `version` into a function body built here.
bool hasFunctionExpansion(StringRef opType, int version);

/// Builds the body of `node` (ai.onnx, version `version`) in `body`: its
/// inputs and outputs are the node's formal parameter names, its nodes use
/// opset-17 operators. `typeOf` gives the MLIR type of a node input (null if
/// unknown). On failure `reason` says what the node uses that the expansion
/// does not cover.
LogicalResult buildFunctionExpansion(
    const onnx::NodeProto &node, int version,
    const std::function<Type(StringRef name)> &typeOf,
    onnx::FunctionProto &body, std::string &reason);

/// Whether the importer expands ai.onnx.preview operator `opType` of
/// version `version` (FlexAttention-1) into a function body; the body's
/// operators are ai.onnx at the model's opset, so modifier subgraphs
/// written at that opset can be spliced in.
bool hasPreviewFunctionExpansion(StringRef opType, int version);

/// FlexAttention-1 (FlexAttention.cpp); as buildFunctionExpansion.
LogicalResult buildFlexAttention(
    const onnx::NodeProto &node,
    const std::function<Type(StringRef name)> &typeOf,
    onnx::FunctionProto &body, std::string &reason);

/// Takes the nodes of the main graph `graph` at opset `opset` that libonnx's
/// version converter cannot convert (Softmax-family nodes before 13,
/// axis-broadcasting arithmetic before 7, spatial = 0 BatchNormalization)
/// out of it, their outputs made graph inputs and their inputs graph
/// outputs; returns them, in the domain "onnxc.legacy" (LegacyNodes.cpp).
std::vector<onnx::NodeProto> takeOutLegacyNodes(onnx::GraphProto &graph,
                                                int opset);

/// Undoes takeOutLegacyNodes on the converted graph: drops the inputs and
/// outputs past the original counts and puts each node back before its
/// first reader.
void putBackLegacyNodes(onnx::GraphProto &graph,
                        const std::vector<onnx::NodeProto> &taken,
                        int originalInputs, int originalOutputs);

/// Whether `domain` is the one takeOutLegacyNodes gives its nodes.
bool isLegacyDomain(StringRef domain);

/// The body of a node takeOutLegacyNodes took out, at its old semantics, in
/// opset-17 operators; as buildFunctionExpansion.
LogicalResult buildLegacyExpansion(
    const onnx::NodeProto &node,
    const std::function<Type(StringRef name)> &typeOf,
    onnx::FunctionProto &body, std::string &reason);

} // namespace mlir::onnxc

#endif // ONNXC_LIB_IMPORTER_FUNCTIONEXPANSIONS_H
