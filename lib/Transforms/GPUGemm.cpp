//===- GPUGemm.cpp - The CUDA target's matmul and convolution kernels -----===//
//
// onnxc-gpu-tiled-matmul: f32, f16 and bf16 matmuls, batch matmuls and NCHW
// convolutions (GPUGemmViews.h) as kernels that stage tiles of their
// operands in workgroup memory: 64 x 64 or 128 x 128 tiles of C whose
// threads accumulate 4 x 4 or 8 x 8 elements each in registers (K split
// into slices where the tiles are too few), or warps that multiply the
// tiles on tensor cores (mma.sync m16n8k8 with tf32, m16n8k16 with f16);
// the ops around each product fused in (GPUGemmFusion.h).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "GPUGemmViews.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include <array>
#include <functional>

namespace mlir::onnxc {
#define GEN_PASS_DEF_GPUTILEDMATMUL
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using mlir::onnxc::GemmFusion;
using mlir::onnxc::GemmView;
using mlir::onnxc::convView;
using mlir::onnxc::matmulView;

namespace {

constexpr int64_t kThreadsDim = 16; // threads per block along x and y
constexpr int64_t kQuad = 4;        // a thread's consecutive rows (columns)
constexpr int64_t kSplitTargetBlocks = 264; // split K below this many blocks
constexpr int64_t kSplitMinK = 256;         // K per slice at least
constexpr int64_t kSplitMax = 16;
constexpr int64_t kLargeMinBlocks = 132; // 128-tiles: at least one wave

/// The shape of a tiled GEMM kernel. Tiles of C are `tile` x `tile` (64 or
/// 128) for 16 x 16 threads; a thread owns `groups` x `groups` quads of 4 x 4
/// elements: rows 64 g + 4 ty + r and columns 64 h + 4 tx + c, so that
/// each step it reads the workgroup tiles with 16-byte loads that a warp
/// serves without bank conflicts. K advances `kStep` at a time; the
/// workgroup tiles of A (stored K-major) have `pad` extra columns, which
/// spread the transposing stores over the banks. `prefetch`: the next step's
/// elements are loaded from global memory into registers before the
/// current step's products, hiding their latency behind them.
///
/// `mma`: the 8 warps of a block multiply the tiles on tensor cores
/// instead, each warp a `warpRows` x `warpCols` part of C as mma.sync
/// m16n8k8 (tf32 operands: f32 whose low 13 bits of mantissa the tensor
/// cores ignore; f32 sums) per 8 of K, or with `half` (f16 operands staged
/// as f16) m16n8k16 per 16 of K.
struct GemmTiling {
  int64_t tile = 64;
  int64_t kStep = 16;
  int64_t pad = 0;
  bool prefetch = false;
  bool mma = false;
  int64_t warpRows = 32, warpCols = 16;
  bool half = false;
  int64_t groups() const { return tile / (kThreadsDim * kQuad); }
  int64_t perThread() const { return kQuad * groups(); }
};

/// 64 x 64 tiles, K in steps of 16: any size, split K when they are few.
constexpr GemmTiling kSmallTiling{64, 16, 0, false, false};
/// 128 x 128 tiles (8 x 8 per thread), K in steps of 8, prefetched: large
/// products with enough tiles to fill the GPU.
constexpr GemmTiling kLargeTiling{128, 8, 4, true, false};
/// 64 x 64 tiles on tensor cores (warps of 32 x 16: 2 x 2 mma per 8 of K),
/// K in steps of 16, prefetched; rows of the workgroup tiles padded to 72,
/// so that the fragments' loads (lane l reads row l % 4 and column l / 4)
/// hit 32 different banks.
constexpr GemmTiling kTF32Tiling{64, 16, 8, true, true, 32, 16};
/// 128 x 128 tiles on tensor cores for large products: warps of 64 x 32
/// (4 x 4 mma per 8 of K: 1.5 fragment loads per mma instead of 3), rows
/// padded to 136.
constexpr GemmTiling kTF32LargeTiling{128, 16, 8, true, true, 64, 32};
/// The same tiles for f16 operands: m16n8k16 once per step of 16. Rows of
/// 72 halves: lane (g, q)'s 4-byte reads of a fragment fall in bank 8 q +
/// g / 2 (two lanes share each word).
constexpr GemmTiling kF16Tiling{64, 16, 8, true, true, 32, 16, true};
constexpr GemmTiling kF16LargeTiling{128, 16, 8, true, true, 64, 32, true};

constexpr int64_t kWarp = 32;
constexpr int64_t kMmaM = 16, kMmaN = 8;

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
  int64_t tile = kSmallTiling.tile;
  int64_t blocks =
      llvm::divideCeil(*M, tile) * llvm::divideCeil(*N, tile) * *batch;
  int64_t wanted = llvm::divideCeil(kSplitTargetBlocks, blocks);
  int64_t most = std::min<int64_t>(kSplitMax, *K / kSplitMinK);
  int64_t splits = std::min(wanted, most);
  if (splits <= 1)
    return {};
  int64_t length =
      llvm::divideCeil(llvm::divideCeil(*K, splits), kSmallTiling.kStep) *
      kSmallTiling.kStep;
  return {static_cast<int64_t>(llvm::divideCeil(*K, length)), length};
}

void buildTiledGemm(OpBuilder &b, Location loc, const GemmView &v,
                    const GemmTiling &t) {
  auto cst = [&](int64_t x) {
    return arith::ConstantIndexOp::create(b, loc, x);
  };
  Value zero = cst(0), one = cst(1);
  Value M = v.M, N = v.N, K = v.K;
  Value tile = cst(t.tile);
  Value gridX = arith::CeilDivUIOp::create(b, loc, N, tile);
  Value gridY = arith::CeilDivUIOp::create(b, loc, M, tile);
  Value blocks = arith::MulIOp::create(b, loc, gridX, gridY);
  blocks = arith::MulIOp::create(b, loc, blocks, v.batch);
  Value any =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, blocks, zero);
  auto guard = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard outer(b);
  b.setInsertionPointToStart(guard.thenBlock());

  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  // Split K: slice s of image n is block z = n * splits + s; each writes its
  // partial sums to partial[z], which a second kernel adds to C.
  KSplit split = t.tile == kSmallTiling.tile ? splitK(v) : KSplit{};
  int64_t splits = split.splits;
  Value partial;
  Value sliceLen = K;
  if (splits > 1) {
    sliceLen = cst(split.length);
    partial = memref::AllocOp::create(
        b, loc,
        MemRefType::get(
            {*staticIndex(v.batch) * splits, *staticIndex(M), *staticIndex(N)},
            f32));
  }
  Value gridZ =
      splits > 1
          ? arith::MulIOp::create(b, loc, v.batch, cst(splits)).getResult()
          : v.batch;
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  // The workgroup tiles hold f16 operands as they are for f16 products on
  // tensor cores, every other operand widened to f32 (exactly: f16 and
  // bf16 values are tf32 values too).
  Type tileElement = t.half ? b.getF16Type() : f32;
  auto aTileType = MemRefType::get({t.kStep, t.tile + t.pad}, tileElement,
                                   AffineMap(), workgroup);
  auto bTileType = MemRefType::get({t.kStep, t.tile + (t.mma ? t.pad : 0)},
                                   tileElement, AffineMap(), workgroup);
  Value threads = cst(kThreadsDim);
  auto launch = gpu::LaunchOp::create(b, loc, gridX, gridY, gridZ, threads,
                                      threads, one, nullptr, nullptr, {},
                                      TypeRange{aTileType, bTileType});
  Value As =
      launch.getWorkgroupAttributions()[0]; // As[k][i] = A[row0 + i][k0 + k]
  Value Bs =
      launch.getWorkgroupAttributions()[1]; // Bs[k][j] = B[k0 + k][col0 + j]
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
  // A thread's rows and columns of C come in quads of 4 consecutive ones:
  // its reads of the workgroup tiles are 16-byte vectors, its stores
  // 16-byte runs. Row (column) n of the thread's: 64 g + 4 ty + r.
  const int64_t P = t.perThread();
  Value ty4 = arith::MulIOp::create(b, loc, ty, cst(kQuad));
  Value tx4 = arith::MulIOp::create(b, loc, tx, cst(kQuad));
  auto ownIndex = [&](Value base, Value q4, int64_t n) -> Value {
    int64_t at = (n / kQuad) * kThreadsDim * kQuad + n % kQuad;
    return arith::AddIOp::create(b, loc, base,
                                 arith::AddIOp::create(b, loc, q4, cst(at)));
  };
  Value fzero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value tileZero = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(tileElement)));

  auto inBounds = [&](Value i, Value n, Value j, Value m) {
    Value a = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, n);
    Value c = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, m);
    return arith::AndIOp::create(b, loc, a, c).getResult();
  };
  // load(i, j) inside [0, n) x [0, m), else 0.
  auto loadOrZero = [&](auto load, Value i, Value n, Value j, Value m) {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{tileElement},
                                  inBounds(i, n, j, m), true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value x = load(b, bz, i, j);
    if (x.getType() != tileElement)
      x = arith::ExtFOp::create(b, loc, tileElement, x);
    scf::YieldOp::create(b, loc, x);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, tileZero);
    return ifOp.getResult(0);
  };

  // The elements of one step that the thread copies into the workgroup
  // tiles: the tile of A is `tile` rows of `kStep` (consecutive threads
  // read along a row), that of B `kStep` rows of `tile`.
  const int64_t copies = t.tile * t.kStep / (kThreadsDim * kThreadsDim);
  struct Place {
    Value ai, ak, bk, bj;
  };
  auto place = [&](int64_t r) {
    Value e =
        arith::AddIOp::create(b, loc, tid, cst(r * kThreadsDim * kThreadsDim));
    return Place{arith::DivUIOp::create(b, loc, e, cst(t.kStep)),
                 arith::RemUIOp::create(b, loc, e, cst(t.kStep)),
                 arith::DivUIOp::create(b, loc, e, tile),
                 arith::RemUIOp::create(b, loc, e, tile)};
  };
  auto loadStep = [&](Value k0) {
    SmallVector<Value> values;
    for (int64_t r = 0; r < copies; ++r) {
      Place p = place(r);
      values.push_back(
          loadOrZero(v.loadA, arith::AddIOp::create(b, loc, row0, p.ai), M,
                     arith::AddIOp::create(b, loc, k0, p.ak), kEnd));
      values.push_back(
          loadOrZero(v.loadB, arith::AddIOp::create(b, loc, k0, p.bk), kEnd,
                     arith::AddIOp::create(b, loc, col0, p.bj), N));
    }
    return values;
  };
  auto storeStep = [&](ValueRange values) {
    for (int64_t r = 0; r < copies; ++r) {
      Place p = place(r);
      memref::StoreOp::create(b, loc, values[2 * r], As,
                              ValueRange{p.ak, p.ai});
      memref::StoreOp::create(b, loc, values[2 * r + 1], Bs,
                              ValueRange{p.bk, p.bj});
    }
  };

  // Tensor cores: warp w computes rows R (w / W) + [0, R) and columns
  // C (w % W) + [0, C) of the tile (R x C = warpRows x warpCols, W = tile /
  // C warps per row of warps); lane l holds the fragments' elements
  // of group g = l / 4 and thread-in-group q = l % 4 in registers of E
  // elements (E = 1 for tf32 and m16n8k8, 2 for f16 and m16n8k16; PTX's
  // layouts): A's register r element e is (row g + 8 (r % 2), k E q + e +
  // K/2 (r / 2)), B's (k E q + e + K/2 r, column g), C's [r][c] (g + 8 r,
  // 2q + c). For tf32: A (g, q), (g + 8, q), (g, q + 4), (g + 8, q + 4).
  const int64_t mmaRows = t.warpRows / kMmaM, mmaCols = t.warpCols / kMmaN;
  const int64_t perReg = t.half ? 2 : 1, kMmaK = t.half ? 16 : 8;
  auto aFragType = VectorType::get({4, perReg}, tileElement);
  auto bFragType = VectorType::get({2, perReg}, tileElement);
  auto cFragType = VectorType::get({2, 2}, f32);
  Value warpRow, warpCol, group, quadLane;
  if (t.mma) {
    Value warp = arith::DivUIOp::create(b, loc, tid, cst(kWarp));
    Value lane = arith::RemUIOp::create(b, loc, tid, cst(kWarp));
    int64_t warpsPerRow = t.tile / t.warpCols;
    warpRow = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, warp, cst(warpsPerRow)),
        cst(t.warpRows));
    warpCol = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, warp, cst(warpsPerRow)),
        cst(t.warpCols));
    group = arith::DivUIOp::create(b, loc, lane, cst(4));
    quadLane = arith::RemUIOp::create(b, loc, lane, cst(4));
  }
  auto plus = [&](Value x, int64_t c) -> Value {
    return c ? arith::AddIOp::create(b, loc, x, cst(c)).getResult() : x;
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  // One step of K on tensor cores: per K of the mma, the warp's A
  // fragments (2 or 4 row blocks of 16) and B fragments (2 or 4 column
  // blocks of 8) from the workgroup tiles, then an mma.sync for each pair.
  auto mmaStep = [&](SmallVector<Value> &acc) {
    Value fragZeroA = arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(b.getZeroAttr(aFragType)));
    Value fragZeroB = arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(b.getZeroAttr(bFragType)));
    Value qE =
        perReg == 1
            ? quadLane
            : arith::MulIOp::create(b, loc, quadLane, cst(perReg)).getResult();
    for (int64_t k0 = 0; k0 < t.kStep; k0 += kMmaK) {
      // k of register half h (0, 1) and element e.
      auto kAt = [&](int64_t h, int64_t e) {
        return plus(qE, k0 + e + h * kMmaK / 2);
      };
      SmallVector<Value> aFrags, bFrags;
      for (int64_t mi = 0; mi < mmaRows; ++mi) {
        Value row = add(warpRow, plus(group, mi * kMmaM));
        Value frag = fragZeroA;
        for (int64_t r = 0; r < 4; ++r)
          for (int64_t e = 0; e < perReg; ++e) {
            Value x = memref::LoadOp::create(
                b, loc, As, ValueRange{kAt(r / 2, e), plus(row, 8 * (r % 2))});
            frag = vector::InsertOp::create(b, loc, x, frag,
                                            ArrayRef<int64_t>{r, e});
          }
        aFrags.push_back(frag);
      }
      for (int64_t ni = 0; ni < mmaCols; ++ni) {
        Value col = add(warpCol, plus(group, ni * kMmaN));
        Value frag = fragZeroB;
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t e = 0; e < perReg; ++e) {
            Value x =
                memref::LoadOp::create(b, loc, Bs, ValueRange{kAt(r, e), col});
            frag = vector::InsertOp::create(b, loc, x, frag,
                                            ArrayRef<int64_t>{r, e});
          }
        bFrags.push_back(frag);
      }
      for (int64_t mi = 0; mi < mmaRows; ++mi)
        for (int64_t ni = 0; ni < mmaCols; ++ni) {
          Value &c = acc[mi * mmaCols + ni];
          c = nvgpu::MmaSyncOp::create(b, loc, aFrags[mi], bFrags[ni], c,
                                       ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK},
                                       /*tf32Enabled=*/!t.half);
        }
    }
  };
  // The thread's elements of C after the loop: (row, column in the tile,
  // value).
  auto ownElements = [&](ValueRange sums) {
    SmallVector<std::tuple<Value, Value, Value>> out;
    if (!t.mma) {
      for (int64_t r = 0; r < P; ++r)
        for (int64_t c = 0; c < P; ++c)
          out.emplace_back(ownIndex(zero, ty4, r), ownIndex(zero, tx4, c),
                           sums[r * P + c]);
      return out;
    }
    Value q2 = arith::MulIOp::create(b, loc, quadLane, cst(2));
    for (int64_t mi = 0; mi < mmaRows; ++mi)
      for (int64_t ni = 0; ni < mmaCols; ++ni) {
        Value row = add(warpRow, plus(group, mi * kMmaM));
        Value col = add(warpCol, plus(q2, ni * kMmaN));
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t c = 0; c < 2; ++c)
            out.emplace_back(
                plus(row, 8 * r), plus(col, c),
                vector::ExtractOp::create(b, loc, sums[mi * mmaCols + ni],
                                          ArrayRef<int64_t>{r, c}));
      }
    return out;
  };

  const int64_t accCount = t.mma ? mmaRows * mmaCols : P * P;
  SmallVector<Value> init(
      accCount,
      t.mma ? arith::ConstantOp::create(b, loc, cFragType,
                                        DenseElementsAttr::get(cFragType, 0.0f))
                  .getResult()
            : fzero);
  if (t.prefetch)
    llvm::append_range(init, loadStep(kBegin));
  Value step = cst(t.kStep);
  auto kLoop = scf::ForOp::create(b, loc, kBegin, kEnd, step, init);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    ValueRange args = kLoop.getRegionIterArgs();
    if (t.prefetch)
      storeStep(args.drop_front(accCount));
    else
      storeStep(loadStep(k0));
    gpu::BarrierOp::create(b, loc);
    SmallVector<Value> next;
    if (t.prefetch)
      next = loadStep(arith::AddIOp::create(b, loc, k0, step));
    SmallVector<Value> acc(args.take_front(accCount));
    if (t.mma)
      mmaStep(acc);
    // The thread's rows of A and columns of B at step k: one 16-byte load
    // per quad (workgroup tiles are 16-byte aligned, their rows multiples
    // of 16 bytes).
    auto quad = VectorType::get({kQuad}, f32);
    for (int64_t k = 0; k < (t.mma ? 0 : t.kStep); ++k) {
      Value kk = cst(k);
      SmallVector<Value> av, bv;
      for (int64_t q = 0; q < t.groups(); ++q) {
        Value at = cst(q * kThreadsDim * kQuad);
        Value aq = vector::LoadOp::create(
            b, loc, quad, As,
            ValueRange{kk, arith::AddIOp::create(b, loc, ty4, at)}, false,
            llvm::Align(16));
        Value bq = vector::LoadOp::create(
            b, loc, quad, Bs,
            ValueRange{kk, arith::AddIOp::create(b, loc, tx4, at)}, false,
            llvm::Align(16));
        for (int64_t r = 0; r < kQuad; ++r) {
          av.push_back(vector::ExtractOp::create(b, loc, aq, r));
          bv.push_back(vector::ExtractOp::create(b, loc, bq, r));
        }
      }
      for (int64_t r = 0; r < P; ++r)
        for (int64_t c = 0; c < P; ++c) {
          Value &a = acc[r * P + c];
          a = math::FmaOp::create(b, loc, av[r], bv[c], a);
        }
    }
    gpu::BarrierOp::create(b, loc);
    llvm::append_range(acc, next);
    scf::YieldOp::create(b, loc, acc);
  }
  for (auto [ti, tj, acc] :
       ownElements(kLoop.getResults().take_front(accCount))) {
    Value i = add(row0, ti);
    Value j = add(col0, tj);
    auto ifOp = scf::IfOp::create(b, loc, inBounds(i, M, j, N), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
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
  auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero, zero, zero},
                                      ValueRange{v.batch, M, N},
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

/// The product as a sequential loop nest: C[b, i, j] = init + sum over k of
/// A[b, i, k] B[b, k, j] in f32, through the view's accessors (the host
/// check of the views and fusions, onnxc --cuda-gemm-host-check).
void buildReferenceGemm(OpBuilder &b, Location loc, const GemmView &v) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Type f32 = b.getF32Type();
  auto widened = [&](OpBuilder &b, Value x) -> Value {
    return x.getType() == f32 ? x : arith::ExtFOp::create(b, loc, f32, x);
  };
  scf::buildLoopNest(
      b, loc, ValueRange{zero, zero, zero}, ValueRange{v.batch, v.M, v.N},
      ValueRange{one, one, one},
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        Value bz = ivs[0], i = ivs[1], j = ivs[2];
        auto kLoop = scf::ForOp::create(
            b, loc, zero, v.K, one, ValueRange{v.loadC(b, bz, i, j)},
            [&](OpBuilder &b, Location loc, Value k, ValueRange sum) {
              Value a = widened(b, v.loadA(b, bz, i, k));
              Value x = widened(b, v.loadB(b, bz, k, j));
              Value s = arith::AddFOp::create(
                  b, loc, sum[0], arith::MulFOp::create(b, loc, a, x));
              scf::YieldOp::create(b, loc, s);
            });
        v.storeC(b, kLoop.getResult(0), bz, i, j);
      });
}

/// 128-tiles where a product's static sizes give at least a wave of them,
/// else 64-tiles: on tensor cores for f16 products (m16n8k16) and bf16 ones
/// (widened to f32, exactly, on the tf32 kernels) with `halfMma`, for f32
/// ones with `tf32`; `forced` (64 or 128, the pass's option) overrides.
GemmTiling chooseTiling(const GemmView &v, int64_t forced, bool tf32,
                        bool halfMma) {
  bool f16 = halfMma && v.operandType.isF16();
  bool mma = tf32 || (halfMma && !v.operandType.isF32());
  GemmTiling large = f16   ? kF16LargeTiling
                     : mma ? kTF32LargeTiling
                           : kLargeTiling;
  GemmTiling small = f16 ? kF16Tiling : mma ? kTF32Tiling : kSmallTiling;
  if (forced == large.tile)
    return large;
  if (forced == small.tile)
    return small;
  std::optional<int64_t> M = staticIndex(v.M), N = staticIndex(v.N),
                         batch = staticIndex(v.batch);
  int64_t tile = large.tile;
  if (M && N && batch &&
      llvm::divideCeil(*M, tile) * llvm::divideCeil(*N, tile) * *batch >=
          kLargeMinBlocks)
    return large;
  return small;
}

/// The product reads its initial values and stores its final ones through
/// `fusion` (C's own where nothing is fused).
void fuse(GemmView &v, const GemmFusion &fusion, Location loc) {
  auto indices = v.cIndices;
  Value C = v.C;
  v.loadC = [=](OpBuilder &b, Value bz, Value i, Value j) {
    return fusion.initialValue(b, loc, C, indices(b, bz, i, j));
  };
  v.storeC = [=](OpBuilder &b, Value x, Value bz, Value i, Value j) {
    fusion.store(b, loc, C, x, indices(b, bz, i, j));
  };
}

struct GPUTiledMatmulPass
    : onnxc::impl::GPUTiledMatmulBase<GPUTiledMatmulPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNchwFchwOp,
              linalg::Conv2DNgchwGfchwOp>(op.getOperation()))
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates) {
      OpBuilder b(op);
      std::optional<GemmView> view = matmulView(b, op);
      if (!view)
        view = convView(b, op);
      if (!view)
        continue; // the ops it built for the view fold away
      GemmFusion fusion = GemmFusion::find(op, view->C, view->reads);
      fuse(*view, fusion, op.getLoc());
      if (hostReference)
        buildReferenceGemm(b, op.getLoc(), *view);
      else
        buildTiledGemm(b, op.getLoc(), *view,
                       chooseTiling(*view, tile, tf32, halfMma));
      op->erase();
      fusion.eraseFused(view->C);
      if (view->padded)
        view->padded->erase();
    }
  }
};

} // namespace
