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

#include <string>

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
/// The pieces the CPU and CUDA pipelines share: one-shot bufferization
/// (function boundaries included, arguments read-only); fresh result
/// buffers, deallocation and the buffer plan; and the lowering of host code
/// (memrefs, scf as control flow, math, arith) to the LLVM dialect, with
/// buffers from the runtime's allocator. `vectorize` adds the vector
/// lowerings and the math approximations of the vectorised CPU code.
void addBufferization(OpPassManager &pm);
void addDeallocation(OpPassManager &pm, bool planBuffers = true);
void addHostLowering(OpPassManager &pm, bool vectorize);
/// bf16 arithmetic in f32 inside the functions named `functionOp`
/// (func.func, gpu.func) nested in `pm`'s op, then arith's expansions.
void addBf16AsF32(OpPassManager &pm, llvm::StringRef functionOp);

/// The CUDA target (onnxc --target=cuda): linalg on tensors -> kernels
/// (onnxc-map-parallel-loops-to-gpu) in NVVM, compiled by LLVM's NVPTX
/// backend into PTX (format "isa") or, with CUDA's ptxas and fatbinary,
/// a fat binary of the arch's cubin and the PTX ("fatbin"); the host code
/// in the LLVM dialect, launching them through the runtime's mgpu*
/// functions (lib/Runtime/onnxc_cuda.c).
struct CUDAOptions {
  std::string arch = "sm_80"; // the cubin's and the PTX's target
  std::string format = "fatbin"; // "fatbin", "bin" (cubin) or "isa" (PTX)
  int64_t blockSize = 256;
  int64_t gemmTile = 0; // onnxc-gpu-tiled-matmul's tile: 0 by size, 64, 128
  bool tf32 = false;    // f32 products on tensor cores with tf32 operands
  bool halfMma = true;  // f16 and bf16 products on tensor cores (sm_80+)
  bool deviceMemory = true; // buffers only kernels touch in device memory
  std::string toolkit; // CUDA's (ptxas, fatbinary, libdevice); "": searched
};
void buildLinalgToCUDAPipeline(OpPassManager &pm, const CUDAOptions &options);
/// The CPU's scalar pipeline (buildLinalgToLLVMPipeline without
/// vectorisation) with the CUDA target's GEMM views and fusions in it:
/// onnxc-gpu-tiled-matmul's `host-reference` loop nests where the CUDA
/// pipeline builds kernels, so that the conformance suites check on the
/// host what decides which ops a product's kernel absorbs and where it
/// reads and writes (onnxc --cuda-gemm-host-check).
void buildCUDAGemmHostCheckPipeline(OpPassManager &pm);
/// Whether `dir` is a CUDA toolkit the CUDA pipeline can use: it has an
/// executable bin/ptxas and nvvm/libdevice/libdevice.10.bc.
bool isCUDAToolkit(StringRef dir);
/// The CUDA toolkit whose ptxas, fatbinary and libdevice the CUDA pipeline
/// uses: the first of MLIR's search (CUDA_ROOT, CUDA_HOME, CUDA_PATH), the
/// toolkit of the ptxas on PATH and /usr/local/cuda that isCUDAToolkit
/// accepts; "" when none is.
std::string findCUDAToolkit();
/// The PTX ISA version the NVPTX backend writes for `arch` ("+ptx80").
std::string ptxFeaturesFor(llvm::StringRef arch);

/// For profilers: gives every LLVM op the location `<node name>:1:0`, taken
/// from the first NameLoc inside its location (the ONNX node it came from),
/// and adds a subprogram to every function, so that the object file's line
/// table maps each instruction to an ONNX node (onnxc --node-line-tables;
/// `perf report --sort srcfile`).
void buildNodeLineTablesPipeline(OpPassManager &pm);
void registerPipelines();

} // namespace mlir::onnxc

#endif // ONNXC_DRIVER_PIPELINES_H
