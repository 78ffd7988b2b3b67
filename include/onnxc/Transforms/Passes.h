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

/// Marks a linalg op that onnxc-lower-ukernels replaces, after
/// bufferization, by a call of one of the runtime's hand-written kernels
/// (the attribute's value names which).
inline constexpr llvm::StringLiteral kUkernelAttrName = "onnxc.ukernel";
/// The direct NCHWc convolution (onnxc-conv-nchwc,
/// onnxc_uk_conv2d_nchwc_f32).
inline constexpr llvm::StringLiteral kConvNCHWcUkernel = "conv2d_nchwc";
/// The same with an NCHW input (a first conv's few channels;
/// onnxc_uk_conv2d_nchw_nchwc_f32).
inline constexpr llvm::StringLiteral kConvNCHWToNCHWcUkernel =
    "conv2d_nchw_nchwc";
/// The layout changes NCHW -> NCHWc and back (linalg.transpose of N x C/16
/// x 16 x H x W to N x C/16 x H x W x 16 and back;
/// onnxc_uk_transpose_nchwc_f32).
inline constexpr llvm::StringLiteral kPackNCHWcUkernel = "pack_nchwc";
inline constexpr llvm::StringLiteral kUnpackNCHWcUkernel = "unpack_nchwc";

/// Marks the elementwise Relu or Clip (attributes lo and hi: the bounds)
/// that onnxc-lower-ukernels may apply inside the kernel whose result it
/// reads.
inline constexpr llvm::StringLiteral kUkernelEpilogueAttrName =
    "onnxc.ukernel_epilogue";

/// Whether `op` is the init (its only use) or the marked epilogue of a
/// kernel op: left as it is for onnxc-lower-ukernels to fold.
bool isUkernelInitOrEpilogue(Operation *op);

#define GEN_PASS_DECL
#include "onnxc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "onnxc/Transforms/Passes.h.inc"

} // namespace mlir::onnxc

#endif // ONNXC_TRANSFORMS_PASSES_H
