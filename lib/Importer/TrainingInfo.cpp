//===- TrainingInfo.cpp - A model's TrainingInfoProto as a graph ----------===//
//
// See TrainingInfo.h. The combination follows onnx.proto: "the actual
// input/initializer/output/node/value_info/sparse_initializer list of the
// training graph is the concatenation of ModelProto.graph's and
// algorithm's, in that order".
//
//===----------------------------------------------------------------------===//

#include "TrainingInfo.h"

#include <map>
#include <set>

using namespace mlir::onnxc;

namespace {

Binding readBinding(
    const google::protobuf::RepeatedPtrField<onnx::StringStringEntryProto>
        &entries) {
  Binding binding;
  for (const onnx::StringStringEntryProto &e : entries)
    binding.emplace_back(e.key(), e.value());
  return binding;
}

/// The names of a graph's initializers (dense and sparse).
void addInitializerNames(const onnx::GraphProto &g,
                         std::set<std::string> &names) {
  for (const onnx::TensorProto &t : g.initializer())
    names.insert(t.name());
  for (const onnx::SparseTensorProto &t : g.sparse_initializer())
    names.insert(t.values().name());
}

/// Checks that the keys are distinct initializers and the values are in
/// `outputs`; returns an error message or "".
std::string checkBinding(const Binding &binding, const char *what,
                         const std::set<std::string> &initializers,
                         const std::set<std::string> &outputs) {
  std::set<std::string> keys;
  for (auto &[key, value] : binding) {
    if (!keys.insert(key).second)
      return std::string(what) + " binds '" + key + "' twice";
    if (!initializers.count(key))
      return std::string(what) + " binds '" + key +
             "', which is not an initializer";
    if (!outputs.count(value))
      return std::string(what) + " binds '" + key + "' to '" + value +
             "', which is not an output";
  }
  return "";
}

template <typename T>
void append(google::protobuf::RepeatedPtrField<T> &to,
            const google::protobuf::RepeatedPtrField<T> &from) {
  for (const T &item : from)
    *to.Add() = item;
}

} // namespace

std::string mlir::onnxc::applyTrainingInfo(onnx::ModelProto &model,
                                           TrainingGraph which,
                                           TrainingInfoResult &result) {
  if (which == TrainingGraph::Inference)
    return "";
  const onnx::TrainingInfoProto *algorithm = nullptr, *initialization = nullptr;
  for (const onnx::TrainingInfoProto &info : model.training_info()) {
    if (info.has_algorithm() && info.algorithm().node_size()) {
      if (algorithm)
        return "the model has more than one training algorithm "
               "(TrainingInfoProto); onnxc runs one";
      algorithm = &info;
    }
    if (info.has_initialization() && info.initialization().node_size()) {
      if (initialization)
        return "the model has more than one initialization graph "
               "(TrainingInfoProto); onnxc runs one";
      initialization = &info;
    }
  }
  result.hasInitialization = initialization != nullptr;
  result.hasAlgorithm = algorithm != nullptr;
  onnx::GraphProto &graph = *model.mutable_graph();
  std::set<std::string> initializers;
  addInitializerNames(graph, initializers);
  if (algorithm)
    addInitializerNames(algorithm->algorithm(), initializers);

  if (which == TrainingGraph::Algorithm) {
    if (!algorithm)
      return "";
    const onnx::GraphProto &a = algorithm->algorithm();
    Binding binding = readBinding(algorithm->update_binding());
    // Outputs: the algorithm's, then the model outputs a binding names.
    std::map<std::string, onnx::ValueInfoProto> modelOutputs;
    for (const onnx::ValueInfoProto &vi : graph.output())
      modelOutputs[vi.name()] = vi;
    std::set<std::string> outputs;
    for (const onnx::ValueInfoProto &vi : a.output())
      outputs.insert(vi.name());
    for (auto &entry : modelOutputs)
      outputs.insert(entry.first);
    std::string error =
        checkBinding(binding, "update_binding", initializers, outputs);
    if (!error.empty())
      return error;
    google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> newOutputs;
    std::set<std::string> listed;
    for (const onnx::ValueInfoProto &vi : a.output())
      if (listed.insert(vi.name()).second)
        *newOutputs.Add() = vi;
    for (auto &[key, value] : binding)
      if (listed.insert(value).second)
        *newOutputs.Add() = modelOutputs[value];
    append(*graph.mutable_input(), a.input());
    append(*graph.mutable_initializer(), a.initializer());
    append(*graph.mutable_sparse_initializer(), a.sparse_initializer());
    append(*graph.mutable_node(), a.node());
    append(*graph.mutable_value_info(), a.value_info());
    *graph.mutable_output() = newOutputs;
    result.update = std::move(binding);
    model.clear_training_info();
    return "";
  }

  // Initialization: its nodes may read the model's and the algorithm's
  // initializers; it has no inputs.
  if (!initialization)
    return "the model has no initialization graph";
  const onnx::GraphProto &init = initialization->initialization();
  if (init.input_size())
    return "the initialization graph has inputs; it must have none";
  Binding binding = readBinding(initialization->initialization_binding());
  std::map<std::string, onnx::ValueInfoProto> initOutputs;
  std::set<std::string> outputs;
  for (const onnx::ValueInfoProto &vi : init.output()) {
    initOutputs[vi.name()] = vi;
    outputs.insert(vi.name());
  }
  std::string error = checkBinding(binding, "initialization_binding",
                                   initializers, outputs);
  if (!error.empty())
    return error;
  onnx::GraphProto fresh;
  fresh.set_name(init.name().empty() ? "initialization" : init.name());
  append(*fresh.mutable_initializer(), graph.initializer());
  append(*fresh.mutable_sparse_initializer(), graph.sparse_initializer());
  if (algorithm) {
    append(*fresh.mutable_initializer(), algorithm->algorithm().initializer());
    append(*fresh.mutable_sparse_initializer(),
           algorithm->algorithm().sparse_initializer());
  }
  append(*fresh.mutable_initializer(), init.initializer());
  append(*fresh.mutable_sparse_initializer(), init.sparse_initializer());
  append(*fresh.mutable_node(), init.node());
  append(*fresh.mutable_value_info(), init.value_info());
  for (auto &[key, value] : binding) {
    *fresh.add_output() = initOutputs[value];
    result.initialized.push_back(key);
  }
  *model.mutable_graph() = std::move(fresh);
  model.clear_training_info();
  return "";
}
