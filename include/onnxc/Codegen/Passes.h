//===- Passes.h - onnxc's code-generation passes ----------------*- C++ -*-===//
#ifndef ONNXC_CODEGEN_PASSES_H
#define ONNXC_CODEGEN_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::onnxc {

#define GEN_PASS_DECL
#include "onnxc/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "onnxc/Codegen/Passes.h.inc"

} // namespace mlir::onnxc

#endif // ONNXC_CODEGEN_PASSES_H
