//===- Passes.h - onnxc passes below the onnx dialect -----------*- C++ -*-===//
#ifndef ONNXC_TRANSFORMS_PASSES_H
#define ONNXC_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace mlir::onnxc {

/// The function onnxc-hoist-constants creates; the runtime calls it (through
/// onnxc_model_init) once, before the model's first run.
inline constexpr llvm::StringLiteral kInitFunctionName = "__onnxc_init";

/// Marks an scf.for whose iterations are independent (tiles of a result,
/// each written by one iteration): onnxc-outline-parallel-loops may run
/// them on several threads.
inline constexpr llvm::StringLiteral kParallelAttrName = "onnxc.parallel";

#define GEN_PASS_DECL
#include "onnxc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "onnxc/Transforms/Passes.h.inc"

} // namespace mlir::onnxc

#endif // ONNXC_TRANSFORMS_PASSES_H
