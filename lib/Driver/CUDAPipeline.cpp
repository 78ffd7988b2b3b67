//===- CUDAPipeline.cpp - linalg on tensors -> host LLVM + CUDA kernels ---===//
//
// The CUDA target. The model's buffers are planned as on the CPU; every
// linalg op becomes a parallel loop nest, each outermost parallel loop a
// kernel (one thread per iteration of its parallel dims; reductions run
// sequentially inside the thread), outlined into a gpu.module lowered to
// NVVM and compiled by LLVM's NVPTX backend. The host code stays in the
// same shared object and launches the kernels through the runtime's
// mgpu* functions (lib/Runtime/onnxc_cuda.c), which load libcuda at the
// first run. Buffers come from the runtime's allocator in CUDA managed
// memory, so that what stays on the host (copies, run-time checks, loops
// that call the runtime) reads and writes the same buffers.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Driver/Pipelines.h"

#include "onnxc/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace mlir;

bool mlir::onnxc::isCUDAToolkit(StringRef dir) {
  if (dir.empty())
    return false;
  SmallString<256> ptxas(dir), libdevice(dir);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  return llvm::sys::fs::can_execute(ptxas) &&
         llvm::sys::fs::is_regular_file(libdevice);
}

std::string mlir::onnxc::findCUDAToolkit() {
  SmallVector<std::string, 3> candidates;
  candidates.push_back(NVVM::getCUDAToolkitPath().str());
  // The toolkit of the ptxas on PATH (<toolkit>/bin/ptxas). A wrapper script
  // elsewhere (/usr/local/bin/ptxas running the toolkit's) names no toolkit:
  // its directory has no nvvm/libdevice, so the next candidate is tried.
  if (auto ptxas = llvm::sys::findProgramByName("ptxas")) {
    SmallString<256> real;
    if (!llvm::sys::fs::real_path(*ptxas, real))
      candidates.push_back(
          llvm::sys::path::parent_path(llvm::sys::path::parent_path(real))
              .str());
  }
  candidates.push_back("/usr/local/cuda");
  for (const std::string &dir : candidates)
    if (isCUDAToolkit(dir))
      return dir;
  return "";
}

std::string mlir::onnxc::ptxFeaturesFor(StringRef arch) {
  // The oldest PTX ISA that knows the arch: drivers JIT any PTX at most as
  // new as themselves, so older is more portable.
  unsigned sm = 0;
  StringRef digits = arch;
  if (digits.consume_front("sm_") || digits.consume_front("compute_"))
    digits.take_while([](char c) { return c >= '0' && c <= '9'; })
        .getAsInteger(10, sm);
  if (sm >= 120)
    return "+ptx87";
  if (sm >= 100)
    return "+ptx86";
  if (sm >= 90)
    return "+ptx80";
  return "+ptx70";
}

namespace mlir::onnxc {
namespace {
/// What the CUDA pipeline and its host check share: linalg on tensors to
/// buffers (planned later), then the GEMM and block-reduction kernels (or,
/// with `hostReference`, their host loop nests).
void addBuffersAndKernels(OpPassManager &pm, GPUTiledMatmulOptions tiled,
                          bool hostReference) {
  pm.addPass(createHoistConstants());
  pm.addPass(createCanonicalizerPass());
  addBufferization(pm);
  // The buffer plan waits for the mapping to kernels, which tells the
  // buffers only kernels touch (device memory) from the others.
  addDeallocation(pm, /*planBuffers=*/false);
  tiled.hostReference = hostReference;
  pm.addNestedPass<func::FuncOp>(createGPUTiledMatmul(tiled));
  GPUReductionsOptions reductions;
  reductions.hostReference = hostReference;
  pm.addNestedPass<func::FuncOp>(createGPUReductions(reductions));
}
} // namespace
} // namespace mlir::onnxc

void mlir::onnxc::buildCUDAGemmHostCheckPipeline(OpPassManager &pm) {
  addBuffersAndKernels(pm, GPUTiledMatmulOptions(), /*hostReference=*/true);
  pm.addNestedPass<func::FuncOp>(createPlanBuffers());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  addHostLowering(pm, /*vectorize=*/false);
}

void mlir::onnxc::buildLinalgToCUDAPipeline(OpPassManager &pm,
                                            const CUDAOptions &options) {
  GPUTiledMatmulOptions tiled;
  tiled.tile = options.gemmTile;
  tiled.tf32 = options.tf32;
  tiled.halfMma = options.halfMma;
  addBuffersAndKernels(pm, tiled, /*hostReference=*/false);
  pm.addNestedPass<func::FuncOp>(createGPUCopies());
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  MapParallelLoopsToGPUOptions mapping;
  mapping.blockSize = options.blockSize;
  pm.addNestedPass<func::FuncOp>(createMapParallelLoopsToGPU(mapping));
  PlanBuffersOptions plan;
  plan.separateDeviceBuffers = true;
  pm.addNestedPass<func::FuncOp>(createPlanBuffers(plan));
  if (options.deviceMemory)
    pm.addPass(createDeviceMemory());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createSCFToControlFlowPass());

  // The kernels: bf16 arithmetic in f32 as on the host, then NVVM.
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createAlignWorkgroupBuffers());
  addBf16AsF32(device, gpu::GPUFuncOp::getOperationName());
  device.addPass(createExpandDynamicGroups());
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  device.addPass(createConvertNVGPUToNVVMPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 64;
  device.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());

  addHostLowering(pm, /*vectorize=*/false);

  GpuNVVMAttachTargetOptions target;
  target.chip = options.arch;
  target.features = ptxFeaturesFor(options.arch);
  target.optLevel = 3;
  std::string toolkit =
      options.toolkit.empty() ? findCUDAToolkit() : options.toolkit;
  SmallString<256> libdevice(toolkit);
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  if (isCUDAToolkit(toolkit))
    target.linkLibs.push_back(std::string(libdevice));
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createDeviceGlobals());
  pm.addPass(createDeviceSync());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = toolkit;
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createCanonicalizerPass());
}
