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

namespace {

constexpr int64_t kBlock = 16;

Value packTensor(OpBuilder &b, Location loc, Value v,
                 ArrayRef<int64_t> innerDims) {
  SmallVector<OpFoldResult> tiles(innerDims.size(), b.getIndexAttr(kBlock));
  Value dest = linalg::PackOp::createDestinationTensor(b, loc, v, tiles,
                                                       innerDims, {});
  return linalg::PackOp::create(b, loc, v, dest, innerDims, tiles,
                                std::nullopt, {})
      .getResult();
}

/// Whether `pad` pads only the spatial dims of an N x C x H x W tensor with
/// a constant zero.
bool isSpatialZeroPad(tensor::PadOp pad) {
  if (pad.getSourceType().getRank() != 4)
    return false;
  for (int64_t d = 0; d < 2; ++d)
    if (!isConstantIntValue(pad.getMixedLowPad()[d], 0) ||
        !isConstantIntValue(pad.getMixedHighPad()[d], 0))
      return false;
  Value value = pad.getConstantPaddingValue();
  return value && matchPattern(value, m_AnyZeroFloat());
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
  if (f % kBlock || c % kBlock || !derivesFromConstants(filter))
    return failure();
  SmallVector<int64_t> strides = attrValues(conv.getStrides());
  SmallVector<int64_t> dilations = attrValues(conv.getDilations());
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  MLIRContext *ctx = rewriter.getContext();

  // The input, packed before its spatial padding (so that the pad can meet
  // the unpack of the producer and fold).
  Value packedInput;
  if (auto pad = input.getDefiningOp<tensor::PadOp>();
      pad && isSpatialZeroPad(pad)) {
    Value source = packTensor(rewriter, loc, pad.getSource(), {1});
    SmallVector<OpFoldResult> low = pad.getMixedLowPad(),
                              high = pad.getMixedHighPad();
    low.push_back(rewriter.getIndexAttr(0));
    high.push_back(rewriter.getIndexAttr(0));
    packedInput = tensor::PadOp::create(rewriter, loc, Type(), source, low,
                                        high, pad.getConstantPaddingValue())
                      .getResult();
  } else {
    packedInput = packTensor(rewriter, loc, input, {1});
  }
  Value packedFilter = packTensor(rewriter, loc, filter, {1, 0});

  // The accumulator's start, packed.
  Value packedInit;
  SmallVector<int64_t> outShape{oType.getDimSize(0), f / kBlock,
                                oType.getDimSize(2), oType.getDimSize(3),
                                kBlock};
  auto outType = RankedTensorType::get(outShape, rewriter.getF32Type());
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, outShape,
                                          rewriter.getF32Type());
    packedInit = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0],
                                        empty)
                     .getResult(0);
  } else if (auto broadcast = init.getDefiningOp<linalg::BroadcastOp>();
             broadcast &&
             broadcast.getDimensions() == ArrayRef<int64_t>{0, 2, 3} &&
             cast<ShapedType>(broadcast.getInput().getType()).getRank() == 1) {
    Value bias = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({f / kBlock, kBlock}, rewriter.getF32Type()),
        broadcast.getInput(), SmallVector<ReassociationIndices>{{0, 1}});
    Value empty = tensor::EmptyOp::create(rewriter, loc, outShape,
                                          rewriter.getF32Type());
    packedInit = linalg::BroadcastOp::create(rewriter, loc, bias, empty,
                                             ArrayRef<int64_t>{0, 2, 3})
                     .getResult()[0];
  } else {
    packedInit = packTensor(rewriter, loc, init, {1});
  }

  // d0..d8 = n, fb, oh, ow, fi | cb, kh, kw, ci.
  SmallVector<AffineExpr> d(9);
  bindDimsList(ctx, MutableArrayRef<AffineExpr>(d));
  auto inMap = AffineMap::get(
      9, 0,
      {d[0], d[5], d[2] * strides[0] + d[6] * dilations[0],
       d[3] * strides[1] + d[7] * dilations[1], d[8]},
      ctx);
  auto wMap = AffineMap::get(9, 0, {d[1], d[5], d[6], d[7], d[8], d[4]}, ctx);
  auto outMap = AffineMap::get(9, 0, {d[0], d[1], d[2], d[3], d[4]}, ctx);
  SmallVector<utils::IteratorType> iterators(5, utils::IteratorType::parallel);
  iterators.append(4, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{outType}, ValueRange{packedInput, packedFilter},
      ValueRange{packedInit}, ArrayRef<AffineMap>{inMap, wMap, outMap},
      iterators, [](OpBuilder &b, Location l, ValueRange args) {
        Value product = arith::MulFOp::create(b, l, args[0], args[1]);
        linalg::YieldOp::create(b, l,
                                arith::AddFOp::create(b, l, args[2], product)
                                    .getResult());
      });
  generic->setAttr(onnxc::kUkernelAttrName,
                   rewriter.getStringAttr(onnxc::kConvNCHWcUkernel));
  generic->setAttr("strides", rewriter.getDenseI64ArrayAttr(strides));
  generic->setAttr("dilations", rewriter.getDenseI64ArrayAttr(dilations));

  Value dest = tensor::EmptyOp::create(rewriter, loc, oType.getShape(),
                                       rewriter.getF32Type());
  Value result = linalg::UnPackOp::create(
                     rewriter, loc, generic.getResult(0), dest,
                     ArrayRef<int64_t>{1},
                     ArrayRef<OpFoldResult>{rewriter.getIndexAttr(kBlock)}, {})
                     .getResult();
  rewriter.replaceOp(conv, result);
  return success();
}

/// Whether `op` is an elementwise generic (all loops parallel, every map a
/// projected permutation) that is not a kernel call.
bool isPlainElementwise(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic->hasAttr(onnxc::kUkernelAttrName))
    return false;
  return generic.getNumLoops() == generic.getNumParallelLoops() &&
         llvm::all_of(generic.getIndexingMapsArray(), [](AffineMap map) {
           return map.isProjectedPermutation();
         });
}

/// Whether `op` is an elementwise max(x, 0) of one input, identity maps.
bool isRelu(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      !isPlainElementwise(op) ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 2)
    return false;
  auto max = dyn_cast<arith::MaximumFOp>(body.front());
  if (!max)
    return false;
  Value x = body.getArgument(0);
  return (max.getLhs() == x && matchPattern(max.getRhs(), m_AnyZeroFloat())) ||
         (max.getRhs() == x && matchPattern(max.getLhs(), m_AnyZeroFloat()));
}

struct ConvNCHWcPass : mlir::onnxc::impl::ConvNCHWcBase<ConvNCHWcPass> {
  using ConvNCHWcBase::ConvNCHWcBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    func.walk([&](linalg::Conv2DNchwFchwOp conv) { convs.push_back(conv); });
    bool changed = false;
    for (linalg::Conv2DNchwFchwOp conv : convs)
      changed |= succeeded(rewriteConv(rewriter, conv));
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
    linalg::PackOp::getCanonicalizationPatterns(patterns, &getContext());
    linalg::UnPackOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::PadOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();

    // The packs and unpacks left: reshapes and transposes.
    SmallVector<Operation *> layoutOps;
    func.walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op))
        layoutOps.push_back(op);
    });
    for (Operation *op : layoutOps) {
      rewriter.setInsertionPoint(op);
      if (auto pack = dyn_cast<linalg::PackOp>(op)) {
        if (failed(linalg::lowerPack(rewriter, pack)))
          return signalPassFailure();
      } else {
        FailureOr<linalg::LowerUnPackOpResult> lowered =
            linalg::lowerUnPack(rewriter, cast<linalg::UnPackOp>(op));
        if (failed(lowered))
          return signalPassFailure();
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

    // A Relu that alone reads a conv's result may run in the kernel.
    func.walk([&](linalg::GenericOp op) {
      if (!op->hasAttr(onnxc::kUkernelAttrName) || !op->hasOneUse())
        return;
      auto relu = dyn_cast<linalg::GenericOp>(*op->getUsers().begin());
      if (relu && isRelu(relu))
        relu->setAttr(onnxc::kUkernelEpilogueAttrName,
                      rewriter.getStringAttr("relu"));
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
