//===- GroupedConv.cpp - Grouped convolutions as matmuls
//-------------------===//
//
// onnxc-conv-to-matmul's rewrite of grouped 2-D convolutions (1 x G x C x H x
// W, filters G x F x C x KH x KW): a 1x1 conv of stride 1 as one
// batch_matmul over the groups on views of its tensors; any other as one
// conv per group (unrolled up to kMaxUnrolledGroups, else a loop), each
// rewritten by rewriteConv.
//
//===----------------------------------------------------------------------===//

#include "ConvUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::onnxc::conv;

namespace {

/// Grouped convs with at most this many groups are rewritten group after
/// group; more groups, in a loop.
constexpr int64_t kMaxUnrolledGroups = 8;

/// The 1-D bias of a grouped conv's init (1 x G x F x OH x OW) that is the
/// bias broadcast along dims 0, 2, 3 and split into G groups of F; or null.
Value groupedBias(Value init) {
  auto expand = init.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || expand.getReassociationIndices() !=
                     SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}})
    return Value();
  auto broadcast = expand.getSrc().getDefiningOp<linalg::BroadcastOp>();
  if (!broadcast)
    return Value();
  auto inType = dyn_cast<RankedTensorType>(broadcast.getInput().getType());
  if (!inType || inType.getRank() != 1 || !inType.hasStaticShape() ||
      broadcast.getDimensions() != ArrayRef<int64_t>{0, 2, 3})
    return Value();
  return broadcast.getInput();
}

/// A grouped 1x1 convolution of stride 1 (1 x G x C x H x W, filters
/// G x F x C x 1 x 1) as one batch_matmul over the groups on views of its
/// tensors: filters G x F x C times input G x C x (H*W). The groups are the
/// batch, so onnxc-tile-and-vectorize's outer parallel loop hands them to
/// the threads, and nothing is copied (the group-by-group form padded each
/// group's input to whole register tiles and copied its result back).
LogicalResult rewriteGrouped1x1(RewriterBase &rewriter,
                                linalg::Conv2DNgchwGfchwOp conv) {
  Value x = conv.getInputs()[0], w = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  SmallVector<int64_t> strides = attrValues(conv.getStridesAttr());
  if (wType.getDimSize(3) != 1 || wType.getDimSize(4) != 1 || strides[0] != 1 ||
      strides[1] != 1)
    return failure();
  int64_t g = xType.getDimSize(1), c = xType.getDimSize(2),
          f = wType.getDimSize(1);
  int64_t p = outType.getDimSize(3) * outType.getDimSize(4);
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Type f32 = rewriter.getF32Type();
  auto type = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, f32);
  };
  SmallVector<ReassociationIndices> byGroup = {{0, 1}, {2}, {3, 4}};
  Value xg = tensor::CollapseShapeOp::create(rewriter, loc, type({g, c, p}), x,
                                             byGroup);
  Value wg = tensor::CollapseShapeOp::create(
      rewriter, loc, type({g, f, c}), w,
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3, 4}});
  // A fill stays a fill and a bias broadcast a broadcast (of the bias as
  // G x F): the register tiles read them as their accumulators' start.
  Value acc;
  auto empty = [&]() {
    return tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{g, f, p},
                                   f32)
        .getResult();
  };
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    acc = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty())
              .getResult(0);
  } else if (Value bias = groupedBias(init)) {
    Value biasGF = tensor::ExpandShapeOp::create(
        rewriter, loc, type({g, f}), bias,
        SmallVector<ReassociationIndices>{{0, 1}});
    acc = linalg::BroadcastOp::create(rewriter, loc, biasGF, empty(),
                                      ArrayRef<int64_t>{2})
              ->getResult(0);
  } else {
    acc = tensor::CollapseShapeOp::create(rewriter, loc, type({g, f, p}), init,
                                          byGroup);
  }
  Value product =
      linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{acc.getType()},
                                    ValueRange{wg, xg}, ValueRange{acc})
          .getResult(0);
  rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(conv, outType, product,
                                                     byGroup);
  return success();
}

/// A grouped convolution (1 x G x C x H x W, filters G x F x C x KH x KW) as
/// a loop over the groups, each one a conv_2d_nchw_fchw on its slices that
/// rewriteConv then turns into matmuls.
} // namespace

LogicalResult
mlir::onnxc::conv::rewriteGroupedConv(RewriterBase &rewriter,
                                      linalg::Conv2DNgchwGfchwOp conv,
                                      int64_t minShiftedChannels) {
  if (!isStaticF32Batch1(conv))
    return failure();
  if (succeeded(rewriteGrouped1x1(rewriter, conv)))
    return success();
  Value x = conv.getInputs()[0], w = conv.getInputs()[1];
  Value init = conv.getOutputs()[0];
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  int64_t g = xType.getDimSize(1);
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Type f32 = rewriter.getF32Type();
  auto idx = [&](int64_t v) { return rewriter.getIndexAttr(v); };
  auto one = idx(1), zero = idx(0);
  // Offsets, sizes and unit strides of group `gi`'s slice of a tensor of
  // `type` whose group dim is `dim`.
  auto groupSlice = [&](RankedTensorType type, int64_t dim, Value gi) {
    SmallVector<OpFoldResult> offsets(type.getRank(), zero), sizes;
    offsets[dim] = gi;
    for (int64_t i = 0; i < type.getRank(); ++i)
      sizes.push_back(i == dim ? one : idx(type.getDimSize(i)));
    return std::make_pair(offsets, sizes);
  };
  auto without = [&](RankedTensorType type, int64_t dim) {
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + dim);
    return RankedTensorType::get(shape, f32);
  };
  SmallVector<OpFoldResult> unit5(5, one);
  SmallVector<linalg::Conv2DNchwFchwOp> groupConvs;
  // Groups that start from a fill or their part of a bias write all of
  // the result: the loop starts from an empty tensor.
  Value loopInit = init;
  if (init.getDefiningOp<linalg::FillOp>() || groupedBias(init))
    loopInit = tensor::EmptyOp::create(rewriter, loc, outType.getShape(), f32);
  // Group gi's conv on its slices, inserted into `into`.
  auto emitGroup = [&](OpBuilder &b, Location l, Value gi,
                       Value into) -> Value {
    auto [xOff, xSize] = groupSlice(xType, 1, gi);
    auto [wOff, wSize] = groupSlice(wType, 0, gi);
    auto [oOff, oSize] = groupSlice(outType, 1, gi);
    Value xg = tensor::ExtractSliceOp::create(b, l, without(xType, 1), x, xOff,
                                              xSize, unit5);
    Value wg = tensor::ExtractSliceOp::create(b, l, without(wType, 0), w, wOff,
                                              wSize, unit5);
    // A fill stays a fill, and a bias broadcast (split into groups) the
    // broadcast of the group's part of the bias: rewriteConv builds them
    // block by block, where another init is copied in and out.
    Value og;
    auto groupEmpty = [&]() {
      return tensor::EmptyOp::create(b, l, without(outType, 1).getShape(), f32)
          .getResult();
    };
    if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
      og = linalg::FillOp::create(b, l, fill.getInputs()[0], groupEmpty())
               .getResult(0);
    } else if (Value bias = groupedBias(init)) {
      int64_t perGroup = outType.getDimSize(2);
      Value offset = arith::MulIOp::create(
          b, l, gi, arith::ConstantIndexOp::create(b, l, perGroup));
      Value part = tensor::ExtractSliceOp::create(
          b, l, RankedTensorType::get({perGroup}, f32), bias,
          ArrayRef<OpFoldResult>{offset}, ArrayRef<OpFoldResult>{idx(perGroup)},
          ArrayRef<OpFoldResult>{one});
      og = linalg::BroadcastOp::create(b, l, part, groupEmpty(),
                                       ArrayRef<int64_t>{0, 2, 3})
               ->getResult(0);
    } else {
      og = tensor::ExtractSliceOp::create(b, l, without(outType, 1), into, oOff,
                                          oSize, unit5);
    }
    groupConvs.push_back(linalg::Conv2DNchwFchwOp::create(
        b, l, TypeRange{og.getType()}, ValueRange{xg, wg}, ValueRange{og},
        conv.getStridesAttr(), conv.getDilationsAttr()));
    return tensor::InsertSliceOp::create(b, l, groupConvs.back().getResult(0),
                                         into, oOff, oSize, unit5);
  };
  Value result;
  if (g <= kMaxUnrolledGroups) {
    // A few groups one after the other: each group's filters are a slice at
    // a constant offset, so onnxc-hoist-constants lays them out once (in a
    // loop over the groups they were laid out on every run).
    result = loopInit;
    for (int64_t gi = 0; gi < g; ++gi)
      result =
          emitGroup(rewriter, loc,
                    arith::ConstantIndexOp::create(rewriter, loc, gi), result);
  } else {
    auto loop = scf::ForOp::create(
        rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
        arith::ConstantIndexOp::create(rewriter, loc, g),
        arith::ConstantIndexOp::create(rewriter, loc, 1), ValueRange{loopInit},
        [&](OpBuilder &b, Location l, Value gi, ValueRange args) {
          scf::YieldOp::create(b, l, emitGroup(b, l, gi, args[0]));
        });
    result = loop.getResult(0);
  }
  rewriter.replaceOp(conv, result);
  // Each group's conv as matmuls (one that rewriteConv cannot rewrite
  // stays a conv).
  for (linalg::Conv2DNchwFchwOp groupConv : groupConvs)
    (void)rewriteConv(rewriter, groupConv, minShiftedChannels,
                      /*fuseEpilogue=*/false);
  return success();
}
