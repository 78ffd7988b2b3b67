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

/// The graph passes on the onnx dialect (shape-inferred): constant folding,
/// simplification, a second round of shape inference, BatchNormalization
/// folding, CSE.
void buildONNXGraphPipeline(OpPassManager &pm);
/// `runtimeChecks` = false leaves out the run-time checks of the generated
/// code (onnxc --no-runtime-checks, to measure what they cost).
/// Shape inference, the graph passes on the onnx dialect (unless
/// `graphPasses` is false), then the conversion to linalg on tensors.
void buildONNXToLinalgPipeline(OpPassManager &pm, bool runtimeChecks = true,
                               bool graphPasses = true);
/// `vectorize` = false keeps every linalg op a scalar loop nest (onnxc
/// --no-vectorize, to compare with the tiled and vectorised code).
/// The layout of 2-D convolutions with channels in multiples of 16: NCHW
/// (as matmuls, onnxc-conv-to-matmul), NCHWc (direct convolutions in the
/// blocked layout, onnxc-conv-nchwc and the runtime's AVX-512 kernel), or
/// NCHWc where it pays (its convs' FLOPs at least kAutoNCHWcFlopsPerMoved
/// per element the layout changes at the ends of the blocked chains move).
enum class ConvLayout { NCHW, NCHWc, Auto };
inline constexpr int64_t kAutoNCHWcFlopsPerMoved = 100;

void buildLinalgToLLVMPipeline(OpPassManager &pm, bool vectorize = true,
                               ConvLayout layout = ConvLayout::NCHW);
/// For profilers: gives every LLVM op the location `<node name>:1:0`, taken
/// from the first NameLoc inside its location (the ONNX node it came from),
/// and adds a subprogram to every function, so that the object file's line
/// table maps each instruction to an ONNX node (onnxc --node-line-tables;
/// `perf report --sort srcfile`).
void buildNodeLineTablesPipeline(OpPassManager &pm);
void registerPipelines();

} // namespace mlir::onnxc

#endif // ONNXC_DRIVER_PIPELINES_H
