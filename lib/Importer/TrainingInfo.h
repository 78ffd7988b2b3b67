//===- TrainingInfo.h - A model's TrainingInfoProto as a graph --*- C++ -*-===//
//
// ONNX's TrainingInfoProto describes a model's own training: an
// `initialization` graph with `initialization_binding` (initializer <-
// output) and an `algorithm` graph, run on the inference graph combined
// with it, with `update_binding` (initializer <- output). The functions here
// rewrite a ModelProto's graph into the one the importer should import.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_LIB_IMPORTER_TRAININGINFO_H
#define ONNXC_LIB_IMPORTER_TRAININGINFO_H

#include "onnxc/Importer/Importer.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <utility>
#include <vector>

namespace mlir::onnxc {

/// (initializer, output) pairs of a binding.
using Binding = std::vector<std::pair<std::string, std::string>>;

/// What applyTrainingInfo found and did.
struct TrainingInfoResult {
  /// The algorithm's update_binding (TrainingGraph::Algorithm), empty when
  /// the model has no algorithm (the graph is left alone).
  Binding update;
  /// Whether the model has an algorithm (with Algorithm: combined).
  bool hasAlgorithm = false;
  /// Whether the model has an initialization graph.
  bool hasInitialization = false;
  /// TrainingGraph::Initialization: the initializer each output of the new
  /// graph sets, in order.
  std::vector<std::string> initialized;
};

/// Rewrites model.graph for `which`: Algorithm makes it the inference graph
/// combined with the algorithm (inputs, initializers, nodes and value_info
/// concatenated; outputs the algorithm's, then the model outputs that
/// update_binding names), Initialization makes it the initialization graph
/// with the initializers of the model and the algorithm, its outputs one per
/// initialization_binding entry. Checks the bindings (keys are distinct
/// initializers, values outputs); at most one TrainingInfoProto may have an
/// algorithm and one an initialization. Returns an error message, or "".
std::string applyTrainingInfo(onnx::ModelProto &model, TrainingGraph which,
                              TrainingInfoResult &result);

} // namespace mlir::onnxc

#endif // ONNXC_LIB_IMPORTER_TRAININGINFO_H
