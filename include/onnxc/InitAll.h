//===- InitAll.h - Register every onnxc dialect and pass --------*- C++ -*-===//
#ifndef ONNXC_INITALL_H
#define ONNXC_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::onnxc {

/// Adds the dialects onnxc defines or builds on to `registry`.
void registerAllDialects(DialectRegistry &registry);
/// Registers onnxc's passes and named pipelines with the global registry.
void registerAllPasses();

} // namespace mlir::onnxc

#endif // ONNXC_INITALL_H
