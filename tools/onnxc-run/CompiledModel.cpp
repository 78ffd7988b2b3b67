//===- CompiledModel.cpp - A model library loaded with dlopen -------------===//

#include "CompiledModel.h"

#include <dlfcn.h>

namespace onnxc::runner {

std::string ValueInfo::typeString() const {
  std::string s;
  if (hasMaps()) {
    s = "map(" + (keyDtype < 0 ? std::string("?") : dtypeName(keyDtype)) +
        " -> " + dtypeName(dtype) + ")";
  } else {
    s = dtypeName(dtype) + "[";
    if (!rankKnown)
      s += "*";
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i)
        s += ",";
      if (dims[i] >= 0)
        s += std::to_string(dims[i]);
      else
        s += dimNames[i].empty() ? "?" : dimNames[i];
    }
    s += "]";
  }
  if (isSequence())
    s = "seq(" + s + ")";
  if (isOptional())
    s = "optional(" + s + ")";
  return s;
}

std::string ValueInfo::describe() const { return name + ": " + typeString(); }

std::string listValues(const std::vector<ValueInfo> &values) {
  std::string s;
  for (const ValueInfo &v : values)
    s += (s.empty() ? "" : ", ") + v.describe();
  return s.empty() ? "none" : s;
}

int findByName(const std::vector<ValueInfo> &values, const std::string &name) {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].name == name)
      return int(i);
  return -1;
}

void OutputSet::reset() {
  if (tensors && freeTensorsFn)
    freeTensorsFn(tensors, count);
  else if (values && freeFn)
    freeFn(values, count);
  tensors = nullptr;
  wrapped.clear();
  values = nullptr;
  count = 0;
}

CompiledModel::~CompiledModel() {
  // Keep the library loaded: its strings may still be referenced, and
  // unloading a library with thread-local state at exit gains nothing.
}

template <typename Fn>
static bool resolve(void *handle, const char *symbol, Fn &fn,
                    std::string &error) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (fn)
    return true;
  error = std::string("the library does not export ") + symbol +
          " (is it an onnxc-compiled model?)";
  return false;
}

static std::string str(const char *s) { return s ? s : ""; }

bool CompiledModel::hasNonTensorValues() const {
  for (const auto *sig : {&inputs_, &outputs_})
    for (const ValueInfo &v : *sig)
      if (v.type != ONNXC_TYPE_TENSOR)
        return true;
  return false;
}

std::string CompiledModel::device() const {
  const char *d = deviceFn ? deviceFn() : nullptr;
  return d ? d : "cpu";
}

bool CompiledModel::setNumThreads(int threads) const {
  if (!setThreads)
    return false;
  setThreads(threads);
  return true;
}

bool CompiledModel::load(const std::string &path, std::string &error) {
  // A bare file name would make dlopen search the library path.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    error = str(dlerror());
    return false;
  }
  // What every API version has, then the version, then what version 2 added
  // (so that an older library is told apart by its version).
  if (!resolve(handle, "onnxc_api_version", apiVersion, error) ||
      !resolve(handle, "onnxc_num_inputs", numInputs, error) ||
      !resolve(handle, "onnxc_num_outputs", numOutputs, error) ||
      !resolve(handle, "onnxc_input_name", inputName, error) ||
      !resolve(handle, "onnxc_input_dtype", inputDtype, error) ||
      !resolve(handle, "onnxc_input_rank", inputRank, error) ||
      !resolve(handle, "onnxc_input_dim", inputDim, error) ||
      !resolve(handle, "onnxc_input_dim_name", inputDimName, error) ||
      !resolve(handle, "onnxc_output_name", outputName, error) ||
      !resolve(handle, "onnxc_output_dtype", outputDtype, error) ||
      !resolve(handle, "onnxc_output_rank", outputRank, error) ||
      !resolve(handle, "onnxc_output_dim", outputDim, error) ||
      !resolve(handle, "onnxc_output_dim_name", outputDimName, error) ||
      !resolve(handle, "onnxc_last_error", lastError, error))
    return false;
  setThreads = reinterpret_cast<decltype(setThreads)>(
      dlsym(handle, "onnxc_set_num_threads"));
  deviceFn =
      reinterpret_cast<decltype(deviceFn)>(dlsym(handle, "onnxc_device"));
  // The training API (libraries of earlier versions lack it).
  auto optional = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(handle, name));
  };
  optional(trainNumInputsFn, "onnxc_train_num_inputs");
  optional(trainNumStateFn, "onnxc_train_num_state");
  optional(trainStepFn, "onnxc_train_step");
  optional(trainSaveFn, "onnxc_train_save");
  optional(trainLoadFn, "onnxc_train_load");
  optional(trainStateNameFn, "onnxc_train_state_name");
  optional(trainStateBytesFn, "onnxc_train_state_bytes");
  optional(trainGetStateFn, "onnxc_train_get_state");
  optional(trainLastErrorFn, "onnxc_train_last_error");
  optional(trainEvalNumInputsFn, "onnxc_train_eval_num_inputs");
  optional(trainEvalOutputNameFn, "onnxc_train_eval_output_name");
  optional(trainEvalFn, "onnxc_train_eval");
  optional(freeOutputsFn, "onnxc_free_outputs");
  optional(runWithFn, "onnxc_run_with");
  // Added with maps: a library without them has no maps.
  inputKeyDtype = reinterpret_cast<decltype(inputKeyDtype)>(
      dlsym(handle, "onnxc_input_key_dtype"));
  outputKeyDtype = reinterpret_cast<decltype(outputKeyDtype)>(
      dlsym(handle, "onnxc_output_key_dtype"));
  int version = apiVersion();
  // Version 3 only added onnxc_run_with: a version 2 library runs alike.
  if (version < 2 || version > ONNXC_API_VERSION) {
    error = "the library implements onnxc API version " +
            std::to_string(version) + "; onnxc-run speaks versions 2 to " +
            std::to_string(ONNXC_API_VERSION);
    return false;
  }
  if (!resolve(handle, "onnxc_input_type", inputType, error) ||
      !resolve(handle, "onnxc_output_type", outputType, error) ||
      !resolve(handle, "onnxc_run_values", runValues, error) ||
      !resolve(handle, "onnxc_free_values", freeValues, error))
    return false;

  auto readSignature = [&](int count, auto nameOf, auto typeOf, auto dtypeOf,
                           auto keyDtypeOf, auto rankOf, auto dimOf,
                           auto dimNameOf, const char *what,
                           std::vector<ValueInfo> &infos) {
    if (count < 0) {
      error = std::string("the library reports a negative number of ") + what;
      return false;
    }
    for (int i = 0; i < count; ++i) {
      ValueInfo info;
      info.name = str(nameOf(i));
      info.type = typeOf(i);
      if (info.type < ONNXC_TYPE_TENSOR ||
          info.type > ONNXC_TYPE_SEQUENCE_OF_MAPS) {
        error = std::string(what) + " " + std::to_string(i) +
                " has the unknown type " + std::to_string(info.type);
        return false;
      }
      info.dtype = dtypeOf(i);
      if (info.hasMaps()) {
        // Rank 1 with a dynamic dim, the number of keys: nothing to keep.
        int32_t keys = keyDtypeOf ? keyDtypeOf(i) : -1;
        info.keyDtype = keys < 0 ? -1 : keys;
        infos.push_back(std::move(info));
        continue;
      }
      int rank = rankOf(i);
      // -1: a sequence's tensors, or an output whose rank the taken If
      // branch decides.
      if (rank == -1) {
        info.rankKnown = false;
        rank = 0;
      } else if (rank < 0) {
        error = std::string(what) + " " + std::to_string(i) +
                " has a negative rank";
        return false;
      }
      for (int a = 0; a < rank; ++a) {
        int64_t d = dimOf(i, a);
        info.dims.push_back(d < 0 ? -1 : d);
        info.dimNames.push_back(d < 0 ? str(dimNameOf(i, a)) : "");
      }
      infos.push_back(std::move(info));
    }
    return true;
  };
  return readSignature(numInputs(), inputName, inputType, inputDtype,
                       inputKeyDtype, inputRank, inputDim, inputDimName,
                       "inputs", inputs_) &&
         readSignature(numOutputs(), outputName, outputType, outputDtype,
                       outputKeyDtype, outputRank, outputDim, outputDimName,
                       "outputs", outputs_);
}

bool CompiledModel::useDeviceInputs(std::vector<void *> pointers) {
  if (!runWithFn || !freeOutputsFn)
    return false;
  deviceInputs = std::move(pointers);
  return true;
}

onnxc_status
CompiledModel::runWithDeviceInputs(const std::vector<onnxc_value> &inputs,
                                   OutputSet &outputs,
                                   std::string &error) const {
  std::vector<onnxc_tensor> tensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    tensors.push_back(inputs[i].tensor);
    if (i < deviceInputs.size())
      tensors.back().data = deviceInputs[i];
  }
  onnxc_run_options options{sizeof(onnxc_run_options), ONNXC_MEMORY_DEVICE};
  onnxc_tensor *result = nullptr;
  size_t count = 0;
  onnxc_status status =
      runWithFn(&options, tensors.data(), tensors.size(), &result, &count);
  if (status != ONNXC_OK) {
    error = str(lastError());
    return status;
  }
  outputs.freeTensorsFn = freeOutputsFn;
  outputs.tensors = result;
  outputs.count = count;
  for (size_t i = 0; i < count; ++i) {
    onnxc_value v{};
    v.kind = ONNXC_KIND_TENSOR;
    v.tensor = result[i];
    outputs.wrapped.push_back(v);
  }
  outputs.values = outputs.wrapped.data();
  return status;
}

onnxc_status CompiledModel::run(const std::vector<onnxc_value> &inputs,
                                OutputSet &outputs, std::string &error) const {
  outputs.reset();
  if (!deviceInputs.empty())
    return runWithDeviceInputs(inputs, outputs, error);
  onnxc_value *result = nullptr;
  size_t count = 0;
  onnxc_status status = runValues(inputs.empty() ? nullptr : inputs.data(),
                                  inputs.size(), &result, &count);
  if (status != ONNXC_OK) {
    error = str(lastError());
    if (error.empty())
      error = "onnxc_run_values failed with status " + std::to_string(status) +
              " and no message";
    if (result) // the contract says NULL; do not leak if it is not
      freeValues(result, count);
    return status;
  }
  outputs.freeFn = freeValues;
  outputs.values = result;
  outputs.count = count;
  return status;
}

int CompiledModel::trainNumInputs() const {
  return trainNumInputsFn && trainStepFn && trainLastErrorFn && trainGetStateFn
             ? trainNumInputsFn()
             : -1;
}

onnxc_status CompiledModel::trainStep(const std::vector<onnxc_value> &inputs,
                                      double &loss, std::string &error) const {
  std::vector<onnxc_tensor> tensors;
  for (const onnxc_value &v : inputs)
    tensors.push_back(v.tensor);
  onnxc_status status = trainStepFn(tensors.data(), tensors.size(), &loss);
  if (status != ONNXC_OK)
    error = trainLastErrorFn();
  return status;
}

bool CompiledModel::trainEval(
    const std::vector<onnxc_value> &inputs,
    std::vector<std::pair<std::string, HostTensor>> &outputs,
    std::string &error) const {
  int n = trainEvalNumInputsFn && trainEvalFn && trainEvalOutputNameFn &&
                  freeOutputsFn
              ? trainEvalNumInputsFn()
              : -1;
  if (n < 0) {
    error = "the library has no evaluation function (onnxc_train_eval)";
    return false;
  }
  if (size_t(n) > inputs.size()) {
    error = "onnxc_train_eval takes " + std::to_string(n) + " inputs";
    return false;
  }
  std::vector<onnxc_tensor> tensors;
  for (int i = 0; i < n; ++i)
    tensors.push_back(inputs[i].tensor);
  onnxc_tensor *result = nullptr;
  size_t count = 0;
  if (trainEvalFn(tensors.data(), tensors.size(), &result, &count) !=
      ONNXC_OK) {
    error = trainLastErrorFn();
    return false;
  }
  for (size_t i = 0; i < count; ++i)
    outputs.emplace_back(trainEvalOutputNameFn(int(i)), copyTensor(result[i]));
  freeOutputsFn(result, count);
  return true;
}

bool CompiledModel::trainSave(const std::string &path,
                              std::string &error) const {
  if (trainSaveFn(path.c_str()) == ONNXC_OK)
    return true;
  error = trainLastErrorFn();
  return false;
}

bool CompiledModel::trainLoad(const std::string &path,
                              std::string &error) const {
  if (trainLoadFn(path.c_str()) == ONNXC_OK)
    return true;
  error = trainLastErrorFn();
  return false;
}

std::vector<std::pair<std::string, std::string>>
CompiledModel::trainState() const {
  std::vector<std::pair<std::string, std::string>> state;
  for (int i = 0, n = trainNumStateFn(); i < n; ++i) {
    std::string bytes(trainStateBytesFn(i), '\0');
    if (trainGetStateFn(i, bytes.data(), bytes.size()) == ONNXC_OK)
      state.emplace_back(trainStateNameFn(i), std::move(bytes));
  }
  return state;
}

} // namespace onnxc::runner
