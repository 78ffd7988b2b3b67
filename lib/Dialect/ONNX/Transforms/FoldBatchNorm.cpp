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

/// Whether `bn` runs in inference mode and its scale, B, mean and var are
/// weights of `n` elements of `elementType`.
LogicalResult matchInferenceBatchNorm(ONNXBatchNormalizationOp bn, int64_t n,
                                      Type elementType,
                                      PatternRewriter &rewriter) {
  if (bn.getTrainingMode() != 0 || bn.getRunningMean() || bn.getRunningVar())
    return rewriter.notifyMatchFailure(bn, "training mode");
  for (Value p : {bn.getScale(), bn.getB(), bn.getInputMean(),
                  bn.getInputVar()})
    if (!isVectorOf(p, n, elementType) || !isWeightOnly(p))
      return rewriter.notifyMatchFailure(bn, "parameters are not weights");
  return success();
}

/// a = scale / sqrt(var + epsilon), a vector of `vecType`.
Value batchNormScale(PatternRewriter &rewriter, Location loc,
                     ONNXBatchNormalizationOp bn, RankedTensorType vecType) {
  Value eps = createONNXScalar(rewriter, loc, vecType.getElementType(),
                               bn.getEpsilon().convertToDouble());
  Value var = ONNXAddOp::create(rewriter, loc, vecType, bn.getInputVar(), eps);
  return ONNXDivOp::create(rewriter, loc, vecType, bn.getScale(),
                           ONNXSqrtOp::create(rewriter, loc, vecType, var));
}

/// The folded bias shift * a + B, of `type`.
Value batchNormBias(PatternRewriter &rewriter, Location loc,
                    ONNXBatchNormalizationOp bn, Type type, Value shift,
                    Value a) {
  return ONNXAddOp::create(rewriter, loc, type,
                           ONNXMulOp::create(rewriter, loc, type, shift, a),
                           bn.getB());
}

struct FoldIntoConv : OpRewritePattern<ONNXBatchNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ONNXBatchNormalizationOp bn,
                                PatternRewriter &rewriter) const override {
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
    if (failed(matchInferenceBatchNorm(bn, f, et, rewriter)))
      return failure();
    if (conv.getB() &&
        (!isVectorOf(conv.getB(), f, et) || !isWeightOnly(conv.getB())))
      return rewriter.notifyMatchFailure(bn, "the bias is not a weight");
    if (!isWeightOnly(conv.getW()))
      return rewriter.notifyMatchFailure(bn, "the filter is not a weight");

    Location loc = rewriter.getFusedLoc({conv.getLoc(), bn.getLoc()});
    auto vecType = RankedTensorType::get({f}, et);
    Value a = batchNormScale(rewriter, loc, bn, vecType);
    // The filter, each output channel f scaled by a[f].
    SmallVector<int64_t> aShape(wType.getRank(), 1);
    aShape[0] = f;
    Value aColumn = ONNXReshapeOp::create(
        rewriter, loc, TypeRange{RankedTensorType::get(aShape, et)},
        ValueRange{a, createONNXShapeConstant(rewriter, loc, aShape)},
        ArrayRef<NamedAttribute>{});
    Value w = ONNXMulOp::create(rewriter, loc, wType, conv.getW(), aColumn);
    // The bias: (bias - mean) * a + B, or B - mean * a without one.
    Value shift =
        conv.getB() ? ONNXSubOp::create(rewriter, loc, vecType, conv.getB(),
                                        bn.getInputMean())
                          .getResult()
                    : ONNXNegOp::create(rewriter, loc, vecType,
                                        bn.getInputMean())
                          .getResult();
    Value bias = batchNormBias(rewriter, loc, bn, vecType, shift, a);

    auto folded = ONNXConvOp::create(rewriter, loc, TypeRange{yType},
                                     ValueRange{conv.getX(), w, bias},
                                     conv->getAttrs());
    replaceFusedPair(rewriter, bn, conv, folded);
    return success();
  }
};

/// A 2-D Gemm (or MatMul by a weight) then an inference-mode
/// BatchNormalization over its columns: with a = scale / sqrt(var + eps),
/// (alpha A B + beta C - mean) a + B_bn is one Gemm whose B has column n
/// scaled by a[n] and whose C is (beta C - mean) a + B_bn (B_bn - mean a
/// without a C), beta 1.
struct FoldIntoGemm : OpRewritePattern<ONNXBatchNormalizationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ONNXBatchNormalizationOp bn,
                                PatternRewriter &rewriter) const override {
    Operation *producer = bn.getX().getDefiningOp();
    if (!producer || !isa<ONNXGemmOp, ONNXMatMulOp>(producer) ||
        !producer->getResult(0).hasOneUse())
      return rewriter.notifyMatchFailure(bn, "not the only user of a Gemm");
    auto yType = dyn_cast<RankedTensorType>(bn.getY().getType());
    if (!yType || yType.getRank() != 2 || yType.isDynamicDim(1) ||
        yType != producer->getResult(0).getType())
      return rewriter.notifyMatchFailure(bn, "not a 2-D result");
    Value a = producer->getOperand(0), b = producer->getOperand(1), c;
    auto aType = dyn_cast<RankedTensorType>(a.getType());
    auto bType = dyn_cast<RankedTensorType>(b.getType());
    if (!aType || !bType || aType.getRank() != 2 || bType.getRank() != 2)
      return rewriter.notifyMatchFailure(bn, "not a 2-D product");
    bool transB = false;
    double beta = 1.0;
    NamedAttrList attrs; // a MatMul's: Gemm's defaults
    if (auto gemm = dyn_cast<ONNXGemmOp>(producer)) {
      c = gemm.getC();
      transB = gemm.getTransB() != 0;
      beta = gemm.getBeta().convertToDouble();
      attrs.append(gemm->getAttrs());
    }
    int64_t n = yType.getDimSize(1);
    Type et = yType.getElementType();
    auto cType = c ? dyn_cast<RankedTensorType>(c.getType()) : nullptr;
    if (c && (!cType || cType.getRank() == 0 || cType.getRank() > 2 ||
              cType.getDimSize(cType.getRank() - 1) != n ||
              (cType.getRank() == 2 && cType.getDimSize(0) != 1) ||
              !isWeightOnly(c)))
      return rewriter.notifyMatchFailure(bn, "C is not a bias row");
    if (failed(matchInferenceBatchNorm(bn, n, et, rewriter)))
      return failure();
    if (!isWeightOnly(b))
      return rewriter.notifyMatchFailure(bn, "B is not a weight");

    Location loc = rewriter.getFusedLoc({producer->getLoc(), bn.getLoc()});
    auto vecType = RankedTensorType::get({n}, et);
    Value scale = batchNormScale(rewriter, loc, bn, vecType);
    // B's columns (its rows when transposed) scaled.
    Value bScale = scale;
    if (transB)
      bScale = ONNXReshapeOp::create(
          rewriter, loc, TypeRange{RankedTensorType::get({n, 1}, et)},
          ValueRange{scale, createONNXShapeConstant(rewriter, loc, {n, 1})},
          ArrayRef<NamedAttribute>{});
    Value newB = ONNXMulOp::create(rewriter, loc, bType, b, bScale);
    Value shift;
    Type biasType = vecType;
    if (c) {
      biasType = cType;
      Value scaledC =
          beta == 1.0
              ? c
              : ONNXMulOp::create(rewriter, loc, cType, c,
                                  createONNXScalar(rewriter, loc, et, beta))
                    .getResult();
      shift = ONNXSubOp::create(rewriter, loc, cType, scaledC,
                                bn.getInputMean());
    } else {
      shift = ONNXNegOp::create(rewriter, loc, vecType, bn.getInputMean());
    }
    Value bias = batchNormBias(rewriter, loc, bn, biasType, shift, scale);
    attrs.set("beta", rewriter.getF32FloatAttr(1.0f));
    auto folded =
        ONNXGemmOp::create(rewriter, loc, TypeRange{yType},
                           ValueRange{a, newB, bias}, attrs.getAttrs());
    replaceFusedPair(rewriter, bn, producer, folded);
    return success();
  }
};

struct ONNXFoldBatchNormPass
    : onnxc::impl::ONNXFoldBatchNormBase<ONNXFoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldIntoConv, FoldIntoGemm>(&getContext());
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      signalPassFailure();
  }
};

} // namespace
