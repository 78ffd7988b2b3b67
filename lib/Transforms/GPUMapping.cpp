//===- GPUMapping.cpp - The CUDA target's host/device split ---------------===//
//
// onnxc-map-parallel-loops-to-gpu: each outermost scf.parallel that can run
// on the device becomes a gpu.launch of one thread per iteration (linear
// index over all its dims, the last dim fastest).
//
// onnxc-gpu-copies: memref.copy as linalg.copy, to become kernels.
//
// onnxc-align-workgroup-buffers: the kernels' workgroup buffers 16-byte
// aligned.
//
// onnxc-device-globals: host code reaches the module's globals through the
// runtime's device-accessible copies (onnxc_rt_device_global).
//
// onnxc-device-sync: host code waits for pending kernels where it touches
// memory (onnxc_rt_device_sync).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/DeviceMemory.h"
#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

#include <array>
#include <functional>

namespace mlir::onnxc {
#define GEN_PASS_DEF_ALIGNWORKGROUPBUFFERS
#define GEN_PASS_DEF_DEVICESYNC
#define GEN_PASS_DEF_GPUCOPIES
#define GEN_PASS_DEF_MAPPARALLELLOOPSTOGPU
#define GEN_PASS_DEF_DEVICEGLOBALS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

/// Whether the body of `loop` can run inside a kernel: no call (a failed
/// run-time check calls the runtime), no allocation or deallocation (the
/// runtime's allocator), nothing already on the device.
bool canRunOnDevice(scf::ParallelOp loop) {
  if (loop.getNumResults() != 0)
    return false;
  WalkResult result = loop.getBody()->walk([](Operation *op) {
    if (isa<CallOpInterface, gpu::LaunchOp>(op))
      return WalkResult::interrupt();
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
      if (effects.hasEffect<MemoryEffects::Allocate>() ||
          effects.hasEffect<MemoryEffects::Free>())
        // Stack allocations stay private to the thread.
        if (!isa<memref::AllocaOp>(op))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Replaces `loop` by a launch of one thread per iteration.
void mapToLaunch(scf::ParallelOp loop, int64_t blockSize) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // Trip counts (ub - lb) ceildiv step, 0 when ub <= lb.
  SmallVector<Value> counts;
  Value total = one;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    Value span = arith::SubIOp::create(b, loc, ub, lb);
    span = arith::MaxSIOp::create(b, loc, span, zero);
    Value count = arith::CeilDivUIOp::create(b, loc, span, step);
    counts.push_back(count);
    total = arith::MulIOp::create(b, loc, total, count);
  }
  Value threads = arith::ConstantIndexOp::create(b, loc, blockSize);
  Value blocks = arith::CeilDivUIOp::create(b, loc, total, threads);
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, total,
                                    zero);
  auto guard = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
  b.setInsertionPointToStart(guard.thenBlock());
  auto launch = gpu::LaunchOp::create(b, loc, blocks, one, one, threads, one,
                                      one);
  b.setInsertionPointToEnd(&launch.getBody().front());
  Value linear = arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                                       threads);
  linear = arith::AddIOp::create(b, loc, linear, launch.getThreadIds().x);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        linear, total);
  auto body = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  gpu::TerminatorOp::create(b, loc);

  b.setInsertionPoint(body.thenBlock()->getTerminator());
  IRMapping map;
  Value rest = linear;
  unsigned rank = counts.size();
  SmallVector<Value> ivs(rank);
  for (int d = rank - 1; d >= 0; --d) {
    Value index = rest;
    if (d > 0) {
      index = arith::RemUIOp::create(b, loc, rest, counts[d]);
      rest = arith::DivUIOp::create(b, loc, rest, counts[d]);
    }
    Value scaled = arith::MulIOp::create(b, loc, index, loop.getStep()[d]);
    ivs[d] = arith::AddIOp::create(b, loc, loop.getLowerBound()[d], scaled);
  }
  for (unsigned d = 0; d < rank; ++d)
    map.map(loop.getInductionVars()[d], ivs[d]);
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
  loop.erase();
}

struct MapParallelLoopsToGPUPass
    : onnxc::impl::MapParallelLoopsToGPUBase<MapParallelLoopsToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    if (blockSize < 1 || blockSize > 1024) {
      getOperation().emitError() << "block-size must lie in [1, 1024]";
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        if (canRunOnDevice(loop))
          outermost.push_back(loop);
        // A loop left on the host keeps its inner loops there too: they
        // would be launched once per outer iteration.
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    for (scf::ParallelOp loop : outermost)
      mapToLaunch(loop, blockSize);
  }
};

constexpr StringLiteral kDeviceGlobalFn = "onnxc_rt_device_global";

struct DeviceGlobalsPass
    : onnxc::impl::DeviceGlobalsBase<DeviceGlobalsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    SymbolTableCollection symbols;
    SmallVector<LLVM::AddressOfOp> uses;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      fn.walk([&](LLVM::AddressOfOp op) {
        if (op.getGlobal(symbols))
          uses.push_back(op);
      });
    if (uses.empty())
      return;
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto fnType = LLVM::LLVMFunctionType::get(ptr, {ptr, i64});
    auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(kDeviceGlobalFn);
    if (!callee)
      callee = LLVM::LLVMFuncOp::create(b, module.getLoc(), kDeviceGlobalFn,
                                        fnType);
    DataLayout layout(module);
    for (LLVM::AddressOfOp op : uses) {
      LLVM::GlobalOp global = op.getGlobal(symbols);
      uint64_t bytes =
          layout.getTypeSize(global.getGlobalType()).getFixedValue();
      b.setInsertionPointAfter(op);
      Value size = LLVM::ConstantOp::create(b, op.getLoc(), i64,
                                            static_cast<int64_t>(bytes));
      auto call = LLVM::CallOp::create(b, op.getLoc(), callee,
                                       ValueRange{op.getResult(), size});
      op.getResult().replaceAllUsesExcept(call.getResult(), call);
    }
  }
};

} // namespace

namespace {
struct GPUCopiesPass : onnxc::impl::GPUCopiesBase<GPUCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) {
      auto type = dyn_cast<MemRefType>(op.getSource().getType());
      if (type && type.getRank() > 0 &&
          isa<MemRefType>(op.getTarget().getType()))
        copies.push_back(op);
    });
    for (memref::CopyOp op : copies) {
      OpBuilder b(op);
      linalg::CopyOp::create(b, op.getLoc(), op.getSource(), op.getTarget());
      op.erase();
    }
  }
};
} // namespace

namespace {
constexpr StringLiteral kDeviceSyncFn = "onnxc_rt_device_sync";

/// Runtime functions that need no wait for the kernels: the launch ABI,
/// the device copies of globals, the allocator (which waits itself before
/// it reuses a block), the sync itself.
bool needsNoSync(StringRef callee) {
  return callee.starts_with("mgpu") || callee == kDeviceGlobalFn ||
         callee == kDeviceSyncFn || callee == "_mlir_memref_to_llvm_alloc" ||
         callee == "_mlir_memref_to_llvm_aligned_alloc" ||
         callee == "_mlir_memref_to_llvm_free" ||
         callee == onnxc::kDeviceBufferFn ||
         callee == ("_mlir_ciface_" + onnxc::kDeviceBufferFn).str();
}

/// Whether `address` is (an offset into) the host stack, which kernels
/// never see: a descriptor a C interface call returned, say.
bool isStackAddress(Value address) {
  while (auto gep = address.getDefiningOp<LLVM::GEPOp>())
    address = gep.getBase();
  return address.getDefiningOp<LLVM::AllocaOp>() != nullptr;
}

struct DeviceSyncPass : onnxc::impl::DeviceSyncBase<DeviceSyncPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    SmallVector<Operation *> points;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      fn.walk([&](Operation *op) {
        if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
          if (!isStackAddress(load.getAddr()))
            points.push_back(op);
        } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
          if (!isStackAddress(store.getAddr()))
            points.push_back(op);
        } else if (isa<LLVM::MemcpyOp, LLVM::MemmoveOp, LLVM::MemsetOp,
                       LLVM::AtomicRMWOp, LLVM::AtomicCmpXchgOp>(op)) {
          points.push_back(op);
        } else if (auto call = dyn_cast<LLVM::CallOp>(op))
          if (!call.getCallee() || !needsNoSync(*call.getCallee()))
            points.push_back(op);
      });
    if (points.empty())
      return;
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(kDeviceSyncFn);
    if (!callee)
      callee = LLVM::LLVMFuncOp::create(
          b, module.getLoc(), kDeviceSyncFn,
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {}));
    for (Operation *op : points) {
      b.setInsertionPoint(op);
      LLVM::CallOp::create(b, op->getLoc(), callee, ValueRange{});
    }
  }
};
} // namespace

namespace {
struct AlignWorkgroupBuffersPass
    : onnxc::impl::AlignWorkgroupBuffersBase<AlignWorkgroupBuffersPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto name = StringAttr::get(ctx, LLVM::LLVMDialect::getAlignAttrName());
    auto sixteen = IntegerAttr::get(IntegerType::get(ctx, 64), 16);
    getOperation().walk([&](gpu::GPUFuncOp fn) {
      for (unsigned i = 0; i < fn.getNumWorkgroupAttributions(); ++i)
        fn.setWorkgroupAttributionAttr(i, name, sixteen);
    });
  }
};
} // namespace
