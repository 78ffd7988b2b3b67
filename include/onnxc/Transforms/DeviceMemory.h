//===- DeviceMemory.h - Buffers only the CUDA kernels touch -----*- C++ -*-===//
//
// Shared by onnxc-plan-buffers (separate-device-buffers) and
// onnxc-device-memory.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_TRANSFORMS_DEVICEMEMORY_H
#define ONNXC_TRANSFORMS_DEVICEMEMORY_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::onnxc {

/// Marks a memref.alloc whose buffer only kernels touch: onnxc-device-memory
/// allocates it in device memory.
inline constexpr llvm::StringLiteral kDeviceMemoryAttr = "onnxc.device_memory";

/// On a public function: for each argument, whether only kernels read it
/// (onnxc_model_device_inputs tells the runtime, which stages such an
/// input in device memory).
inline constexpr llvm::StringLiteral kDeviceInputsAttr = "onnxc.device_inputs";

/// The runtime function that allocates device memory (called through its C
/// interface, `_mlir_ciface_onnxc_rt_device_buffer`).
inline constexpr llvm::StringLiteral kDeviceBufferFn = "onnxc_rt_device_buffer";

/// Whether every use of the buffer `root`, through the views of it
/// (memref.view, subview, reshapes, casts), is inside a gpu.launch, an
/// operand of a gpu.launch_func, a memref.dealloc or a memref.dim: the host
/// never reads or writes its elements.
bool onlyDeviceUses(Value root);

} // namespace mlir::onnxc

#endif // ONNXC_TRANSFORMS_DEVICEMEMORY_H
