//===- CompiledModel.h - A model library loaded with dlopen -----*- C++ -*-===//
//
// Loads a shared object produced by onnxc, resolves the functions of
// onnxc_runtime.h and reads its signature.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_RUN_COMPILEDMODEL_H
#define ONNXC_TOOLS_ONNXC_RUN_COMPILEDMODEL_H

#include "Tensor.h"

#include <string>
#include <vector>

namespace onnxc::runner {

/// One input or output of the model's signature.
struct ValueInfo {
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> dims;         // -1 for a dim known only at run time
  std::vector<std::string> dimNames; // the dim_param of each -1 dim, or ""

  /// "X: float32[N,3]"
  std::string describe() const;
};

/// The library's outputs of one onnxc_run, released on destruction.
class OutputSet {
public:
  OutputSet() = default;
  OutputSet(const OutputSet &) = delete;
  OutputSet &operator=(const OutputSet &) = delete;
  ~OutputSet() { reset(); }

  void reset();
  size_t size() const { return count; }
  const onnxc_tensor &operator[](size_t i) const { return tensors[i]; }

private:
  friend class CompiledModel;
  void (*freeFn)(onnxc_tensor *, size_t) = nullptr;
  onnxc_tensor *tensors = nullptr;
  size_t count = 0;
};

class CompiledModel {
public:
  CompiledModel() = default;
  CompiledModel(const CompiledModel &) = delete;
  CompiledModel &operator=(const CompiledModel &) = delete;
  ~CompiledModel();

  /// dlopens `path` and reads the signature; false with `error` set when the
  /// file cannot be loaded, lacks a function or has another API version.
  bool load(const std::string &path, std::string &error);

  const std::vector<ValueInfo> &inputs() const { return inputs_; }
  const std::vector<ValueInfo> &outputs() const { return outputs_; }

  /// Where the library runs (onnxc_device): "cpu" or "cuda"; "cpu" for a
  /// library that predates the function.
  std::string device() const;

  /// Sets the library's intra-op thread count (onnxc_set_num_threads);
  /// false when the library does not export it.
  bool setNumThreads(int threads) const;

  /// Runs the model; on failure returns the status with `error` set to the
  /// library's onnxc_last_error() (read on the calling thread).
  onnxc_status run(const std::vector<onnxc_tensor> &inputs, OutputSet &outputs,
                   std::string &error) const;

private:
  void *handle = nullptr;
  std::vector<ValueInfo> inputs_, outputs_;

  decltype(&onnxc_api_version) apiVersion = nullptr;
  decltype(&onnxc_device) deviceFn = nullptr;
  decltype(&onnxc_num_inputs) numInputs = nullptr;
  decltype(&onnxc_num_outputs) numOutputs = nullptr;
  decltype(&onnxc_input_name) inputName = nullptr;
  decltype(&onnxc_input_dtype) inputDtype = nullptr;
  decltype(&onnxc_input_rank) inputRank = nullptr;
  decltype(&onnxc_input_dim) inputDim = nullptr;
  decltype(&onnxc_input_dim_name) inputDimName = nullptr;
  decltype(&onnxc_output_name) outputName = nullptr;
  decltype(&onnxc_output_dtype) outputDtype = nullptr;
  decltype(&onnxc_output_rank) outputRank = nullptr;
  decltype(&onnxc_output_dim) outputDim = nullptr;
  decltype(&onnxc_output_dim_name) outputDimName = nullptr;
  decltype(&onnxc_run) runFn = nullptr;
  decltype(&onnxc_free_outputs) freeOutputs = nullptr;
  decltype(&onnxc_last_error) lastError = nullptr;
  decltype(&onnxc_set_num_threads) setThreads = nullptr; // optional
};

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_COMPILEDMODEL_H
