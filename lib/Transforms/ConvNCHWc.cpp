//===- ConvNCHWc.cpp - Convolutions in the channel-blocked NCHWc layout ---===//
//
// A 2-D NCHW convolution whose input and output channel counts are
// multiples of 16 becomes a direct convolution on NCHWc tensors (16
// channels innermost, the layout of ONNX Runtime's NCHWc kernels):
//
//   Xc = linalg.pack X  : N x C x H x W   -> N x C/16 x H x W x 16
//   Wc = linalg.pack W  : F x C x KH x KW -> F/16 x C/16 x KH x KW x 16c x 16f
//   Yc = linalg.generic {onnxc.ukernel = "conv2d_nchwc"} (Xc, Wc) into the
//        packed init (a bias per filter, a fill, or the packed init)
//   Y  = linalg.unpack Yc
//
// Then MLIR's data-layout propagation moves the unpacks down through the
// elementwise ops and pads that follow a conv (and the packs up), so that
// a chain of convs with their activations, residual adds and pads stays in
// NCHWc and pack(unpack(x)) folds away: only the chain's ends convert. The
// packs and unpacks left are lowered to reshapes and transposes; a filter's
// pack works on a constant and runs once (onnxc-hoist-constants).
// onnxc-lower-ukernels turns the marked generic, after bufferization, into
// a call of the runtime's onnxc_uk_conv2d_nchwc_f32.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/Passes.h"

#include "ConvNCHWc.h"
#include "ConvUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_CONVNCHWC
#include "onnxc/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc::conv;
using namespace mlir::onnxc::nchwc;

namespace {

/// Whether `pad` pads only the spatial dims of an N x C x H x W tensor with
/// a constant (zero, when `zero`).
bool isSpatialPad(tensor::PadOp pad, bool zero) {
  if (pad.getSourceType().getRank() != 4)
    return false;
  for (int64_t d = 0; d < 2; ++d)
    if (!isConstantIntValue(pad.getMixedLowPad()[d], 0) ||
        !isConstantIntValue(pad.getMixedHighPad()[d], 0))
      return false;
  Value value = pad.getConstantPaddingValue();
  return value && (!zero || matchPattern(value, m_AnyZeroFloat()));
}

/// `input` (N x C x H x W, maybe a spatial pad's result) packed to
/// N x C/16 x H x W x 16, the pad applied after the pack.
Value packPaddedInput(OpBuilder &b, Location loc, Value input, bool zeroPad) {
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (!pad || !isSpatialPad(pad, zeroPad))
    return packTensor(b, loc, input, {1});
  Value source = packTensor(b, loc, pad.getSource(), {1});
  SmallVector<OpFoldResult> low = pad.getMixedLowPad(),
                            high = pad.getMixedHighPad();
  low.push_back(b.getIndexAttr(0));
  high.push_back(b.getIndexAttr(0));
  return tensor::PadOp::create(b, loc, Type(), source, low, high,
                               pad.getConstantPaddingValue())
      .getResult();
}

/// The blocked start of filters [f0, f0 + f) (N x f/16 x OH x OW x 16): a
/// fill or a bias broadcast of its own (onnxc-lower-ukernels folds them into
/// the kernel), or the packed init's slice.
Value blockedStart(OpBuilder &b, Location loc, const ConvStart &start,
                   Value packedInit, ArrayRef<int64_t> outShape, int64_t f0) {
  Type f32 = b.getF32Type();
  if (start.scalar) {
    Value empty = tensor::EmptyOp::create(b, loc, outShape, f32);
    return linalg::FillOp::create(b, loc, start.scalar, empty).getResult(0);
  }
  if (start.bias) {
    int64_t fb = outShape[1];
    Value bias = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({fb * kBlock}, f32), start.bias,
        ArrayRef<OpFoldResult>{b.getIndexAttr(f0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(fb * kBlock)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    bias = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({fb, kBlock}, f32), bias,
        SmallVector<ReassociationIndices>{{0, 1}});
    Value empty = tensor::EmptyOp::create(b, loc, outShape, f32);
    return linalg::BroadcastOp::create(b, loc, bias, empty,
                                       ArrayRef<int64_t>{0, 2, 3})
        .getResult()[0];
  }
  SmallVector<OpFoldResult> offsets(5, b.getIndexAttr(0)), sizes,
      ones(5, b.getIndexAttr(1));
  offsets[1] = b.getIndexAttr(f0 / kBlock);
  for (int64_t v : outShape)
    sizes.push_back(b.getIndexAttr(v));
  return tensor::ExtractSliceOp::create(b, loc, packedInit, offsets, sizes,
                                        ones);
}

/// The kernel generic: `packedInput` (N x C/16 x Hp x Wp x 16, padded)
/// convolved with `filter` (F x C x KH x KW, packed here) into `start`.
/// `planar`: the input is N x C x Hp x Wp (a first conv's few channels),
/// the filter packed along F only (F/16 x C x KH x KW x 16).
Value blockedConv(OpBuilder &b, Location loc, Value packedInput, Value filter,
                  Value start, ArrayRef<int64_t> strides,
                  ArrayRef<int64_t> dilations, bool planar = false) {
  MLIRContext *ctx = b.getContext();
  Value packedFilter =
      planar ? packTensor(b, loc, filter, {0}) : packTensor(b, loc, filter, {1, 0});
  // d0..d8 = n, fb, oh, ow, fi | cb, kh, kw, ci (planar: d5 = the channel,
  // no ci).
  unsigned dims = planar ? 8 : 9;
  SmallVector<AffineExpr> d(dims);
  bindDimsList(ctx, MutableArrayRef<AffineExpr>(d));
  SmallVector<AffineExpr> inExprs{d[0], d[5],
                                  d[2] * strides[0] + d[6] * dilations[0],
                                  d[3] * strides[1] + d[7] * dilations[1]};
  SmallVector<AffineExpr> wExprs{d[1], d[5], d[6], d[7]};
  if (!planar) {
    inExprs.push_back(d[8]);
    wExprs.push_back(d[8]);
  }
  wExprs.push_back(d[4]);
  auto inMap = AffineMap::get(dims, 0, inExprs, ctx);
  auto wMap = AffineMap::get(dims, 0, wExprs, ctx);
  auto outMap = AffineMap::get(dims, 0, {d[0], d[1], d[2], d[3], d[4]}, ctx);
  SmallVector<utils::IteratorType> iterators(5, utils::IteratorType::parallel);
  iterators.append(dims - 5, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{start.getType()}, ValueRange{packedInput, packedFilter},
      ValueRange{start}, ArrayRef<AffineMap>{inMap, wMap, outMap}, iterators,
      [](OpBuilder &nb, Location l, ValueRange args) {
        Value product = arith::MulFOp::create(nb, l, args[0], args[1]);
        linalg::YieldOp::create(nb, l,
                                arith::AddFOp::create(nb, l, args[2], product)
                                    .getResult());
      });
  generic->setAttr(onnxc::kUkernelAttrName,
                   b.getStringAttr(planar ? onnxc::kConvNCHWToNCHWcUkernel
                                          : onnxc::kConvNCHWcUkernel));
  generic->setAttr("strides", b.getDenseI64ArrayAttr(strides));
  generic->setAttr("dilations", b.getDenseI64ArrayAttr(dilations));
  return generic.getResult(0);
}

LogicalResult rewriteConv(RewriterBase &rewriter,
                          linalg::Conv2DNchwFchwOp conv) {
  if (!conv.hasPureTensorSemantics() || !isStaticF32(conv))
    return failure();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1],
        init = conv.getOutputs()[0];
  auto fType = cast<RankedTensorType>(filter.getType());
  auto oType = cast<RankedTensorType>(init.getType());
  int64_t f = fType.getDimSize(0), c = fType.getDimSize(1);
  // Filters that are not a multiple of 16 (a classifier's 1000): zero
  // filters and bias complete the last block, the unpack drops them. Fewer
  // than 16 input channels (a first conv's RGB): the input stays NCHW.
  bool planar = c < kBlock;
  if ((c % kBlock && !planar) || !derivesFromConstants(filter))
    return failure();
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  // The input, packed before its spatial padding (so that the pad can meet
  // the unpack of the producer and fold).
  Value packedInput =
      planar ? input : packPaddedInput(rewriter, loc, input, /*zeroPad=*/true);
  ConvStart start(init);
  int64_t fp = llvm::alignTo(f, kBlock);
  if (start.bias && fp != f)
    start.bias = zeroPadHigh(rewriter, loc, start.bias, {fp - f});
  Value packedInit =
      start.tensor ? packTensor(rewriter, loc, start.tensor, {1}) : Value();
  SmallVector<int64_t> outShape{oType.getDimSize(0), fp / kBlock,
                                oType.getDimSize(2), oType.getDimSize(3),
                                kBlock};
  Value result = blockedConv(
      rewriter, loc, packedInput, filter,
      blockedStart(rewriter, loc, start, packedInit, outShape, 0),
      attrValues(conv.getStrides()), attrValues(conv.getDilations()), planar);
  rewriter.replaceOp(conv, unpackResult(rewriter, loc, result, oType));
  return success();
}

/// A grouped conv (N x G x C/G x H x W, a reshape of the NCHW input; at most
/// kMaxGroups groups, channels per group multiples of 16): one kernel
/// generic per group on the group's channel blocks of the blocked input,
/// each writing its filter blocks of the blocked result.
constexpr int64_t kMaxGroups = 8;
LogicalResult rewriteGroupedConv(RewriterBase &rewriter,
                                 linalg::Conv2DNgchwGfchwOp conv) {
  if (!conv.hasPureTensorSemantics() || !isStaticF32(conv))
    return failure();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1],
        init = conv.getOutputs()[0];
  auto fType = cast<RankedTensorType>(filter.getType());
  auto oType = cast<RankedTensorType>(init.getType());
  int64_t g = fType.getDimSize(0), fg = fType.getDimSize(1),
          cg = fType.getDimSize(2), kh = fType.getDimSize(3),
          kw = fType.getDimSize(4);
  if (g > kMaxGroups || fg % kBlock || cg % kBlock ||
      !derivesFromConstants(filter))
    return failure();
  // The NCHW tensors the grouped views reshape.
  SmallVector<ReassociationIndices> groups{{0}, {1, 2}, {3}, {4}};
  auto inExpand = input.getDefiningOp<tensor::ExpandShapeOp>();
  auto initExpand = init.getDefiningOp<tensor::ExpandShapeOp>();
  auto initFill = init.getDefiningOp<linalg::FillOp>();
  if (!inExpand || inExpand.getReassociationIndices() != groups ||
      (!initFill && (!initExpand ||
                     initExpand.getReassociationIndices() != groups)))
    return failure();
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Type f32 = rewriter.getF32Type();
  auto idx = [&](int64_t v) -> OpFoldResult { return rewriter.getIndexAttr(v); };
  SmallVector<int64_t> strides = attrValues(conv.getStrides());
  SmallVector<int64_t> dilations = attrValues(conv.getDilations());
  Value packedInput =
      packPaddedInput(rewriter, loc, inExpand.getSrc(), /*zeroPad=*/true);
  auto inType = cast<RankedTensorType>(packedInput.getType());
  int64_t n = oType.getDimSize(0), oh = oType.getDimSize(3),
          ow = oType.getDimSize(4);
  ConvStart start(initFill ? init : initExpand.getSrc());
  Value packedInit =
      start.tensor ? packTensor(rewriter, loc, start.tensor, {1}) : Value();
  SmallVector<int64_t> groupShape{n, fg / kBlock, oh, ow, kBlock};
  Value acc = tensor::EmptyOp::create(
      rewriter, loc, ArrayRef<int64_t>{n, g * fg / kBlock, oh, ow, kBlock}, f32);
  for (int64_t i = 0; i < g; ++i) {
    Value groupInput = tensor::ExtractSliceOp::create(
        rewriter, loc, packedInput,
        ArrayRef<OpFoldResult>{idx(0), idx(i * cg / kBlock), idx(0), idx(0),
                               idx(0)},
        ArrayRef<OpFoldResult>{idx(n), idx(cg / kBlock),
                               idx(inType.getDimSize(2)),
                               idx(inType.getDimSize(3)), idx(kBlock)},
        ArrayRef<OpFoldResult>(SmallVector<OpFoldResult>(5, idx(1))));
    Value groupFilter = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({fg, cg, kh, kw}, f32), filter,
        ArrayRef<OpFoldResult>{idx(i), idx(0), idx(0), idx(0), idx(0)},
        ArrayRef<OpFoldResult>{idx(1), idx(fg), idx(cg), idx(kh), idx(kw)},
        ArrayRef<OpFoldResult>(SmallVector<OpFoldResult>(5, idx(1))));
    Value result = blockedConv(
        rewriter, loc, groupInput, groupFilter,
        blockedStart(rewriter, loc, start, packedInit, groupShape, i * fg),
        strides, dilations);
    acc = tensor::InsertSliceOp::create(
        rewriter, loc, result, acc,
        ArrayRef<OpFoldResult>{idx(0), idx(i * fg / kBlock), idx(0), idx(0),
                               idx(0)},
        ArrayRef<OpFoldResult>{idx(n), idx(fg / kBlock), idx(oh), idx(ow),
                               idx(kBlock)},
        ArrayRef<OpFoldResult>(SmallVector<OpFoldResult>(5, idx(1))));
  }
  auto flatType = RankedTensorType::get({n, g * fg, oh, ow}, f32);
  Value flat = unpackResult(rewriter, loc, acc, flatType);
  rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(conv, oType, flat, groups);
  return success();
}

/// A depthwise conv (filter a weight) or a max or sum pooling whose channel
/// count is a multiple of 16, on blocked tensors: one elementwise generic
/// over N x C/16 x OH x OW x 16 whose operands are the window's strided
/// views of the padded blocked input (and a depthwise conv's filter taps,
/// C/16 x 16 each); its body sums the products or takes the maximum or the
/// sum of the views, as onnxc-conv-to-matmul's windowed form does in NCHW.
/// The vectors run along the 16 channels of a block.
LogicalResult rewriteWindowed(RewriterBase &rewriter, linalg::LinalgOp op) {
  Window kind = windowKind(op);
  bool depthwise = kind == Window::Depthwise;
  if (kind == Window::None)
    return failure();
  if (!op.hasPureTensorSemantics() || !isStaticF32(op))
    return failure();
  Value input = op.getDpsInputs()[0], window = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto oType = cast<RankedTensorType>(init.getType());
  auto wType = cast<RankedTensorType>(window.getType());
  int64_t n = oType.getDimSize(0), c = oType.getDimSize(1),
          oh = oType.getDimSize(2), ow = oType.getDimSize(3);
  if (c % kBlock || (depthwise && !derivesFromConstants(window)))
    return failure();
  int64_t kh = wType.getDimSize(depthwise ? 1 : 0),
          kw = wType.getDimSize(depthwise ? 2 : 1);
  if (kh * kw > 64)
    return failure();
  SmallVector<int64_t> strides =
      attrValues(op->getAttrOfType<DenseIntElementsAttr>("strides"));
  SmallVector<int64_t> dilations =
      attrValues(op->getAttrOfType<DenseIntElementsAttr>("dilations"));
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  MLIRContext *ctx = rewriter.getContext();
  Type f32 = rewriter.getF32Type();
  auto idx = [&](int64_t v) -> OpFoldResult { return rewriter.getIndexAttr(v); };
  int64_t cb = c / kBlock;

  Value packedInput = packPaddedInput(rewriter, loc, input,
                                      /*zeroPad=*/depthwise);
  Value packedFilter =
      depthwise ? packTensor(rewriter, loc, window, {0}) : Value();
  auto domainType = RankedTensorType::get({n, cb, oh, ow, kBlock}, f32);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(5, ctx);
  AffineMap channel = AffineMap::get(
      5, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(4, ctx)}, ctx);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j) {
      inputs.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, domainType, packedInput,
          ArrayRef<OpFoldResult>{idx(0), idx(0), idx(i * dilations[0]),
                                 idx(j * dilations[1]), idx(0)},
          ArrayRef<OpFoldResult>{idx(n), idx(cb), idx(oh), idx(ow),
                                 idx(kBlock)},
          ArrayRef<OpFoldResult>{idx(1), idx(1), idx(strides[0]),
                                 idx(strides[1]), idx(1)}));
      maps.push_back(identity);
      if (!depthwise)
        continue;
      inputs.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get({cb, kBlock}, f32),
          packedFilter,
          ArrayRef<OpFoldResult>{idx(0), idx(i), idx(j), idx(0)},
          ArrayRef<OpFoldResult>{idx(cb), idx(1), idx(1), idx(kBlock)},
          ArrayRef<OpFoldResult>{idx(1), idx(1), idx(1), idx(1)}));
      maps.push_back(channel);
    }
  // The start: a fill's scalar, a per-channel bias, or the packed init.
  ConvStart kindOfStart(init);
  Value start;
  bool startIsInput = true;
  if (kindOfStart.scalar) {
    start = kindOfStart.scalar;
    startIsInput = false;
  } else if (kindOfStart.bias) {
    start = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({cb, kBlock}, f32),
        kindOfStart.bias, SmallVector<ReassociationIndices>{{0, 1}});
    maps.push_back(channel);
  } else {
    start = packTensor(rewriter, loc, init, {1});
    maps.push_back(identity);
  }
  if (startIsInput)
    inputs.push_back(start);
  maps.push_back(identity);
  Value out = tensor::EmptyOp::create(rewriter, loc, domainType.getShape(), f32);
  int64_t taps = kh * kw, perTap = depthwise ? 2 : 1;
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{domainType}, inputs, ValueRange{out}, maps,
      SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(
            b, l,
            combineWindow(b, l, kind,
                          startIsInput ? args[perTap * taps] : start, args,
                          taps));
      });
  rewriter.replaceOp(op, unpackResult(rewriter, loc, generic.getResult(0),
                                      oType));
  return success();
}

/// Marks `transpose` (of an activation: rank 5, `permutation`) for the
/// runtime's layout-change kernel.
void markLayoutChange(linalg::TransposeOp transpose,
                      ArrayRef<int64_t> permutation, StringRef kernel) {
  if (!transpose || transpose.getPermutation() != permutation)
    return;
  // The blocked side ends in the 16 channels of a block.
  auto in = cast<ShapedType>(transpose.getInput().getType());
  auto out = cast<ShapedType>(transpose.getInit().getType());
  if (in.getRank() == 5 &&
      (kernel == onnxc::kPackNCHWcUkernel ? out : in).getShape().back() ==
          kBlock)
    transpose->setAttr(onnxc::kUkernelAttrName,
                       StringAttr::get(transpose.getContext(), kernel));
}

struct ConvNCHWcPass : mlir::onnxc::impl::ConvNCHWcBase<ConvNCHWcPass> {
  using ConvNCHWcBase::ConvNCHWcBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    // The function as it was, in case the blocked form does not pay.
    OwningOpRef<func::FuncOp> original =
        minFlopsPerMoved > 0 ? func.clone() : nullptr;
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::Conv2DNchwFchwOp, linalg::Conv2DNgchwGfchwOp,
              linalg::DepthwiseConv2DNchwChwOp,
              linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(op))
        ops.push_back(op);
    });
    bool changed = false;
    for (linalg::LinalgOp op : ops) {
      // Empty tensors (a window larger than its padded input) stay as they
      // are: nothing to compute.
      if (llvm::any_of(op->getOperandTypes(), [](Type t) {
            auto shaped = dyn_cast<ShapedType>(t);
            return shaped && shaped.hasStaticShape() &&
                   shaped.getNumElements() == 0;
          }))
        continue;
      if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation()))
        changed |= succeeded(rewriteConv(rewriter, conv));
      else if (auto grouped =
                   dyn_cast<linalg::Conv2DNgchwGfchwOp>(op.getOperation()))
        changed |= succeeded(rewriteGroupedConv(rewriter, grouped));
      else
        changed |= succeeded(rewriteWindowed(rewriter, op));
    }
    if (!changed)
      return;

    // Unpacks down and packs up through elementwise ops and pads.
    RewritePatternSet patterns(&getContext());
    linalg::populateDataLayoutPropagationPatterns(
        patterns, [](OpOperand *operand) {
          // An unpack moves down into an elementwise op or pad that reads
          // it, a pack up through the elementwise op or pad it reads.
          Operation *owner = operand->getOwner();
          if (isa<tensor::PadOp>(owner) || isPlainElementwise(owner))
            return true;
          Operation *producer = operand->get().getDefiningOp();
          return producer &&
                 (isa<tensor::PadOp>(producer) || isPlainElementwise(producer));
        });
    populateBlockedLayoutPatterns(patterns);
    linalg::PackOp::getCanonicalizationPatterns(patterns, &getContext());
    linalg::UnPackOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::PadOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();

    // Elementwise ops on blocked tensors join their elementwise producer
    // (a depthwise conv's Clip, a pooling's scale): one pass, not two.
    {
      RewritePatternSet fusion(&getContext());
      linalg::populateElementwiseOpsFusionPatterns(
          fusion, [](OpOperand *use) {
            auto producer = use->get().getDefiningOp<linalg::GenericOp>();
            auto consumer = dyn_cast<linalg::GenericOp>(use->getOwner());
            // A Relu or Clip of a conv's result stays apart: it becomes the
            // kernel's epilogue (below).
            if (producer && clampBounds(producer) &&
                producer.getDpsInputs()[0].getDefiningOp() &&
                producer.getDpsInputs()[0].getDefiningOp()->hasAttr(
                    onnxc::kUkernelAttrName))
              return false;
            return producer && consumer && producer->hasOneUse() &&
                   isPlainElementwise(producer) &&
                   isPlainElementwise(consumer) &&
                   cast<ShapedType>(producer->getResult(0).getType())
                           .getRank() == 5;
          });
      if (failed(applyPatternsGreedily(func, std::move(fusion))))
        return signalPassFailure();
    }

    // The packs and unpacks left: reshapes and transposes.
    SmallVector<Operation *> layoutOps;
    func.walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op))
        layoutOps.push_back(op);
    });
    for (Operation *op : layoutOps) {
      rewriter.setInsertionPoint(op);
      if (auto pack = dyn_cast<linalg::PackOp>(op)) {
        FailureOr<linalg::LowerPackResult> lowered =
            linalg::lowerPack(rewriter, pack);
        if (failed(lowered))
          return signalPassFailure();
        markLayoutChange(lowered->transposeOp, {0, 1, 3, 4, 2},
                         onnxc::kPackNCHWcUkernel);
      } else {
        FailureOr<linalg::LowerUnPackOpResult> lowered =
            linalg::lowerUnPack(rewriter, cast<linalg::UnPackOp>(op));
        if (failed(lowered))
          return signalPassFailure();
        markLayoutChange(lowered->transposeOp, {0, 1, 4, 2, 3},
                         onnxc::kUnpackNCHWcUkernel);
        // The lowering ends in a copy into the unpack's empty destination:
        // the collapsed tensor serves as it is.
        Value slice = lowered->extractSliceOp
                          ? lowered->extractSliceOp.getResult()
                          : lowered->collapseShapeOp.getResult();
        for (Operation *user : llvm::make_early_inc_range(slice.getUsers()))
          if (auto copy = dyn_cast<linalg::CopyOp>(user);
              copy && copy.getOutputs()[0].getDefiningOp<tensor::EmptyOp>() &&
              copy.getResultTypes()[0] == slice.getType())
            rewriter.replaceOp(copy, slice);
      }
    }

    // The layout changes left cost a pass over memory each; the convs
    // gain in proportion to their multiply-adds.
    if (original) {
      int64_t flops = 0, moved = 0;
      func.walk([&](linalg::LinalgOp op) {
        auto name = op->getAttrOfType<StringAttr>(onnxc::kUkernelAttrName);
        if (!name)
          return;
        if (name.getValue() == onnxc::kConvNCHWcUkernel ||
            name.getValue() == onnxc::kConvNCHWToNCHWcUkernel) {
          auto w = cast<ShapedType>(op.getDpsInputs()[1].getType());
          auto o = cast<ShapedType>(op.getDpsInits()[0].getType());
          int64_t perBlock =
              name.getValue() == onnxc::kConvNCHWcUkernel ? kBlock : 1;
          flops += 2 * o.getNumElements() * w.getDimSize(1) * perBlock *
                   w.getDimSize(2) * w.getDimSize(3);
        } else {
          moved += cast<ShapedType>(op.getDpsInits()[0].getType())
                       .getNumElements();
        }
      });
      if (flops < minFlopsPerMoved * moved || flops == 0) {
        func.getBody().takeBody(original->getBody());
        return;
      }
    }

    // A Relu or Clip that alone reads a conv's result may run in the
    // kernel.
    func.walk([&](linalg::GenericOp op) {
      if (!op->hasAttr(onnxc::kUkernelAttrName) || !op->hasOneUse())
        return;
      auto clamp = dyn_cast<linalg::GenericOp>(*op->getUsers().begin());
      if (!clamp)
        return;
      if (auto bounds = clampBounds(clamp)) {
        clamp->setAttr(onnxc::kUkernelEpilogueAttrName,
                       rewriter.getStringAttr("clamp"));
        clamp->setAttr("lo", rewriter.getF32FloatAttr(
                                 bounds->first.convertToFloat()));
        clamp->setAttr("hi", rewriter.getF32FloatAttr(
                                 bounds->second.convertToFloat()));
      }
    });
  }
};

} // namespace

bool mlir::onnxc::isUkernelInitOrEpilogue(Operation *op) {
  if (op->hasAttr(kUkernelEpilogueAttrName))
    return true;
  if (op->getNumResults() != 1 || !op->hasOneUse())
    return false;
  OpOperand &use = *op->getUses().begin();
  auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
  return dps && dps->hasAttr(kUkernelAttrName) && dps.isDpsInit(&use);
}
