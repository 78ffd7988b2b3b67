//===- DeviceInputs.h - onnxc-run --input-memory device ---------*- C++ -*-===//
//
// Copies of the inputs in CUDA device memory, made through libcuda.so.1
// (loaded with dlopen, as the compiled library loads it), so that
// onnxc_run_with(ONNXC_MEMORY_DEVICE) can be run, checked and timed.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_TOOLS_ONNXC_RUN_DEVICEINPUTS_H
#define ONNXC_TOOLS_ONNXC_RUN_DEVICEINPUTS_H

#include "onnxc/Runtime/onnxc_runtime.h"

#include <string>
#include <vector>

namespace onnxc::runner {

class DeviceInputs {
public:
  DeviceInputs() = default;
  DeviceInputs(const DeviceInputs &) = delete;
  DeviceInputs &operator=(const DeviceInputs &) = delete;
  ~DeviceInputs();

  /// Copies the data of each tensor of `inputs` (of `bytes[i]` bytes) to
  /// device memory of the device ONNXC_CUDA_DEVICE names (default 0); false
  /// with `error` set when CUDA or memory is missing.
  bool upload(const std::vector<onnxc_value> &inputs,
              const std::vector<size_t> &bytes, std::string &error);
  /// The device addresses, in input order.
  const std::vector<void *> &pointers() const { return pointers_; }

private:
  void *lib = nullptr;
  int (*memFree)(unsigned long long) = nullptr;
  std::vector<void *> pointers_;
};

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_DEVICEINPUTS_H
