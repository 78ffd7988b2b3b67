//===- DeformConv.cpp - DeformConv (2-D) -> linalg.generic ----------------===//
//
// DeformConv-19/22 as ONNX's reference computes it: each kernel tap of each
// output position samples X at its regular position (o * stride - pad +
// k * dilation) moved by its (dy, dx) offset, bilinearly with taps outside
// the image reading 0 (GridSample, zeros padding, align_corners), times the
// tap's mask (1 without one) and weight. One generic over the output
// (N, M, oH, oW) starts from the bias; its body loops over the group's input
// channels and the kernel taps. The offsets and mask are indexed per offset
// group: (group, kh, kw, {y, x}) and (group, kh, kw) on dim 1. Sums in f32
// (f64 for f64 data).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Pred = arith::CmpIPredicate;

class DeformConvLowering : public TensorPattern<ONNXDeformConvOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXDeformConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value x = adaptor.getX(), w = adaptor.getW(), offset = adaptor.getOffset();
    auto xType = getMovableRankedType(x), wType = getMovableRankedType(w);
    auto offType = getMovableRankedType(offset);
    if (!type || !xType || !wType || !offType || xType.getRank() != 4 ||
        wType.getRank() != 4 || offType.getRank() != 4 || type.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "2-D only (4-D X, W, offset)");
    int64_t kh = wType.getDimSize(2), kw = wType.getDimSize(3);
    if (auto ks = op.getKernelShape()) {
      if (ks->size() != 2)
        return rewriter.notifyMatchFailure(op, "kernel_shape");
      kh = cast<IntegerAttr>((*ks)[0]).getInt();
      kw = cast<IntegerAttr>((*ks)[1]).getInt();
    }
    if (ShapedType::isDynamic(kh) || ShapedType::isDynamic(kw))
      return rewriter.notifyMatchFailure(op, "unknown kernel shape");
    auto ints = [](std::optional<ArrayAttr> a, int64_t n,
                   int64_t dflt) -> SmallVector<int64_t> {
      SmallVector<int64_t> v(n, dflt);
      if (a && int64_t(a->size()) == n)
        for (int64_t i = 0; i < n; ++i)
          v[i] = cast<IntegerAttr>((*a)[i]).getInt();
      return v;
    };
    SmallVector<int64_t> strides = ints(op.getStrides(), 2, 1);
    SmallVector<int64_t> dilations = ints(op.getDilations(), 2, 1);
    SmallVector<int64_t> pads = ints(op.getPads(), 4, 0);
    int64_t group = op.getGroup(), offsetGroup = op.getOffsetGroup();
    if (group < 1 || offsetGroup < 1)
      return rewriter.notifyMatchFailure(op, "group, offset_group >= 1");
    Type elem = xType.getElementType();
    Type onnxElem = getONNXElementType(op.getX());
    Type ft = elem.isF64() ? Type(rewriter.getF64Type())
                           : Type(rewriter.getF32Type());
    IndexMath m(rewriter, loc);
    Value channels = getDimValue(rewriter, loc, x, 1);
    Value perGroup = getDimValue(rewriter, loc, w, 1);
    Value outChannels = getDimValue(rewriter, loc, w, 0);
    Value height = getDimValue(rewriter, loc, x, 2);
    Value width = getDimValue(rewriter, loc, x, 3);
    int64_t taps = kh * kw;
    emitRuntimeCheck(
        rewriter, loc, op,
        arith::OrIOp::create(
            rewriter, loc,
            m.cmp(Pred::ne, m.mul(perGroup, m.c(group)), channels),
            m.cmp(Pred::ne, m.rem(channels, m.c(offsetGroup)), m.c(0))),
        "X has {0} channels: not group ({1}) x W's {2}, or not a multiple of "
        "offset_group ({3})",
        {channels, m.c(group), perGroup, m.c(offsetGroup)});
    emitRuntimeCheck(
        rewriter, loc, op,
        m.cmp(Pred::ne, getDimValue(rewriter, loc, offset, 1),
              m.c(offsetGroup * taps * 2)),
        "offset has {0} channels, not offset_group x kernel taps x 2 = {1}",
        {getDimValue(rewriter, loc, offset, 1), m.c(offsetGroup * taps * 2)});
    Value perOffsetGroup = m.div(channels, m.c(offsetGroup));
    Value outPerGroup = m.div(outChannels, m.c(group));
    Value bias = adaptor.getB(), mask = adaptor.getMask();
    SmallVector<OpFoldResult> sizes{getDims(rewriter, loc, x)[0], outChannels,
                                    getDims(rewriter, loc, offset)[2],
                                    getDims(rewriter, loc, offset)[3]};
    auto read = [&](OpBuilder &b, Location l, Value t, ValueRange at,
                    Value onnx) -> Value {
      Value v = tensor::ExtractOp::create(b, l, t, at);
      return castScalar(b, l, v, getONNXElementType(onnx), ft);
    };
    Value result = buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, sizes), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          auto c = [&](double v) { return createScalarConstant(b, l, ft, v); };
          auto toF = [&](Value i) { return indexToFloat(b, l, i, ft); };
          Value n = ivs[0], oc = ivs[1], oh = ivs[2], ow = ivs[3];
          Value init = bias ? read(b, l, bias, oc, op.getB()) : c(0);
          Value firstIn = mm.mul(mm.div(oc, outPerGroup), perGroup);
          Value hF = toF(height), wF = toF(width);
          // X[n, ic] at (y, x), 0 outside the image.
          auto pixel = [&](Value ic, Value y, Value xx) -> Value {
            Value inside = arith::AndIOp::create(
                b, l,
                arith::AndIOp::create(
                    b, l,
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, y,
                                          c(0)),
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, y,
                                          hF)),
                arith::AndIOp::create(
                    b, l,
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, xx,
                                          c(0)),
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, xx,
                                          wF)));
            auto clampIndex = [&](Value v, Value size) -> Value {
              v = arith::MinimumFOp::create(
                  b, l, arith::MaximumFOp::create(b, l, v, c(0)),
                  arith::SubFOp::create(b, l, size, c(1)));
              return floatToIndex(b, l, v);
            };
            Value v =
                read(b, l, x, {n, ic, clampIndex(y, hF), clampIndex(xx, wF)},
                     op.getX());
            return arith::SelectOp::create(b, l, inside, v, c(0));
          };
          return castScalar(
              b, l,
              loopNest(
                  b, l, SmallVector<Value>{perGroup, mm.c(kh), mm.c(kw)}, init,
                  [&](OpBuilder &, Location, ValueRange k,
                      ValueRange acc) -> SmallVector<Value> {
                    Value ic = mm.add(firstIn, k[0]);
                    Value og = mm.div(ic, perOffsetGroup);
                    Value tap = mm.add(mm.mul(k[1], mm.c(kw)), k[2]);
                    Value ch = mm.add(mm.mul(og, mm.c(taps)), tap);
                    Value dy =
                        read(b, l, offset, {n, mm.mul(ch, mm.c(2)), oh, ow},
                             op.getOffset());
                    Value dx =
                        read(b, l, offset,
                             {n, mm.add(mm.mul(ch, mm.c(2)), mm.c(1)), oh, ow},
                             op.getOffset());
                    Value y = arith::AddFOp::create(
                        b, l,
                        toF(mm.add(
                            mm.sub(mm.mul(oh, mm.c(strides[0])), mm.c(pads[0])),
                            mm.mul(k[1], mm.c(dilations[0])))),
                        dy);
                    Value xx = arith::AddFOp::create(
                        b, l,
                        toF(mm.add(
                            mm.sub(mm.mul(ow, mm.c(strides[1])), mm.c(pads[1])),
                            mm.mul(k[2], mm.c(dilations[1])))),
                        dx);
                    // Bilinear from the four surrounding pixels.
                    Value y0 = math::FloorOp::create(b, l, y);
                    Value x0 = math::FloorOp::create(b, l, xx);
                    Value fy = arith::SubFOp::create(b, l, y, y0);
                    Value fx = arith::SubFOp::create(b, l, xx, x0);
                    Value y1 = arith::AddFOp::create(b, l, y0, c(1));
                    Value x1 = arith::AddFOp::create(b, l, x0, c(1));
                    Value gy = arith::SubFOp::create(b, l, c(1), fy);
                    Value gx = arith::SubFOp::create(b, l, c(1), fx);
                    auto term = [&](Value wy, Value wx, Value py, Value px) {
                      return arith::MulFOp::create(
                          b, l, arith::MulFOp::create(b, l, wy, wx),
                          pixel(ic, py, px));
                    };
                    Value sample = arith::AddFOp::create(
                        b, l,
                        arith::AddFOp::create(b, l, term(gy, gx, y0, x0),
                                              term(gy, fx, y0, x1)),
                        arith::AddFOp::create(b, l, term(fy, gx, y1, x0),
                                              term(fy, fx, y1, x1)));
                    if (mask)
                      sample = arith::MulFOp::create(
                          b, l, sample,
                          read(b, l, mask, {n, ch, oh, ow}, op.getMask()));
                    Value weight =
                        read(b, l, w, {oc, k[0], k[1], k[2]}, op.getW());
                    return {arith::AddFOp::create(
                        b, l, acc[0],
                        arith::MulFOp::create(b, l, weight, sample))};
                  })[0],
              ft, onnxElem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateDeformConvPatterns(const TypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<DeformConvLowering>(converter, patterns.getContext());
}
