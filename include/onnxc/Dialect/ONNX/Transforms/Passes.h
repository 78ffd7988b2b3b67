//===- Passes.h - Passes over the onnx dialect ------------------*- C++ -*-===//
#ifndef ONNXC_DIALECT_ONNX_TRANSFORMS_PASSES_H
#define ONNXC_DIALECT_ONNX_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "onnxc/Dialect/ONNX/IR/ONNXDialect.h"

namespace mlir::onnxc {

#define GEN_PASS_DECL
#include "onnxc/Dialect/ONNX/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "onnxc/Dialect/ONNX/Transforms/Passes.h.inc"

} // namespace mlir::onnxc

#endif // ONNXC_DIALECT_ONNX_TRANSFORMS_PASSES_H
