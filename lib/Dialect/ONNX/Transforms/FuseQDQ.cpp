//===- FuseQDQ.cpp - The onnx-fuse-qdq pass
//--------------------------------===//
//
// Quantized models in QDQ form (what ONNX Runtime's quantization tool and
// most exporters write) compute in float between DequantizeLinear and
// QuantizeLinear pairs. Where a pair brackets a Conv or a MatMul whose
// operands are 8-bit quantized, the pattern means an integer operator, and
// ONNX Runtime runs it as one; so does this pass:
//
//   Q(Conv(DQ(x), DQ(w), DQ(b)?))  ->  QLinearConv(x, .., w, .., y.., b)
//   Q(MatMul(DQ(a), DQ(b)))        ->  QLinearMatMul(a, .., b, .., y..)
//   Q(Relu(v)) with Q's zero point the least value of its type -> Q(v)
//
// x, a and y per tensor; w per tensor or per output channel (axis 0), b per
// tensor or per column (a 2-D b, axis 1); the bias int32 with zero point 0
// and scale x_scale * w_scale (checked where the scales are constants, as
// the quantization tool writes them; otherwise the pattern is left alone).
// The integer operators sum exactly in int32 and requantize once, where the
// float pattern rounds every product and sum: results can differ by one
// unit of y's quantization (docs/Quantization.md measures how often).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXOps.h"
#include "onnxc/Dialect/ONNX/Transforms/GraphUtils.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::onnxc {
#define GEN_PASS_DEF_ONNXFUSEQDQ
#include "onnxc/Dialect/ONNX/Transforms/Passes.h.inc"
} // namespace mlir::onnxc

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// A DequantizeLinear's operands: `zeroPoint` may be null (0).
struct Dequantized {
  ONNXDequantizeLinearOp op;
  Value x, scale, zeroPoint;
};

bool isEightBit(Type t) {
  auto i = dyn_cast<IntegerType>(getElementTypeOrSelf(t));
  return i && i.getWidth() == 8;
}

/// The number of elements of a rank-0 or rank-1 static tensor, or -1.
int64_t scaleElements(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || type.getRank() > 1)
    return -1;
  return type.getNumElements();
}

/// `v` as a DequantizeLinear's result of 8-bit `x` (or int32 with
/// `bias`), f32 scale; per tensor, or with `channels` > 0 also per axis
/// `axis` of that many channels. No blocks.
std::optional<Dequantized> dequantized(Value v, int64_t axis = 0,
                                       int64_t channels = 0,
                                       bool bias = false) {
  auto dq = v.getDefiningOp<ONNXDequantizeLinearOp>();
  if (!dq || dq.getBlockSize() != 0)
    return std::nullopt;
  Type x = getElementTypeOrSelf(dq.getX().getType());
  if (bias ? !x.isSignlessInteger(32) : !isEightBit(x))
    return std::nullopt;
  if (!getElementTypeOrSelf(dq.getXScale().getType()).isF32() ||
      !getElementTypeOrSelf(dq.getY().getType()).isF32())
    return std::nullopt;
  int64_t n = scaleElements(dq.getXScale());
  auto xType = dyn_cast<RankedTensorType>(dq.getX().getType());
  if (n != 1) {
    if (channels <= 0 || n != channels || !xType)
      return std::nullopt;
    // getAxis() is unsigned (I64Attr): convert before the sign test.
    int64_t a = int64_t(dq.getAxis());
    if (a < 0)
      a += xType.getRank();
    if (a != axis)
      return std::nullopt;
  }
  if (Value zp = dq.getXZeroPoint())
    if (scaleElements(zp) != n)
      return std::nullopt;
  return Dequantized{dq, dq.getX(), dq.getXScale(), dq.getXZeroPoint()};
}

/// A QuantizeLinear of f32 to 8 bits, per tensor.
bool isPerTensorQuantize(ONNXQuantizeLinearOp q) {
  return q.getBlockSize() == 0 &&
         getElementTypeOrSelf(q.getX().getType()).isF32() &&
         getElementTypeOrSelf(q.getYScale().getType()).isF32() &&
         isEightBit(q.getY().getType()) && scaleElements(q.getYScale()) == 1 &&
         (!q.getYZeroPoint() || scaleElements(q.getYZeroPoint()) == 1);
}

/// The zero point `zp`, or a constant 0 of `type`'s element type (the
/// integer operators take it as an operand).
Value zeroPointOr(PatternRewriter &rewriter, Location loc, Value zp,
                  Type type) {
  if (zp)
    return zp;
  auto t = RankedTensorType::get({}, getElementTypeOrSelf(type));
  return createONNXConstant(rewriter, loc,
                            DenseElementsAttr::get(t, APInt(8, 0)));
}

/// The float values of a constant, or none.
std::optional<SmallVector<double>> constantFloats(Value v) {
  DenseFPElementsAttr dense;
  if (!matchPattern(v, m_Constant(&dense)))
    return std::nullopt;
  SmallVector<double> out;
  for (APFloat f : dense.getValues<APFloat>()) {
    bool lost;
    f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    out.push_back(f.convertToDouble());
  }
  return out;
}

/// Whether `v` is a constant whose integers all satisfy `pred`.
bool allConstantInts(Value v, function_ref<bool(const APInt &)> pred) {
  DenseIntElementsAttr dense;
  return v && matchPattern(v, m_Constant(&dense)) &&
         llvm::all_of(dense.getValues<APInt>(), pred);
}

/// Whether a constant holds only zeros (an absent one does).
bool isZero(Value v) {
  return !v || allConstantInts(v, [](const APInt &i) { return i.isZero(); });
}

/// Whether the bias's scale is x_scale * w_scale (per channel where they
/// are), all three constants.
bool biasScaleMatches(Value bias, Value xScale, Value wScale) {
  auto b = constantFloats(bias), x = constantFloats(xScale),
       w = constantFloats(wScale);
  if (!b || !x || !w || x->size() != 1)
    return false;
  size_t n = std::max(b->size(), w->size());
  for (size_t i = 0; i < n; ++i) {
    double want = (*x)[0] * (*w)[w->size() == 1 ? 0 : i];
    double got = (*b)[b->size() == 1 ? 0 : i];
    if (std::abs(got - want) > 1e-6 * std::abs(want))
      return false;
  }
  return true;
}

/// Q(Conv(DQ(x), DQ(w), DQ(b)?)) -> QLinearConv.
struct FuseConv : OpRewritePattern<ONNXQuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ONNXQuantizeLinearOp q,
                                PatternRewriter &rewriter) const override {
    auto conv = q.getX().getDefiningOp<ONNXConvOp>();
    if (!conv || !conv->hasOneUse() || !isPerTensorQuantize(q))
      return rewriter.notifyMatchFailure(q, "not Q(Conv) per tensor");
    auto wType = dyn_cast<RankedTensorType>(conv.getW().getType());
    if (!wType || wType.isDynamicDim(0))
      return rewriter.notifyMatchFailure(q, "filter of unknown channels");
    int64_t m = wType.getDimSize(0);
    std::optional<Dequantized> x = dequantized(conv.getX());
    std::optional<Dequantized> w = dequantized(conv.getW(), 0, m);
    if (!x || !w)
      return rewriter.notifyMatchFailure(q, "operands not 8-bit DQ");
    Value bias;
    if (Value b = conv.getB()) {
      std::optional<Dequantized> d = dequantized(b, 0, m, /*bias=*/true);
      if (!d || !isZero(d->zeroPoint) ||
          !biasScaleMatches(d->scale, x->scale, w->scale))
        return rewriter.notifyMatchFailure(
            q, "bias not int32 DQ of scale x_scale * w_scale");
      bias = d->x;
    }
    Location loc = conv.getLoc();
    auto fused = ONNXQLinearConvOp::create(
        rewriter, loc, q.getY().getType(), x->x, x->scale,
        zeroPointOr(rewriter, loc, x->zeroPoint, x->x.getType()), w->x,
        w->scale, zeroPointOr(rewriter, loc, w->zeroPoint, w->x.getType()),
        q.getYScale(),
        zeroPointOr(rewriter, loc, q.getYZeroPoint(), q.getY().getType()), bias,
        conv.getAutoPadAttr(), conv.getDilationsAttr(), conv.getGroupAttr(),
        conv.getKernelShapeAttr(), conv.getPadsAttr(), conv.getStridesAttr());
    replaceFusedPair(rewriter, q, conv, fused);
    return success();
  }
};

/// Q(MatMul(DQ(a), DQ(b))) -> QLinearMatMul.
struct FuseMatMul : OpRewritePattern<ONNXQuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ONNXQuantizeLinearOp q,
                                PatternRewriter &rewriter) const override {
    auto mm = q.getX().getDefiningOp<ONNXMatMulOp>();
    if (!mm || !mm->hasOneUse() || !isPerTensorQuantize(q))
      return rewriter.notifyMatchFailure(q, "not Q(MatMul) per tensor");
    auto bType = dyn_cast<RankedTensorType>(mm.getB().getType());
    int64_t columns = bType && bType.getRank() == 2 && !bType.isDynamicDim(1)
                          ? bType.getDimSize(1)
                          : 0;
    std::optional<Dequantized> a = dequantized(mm.getA());
    std::optional<Dequantized> b = dequantized(mm.getB(), 1, columns);
    if (!a || !b)
      return rewriter.notifyMatchFailure(q, "operands not 8-bit DQ");
    Location loc = mm.getLoc();
    auto fused = ONNXQLinearMatMulOp::create(
        rewriter, loc, q.getY().getType(), a->x, a->scale,
        zeroPointOr(rewriter, loc, a->zeroPoint, a->x.getType()), b->x,
        b->scale, zeroPointOr(rewriter, loc, b->zeroPoint, b->x.getType()),
        q.getYScale(),
        zeroPointOr(rewriter, loc, q.getYZeroPoint(), q.getY().getType()));
    replaceFusedPair(rewriter, q, mm, fused);
    return success();
  }
};

/// Q(Relu(v)) -> Q(v) where Q's zero point is the least value of its type:
/// quantizing clamps the negative values to it, which is what Relu did.
struct DropReluBeforeQuantize : OpRewritePattern<ONNXQuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ONNXQuantizeLinearOp q,
                                PatternRewriter &rewriter) const override {
    auto relu = q.getX().getDefiningOp<ONNXReluOp>();
    if (!relu || !isPerTensorQuantize(q))
      return rewriter.notifyMatchFailure(q, "not Q(Relu) per tensor");
    auto type = cast<IntegerType>(getElementTypeOrSelf(q.getY().getType()));
    Value zp = q.getYZeroPoint();
    // (An absent zero point is uint8's 0.)
    bool least = type.isUnsigned() ? isZero(zp)
                                   : allConstantInts(zp, [](const APInt &i) {
                                       return i.isMinSignedValue();
                                     });
    if (!least)
      return rewriter.notifyMatchFailure(q, "zero point not the least value");
    rewriter.modifyOpInPlace(q, [&] { q.getXMutable().assign(relu.getX()); });
    if (relu->use_empty())
      rewriter.eraseOp(relu);
    return success();
  }
};

struct ONNXFuseQDQPass : onnxc::impl::ONNXFuseQDQBase<ONNXFuseQDQPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DropReluBeforeQuantize>(&getContext(), /*benefit=*/2);
    patterns.add<FuseConv, FuseMatMul>(&getContext());
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
