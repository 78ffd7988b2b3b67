//===- Pipelines.h - The compilation pipelines of onnxc ---------*- C++ -*-===//
//
// Each stage of `onnxc --emit=...` is a pass pipeline, also registered by
// name so that `onnx-mlir-opt --pass-pipeline=...` reproduces it exactly:
//   onnxc-onnx-to-linalg   onnx dialect -> linalg on tensors
//   onnxc-linalg-to-llvm   linalg on tensors -> LLVM dialect
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_DRIVER_PIPELINES_H
#define ONNXC_DRIVER_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace mlir::onnxc {

void buildONNXToLinalgPipeline(OpPassManager &pm);
void buildLinalgToLLVMPipeline(OpPassManager &pm);
void registerPipelines();

} // namespace mlir::onnxc

#endif // ONNXC_DRIVER_PIPELINES_H
