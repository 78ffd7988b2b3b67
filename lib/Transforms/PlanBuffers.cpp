//===- PlanBuffers.cpp - Static buffers packed into one arena -------------===//
//
// Buffer deallocation frees every buffer at the end of the function, so
// without a plan a model's peak activation memory is the sum of all its
// intermediate buffers. Here each static buffer gets a live interval in
// the entry block and an offset in one arena; buffers that are never alive
// at the same time share memory (and stay warm in the caches).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/DeviceMemory.h"
#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_PLANBUFFERS
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;

namespace {

constexpr int64_t kAlignment = 64;

struct Buffer {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
  int64_t bytes = 0;
  int64_t first = 0, last = 0; // entry-block positions, inclusive
  int64_t offset = -1;
};

int64_t alignUp(int64_t x) { return (x + kAlignment - 1) / kAlignment * kAlignment; }

/// The size of a static identity-layout buffer in bytes, or -1.
int64_t staticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getMemorySpace())
    return -1;
  Type et = type.getElementType();
  if (!et.isIntOrIndexOrFloat() || et.isIndex())
    return -1;
  return type.getNumElements() * ((et.getIntOrFloatBitWidth() + 7) / 8);
}

/// The last entry-block position at which `root` or a value derived from
/// it is used, or -1 when it escapes through the entry block's terminator.
int64_t lastUse(Value root, Block &entry,
                const DenseMap<Operation *, int64_t> &position,
                Operation *dealloc) {
  int64_t last = position.lookup(root.getDefiningOp());
  SmallVector<Value> worklist = {root};
  llvm::SmallPtrSet<Value, 8> seen = {root};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *owner = use.getOwner();
      if (owner == dealloc)
        continue;
      if (owner->getBlock() == &entry &&
          owner->hasTrait<OpTrait::IsTerminator>())
        return -1;
      Operation *ancestor = entry.findAncestorOpInBlock(*owner);
      if (!ancestor)
        return -1;
      last = std::max(last, position.lookup(ancestor));
      // Views, reshapes, loops that carry it: what they return is the same
      // memory.
      for (Value r : owner->getResults())
        if (isa<BaseMemRefType>(r.getType()) && seen.insert(r).second)
          worklist.push_back(r);
    }
  }
  return last;
}

/// Places `buffers` (largest first) each at the lowest offset free during
/// its interval; returns the arena's size.
int64_t pack(MutableArrayRef<Buffer> buffers) {
  std::stable_sort(
      buffers.begin(), buffers.end(),
      [](const Buffer &a, const Buffer &b) { return a.bytes > b.bytes; });
  int64_t arenaBytes = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    Buffer &b = buffers[i];
    SmallVector<std::pair<int64_t, int64_t>> taken; // [begin, end)
    for (size_t j = 0; j < i; ++j) {
      const Buffer &o = buffers[j];
      if (o.first <= b.last && b.first <= o.last)
        taken.push_back({o.offset, o.offset + alignUp(o.bytes)});
    }
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + b.bytes <= begin)
        break;
      offset = std::max(offset, end);
    }
    b.offset = offset;
    arenaBytes = std::max(arenaBytes, offset + alignUp(b.bytes));
  }
  return arenaBytes;
}

/// One arena of `bytes` at the start of the function, freed at its end;
/// the buffers become views of it. A device arena is marked
/// `onnxc.device_memory` (onnxc-device-memory allocates it).
void materialize(func::FuncOp func, MutableArrayRef<Buffer> buffers,
                 int64_t bytes, bool device) {
  Block &entry = func.getBody().front();
  OpBuilder builder(func.getContext());
  builder.setInsertionPointToStart(&entry);
  Location loc = func.getLoc();
  auto arenaType = MemRefType::get({bytes}, builder.getIntegerType(8));
  auto arena = memref::AllocOp::create(builder, loc, arenaType,
                                       builder.getI64IntegerAttr(kAlignment));
  if (device)
    arena->setAttr(onnxc::kDeviceMemoryAttr, builder.getUnitAttr());
  for (Buffer &b : buffers) {
    builder.setInsertionPoint(b.alloc);
    Value offset =
        arith::ConstantIndexOp::create(builder, b.alloc.getLoc(), b.offset);
    Value view =
        memref::ViewOp::create(builder, b.alloc.getLoc(), b.alloc.getType(),
                               arena, offset, ValueRange{});
    b.alloc.getResult().replaceAllUsesWith(view);
    b.dealloc.erase();
    b.alloc.erase();
  }
  builder.setInsertionPoint(entry.getTerminator());
  memref::DeallocOp::create(builder, loc, arena);
}

struct PlanBuffersPass : onnxc::impl::PlanBuffersBase<PlanBuffersPass> {
  using PlanBuffersBase::PlanBuffersBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &entry = func.getBody().front();
    DenseMap<Operation *, int64_t> position;
    int64_t index = 0;
    for (Operation &op : entry)
      position[&op] = index++;
    DenseMap<Value, memref::DeallocOp> deallocOf;
    DenseSet<Value> freedTwice;
    for (auto dealloc : entry.getOps<memref::DeallocOp>())
      if (!deallocOf.try_emplace(dealloc.getMemref(), dealloc).second)
        freedTwice.insert(dealloc.getMemref());

    std::vector<Buffer> buffers;
    int64_t dynamicAllocs = 0, outputAllocs = 0;
    func.walk([&](memref::AllocOp alloc) {
      int64_t bytes = staticBytes(alloc.getType());
      memref::DeallocOp dealloc = deallocOf.lookup(alloc.getResult());
      // Returned buffers belong to the caller.
      if (!dealloc && alloc->getBlock() == &entry &&
          lastUse(alloc.getResult(), entry, position, nullptr) < 0) {
        ++outputAllocs;
        return;
      }
      if (bytes < 0 || alloc->getBlock() != &entry || !dealloc ||
          freedTwice.contains(alloc.getResult()) ||
          (alloc.getAlignment() && *alloc.getAlignment() > kAlignment)) {
        ++dynamicAllocs;
        return;
      }
      int64_t last = lastUse(alloc.getResult(), entry, position, dealloc);
      if (last < 0) {
        ++dynamicAllocs;
        return;
      }
      Buffer b;
      b.alloc = alloc;
      b.dealloc = dealloc;
      b.bytes = std::max<int64_t>(bytes, 1);
      b.first = position.lookup(alloc);
      b.last = last;
      buffers.push_back(b);
    });
    OpBuilder builder(func.getContext());
    func->setAttr("onnxc.dynamic_allocs",
                  builder.getI64IntegerAttr(dynamicAllocs));
    func->setAttr("onnxc.output_allocs",
                  builder.getI64IntegerAttr(outputAllocs));
    func->setAttr("onnxc.planned_buffers",
                  builder.getI64IntegerAttr(buffers.size()));
    if (buffers.empty())
      return;

    // With separate-device-buffers, buffers that only kernels touch get an
    // arena of their own (device memory), the others one the host may read.
    SmallVector<Buffer> groups[2];
    for (Buffer &b : buffers)
      groups[separateDeviceBuffers &&
             onnxc::onlyDeviceUses(b.alloc.getResult())]
          .push_back(b);
    int64_t arenaBytes = 0, bufferBytes = 0;
    for (int device = 0; device < 2; ++device) {
      if (groups[device].empty())
        continue;
      int64_t bytes = pack(groups[device]);
      materialize(func, groups[device], bytes, device);
      arenaBytes += bytes;
      if (device)
        func->setAttr("onnxc.device_arena_bytes",
                      builder.getI64IntegerAttr(bytes));
    }
    for (const Buffer &b : buffers)
      bufferBytes += b.bytes;
    func->setAttr("onnxc.arena_bytes", builder.getI64IntegerAttr(arenaBytes));
    func->setAttr("onnxc.buffer_bytes", builder.getI64IntegerAttr(bufferBytes));
  }
};

} // namespace
