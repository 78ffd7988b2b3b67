//===- CompiledModel.h - A model library loaded with dlopen -----*- C++ -*-===//
//
// Loads a shared object produced by onnxc, resolves the functions of
// onnxc_runtime.h and reads its signature. Every run goes through
// onnxc_run_values, which takes and gives tensors as well as sequences,
// optionals and maps.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_RUN_COMPILEDMODEL_H
#define ONNXC_TOOLS_ONNXC_RUN_COMPILEDMODEL_H

#include "Tensor.h"

#include <string>
#include <vector>

namespace onnxc::runner {

/// One input or output of the model's signature: a tensor, a sequence of
/// tensors, an optional of either, a map or a sequence of maps (`type`,
/// ONNXC_TYPE_*). `dtype`, `dims` describe the tensor, or each tensor of the
/// sequence; for maps, `dtype` is the values' element type, `keyDtype` the
/// keys' and `dims` is empty.
struct ValueInfo {
  std::string name;
  int type = ONNXC_TYPE_TENSOR;
  int32_t dtype = 0;
  /// The keys' element type of a map or of the maps of a sequence: int64 or
  /// string, or -1 when the library does not say (it predates
  /// onnxc_*_key_dtype). -1 for the other types.
  int32_t keyDtype = -1;
  /// False for a sequence whose tensors' rank the model leaves open (rank
  /// -1); `dims` is then empty.
  bool rankKnown = true;
  std::vector<int64_t> dims;         // -1 for a dim known only at run time
  std::vector<std::string> dimNames; // the dim_param of each -1 dim, or ""

  /// A sequence (of tensors or maps), or an optional sequence.
  bool isSequence() const {
    return type == ONNXC_TYPE_SEQUENCE ||
           type == ONNXC_TYPE_OPTIONAL_SEQUENCE ||
           type == ONNXC_TYPE_SEQUENCE_OF_MAPS;
  }
  /// A map or a sequence of maps.
  bool hasMaps() const {
    return type == ONNXC_TYPE_MAP || type == ONNXC_TYPE_SEQUENCE_OF_MAPS;
  }
  bool isOptional() const {
    return type == ONNXC_TYPE_OPTIONAL_TENSOR ||
           type == ONNXC_TYPE_OPTIONAL_SEQUENCE;
  }

  /// The type alone: "float32[N,3]", "seq(float32[?,3])", "seq(int64[*])"
  /// (unknown rank), "optional(float32[4])", "optional(seq(int32[4]))",
  /// "map(int64 -> float32)", "seq(map(string -> float32))" ("?" for keys of
  /// a type the library does not give).
  std::string typeString() const;
  /// "X: float32[N,3]"
  std::string describe() const;
};

/// "X: float32[N,3], K: int64[2]", or "none".
std::string listValues(const std::vector<ValueInfo> &values);

/// The index of the entry called `name`, or -1.
int findByName(const std::vector<ValueInfo> &values, const std::string &name);

/// The library's outputs of one onnxc_run_values, released on destruction.
class OutputSet {
public:
  OutputSet() = default;
  OutputSet(const OutputSet &) = delete;
  OutputSet &operator=(const OutputSet &) = delete;
  ~OutputSet() { reset(); }

  void reset();
  size_t size() const { return count; }
  const onnxc_value &operator[](size_t i) const { return values[i]; }

private:
  friend class CompiledModel;
  void (*freeFn)(onnxc_value *, size_t) = nullptr;
  onnxc_value *values = nullptr;
  size_t count = 0;
  // onnxc_run_with's outputs, seen as values.
  void (*freeTensorsFn)(onnxc_tensor *, size_t) = nullptr;
  onnxc_tensor *tensors = nullptr;
  std::vector<onnxc_value> wrapped;
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

  /// Whether some input or output is a sequence, an optional or a map.
  bool hasNonTensorValues() const;

  /// Where the library runs (onnxc_device): "cpu" or "cuda"; "cpu" for a
  /// library that predates the function.
  std::string device() const;

  /// Sets the library's intra-op thread count (onnxc_set_num_threads);
  /// false when the library does not export it.
  bool setNumThreads(int threads) const;

  /// Runs the model (onnxc_run_values; with device inputs, onnxc_run_with);
  /// on failure returns the status with `error` set to the library's
  /// onnxc_last_error() (read on the calling thread).
  onnxc_status run(const std::vector<onnxc_value> &inputs, OutputSet &outputs,
                   std::string &error) const;

  /// The training API (onnxc_runtime.h) of a library compiled with
  /// --train: the number of inputs before the state (-1 for an inference
  /// library, or one that predates the API).
  int trainNumInputs() const;
  /// From now on run() passes these device addresses (onnxc_run_with,
  /// ONNXC_MEMORY_DEVICE) instead of the inputs' data; false when the
  /// library has no onnxc_run_with (API version 2).
  bool useDeviceInputs(std::vector<void *> pointers);
  bool hasDeviceInputs() const { return !deviceInputs.empty(); }
  /// From now on only the first `n` inputs are the model's (training: the
  /// library passes the state itself).
  void keepInputs(size_t n) { inputs_.resize(std::min(n, inputs_.size())); }
  /// One training step on `inputs` (tensors); the loss in `loss`.
  onnxc_status trainStep(const std::vector<onnxc_value> &inputs, double &loss,
                         std::string &error) const;
  /// Checkpoints (onnxc_train_save / _load); false with `error` set.
  bool trainSave(const std::string &path, std::string &error) const;
  bool trainLoad(const std::string &path, std::string &error) const;
  /// Runs the model for inference on the trained state (onnxc_train_eval)
  /// on the first `inputs`; the outputs and their names, or false with
  /// `error` set (also when the library has no evaluation function).
  bool trainEval(const std::vector<onnxc_value> &inputs,
                 std::vector<std::pair<std::string, HostTensor>> &outputs,
                 std::string &error) const;
  /// The state tensors' names and current bytes.
  std::vector<std::pair<std::string, std::string>> trainState() const;

private:
  /// run() with the device addresses of useDeviceInputs (onnxc_run_with).
  onnxc_status runWithDeviceInputs(const std::vector<onnxc_value> &inputs,
                                   OutputSet &outputs,
                                   std::string &error) const;

  void *handle = nullptr;
  std::vector<ValueInfo> inputs_, outputs_;
  decltype(&onnxc_train_num_inputs) trainNumInputsFn = nullptr;
  decltype(&onnxc_train_num_state) trainNumStateFn = nullptr;
  decltype(&onnxc_train_step) trainStepFn = nullptr;
  decltype(&onnxc_train_save) trainSaveFn = nullptr;
  decltype(&onnxc_train_load) trainLoadFn = nullptr;
  decltype(&onnxc_train_state_name) trainStateNameFn = nullptr;
  decltype(&onnxc_train_state_bytes) trainStateBytesFn = nullptr;
  decltype(&onnxc_train_get_state) trainGetStateFn = nullptr;
  decltype(&onnxc_train_last_error) trainLastErrorFn = nullptr;
  decltype(&onnxc_train_eval_num_inputs) trainEvalNumInputsFn = nullptr;
  decltype(&onnxc_train_eval_output_name) trainEvalOutputNameFn = nullptr;
  decltype(&onnxc_train_eval) trainEvalFn = nullptr;
  decltype(&onnxc_free_outputs) freeOutputsFn = nullptr;
  decltype(&onnxc_run_with) runWithFn = nullptr; // API version 3
  std::vector<void *> deviceInputs;

  decltype(&onnxc_api_version) apiVersion = nullptr;
  decltype(&onnxc_device) deviceFn = nullptr;
  decltype(&onnxc_num_inputs) numInputs = nullptr;
  decltype(&onnxc_num_outputs) numOutputs = nullptr;
  decltype(&onnxc_input_name) inputName = nullptr;
  decltype(&onnxc_input_dtype) inputDtype = nullptr;
  decltype(&onnxc_input_type) inputType = nullptr;
  decltype(&onnxc_input_rank) inputRank = nullptr;
  decltype(&onnxc_input_dim) inputDim = nullptr;
  decltype(&onnxc_input_dim_name) inputDimName = nullptr;
  decltype(&onnxc_output_name) outputName = nullptr;
  decltype(&onnxc_output_dtype) outputDtype = nullptr;
  decltype(&onnxc_output_type) outputType = nullptr;
  decltype(&onnxc_output_rank) outputRank = nullptr;
  decltype(&onnxc_output_dim) outputDim = nullptr;
  decltype(&onnxc_output_dim_name) outputDimName = nullptr;
  decltype(&onnxc_run_values) runValues = nullptr;
  decltype(&onnxc_free_values) freeValues = nullptr;
  decltype(&onnxc_last_error) lastError = nullptr;
  decltype(&onnxc_set_num_threads) setThreads = nullptr; // optional
  decltype(&onnxc_input_key_dtype) inputKeyDtype = nullptr;   // optional
  decltype(&onnxc_output_key_dtype) outputKeyDtype = nullptr; // optional
};

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_COMPILEDMODEL_H
