//===- Importer.h - ONNX ModelProto -> onnx dialect -------------*- C++ -*-===//
#ifndef ONNXC_IMPORTER_IMPORTER_H
#define ONNXC_IMPORTER_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mlir::onnxc {

/// Which graph of a model with a TrainingInfoProto to import.
enum class TrainingGraph {
  /// The inference graph (ModelProto.graph) alone.
  Inference,
  /// The inference graph combined with the training algorithm: its outputs
  /// are the algorithm's (then the model outputs update_binding names); the
  /// module gets `onnxc.update_binding` ([[initializer, output], ...]). A
  /// model without an algorithm imports as Inference.
  Algorithm,
  /// The initialization graph: no inputs, one output per
  /// initialization_binding entry, named after the initializer it sets.
  Initialization,
};

struct ImportOptions {
  /// Run ONNX's graph-level shape inference before import, to give every
  /// value the most precise type ONNX can derive.
  bool onnxShapeInference = true;
  /// Initializers of at least this many bytes become dense_resource blobs.
  size_t resourceThreshold = 1024;
  /// ai.onnx operators replaced by their ONNX function body at import (the
  /// CPU backend lowers the body's ops; the dialect op stays available).
  std::set<std::string> expandFunctionOps = {
      "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss",
      "DynamicQuantizeLinear", "BlackmanWindow", "HammingWindow",
      "HannWindow"};
  /// Give each initializer's onnx.Constant an `onnx.initializer` attribute
  /// with its name (what onnx-build-training-step trains).
  bool markInitializers = false;
  /// The graph to import of a model with a TrainingInfoProto; with
  /// Algorithm or Initialization a model that has an initialization graph
  /// gets the module attribute `onnxc.has_initialization`.
  TrainingGraph trainingGraph = TrainingGraph::Inference;
  /// Name of the function the main graph becomes.
  std::string entryName = "main_graph";
  /// Shapes that replace graph inputs' declared shapes before ONNX's
  /// inference runs (`onnxc --input-shape NAME:D1xD2...`): input name ->
  /// dims, kDynamicDim keeping a dim dynamic. The rank must be the declared
  /// one and a declared static dim cannot change; a replaced dim's dim_param
  /// takes the value everywhere (as `dimValues`).
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Values of symbolic dims (`onnxc --dim NAME=N`, ONNX Runtime's free
  /// dimension overrides): every dim named NAME in the graph's inputs,
  /// outputs and value_info becomes N. A name no graph input has is an
  /// error.
  std::map<std::string, int64_t> dimValues;
  static constexpr int64_t kDynamicDim = -1;
};

/// Imports the ONNX model in file `path`. Errors are reported through the
/// context's diagnostic engine (one diagnostic listing every unsupported op
/// at once) and yield a null module.
OwningOpRef<ModuleOp> importONNXModelFile(MLIRContext *ctx, StringRef path,
                                          const ImportOptions &options = {});

/// Imports a serialized ModelProto; external data is resolved against
/// `baseDir`, diagnostics name `bufferName`.
OwningOpRef<ModuleOp> importONNXModelBuffer(MLIRContext *ctx,
                                            StringRef buffer,
                                            StringRef bufferName,
                                            StringRef baseDir,
                                            const ImportOptions &options = {});

} // namespace mlir::onnxc

#endif // ONNXC_IMPORTER_IMPORTER_H
