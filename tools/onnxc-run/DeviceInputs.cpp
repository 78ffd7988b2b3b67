//===- DeviceInputs.cpp - onnxc-run --input-memory device -----------------===//

#include "DeviceInputs.h"

#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>

using namespace onnxc::runner;

DeviceInputs::~DeviceInputs() {
  if (memFree)
    for (void *p : pointers_)
      memFree(reinterpret_cast<uintptr_t>(p));
}

bool DeviceInputs::upload(const std::vector<onnxc_value> &inputs,
                          const std::vector<size_t> &bytes,
                          std::string &error) {
  lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    error = std::string("cannot load libcuda.so.1: ") + dlerror();
    return false;
  }
  auto fn = [&](const char *name) { return dlsym(lib, name); };
  auto init = reinterpret_cast<int (*)(unsigned)>(fn("cuInit"));
  auto deviceGet = reinterpret_cast<int (*)(int *, int)>(fn("cuDeviceGet"));
  auto retain =
      reinterpret_cast<int (*)(void **, int)>(fn("cuDevicePrimaryCtxRetain"));
  auto setCurrent = reinterpret_cast<int (*)(void *)>(fn("cuCtxSetCurrent"));
  auto memAlloc = reinterpret_cast<int (*)(unsigned long long *, size_t)>(
      fn("cuMemAlloc_v2"));
  auto copy =
      reinterpret_cast<int (*)(unsigned long long, const void *, size_t)>(
          fn("cuMemcpyHtoD_v2"));
  memFree = reinterpret_cast<int (*)(unsigned long long)>(fn("cuMemFree_v2"));
  if (!init || !deviceGet || !retain || !setCurrent || !memAlloc || !copy ||
      !memFree) {
    error = "libcuda.so.1 lacks the driver functions onnxc-run needs";
    memFree = nullptr;
    return false;
  }
  const char *env = std::getenv("ONNXC_CUDA_DEVICE");
  int ordinal = env && *env ? std::atoi(env) : 0;
  int device = 0;
  void *context = nullptr;
  if (init(0) || deviceGet(&device, ordinal) || retain(&context, device) ||
      setCurrent(context)) {
    error = "no CUDA device " + std::to_string(ordinal);
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    unsigned long long p = 0;
    size_t n = bytes[i] ? bytes[i] : 1;
    if (memAlloc(&p, n)) {
      error = "out of device memory for input " + std::to_string(i);
      return false;
    }
    pointers_.push_back(reinterpret_cast<void *>(static_cast<uintptr_t>(p)));
    if (bytes[i] && copy(p, inputs[i].tensor.data, bytes[i])) {
      error = "cannot copy input " + std::to_string(i) + " to the device";
      return false;
    }
  }
  return true;
}
