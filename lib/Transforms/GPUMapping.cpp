//===- GPUMapping.cpp - The CUDA target's host/device split ---------------===//
//
// onnxc-map-parallel-loops-to-gpu: each outermost scf.parallel that can run
// on the device becomes a gpu.launch of one thread per iteration (linear
// index over all its dims, the last dim fastest).
//
// onnxc-device-globals: host code reaches the module's globals through the
// runtime's device-accessible copies (onnxc_rt_device_global).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::onnxc {
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

/// The allocation size of an LLVM global's type (arrays of scalars, as
/// memref globals become).
std::optional<uint64_t> byteSize(Type type) {
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(type)) {
    std::optional<uint64_t> element = byteSize(array.getElementType());
    if (!element)
      return std::nullopt;
    return *element * array.getNumElements();
  }
  unsigned bits = 0;
  if (auto integer = dyn_cast<IntegerType>(type))
    bits = integer.getWidth();
  else if (auto fp = dyn_cast<FloatType>(type))
    bits = fp.getWidth();
  else
    return std::nullopt;
  return llvm::PowerOf2Ceil(std::max<uint64_t>(1, (bits + 7) / 8));
}

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
    for (LLVM::AddressOfOp op : uses) {
      LLVM::GlobalOp global = op.getGlobal(symbols);
      std::optional<uint64_t> bytes = byteSize(global.getGlobalType());
      if (!bytes) {
        global.emitError() << "onnxc-device-globals: a global of type "
                           << global.getGlobalType()
                           << " has no known size";
        return signalPassFailure();
      }
      b.setInsertionPointAfter(op);
      Value size = LLVM::ConstantOp::create(b, op.getLoc(), i64,
                                            static_cast<int64_t>(*bytes));
      auto call = LLVM::CallOp::create(b, op.getLoc(), callee,
                                       ValueRange{op.getResult(), size});
      op.getResult().replaceAllUsesExcept(call.getResult(), call);
    }
  }
};

} // namespace
