//===- Train.cpp - onnxc-run --train-steps: drive a training library ------===//
//
// Runs training steps of a library compiled with onnxc --train through its
// onnxc_train_* API, with checkpoints, and writes the trained state into
// an ONNX model (the one compiled, its initializers replaced).
//
//===----------------------------------------------------------------------===//

#include "Train.h"

#include "Inputs.h"
#include "ValueFile.h"

#include <onnx/onnx_pb.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

namespace onnxc::runner {

namespace {

/// Writes `base` with each initializer named like a state tensor replaced
/// by the state's bytes; returns how many were replaced.
int exportModel(const CompiledModel &model, const std::string &base,
                const std::string &out) {
  onnx::ModelProto proto;
  {
    std::ifstream in(base, std::ios::binary);
    if (!in || !proto.ParseFromIstream(&in))
      fatal("--base-model: cannot read " + base + " as an ONNX model");
  }
  std::map<std::string, std::string> state;
  for (auto &[name, bytes] : model.trainState())
    state[name] = bytes;
  int replaced = 0;
  for (onnx::TensorProto &t : *proto.mutable_graph()->mutable_initializer()) {
    auto it = state.find(t.name());
    if (it == state.end())
      continue;
    int64_t count = 1;
    for (int64_t d : t.dims())
      count *= d;
    size_t width = t.data_type() == onnx::TensorProto::DOUBLE ||
                           t.data_type() == onnx::TensorProto::INT64
                       ? 8
                   : t.data_type() == onnx::TensorProto::FLOAT ? 4
                                                               : 0;
    if (!width || it->second.size() != size_t(count) * width)
      fatal("--export-onnx: initializer '" + t.name() +
            "' does not match the library's state tensor of that name");
    onnx::TensorProto fresh;
    fresh.set_name(t.name());
    fresh.set_data_type(t.data_type());
    *fresh.mutable_dims() = t.dims();
    fresh.set_raw_data(it->second);
    t = fresh;
    ++replaced;
  }
  std::ofstream os(out, std::ios::binary);
  if (!os || !proto.SerializeToOstream(&os))
    fatal("--export-onnx: cannot write " + out);
  return replaced;
}

} // namespace

int runTraining(CompiledModel &model, const Options &options) {
  int numInputs = model.trainNumInputs();
  if (numInputs < 0)
    fatal(options.model + " is not a training library (compile the model "
                          "with onnxc --train)");
  model.keepInputs(numInputs);
  std::string error;
  if (!options.loadCheckpoint.empty() &&
      !model.trainLoad(options.loadCheckpoint, error))
    fatal(error);
  std::vector<std::string> sources;
  std::vector<HostValue> inputs = bindInputs(model, options, sources);
  std::vector<onnxc_value> views;
  for (const HostValue &v : inputs)
    views.push_back(v.view());
  int steps = options.trainSteps;
  int every = steps <= 20 ? 1 : (steps + 9) / 10;
  auto start = std::chrono::steady_clock::now();
  for (int step = 1; step <= steps; ++step) {
    double loss = 0;
    if (model.trainStep(views, loss, error) != ONNXC_OK)
      fatal("training step " + std::to_string(step) + " failed: " + error);
    if (step == 1 || step % every == 0 || step == steps)
      std::printf("step %d: loss %.6g\n", step, loss);
  }
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  if (steps > 0)
    std::printf("train: %d steps, %.3f ms per step\n", steps, ms / steps);
  if (!options.saveCheckpoint.empty()) {
    if (!model.trainSave(options.saveCheckpoint, error))
      fatal(error);
    std::printf("checkpoint: %s\n", options.saveCheckpoint.c_str());
  }
  if (!options.exportOnnx.empty()) {
    int replaced = exportModel(model, options.baseModel, options.exportOnnx);
    std::printf("exported %d trained initializers to %s\n", replaced,
                options.exportOnnx.c_str());
  }
  if (!options.trainEval.empty()) {
    std::vector<std::pair<std::string, HostTensor>> outputs;
    if (!model.trainEval(views, outputs, error))
      fatal("--train-eval: " + error);
    std::error_code ec;
    std::filesystem::create_directories(options.trainEval, ec);
    if (ec)
      fatal(options.trainEval + ": cannot create directory: " + ec.message());
    for (size_t i = 0; i < outputs.size(); ++i) {
      auto &[name, tensor] = outputs[i];
      std::string path =
          options.trainEval + "/output_" + std::to_string(i) + ".pb";
      if (!writeValueFile(path, name, HostValue::ofTensor(std::move(tensor)),
                          error))
        fatal(error);
      std::printf("eval: output %zu '%s' -> %s\n", i, name.c_str(),
                  path.c_str());
    }
  }
  std::fflush(stdout);
  return ExitOK;
}

} // namespace onnxc::runner
