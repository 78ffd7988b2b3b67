//===- ConvToMatmul.cpp - 2-D convolutions as sums of matmuls -------------===//
//
// A 2-D NCHW convolution (batch 1, one group) is a sum over the kernel
// positions k = (kh, kw) of matmuls W_k (F x C) x X_k (C x P), where X_k
// holds, for every output position, the input pixel that kernel position
// reads. The output is computed in blocks (up to 64 filters x 256 positions,
// all of one size, one parallel loop over them); in
// each block a loop over k runs one linalg.matmul that the cache and
// register tiling of onnxc-tile-and-vectorize then turns into vector code.
//
// - Stride 1: X_k needs no copy. With the padded input flattened to
//   C x (Hp*Wp), output row oh reads input row oh + kh*d from column kw*d
//   on, so X_k is the slice starting at kh*d*Wp + kw*d: the matmuls compute
//   Wp - OW extra columns per output row (dropped at the end), and stop
//   (KW-1)*d positions before the end, where the last row's extra columns
//   would read past the input.
// - Other strides: X_k is copied out of the strided input into slab k of
//   an im2col tensor.
// A batch of several images is first stacked into one tall image
// (BatchedConv.cpp). Grouped convs run group after group, each as above; a
// grouped 1x1 conv of stride 1 is one batch_matmul over the groups on views of
// its tensors.
//===----------------------------------------------------------------------===//

#include "onnxc/Codegen/CPU/Strategy.h"
#include "onnxc/Transforms/Passes.h"

#include "ConvEpilogue.h"
#include "ConvUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_CONVTOMATMUL
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc::conv;

namespace {

/// Output blocks: filters per block; the positions per block are the
/// lowering configuration's nc (256 on AVX-512: the accumulator block,
/// 64 x 256 floats, stays in L2 across the kernel positions). The filter
/// block predates the 12-row register tile (mr was 8, mc 64); choosing it
/// from the configuration waits for a benchmark.
constexpr int64_t kFilterBlock = 64;
/// Blocks a conv is split into at least, where its sizes allow.
constexpr int64_t kMinBlocks = 4;
/// im2col tensors larger than this are built block by block (half of a
/// 2 MiB L2).
constexpr int64_t kPanelThreshold = 1 << 20;


/// Where a conv's accumulator starts: its init (1 x F x OH x OW) when that
/// is a fill (a scalar) or a per-filter broadcast (a bias) is built block by
/// block in cache; any other init is laid out as F x `width` first (OH rows
/// of `row` columns, zero columns after each row and after the last).
struct ConvInit {
  Value scalar, bias, tensor;

  ConvInit(OpBuilder &b, Location loc, Value init, int64_t f, int64_t oh,
           int64_t ow, int64_t row, int64_t width) {
    ConvStart start(init);
    scalar = start.scalar;
    bias = start.bias;
    if (!start.tensor)
      return;
    Value acc = dropBatch(b, loc, init, /*mergeLast=*/false);
    if (row != ow)
      acc = zeroPadHigh(b, loc, acc, {0, 0, row - ow});
    acc = tensor::CollapseShapeOp::create(
        b, loc, acc, SmallVector<ReassociationIndices>{{0}, {1, 2}});
    if (width != oh * row)
      acc = zeroPadHigh(b, loc, acc, {0, width - oh * row});
    tensor = acc;
  }

  /// The whole F x width accumulator: blocks are written into it.
  Value whole(OpBuilder &b, Location loc, int64_t f, int64_t width) const {
    if (tensor)
      return tensor;
    return tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{f, width},
                                   b.getF32Type());
  }

  /// The block of fb filters x `width` positions at (fi, pi) of `into`.
  Value block(OpBuilder &b, Location loc, Value into, Value fi, Value pi,
              int64_t fb, int64_t width) const {
    auto type = RankedTensorType::get({fb, width}, b.getF32Type());
    auto one = b.getIndexAttr(1);
    // The block of `into` (written in place: no buffer per block).
    Value slice = tensor::ExtractSliceOp::create(
        b, loc, type, into, ArrayRef<OpFoldResult>{fi, pi},
        ArrayRef<OpFoldResult>{b.getIndexAttr(fb), b.getIndexAttr(width)},
        ArrayRef<OpFoldResult>{one, one});
    if (tensor)
      return slice;
    Value empty = slice;
    if (scalar)
      return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
    Value biasBlock = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({fb}, b.getF32Type()), bias,
        ArrayRef<OpFoldResult>{fi}, ArrayRef<OpFoldResult>{b.getIndexAttr(fb)},
        ArrayRef<OpFoldResult>{one});
    return linalg::BroadcastOp::create(b, loc, biasBlock, empty,
                                       ArrayRef<int64_t>{1})
        ->getResult(0);
  }
};

int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/// The width of a block of positions and the number of positions computed
/// (a multiple of it): blocks of one width, a multiple of the register
/// tile's width (`config.nr`: positions are computed in multiples of it)
/// between 128 and config.nc, the one that computes the fewest positions
/// past `positions` (a block costing as much as 16 positions: narrower
/// blocks read the filters more often).
std::pair<int64_t, int64_t>
positionBlocks(int64_t positions, const onnxc::ContractionConfig &config) {
  const int64_t kPositionMultiple = config.nr, kPositionBlock = config.nc;
  int64_t atLeast = roundUp(positions, kPositionMultiple);
  if (atLeast <= kPositionBlock)
    return {atLeast, atLeast};
  int64_t best = 0, bestCost = 0;
  for (int64_t width = kPositionBlock; width >= 128;
       width -= kPositionMultiple) {
    int64_t count = (atLeast + width - 1) / width;
    int64_t cost = count * width + count * 16;
    if (!best || cost < bestCost) {
      best = width;
      bestCost = cost;
    }
  }
  return {best, roundUp(atLeast, best)};
}

/// Filters per block: kFilterBlock, or the largest multiple of the register
/// tile's height (8) below it that divides `f` (96 filters: two blocks of
/// 48; a block taller than the matmul's cache tile would be split into a
/// tile and a remainder, copied in and out of a buffer), or all `f`.
int64_t filterBlock(int64_t f) {
  for (int64_t fb = kFilterBlock; fb >= 8; fb -= 8)
    if (f % fb == 0)
      return fb;
  return f;
}

} // namespace

LogicalResult mlir::onnxc::conv::rewriteConv(RewriterBase &rewriter,
                                             linalg::Conv2DNchwFchwOp conv,
                                             int64_t minShiftedChannels,
                                             bool fuseEpilogue) {
  if (!isStaticF32Batch1(conv))
    return failure();
  // An elementwise consumer applied to each block: the rewrite goes where
  // that op is (its per-channel operands may be computed after the conv).
  std::optional<onnxc::ConvEpilogue> epilogue;
  if (fuseEpilogue)
    epilogue = onnxc::ConvEpilogue::match(conv->getResult(0));
  Value x = conv.getInputs()[0], w = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  SmallVector<int64_t> strides = attrValues(conv.getStridesAttr());
  SmallVector<int64_t> dilations = attrValues(conv.getDilationsAttr());
  int64_t c = xType.getDimSize(1), hp = xType.getDimSize(2),
          wp = xType.getDimSize(3);
  int64_t f = wType.getDimSize(0), kh = wType.getDimSize(2),
          kw = wType.getDimSize(3);
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  int64_t dh = dilations[0], dw = dilations[1];
  // Stride 1 with enough channels: each kernel position reads a shifted
  // slice of the flattened input. Otherwise (strides, or so few channels
  // that a kernel position's matmul would load and store the accumulator
  // for a handful of FMAs: a network's first conv on RGB) an im2col tensor,
  // and one matmul over all kernel positions and channels.
  bool shifted =
      strides[0] == 1 && strides[1] == 1 && c >= minShiftedChannels;
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(epilogue ? epilogue->getOp().getOperation()
                                      : conv.getOperation());
  if (epilogue)
    epilogue->prepare(rewriter, epilogue->getOp().getLoc());
  Type f32 = rewriter.getF32Type();

  // Output positions, flattened: OH rows of `row` columns, computed up to
  // a multiple of the register tile's width (so that every tile is whole;
  // the columns past OW in each row and past the last row are dropped).
  // With stride 1, the input is zero-padded at its end for the positions
  // past the last row.
  int64_t row = shifted ? wp : ow;
  int64_t positions = oh * row;
  // Blocks of equal width (no remainder block: every block is one
  // iteration of the parallel loop, and the threads get equal shares).
  onnxc::ContractionConfig config = onnxc::getOrChooseContractionConfig(conv);
  const int64_t kPositionMultiple = config.nr, kPositionBlock = config.nc;
  int64_t nb, computed;
  std::tie(nb, computed) = positionBlocks(positions, config);
  int64_t fb = filterBlock(f);
  // An im2col tensor larger than the L2 cache (a network's first conv on a
  // 224 x 224 image: 147 rows x 12544 positions, 7 MiB) is built block by
  // block instead: each block of whole output rows copies its columns into
  // a panel that the block's matmuls read while it is in cache (the whole
  // tensor went out to memory and back).
  // A panel's rows are `panelRow` >= OW columns wide (the extra ones are
  // computed and dropped), so that its blocks are whole register tiles.
  int64_t panelRow = roundUp(ow, 8), rowsPerBlock = 0;
  for (int64_t r = kPositionBlock / panelRow; r >= 1 && !rowsPerBlock; --r)
    if (r * panelRow % kPositionMultiple == 0)
      rowsPerBlock = r;
  if (!rowsPerBlock) {
    panelRow = roundUp(ow, kPositionMultiple);
    rowsPerBlock = std::max<int64_t>(1, kPositionBlock / panelRow);
  }
  int64_t rowBlocks = (oh + rowsPerBlock - 1) / rowsPerBlock;
  bool panels = !shifted && c < minShiftedChannels &&
                kh * kw * c * positions * 4 > kPanelThreshold &&
                rowBlocks >= kMinBlocks;
  if (panels) {
    row = panelRow;
    positions = oh * row;
    nb = rowsPerBlock * row;
    computed = rowBlocks * nb;
  }
  // A small conv (a 1x1 conv on 14 x 14 or 7 x 7 in a network's last
  // stages) still gets kMinBlocks blocks for the threads to share: halved
  // filter blocks while they stay multiples of 8, then halved position
  // blocks while they stay multiples of 32.
  while (!panels && (f / fb) * (computed / nb) < kMinBlocks) {
    if (fb % 16 == 0)
      fb /= 2;
    else if (nb % (2 * kPositionMultiple) == 0)
      nb /= 2;
    else
      break;
  }

  // The accumulator holds whole rows, enough of them for the computed
  // positions, so that the result is a view of it (rows, then columns)
  // without a copy.
  int64_t rows = (computed + row - 1) / row;
  int64_t width = rows * row;
  ConvInit start(rewriter, loc, init, f, oh, ow, row, width);
  Value acc = start.whole(rewriter, loc, f, width);
  // The filter as KH x KW x F x C, so that each kernel position's F x C
  // matrix is contiguous (shifted slices); as F x KH x KW x C for one
  // matmul with an im2col tensor. (A weight: onnxc-hoist-constants
  // transposes it once.)
  SmallVector<int64_t> wtShape =
      shifted ? SmallVector<int64_t>{kh, kw, f, c}
              : SmallVector<int64_t>{f, kh, kw, c};
  Value wt = linalg::TransposeOp::create(
                 rewriter, loc, w,
                 tensor::EmptyOp::create(rewriter, loc, wtShape, f32),
                 shifted ? ArrayRef<int64_t>{2, 3, 0, 1}
                         : ArrayRef<int64_t>{0, 2, 3, 1})
                 .getResult()[0];
  auto one = rewriter.getIndexAttr(1);
  auto zero = rewriter.getIndexAttr(0);
  auto idx = [&](int64_t v) { return rewriter.getIndexAttr(v); };
  auto cst = [&](OpBuilder &b, Location l, int64_t v) {
    return arith::ConstantIndexOp::create(b, l, v).getResult();
  };

  // The C x rows x OW input pixels that kernel position k reads for `rows`
  // output rows whose first reads input row `top0` (strided, no copy).
  auto kernelPixels = [&](OpBuilder &b, Location l, Value k, Value top0,
                          int64_t rows) -> Value {
    Value i = arith::DivUIOp::create(b, l, k, cst(b, l, kw));
    Value j = arith::RemUIOp::create(b, l, k, cst(b, l, kw));
    Value top = arith::AddIOp::create(
        b, l, top0, arith::MulIOp::create(b, l, i, cst(b, l, dh)));
    Value left = arith::MulIOp::create(b, l, j, cst(b, l, dw));
    // The batch dim goes by a collapse, not a rank-reducing slice: with one
    // output row the slice would have two unit dims to drop from, and
    // MLIR 22's memref.subview folding crashed telling them apart (a
    // 3 x 1 stride-3 conv on 3 rows).
    Value slice = tensor::ExtractSliceOp::create(
        b, l, RankedTensorType::get({1, c, rows, ow}, f32), x,
        ArrayRef<OpFoldResult>{zero, zero, top, left},
        ArrayRef<OpFoldResult>{one, idx(c), idx(rows), idx(ow)},
        ArrayRef<OpFoldResult>{one, one, idx(strides[0]), idx(strides[1])});
    return tensor::CollapseShapeOp::create(
        b, l, RankedTensorType::get({c, rows, ow}, f32), slice,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
  };

  // What kernel position k reads, as C x positions: shifted, the flattened
  // input from offset (k / KW)*d*Wp + (k % KW)*d on; otherwise, slab k of
  // an im2col tensor KH*KW x C x positions (one strided copy per kernel
  // position).
  Value flat, columns;
  if (shifted) {
    int64_t needed = computed + (kh - 1) * dh * wp + (kw - 1) * dw;
    // The positions past the last row read zeros after the input: when the
    // input is a zero pad (the conv's padding), it gets more rows at the
    // bottom; otherwise a zero-padded copy of the flattened input.
    auto pad = x.getDefiningOp<tensor::PadOp>();
    int64_t extraRows = (std::max<int64_t>(needed - hp * wp, 0) + wp - 1) / wp;
    Value padValue = pad ? pad.getConstantPaddingValue() : Value();
    std::optional<int64_t> bottom =
        pad ? getConstantIntValue(pad.getMixedHighPad()[2]) : std::nullopt;
    if (extraRows > 0 && padValue && bottom &&
        matchPattern(padValue, m_AnyZeroFloat())) {
      SmallVector<OpFoldResult> high = pad.getMixedHighPad();
      high[2] = rewriter.getIndexAttr(*bottom + extraRows);
      SmallVector<int64_t> shape(xType.getShape());
      shape[2] += extraRows;
      auto grown = tensor::PadOp::create(
          rewriter, loc, RankedTensorType::get(shape, f32), pad.getSource(),
          pad.getMixedLowPad(), high, padValue, pad.getNofold());
      flat = dropBatch(rewriter, loc, grown.getResult(), /*mergeLast=*/true);
    } else {
      flat = dropBatch(rewriter, loc, x, /*mergeLast=*/true);
      if (needed > hp * wp)
        flat = zeroPadHigh(rewriter, loc, flat, {0, needed - hp * wp});
    }
  } else if (panels) {
    // Zero rows at the bottom for the last block's rows past OH.
    int64_t needed = (rowBlocks * rowsPerBlock - 1) * strides[0] +
                     (kh - 1) * dh + 1;
    if (needed > hp)
      x = zeroPadHigh(rewriter, loc, x, {0, 0, needed - hp, 0});
  } else {
    columns = tensor::EmptyOp::create(rewriter, loc,
                                      ArrayRef<int64_t>{kh * kw, c, computed},
                                      f32);
    if (computed != positions)
      columns = linalg::FillOp::create(
                    rewriter, loc,
                    arith::ConstantOp::create(rewriter, loc,
                                              rewriter.getZeroAttr(f32))
                        .getResult(),
                    columns)
                    .getResult(0);
    // A loop over the kernel positions copies each one's strided input
    // columns straight into its slab (a loop, not KH*KW copies in a row:
    // bufferization's analysis of an 11x11 kernel's 121 inserts into one
    // tensor took 15 s).
    auto slabLoop = scf::ForOp::create(
        rewriter, loc, cst(rewriter, loc, 0), cst(rewriter, loc, kh * kw),
        cst(rewriter, loc, 1), ValueRange{columns},
        [&](OpBuilder &b, Location l, Value k, ValueRange args) {
          Value slice = kernelPixels(b, l, k, cst(b, l, 0), oh);
          Value slab = tensor::ExtractSliceOp::create(
              b, l, RankedTensorType::get({c, positions}, f32), args[0],
              ArrayRef<OpFoldResult>{k, zero, zero},
              ArrayRef<OpFoldResult>{one, idx(c), idx(positions)},
              ArrayRef<OpFoldResult>{one, one, one});
          Value slab3 = tensor::ExpandShapeOp::create(
              b, l, RankedTensorType::get({c, oh, ow}, f32), slab,
              SmallVector<ReassociationIndices>{{0}, {1, 2}});
          Value copied =
              linalg::CopyOp::create(b, l, slice, slab3).getResult(0);
          Value filled = tensor::InsertSliceOp::create(
              b, l,
              tensor::CollapseShapeOp::create(
                  b, l, copied, SmallVector<ReassociationIndices>{{0}, {1, 2}}),
              args[0], ArrayRef<OpFoldResult>{k, zero, zero},
              ArrayRef<OpFoldResult>{one, idx(c), idx(positions)},
              ArrayRef<OpFoldResult>{one, one, one});
          scf::YieldOp::create(b, l, filled);
        });
    slabLoop->setAttr(onnxc::kParallelAttrName, rewriter.getUnitAttr());
    columns = slabLoop.getResult(0);
  }
  // The filter as (KH*KW) x F x C (shifted slices) or F x (KH*KW*C), the
  // im2col tensor as (KH*KW*C) x positions.
  Value wk3, wk2, columns2;
  if (shifted) {
    wk3 = tensor::CollapseShapeOp::create(
        rewriter, loc, wt,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
  } else {
    wk2 = tensor::CollapseShapeOp::create(
        rewriter, loc, wt, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  }
  if (!shifted && !panels) {
    columns2 = tensor::CollapseShapeOp::create(
        rewriter, loc, columns,
        SmallVector<ReassociationIndices>{{0, 1}, {2}});
  }

  // One block of fb filters x nb positions at (fi, pi), accumulated
  // while it is in cache: by a loop over the kernel positions (shifted
  // slices), or by one matmul over the im2col rows.
  auto emitBlock = [&](OpBuilder &b, Location l, Value fi, Value pi,
                       Value into, Value panel) -> Value {
    auto blockType = RankedTensorType::get({fb, nb}, f32);
    Value block = start.block(b, l, into, fi, pi, fb, nb);
    Value computedBlock;
    if (!shifted) {
      int64_t k = kh * kw * c;
      Value wk = tensor::ExtractSliceOp::create(
          b, l, RankedTensorType::get({fb, k}, f32), wk2,
          ArrayRef<OpFoldResult>{fi, zero}, ArrayRef<OpFoldResult>{idx(fb), idx(k)},
          ArrayRef<OpFoldResult>{one, one});
      Value xk = panel ? panel
                       : tensor::ExtractSliceOp::create(
                             b, l, RankedTensorType::get({k, nb}, f32),
                             columns2, ArrayRef<OpFoldResult>{zero, pi},
                             ArrayRef<OpFoldResult>{idx(k), idx(nb)},
                             ArrayRef<OpFoldResult>{one, one});
      computedBlock = linalg::MatmulOp::create(b, l, TypeRange{blockType},
                                               ValueRange{wk, xk},
                                               ValueRange{block})
                          .getResult(0);
    } else {
      auto kernelLoop = scf::ForOp::create(
          b, l, cst(b, l, 0), cst(b, l, kh * kw), cst(b, l, 1),
          ValueRange{block},
          [&](OpBuilder &b, Location l, Value k, ValueRange kArgs) {
            Value wk = tensor::ExtractSliceOp::create(
                b, l, RankedTensorType::get({fb, c}, f32), wk3,
                ArrayRef<OpFoldResult>{k, fi, zero},
                ArrayRef<OpFoldResult>{one, idx(fb), idx(c)},
                ArrayRef<OpFoldResult>{one, one, one});
            // pi + (k / KW) * d*Wp + (k % KW) * d
            Value r = arith::DivUIOp::create(b, l, k, cst(b, l, kw));
            Value q = arith::RemUIOp::create(b, l, k, cst(b, l, kw));
            Value start = arith::AddIOp::create(
                b, l, pi,
                arith::AddIOp::create(
                    b, l, arith::MulIOp::create(b, l, r, cst(b, l, dh * wp)),
                    arith::MulIOp::create(b, l, q, cst(b, l, dw))));
            Value xk = tensor::ExtractSliceOp::create(
                b, l, RankedTensorType::get({c, nb}, f32), flat,
                ArrayRef<OpFoldResult>{zero, start},
                ArrayRef<OpFoldResult>{idx(c), idx(nb)},
                ArrayRef<OpFoldResult>{one, one});
            Value updated = linalg::MatmulOp::create(
                                b, l, TypeRange{blockType}, ValueRange{wk, xk},
                                ValueRange{kArgs[0]})
                                .getResult(0);
            scf::YieldOp::create(b, l, updated);
          });
      computedBlock = kernelLoop.getResult(0);
    }
    if (epilogue)
      computedBlock = epilogue->apply(b, l, computedBlock, fi, fb);
    return tensor::InsertSliceOp::create(
        b, l, computedBlock, into, ArrayRef<OpFoldResult>{fi, pi},
        ArrayRef<OpFoldResult>{idx(fb), idx(nb)},
        ArrayRef<OpFoldResult>{one, one});
  };
  // One loop over all blocks, position blocks outside: blocks are
  // independent, onnxc-outline-parallel-loops spreads them over the threads,
  // each thread taking its share of the positions (all filters of them).
  // The next conv's thread then reads mostly the positions it wrote itself
  // (with filter blocks outside, every thread read the other's half of the
  // channels: T=2 DenseNet-121 30.1-30.6 -> 27.7-28.1 ms, SqueezeNet
  // 4.48-4.57 -> 4.25-4.35 when changed).
  int64_t positionBlockCount = computed / nb;
  int64_t blockCount = f / fb * positionBlockCount;
  if (panels)
    blockCount = positionBlockCount;
  // Panels: the loop is over blocks of rows; each builds its panel
  // (KH*KW*C x nb: one strided copy per kernel position) and runs its
  // filter blocks. Panel i is part i of `all`, a loop-carried tensor: a
  // buffer of the function's, where one allocated in the loop would keep
  // the loop off the threads.
  auto panelBlocks = [&](OpBuilder &b, Location l, Value i, Value into,
                         Value all) -> std::pair<Value, Value> {
    Value pi = arith::MulIOp::create(b, l, i, cst(b, l, nb));
    Value top0 =
        arith::MulIOp::create(b, l, i, cst(b, l, rowsPerBlock * strides[0]));
    auto panelType =
        RankedTensorType::get({kh * kw, c, rowsPerBlock, row}, f32);
    SmallVector<OpFoldResult> panelOffsets{i, zero, zero, zero, zero};
    SmallVector<OpFoldResult> panelSizes{one, idx(kh * kw), idx(c),
                                         idx(rowsPerBlock), idx(row)};
    SmallVector<OpFoldResult> unit5(5, one);
    Value panel = tensor::ExtractSliceOp::create(b, l, panelType, all,
                                                 panelOffsets, panelSizes, unit5);
    auto slabLoop = scf::ForOp::create(
        b, l, cst(b, l, 0), cst(b, l, kh * kw), cst(b, l, 1),
        ValueRange{panel},
        [&](OpBuilder &b, Location l, Value k, ValueRange args) {
          auto slabType = RankedTensorType::get({c, rowsPerBlock, ow}, f32);
          Value slice = kernelPixels(b, l, k, top0, rowsPerBlock);
          SmallVector<OpFoldResult> offsets{k, zero, zero, zero};
          SmallVector<OpFoldResult> sizes{one, idx(c), idx(rowsPerBlock),
                                          idx(ow)};
          SmallVector<OpFoldResult> unit(4, one);
          Value slab = tensor::ExtractSliceOp::create(b, l, slabType, args[0],
                                                      offsets, sizes, unit);
          Value copied =
              linalg::CopyOp::create(b, l, slice, slab).getResult(0);
          Value filled = tensor::InsertSliceOp::create(b, l, copied, args[0],
                                                       offsets, sizes, unit);
          // The columns past OW are computed and dropped: zeros, not what
          // the buffer held (which might be NaN or denormal).
          if (row > ow) {
            SmallVector<OpFoldResult> padOffsets{k, zero, zero, idx(ow)};
            SmallVector<OpFoldResult> padSizes{one, idx(c), idx(rowsPerBlock),
                                               idx(row - ow)};
            auto padType =
                RankedTensorType::get({c, rowsPerBlock, row - ow}, f32);
            Value extra = tensor::ExtractSliceOp::create(
                b, l, padType, filled, padOffsets, padSizes, unit);
            Value zeroes =
                linalg::FillOp::create(
                    b, l,
                    arith::ConstantOp::create(b, l, b.getZeroAttr(f32))
                        .getResult(),
                    extra)
                    .getResult(0);
            filled = tensor::InsertSliceOp::create(b, l, zeroes, filled,
                                                   padOffsets, padSizes, unit);
          }
          scf::YieldOp::create(b, l, filled);
        });
    Value filled = slabLoop.getResult(0);
    Value panel2 = tensor::CollapseShapeOp::create(
        b, l, filled, SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
    auto filterLoop = scf::ForOp::create(
        b, l, cst(b, l, 0), cst(b, l, f), cst(b, l, fb), ValueRange{into},
        [&](OpBuilder &b, Location l, Value fi, ValueRange args) {
          scf::YieldOp::create(b, l, emitBlock(b, l, fi, pi, args[0], panel2));
        });
    Value updated = tensor::InsertSliceOp::create(b, l, filled, all,
                                                  panelOffsets, panelSizes, unit5);
    return {filterLoop.getResult(0), updated};
  };
  SmallVector<Value> inits{acc};
  if (panels)
    inits.push_back(tensor::EmptyOp::create(
        rewriter, loc,
        ArrayRef<int64_t>{positionBlockCount, kh * kw, c, rowsPerBlock, row},
        f32));
  auto blockLoop = scf::ForOp::create(
      rewriter, loc, cst(rewriter, loc, 0), cst(rewriter, loc, blockCount),
      cst(rewriter, loc, 1), inits,
      [&](OpBuilder &b, Location l, Value i, ValueRange args) {
        if (panels) {
          auto [computed, panels] = panelBlocks(b, l, i, args[0], args[1]);
          scf::YieldOp::create(b, l, ValueRange{computed, panels});
          return;
        }
        Value count = cst(b, l, f / fb);
        Value pi = arith::MulIOp::create(
            b, l, arith::DivUIOp::create(b, l, i, count), cst(b, l, nb));
        Value fi = arith::MulIOp::create(
            b, l, arith::RemUIOp::create(b, l, i, count), cst(b, l, fb));
        scf::YieldOp::create(b, l, emitBlock(b, l, fi, pi, args[0], Value()));
      });
  blockLoop->setAttr(onnxc::kParallelAttrName, rewriter.getUnitAttr());
  acc = blockLoop.getResult(0);

  // Back to 1 x F x OH x OW.
  Value rowsOf = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({f, rows, row}, f32), acc,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
  replaceConvByRows(rewriter, loc, conv,
                    epilogue ? epilogue->getOp().getOperation() : nullptr,
                    rowsOf);
  return success();
}

namespace {

/// A matmul that reads B as N x K (Gemm's transB) or A as K x M (transA)
/// gets that operand transposed first, so that the register tiles read
/// rows of B (and columns of A) contiguously instead of gathering them.
/// A weight's transpose runs once (onnxc-hoist-constants); a transpose of
/// a value computed at run time only where the matmul reuses it enough
/// (the other operand has 8 rows or columns or more).
LogicalResult rewriteTransposedMatmul(RewriterBase &rewriter,
                                      linalg::MatmulOp mm) {
  if (!isStaticF32(mm) || !mm.hasUserDefinedMaps())
    return failure();
  MLIRContext *ctx = rewriter.getContext();
  auto map = [&](ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr> exprs;
    for (unsigned d : dims)
      exprs.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(3, 0, exprs, ctx);
  };
  SmallVector<AffineMap> maps = mm.getIndexingMapsArray();
  if (maps[2] != map({0, 1}))
    return failure();
  bool transA = maps[0] == map({2, 0}), transB = maps[1] == map({1, 2});
  if ((!transA && maps[0] != map({0, 2})) || (!transB && maps[1] != map({2, 1})))
    return failure();
  Value a = mm.getInputs()[0], b = mm.getInputs()[1];
  auto outType = cast<RankedTensorType>(mm.getOutputs()[0].getType());
  int64_t m = outType.getDimSize(0), n = outType.getDimSize(1);
  auto worth = [&](Value v, int64_t reuse) {
    return derivesFromConstants(v) || reuse >= 8;
  };
  transA = transA && worth(a, n);
  transB = transB && worth(b, m);
  if (!transA && !transB)
    return failure();
  Location loc = mm.getLoc();
  rewriter.setInsertionPoint(mm);
  auto transpose = [&](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{type.getDimSize(1), type.getDimSize(0)},
        type.getElementType());
    return linalg::TransposeOp::create(rewriter, loc, v, empty,
                                       ArrayRef<int64_t>{1, 0})
        .getResult()[0];
  };
  if (transA) {
    a = transpose(a);
    maps[0] = map({0, 2});
  }
  if (transB) {
    b = transpose(b);
    maps[1] = map({2, 1});
  }
  auto replacement = linalg::MatmulOp::create(
      rewriter, loc, TypeRange{outType}, ValueRange{a, b}, mm.getOutputs());
  if (maps[0] != map({0, 2}) || maps[1] != map({2, 1}))
    replacement.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  rewriter.replaceOp(mm, replacement.getResults());
  return success();
}

} // namespace

namespace {
struct ConvToMatmulPass
    : mlir::onnxc::impl::ConvToMatmulBase<ConvToMatmulPass> {
  using ConvToMatmulBase::ConvToMatmulBase;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> convs;
    getOperation().walk([&](Operation *op) {
      // Empty tensors (a window larger than its padded input) stay as they
      // are: nothing to compute (the block sizes would divide by zero).
      bool empty = llvm::any_of(op->getOperandTypes(), [](Type t) {
        auto shaped = dyn_cast<ShapedType>(t);
        return shaped && shaped.hasStaticShape() &&
               shaped.getNumElements() == 0;
      });
      if (!empty &&
          isa<linalg::Conv2DNchwFchwOp, linalg::Conv2DNgchwGfchwOp,
              linalg::DepthwiseConv2DNchwChwOp, linalg::PoolingNchwMaxOp,
              linalg::PoolingNchwSumOp, linalg::MatmulOp>(op))
        convs.push_back(op);
    });
    // Other forms stay as they are. In reverse order, so that an epilogue
    // sees the pads that the rewrite of the conv after it adds.
    for (Operation *op : llvm::reverse(convs)) {
      if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op)) {
        // A batch as one tall image (BatchedConv.cpp).
        if (!isStaticF32Batch1(conv))
          if (auto tall = onnxc::conv::foldBatchIntoRows(rewriter, conv);
              succeeded(tall))
            conv = *tall;
        (void)onnxc::conv::rewriteConv(rewriter, conv, minShiftedChannels,
                                       fuseEpilogues);
      } else if (auto grouped = dyn_cast<linalg::Conv2DNgchwGfchwOp>(op))
        (void)onnxc::conv::rewriteGroupedConv(rewriter, grouped,
                                              minShiftedChannels);
      else if (auto mm = dyn_cast<linalg::MatmulOp>(op))
        (void)rewriteTransposedMatmul(rewriter, mm);
      else
        (void)rewriteWindowed(rewriter, cast<linalg::LinalgOp>(op),
                              fuseEpilogues);
    }
  }
};
} // namespace
