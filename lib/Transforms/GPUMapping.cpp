//===- GPUMapping.cpp - The CUDA target's host/device split ---------------===//
//
// onnxc-map-parallel-loops-to-gpu: each outermost scf.parallel that can run
// on the device becomes a gpu.launch of one thread per iteration (linear
// index over all its dims, the last dim fastest).
//
// onnxc-gpu-tiled-matmul: f32 matmuls, batch matmuls and NCHW convolutions
// as kernels that stage 64 x 16 / 16 x 64 tiles of their operands in
// workgroup memory and accumulate 4 x 4 elements of C per thread in
// registers (K split into slices where the tiles are too few).
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

//===----------------------------------------------------------------------===//
// onnxc-gpu-tiled-matmul
//===----------------------------------------------------------------------===//

namespace mlir::onnxc {
#define GEN_PASS_DEF_ALIGNWORKGROUPBUFFERS
#define GEN_PASS_DEF_DEVICESYNC
#define GEN_PASS_DEF_GPUCOPIES
#define GEN_PASS_DEF_GPUTILEDMATMUL
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

namespace {

constexpr int64_t kTile = 64;      // rows and columns of C per block
constexpr int64_t kThreadsDim = 16; // threads per block along x and y
constexpr int64_t kKStep = 16;     // K per workgroup-memory tile
constexpr int64_t kPerThread = kTile / kThreadsDim; // 4 x 4 per thread
constexpr int64_t kSplitTargetBlocks = 264; // split K below this many blocks
constexpr int64_t kSplitMinK = 256;         // K per slice at least
constexpr int64_t kSplitMax = 16;

/// A product C[b] += A[b] x B[b] (M x K times K x N, `batch` of them) as
/// the tiled kernel sees it: element accessors for in-range indices.
struct GemmView {
  Value M, N, K, batch;
  std::function<Value(OpBuilder &, Value b, Value i, Value k)> loadA;
  std::function<Value(OpBuilder &, Value b, Value k, Value j)> loadB;
  std::function<Value(OpBuilder &, Value b, Value i, Value j)> loadC;
  std::function<void(OpBuilder &, Value v, Value b, Value i, Value j)> storeC;
};

bool allF32(Operation *op) {
  return llvm::all_of(op->getOperands(), [](Value v) {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type && type.getElementType().isF32();
  });
}

/// A matmul or batch matmul on f32 memrefs with the default indexing maps.
std::optional<GemmView> matmulView(OpBuilder &b, linalg::LinalgOp op) {
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
      !op.hasPureBufferSemantics() || !allF32(op))
    return std::nullopt;
  bool batched = isa<linalg::BatchMatmulOp>(op);
  SmallVector<AffineMap> defaults =
      batched
          ? linalg::BatchMatmulOp::getDefaultIndexingMaps(op->getContext())
          : linalg::MatmulOp::getDefaultIndexingMaps(op->getContext());
  if (op.getIndexingMapsArray() != defaults)
    return std::nullopt;
  Location loc = op.getLoc();
  Value A = op.getDpsInputOperand(0)->get();
  Value B = op.getDpsInputOperand(1)->get();
  Value C = op.getDpsInitOperand(0)->get();
  unsigned d = batched ? 1 : 0;
  GemmView v;
  v.M = memref::DimOp::create(b, loc, C, d);
  v.N = memref::DimOp::create(b, loc, C, d + 1);
  v.K = memref::DimOp::create(b, loc, A, d + 1);
  v.batch = batched ? Value(memref::DimOp::create(b, loc, C, 0))
                    : Value(arith::ConstantIndexOp::create(b, loc, 1));
  auto idx = [batched](Value bz, Value i, Value j) {
    return batched ? SmallVector<Value>{bz, i, j} : SmallVector<Value>{i, j};
  };
  v.loadA = [=](OpBuilder &b, Value bz, Value i, Value k) -> Value {
    return memref::LoadOp::create(b, loc, A, idx(bz, i, k));
  };
  v.loadB = [=](OpBuilder &b, Value bz, Value k, Value j) -> Value {
    return memref::LoadOp::create(b, loc, B, idx(bz, k, j));
  };
  v.loadC = [=](OpBuilder &b, Value bz, Value i, Value j) -> Value {
    return memref::LoadOp::create(b, loc, C, idx(bz, i, j));
  };
  v.storeC = [=](OpBuilder &b, Value x, Value bz, Value i, Value j) {
    memref::StoreOp::create(b, loc, x, C, idx(bz, i, j));
  };
  return v;
}

/// A 2-D NCHW convolution (input already padded) as an implicit GEMM per
/// image: M = output channels, N = output pixels, K = C x KH x KW; A is the
/// filter (rows contiguous), B gathers the input window of each pixel.
std::optional<GemmView> convView(OpBuilder &b, linalg::LinalgOp op) {
  auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
  if (!conv || !op.hasPureBufferSemantics() || !allF32(op))
    return std::nullopt;
  Location loc = op.getLoc();
  Value I = op.getDpsInputOperand(0)->get();
  Value W = op.getDpsInputOperand(1)->get();
  Value O = op.getDpsInitOperand(0)->get();
  auto dim = [&](Value m, int64_t i) -> Value {
    return memref::DimOp::create(b, loc, m, i);
  };
  auto cst = [&](int64_t x) -> Value {
    return arith::ConstantIndexOp::create(b, loc, x);
  };
  auto attr = [&](DenseIntElementsAttr a, int i) {
    return cst(a.getValues<int64_t>()[i]);
  };
  Value sh = attr(conv.getStrides(), 0), sw = attr(conv.getStrides(), 1);
  Value dh = attr(conv.getDilations(), 0), dw = attr(conv.getDilations(), 1);
  Value KH = dim(W, 2), KW = dim(W, 3), OW = dim(O, 3);
  Value window = arith::MulIOp::create(b, loc, KH, KW);
  GemmView v;
  v.M = dim(O, 1);
  v.N = arith::MulIOp::create(b, loc, dim(O, 2), OW);
  v.K = arith::MulIOp::create(b, loc, dim(W, 1), window);
  v.batch = dim(O, 0);
  // k -> (c, kh, kw)
  auto split = [=](OpBuilder &b, Value k) {
    Value c = arith::DivUIOp::create(b, loc, k, window);
    Value r = arith::RemUIOp::create(b, loc, k, window);
    Value kh = arith::DivUIOp::create(b, loc, r, KW);
    Value kw = arith::RemUIOp::create(b, loc, r, KW);
    return std::array<Value, 3>{c, kh, kw};
  };
  v.loadA = [=](OpBuilder &b, Value, Value f, Value k) -> Value {
    auto [c, kh, kw] = split(b, k);
    return memref::LoadOp::create(b, loc, W, ValueRange{f, c, kh, kw});
  };
  v.loadB = [=](OpBuilder &b, Value n, Value k, Value j) -> Value {
    auto [c, kh, kw] = split(b, k);
    Value oh = arith::DivUIOp::create(b, loc, j, OW);
    Value ow = arith::RemUIOp::create(b, loc, j, OW);
    auto at = [&](Value o, Value s, Value kk, Value dd) -> Value {
      return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, o, s),
                                   arith::MulIOp::create(b, loc, kk, dd));
    };
    return memref::LoadOp::create(
        b, loc, I, ValueRange{n, c, at(oh, sh, kh, dh), at(ow, sw, kw, dw)});
  };
  auto outIdx = [=](OpBuilder &b, Value n, Value f, Value j) {
    Value oh = arith::DivUIOp::create(b, loc, j, OW);
    Value ow = arith::RemUIOp::create(b, loc, j, OW);
    return SmallVector<Value>{n, f, oh, ow};
  };
  v.loadC = [=](OpBuilder &b, Value n, Value f, Value j) -> Value {
    return memref::LoadOp::create(b, loc, O, outIdx(b, n, f, j));
  };
  v.storeC = [=](OpBuilder &b, Value x, Value n, Value f, Value j) {
    memref::StoreOp::create(b, loc, x, O, outIdx(b, n, f, j));
  };
  return v;
}

/// The value of an index computed from constants, static dims and
/// products (the sizes of a GemmView), if it is known.
std::optional<int64_t> staticIndex(Value v) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return c;
  if (auto dim = v.getDefiningOp<memref::DimOp>()) {
    auto type = cast<MemRefType>(dim.getSource().getType());
    std::optional<int64_t> i = getConstantIntValue(dim.getIndex());
    if (i && !type.isDynamicDim(*i))
      return type.getDimSize(*i);
  }
  if (auto mul = v.getDefiningOp<arith::MulIOp>()) {
    std::optional<int64_t> a = staticIndex(mul.getLhs()),
                           b = staticIndex(mul.getRhs());
    if (a && b)
      return *a * *b;
  }
  return std::nullopt;
}

/// How a product's K is split: `splits` slices of `length` (whole steps of
/// 16; the last may be shorter, none is empty). One slice unless its sizes
/// are static and its 64 x 64 tiles give fewer blocks than
/// kSplitTargetBlocks (two waves on a 132-SM GPU) while K is long; then
/// enough slices for that many blocks, each at least kSplitMinK long.
struct KSplit {
  int64_t splits = 1;
  int64_t length = 0;
};

KSplit splitK(const GemmView &v) {
  std::optional<int64_t> M = staticIndex(v.M), N = staticIndex(v.N),
                         K = staticIndex(v.K), batch = staticIndex(v.batch);
  if (!M || !N || !K || !batch || *M <= 0 || *N <= 0 || *batch <= 0)
    return {};
  int64_t blocks = llvm::divideCeil(*M, kTile) * llvm::divideCeil(*N, kTile) *
                   *batch;
  int64_t wanted = llvm::divideCeil(kSplitTargetBlocks, blocks);
  int64_t most = std::min<int64_t>(kSplitMax, *K / kSplitMinK);
  int64_t splits = std::min(wanted, most);
  if (splits <= 1)
    return {};
  int64_t length =
      llvm::divideCeil(llvm::divideCeil(*K, splits), kKStep) * kKStep;
  return {static_cast<int64_t>(llvm::divideCeil(*K, length)), length};
}

void buildTiledGemm(OpBuilder &b, Location loc, const GemmView &v) {
  auto cst = [&](int64_t x) { return arith::ConstantIndexOp::create(b, loc, x); };
  Value zero = cst(0), one = cst(1);
  Value M = v.M, N = v.N, K = v.K;
  Value tile = cst(kTile);
  Value gridX = arith::CeilDivUIOp::create(b, loc, N, tile);
  Value gridY = arith::CeilDivUIOp::create(b, loc, M, tile);
  Value blocks = arith::MulIOp::create(b, loc, gridX, gridY);
  blocks = arith::MulIOp::create(b, loc, blocks, v.batch);
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, blocks,
                                    zero);
  auto guard = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard outer(b);
  b.setInsertionPointToStart(guard.thenBlock());

  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  // Split K: slice s of image n is block z = n * splits + s; each writes its
  // partial sums to partial[z], which a second kernel adds to C.
  KSplit split = splitK(v);
  int64_t splits = split.splits;
  Value partial;
  Value sliceLen = K;
  if (splits > 1) {
    sliceLen = cst(split.length);
    partial = memref::AllocOp::create(
        b, loc,
        MemRefType::get({*staticIndex(v.batch) * splits, *staticIndex(M),
                         *staticIndex(N)},
                        f32));
  }
  Value gridZ = splits > 1 ? arith::MulIOp::create(b, loc, v.batch, cst(splits))
                                 .getResult()
                           : v.batch;
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto tileType = MemRefType::get({kKStep, kTile}, f32, AffineMap(), workgroup);
  Value threads = cst(kThreadsDim);
  auto launch = gpu::LaunchOp::create(b, loc, gridX, gridY, gridZ, threads,
                                      threads, one, nullptr, nullptr, {},
                                      TypeRange{tileType, tileType});
  Value As = launch.getWorkgroupAttributions()[0]; // As[k][i] = A[row0 + i][k0 + k]
  Value Bs = launch.getWorkgroupAttributions()[1]; // Bs[k][j] = B[k0 + k][col0 + j]
  b.setInsertionPointToEnd(&launch.getBody().front());
  Value tx = launch.getThreadIds().x, ty = launch.getThreadIds().y;
  Value row0 = arith::MulIOp::create(b, loc, launch.getBlockIds().y, tile);
  Value col0 = arith::MulIOp::create(b, loc, launch.getBlockIds().x, tile);
  Value bz = launch.getBlockIds().z;
  Value kBegin = zero, kEnd = K;
  if (splits > 1) {
    Value slice = arith::RemUIOp::create(b, loc, bz, cst(splits));
    kBegin = arith::MulIOp::create(b, loc, slice, sliceLen);
    kEnd = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, kBegin, sliceLen), K);
    bz = arith::DivUIOp::create(b, loc, bz, cst(splits));
  }
  Value tid = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, ty, threads), tx);
  // A thread's rows and columns of C are 4 consecutive ones: its reads of
  // the workgroup tiles are 16-byte vectors, its stores 16-byte runs.
  Value ty4 = arith::MulIOp::create(b, loc, ty, cst(kPerThread));
  Value tx4 = arith::MulIOp::create(b, loc, tx, cst(kPerThread));
  Value fzero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));

  auto inBounds = [&](Value i, Value n, Value j, Value m) {
    Value a = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, n);
    Value c = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, m);
    return arith::AndIOp::create(b, loc, a, c).getResult();
  };
  // load(i, j) inside [0, n) x [0, m), else 0.
  auto loadOrZero = [&](auto load, Value i, Value n, Value j, Value m) {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{f32},
                                  inBounds(i, n, j, m), true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, load(b, bz, i, j));
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, fzero);
    return ifOp.getResult(0);
  };

  SmallVector<Value> init(kPerThread * kPerThread, fzero);
  auto kLoop = scf::ForOp::create(b, loc, kBegin, kEnd, cst(kKStep), init);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    int64_t perThreadLoads = kTile * kKStep / (kThreadsDim * kThreadsDim);
    for (int64_t r = 0; r < perThreadLoads; ++r) {
      Value e = arith::AddIOp::create(
          b, loc, tid, cst(r * kThreadsDim * kThreadsDim));
      // A: 64 rows of 16; consecutive threads read along a row.
      Value ai = arith::DivUIOp::create(b, loc, e, cst(kKStep));
      Value ak = arith::RemUIOp::create(b, loc, e, cst(kKStep));
      Value av = loadOrZero(v.loadA, arith::AddIOp::create(b, loc, row0, ai),
                            M, arith::AddIOp::create(b, loc, k0, ak), kEnd);
      memref::StoreOp::create(b, loc, av, As, ValueRange{ak, ai});
      // B: 16 rows of 64.
      Value bk = arith::DivUIOp::create(b, loc, e, tile);
      Value bj = arith::RemUIOp::create(b, loc, e, tile);
      Value bv = loadOrZero(v.loadB, arith::AddIOp::create(b, loc, k0, bk),
                            kEnd, arith::AddIOp::create(b, loc, col0, bj), N);
      memref::StoreOp::create(b, loc, bv, Bs, ValueRange{bk, bj});
    }
    gpu::BarrierOp::create(b, loc);
    SmallVector<Value> acc(kLoop.getRegionIterArgs());
    // The thread's 4 rows of A and 4 columns of B at step k: one 16-byte
    // load each (workgroup tiles are 16-byte aligned, rows of 64 floats).
    auto quad = VectorType::get({kPerThread}, f32);
    for (int64_t k = 0; k < kKStep; ++k) {
      Value kk = cst(k);
      Value aq = vector::LoadOp::create(b, loc, quad, As, ValueRange{kk, ty4},
                                        false, llvm::Align(16));
      Value bq = vector::LoadOp::create(b, loc, quad, Bs, ValueRange{kk, tx4},
                                        false, llvm::Align(16));
      SmallVector<Value> av, bv;
      for (int64_t r = 0; r < kPerThread; ++r) {
        av.push_back(vector::ExtractOp::create(b, loc, aq, r));
        bv.push_back(vector::ExtractOp::create(b, loc, bq, r));
      }
      for (int64_t r = 0; r < kPerThread; ++r)
        for (int64_t c = 0; c < kPerThread; ++c) {
          Value &a = acc[r * kPerThread + c];
          a = math::FmaOp::create(b, loc, av[r], bv[c], a);
        }
    }
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, acc);
  }
  for (int64_t r = 0; r < kPerThread; ++r)
    for (int64_t c = 0; c < kPerThread; ++c) {
      Value i = arith::AddIOp::create(
          b, loc, row0, arith::AddIOp::create(b, loc, ty4, cst(r)));
      Value j = arith::AddIOp::create(
          b, loc, col0, arith::AddIOp::create(b, loc, tx4, cst(c)));
      auto ifOp = scf::IfOp::create(b, loc, inBounds(i, M, j, N), false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value acc = kLoop.getResult(r * kPerThread + c);
      if (partial) {
        memref::StoreOp::create(b, loc, acc, partial,
                                ValueRange{launch.getBlockIds().z, i, j});
        continue;
      }
      Value sum = arith::AddFOp::create(b, loc, v.loadC(b, bz, i, j), acc);
      v.storeC(b, sum, bz, i, j);
    }
  gpu::TerminatorOp::create(b, loc);
  if (!partial)
    return;
  // C[n, i, j] += the slices' sums, in slice order (deterministic): a
  // parallel loop that onnxc-map-parallel-loops-to-gpu launches.
  b.setInsertionPointAfter(launch);
  auto loop = scf::ParallelOp::create(
      b, loc, ValueRange{zero, zero, zero}, ValueRange{v.batch, M, N},
      ValueRange{one, one, one});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value n = loop.getInductionVars()[0], i = loop.getInductionVars()[1],
          j = loop.getInductionVars()[2];
    Value sum = v.loadC(b, n, i, j);
    Value first = arith::MulIOp::create(b, loc, n, cst(splits));
    for (int64_t s = 0; s < splits; ++s) {
      Value z = arith::AddIOp::create(b, loc, first, cst(s));
      sum = arith::AddFOp::create(
          b, loc, sum,
          memref::LoadOp::create(b, loc, partial, ValueRange{z, i, j}));
    }
    v.storeC(b, sum, n, i, j);
  }
  memref::DeallocOp::create(b, loc, partial);
}

struct GPUTiledMatmulPass
    : onnxc::impl::GPUTiledMatmulBase<GPUTiledMatmulPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp,
              linalg::Conv2DNchwFchwOp>(op.getOperation()))
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates) {
      OpBuilder b(op);
      std::optional<GemmView> view = matmulView(b, op);
      if (!view)
        view = convView(b, op);
      if (!view)
        continue; // the ops it built for the view fold away
      buildTiledGemm(b, op.getLoc(), *view);
      op->erase();
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
         callee == "_mlir_memref_to_llvm_free";
}

struct DeviceSyncPass : onnxc::impl::DeviceSyncBase<DeviceSyncPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    SmallVector<Operation *> points;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      fn.walk([&](Operation *op) {
        if (isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::MemcpyOp, LLVM::MemmoveOp,
                LLVM::MemsetOp, LLVM::AtomicRMWOp, LLVM::AtomicCmpXchgOp>(op))
          points.push_back(op);
        else if (auto call = dyn_cast<LLVM::CallOp>(op))
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
