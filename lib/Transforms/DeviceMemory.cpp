//===- DeviceMemory.cpp - Buffers only the kernels touch in device memory -===//
//
// onnxc-device-memory: on the CUDA target, a buffer that host code never
// reads or writes needs none of managed memory's page migrations; it
// becomes device memory from the runtime (onnxc_rt_device_buffer).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/DeviceMemory.h"
#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_DEVICEMEMORY
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

bool onnxc::onlyDeviceUses(Value root) {
  SmallVector<Value> worklist = {root};
  llvm::SmallPtrSet<Value, 8> seen = {root};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *owner = use.getOwner();
      if (isa<memref::DeallocOp, memref::DimOp, gpu::LaunchFuncOp>(owner) ||
          owner->getParentOfType<gpu::LaunchOp>())
        continue;
      if (isa<memref::ViewOp, memref::SubViewOp, memref::ReinterpretCastOp,
              memref::CastOp, memref::ExpandShapeOp, memref::CollapseShapeOp>(
              owner)) {
        Value view = owner->getResult(0);
        if (seen.insert(view).second)
          worklist.push_back(view);
        continue;
      }
      return false; // the host reads, writes, returns or passes it on
    }
  }
  return true;
}

namespace {

/// Whether `alloc` can come from onnxc_rt_device_buffer: a host allocation
/// of identity layout and elements of whole bytes (i1 takes one).
bool isCandidate(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (alloc->getParentOfType<gpu::LaunchOp>() ||
      alloc->getParentOfType<gpu::GPUModuleOp>() ||
      !type.getLayout().isIdentity() || type.getMemorySpace())
    return false;
  Type et = type.getElementType();
  return et.isIntOrFloat() && !et.isIndex() &&
         (et.getIntOrFloatBitWidth() == 1 ||
          et.getIntOrFloatBitWidth() % 8 == 0);
}

struct DeviceMemoryPass : onnxc::impl::DeviceMemoryBase<DeviceMemoryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Which inputs of each public function only kernels read: the runtime
    // stages those in device memory.
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || !fn.isPublic())
        continue;
      SmallVector<bool> device;
      for (BlockArgument arg : fn.getArguments())
        device.push_back(isa<MemRefType>(arg.getType()) &&
                         onnxc::onlyDeviceUses(arg));
      fn->setAttr(onnxc::kDeviceInputsAttr,
                  DenseBoolArrayAttr::get(fn.getContext(), device));
    }
    SmallVector<memref::AllocOp> allocs;
    module.walk([&](memref::AllocOp alloc) {
      if (isCandidate(alloc) && (alloc->hasAttr(onnxc::kDeviceMemoryAttr) ||
                                 onnxc::onlyDeviceUses(alloc.getResult())))
        allocs.push_back(alloc);
    });
    if (allocs.empty())
      return;

    MLIRContext *ctx = module.getContext();
    OpBuilder b(ctx);
    auto bufferType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type());
    auto fn = module.lookupSymbol<func::FuncOp>(onnxc::kDeviceBufferFn);
    if (!fn) {
      b.setInsertionPointToEnd(module.getBody());
      fn = func::FuncOp::create(
          b, module.getLoc(), onnxc::kDeviceBufferFn,
          b.getFunctionType({b.getIndexType()}, {bufferType}));
      fn.setPrivate();
      fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    }
    for (memref::AllocOp alloc : allocs) {
      b.setInsertionPoint(alloc);
      Location loc = alloc.getLoc();
      MemRefType type = alloc.getType();
      int64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
      int64_t staticCount = 1;
      for (int64_t d : type.getShape())
        if (!ShapedType::isDynamic(d))
          staticCount *= d;
      Value bytes =
          arith::ConstantIndexOp::create(b, loc, staticCount * elementBytes);
      for (Value size : alloc.getDynamicSizes())
        bytes = arith::MulIOp::create(b, loc, bytes, size);
      Value buffer =
          func::CallOp::create(b, loc, fn, ValueRange{bytes}).getResult(0);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value view = memref::ViewOp::create(b, loc, type, buffer, zero,
                                          alloc.getDynamicSizes());
      alloc.getResult().replaceAllUsesWith(view);
      alloc.erase();
    }
  }
};

} // namespace
