//===- FoldBatchNorm.cpp - The onnx-fold-batch-norm pass ------------------===//
//
// An inference-mode BatchNormalization of a Conv's output is an affine map
// per output channel, Y = conv * a + c with a = scale / sqrt(var + eps) and
// c = B - mean * a, so it folds into the conv: filter f scaled by a[f], bias
// (bias - mean) * a + B. The folded weights are onnx ops on the original
// ones, so nothing is duplicated here; they depend on weights only, so
// onnxc-hoist-constants computes them once per process.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/GraphUtils.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::onnxc {
#define GEN_PASS_DEF_ONNXFOLDBATCHNORM
#include "onnxc/Dialect/ONNX/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// A static rank-1 tensor of `n` elements of `elementType`.
bool isVectorOf(Value v, int64_t n, Type elementType) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getRank() == 1 && type.getDimSize(0) == n &&
         type.getElementType() == elementType;
}

struct FoldIntoConv : OpRewritePattern<ONNXBatchNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ONNXBatchNormalizationOp bn,
                                PatternRewriter &rewriter) const override {
    if (bn.getTrainingMode() != 0 || bn.getRunningMean() || bn.getRunningVar())
      return rewriter.notifyMatchFailure(bn, "training mode");
    auto conv = bn.getX().getDefiningOp<ONNXConvOp>();
    if (!conv || !conv.getY().hasOneUse())
      return rewriter.notifyMatchFailure(bn, "not the only user of a Conv");
    auto wType = dyn_cast<RankedTensorType>(conv.getW().getType());
    auto yType = dyn_cast<RankedTensorType>(bn.getY().getType());
    if (!wType || !yType || wType.isDynamicDim(0) ||
        yType != conv.getY().getType())
      return rewriter.notifyMatchFailure(bn, "types not known");
    int64_t f = wType.getDimSize(0);
    Type et = wType.getElementType();
    SmallVector<Value> params = {bn.getScale(), bn.getB(), bn.getInputMean(),
                                 bn.getInputVar()};
    if (conv.getB())
      params.push_back(conv.getB());
    for (Value p : params)
      if (!isVectorOf(p, f, et) || !isWeightOnly(p))
        return rewriter.notifyMatchFailure(bn, "parameters are not weights");
    if (!isWeightOnly(conv.getW()))
      return rewriter.notifyMatchFailure(bn, "the filter is not a weight");

    Location loc = rewriter.getFusedLoc({conv.getLoc(), bn.getLoc()});
    auto vecType = RankedTensorType::get({f}, et);
    auto constant = [&](DenseElementsAttr value) {
      return createONNXConstant(rewriter, loc, value);
    };
    // a = scale / sqrt(var + eps)
    auto scalarType = RankedTensorType::get({}, et);
    Value eps = constant(DenseElementsAttr::get(
        scalarType,
        rewriter.getFloatAttr(et, bn.getEpsilon().convertToDouble())));
    Value var = ONNXAddOp::create(rewriter, loc, vecType, bn.getInputVar(), eps);
    Value a = ONNXDivOp::create(rewriter, loc, vecType, bn.getScale(),
                                ONNXSqrtOp::create(rewriter, loc, vecType, var));
    // The filter, each output channel f scaled by a[f].
    SmallVector<int64_t> aShape(wType.getRank(), 1);
    aShape[0] = f;
    auto shapeType =
        RankedTensorType::get({wType.getRank()}, rewriter.getI64Type());
    Value shape = constant(
        DenseElementsAttr::get(shapeType, ArrayRef<int64_t>(aShape)));
    Value aColumn = ONNXReshapeOp::create(
        rewriter, loc, TypeRange{RankedTensorType::get(aShape, et)},
        ValueRange{a, shape}, ArrayRef<NamedAttribute>{});
    Value w = ONNXMulOp::create(rewriter, loc, wType, conv.getW(), aColumn);
    // The bias: (bias - mean) * a + B, or B - mean * a without one.
    Value shift =
        conv.getB() ? ONNXSubOp::create(rewriter, loc, vecType, conv.getB(),
                                        bn.getInputMean())
                          .getResult()
                    : ONNXNegOp::create(rewriter, loc, vecType,
                                        bn.getInputMean())
                          .getResult();
    Value bias = ONNXAddOp::create(
        rewriter, loc, vecType,
        ONNXMulOp::create(rewriter, loc, vecType, shift, a), bn.getB());

    auto folded = ONNXConvOp::create(rewriter, loc, TypeRange{yType},
                                     ValueRange{conv.getX(), w, bias},
                                     conv->getAttrs());
    rewriter.replaceOp(bn, folded->getResults());
    rewriter.eraseOp(conv);
    return success();
  }
};

struct ONNXFoldBatchNormPass
    : onnxc::impl::ONNXFoldBatchNormBase<ONNXFoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldIntoConv>(&getContext());
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      signalPassFailure();
  }
};

} // namespace
