//===- Detection.cpp - NonMaxSuppression, RoiAlign -> linalg + scf --------===//
//
// NonMaxSuppression as ONNX's reference runs it: per batch and class the
// boxes are visited in score order (higher first, ties: the lower index
// first), skipped at or below score_threshold, and kept unless their IoU
// with a box already kept for the class exceeds iou_threshold, until
// max_output_boxes_per_class are kept. The score order is a rank per box
// (how many boxes come before it: one linalg.generic, as TopK), inverted
// into a visiting order per class; the greedy scan is an scf.for carrying
// the result rows and the class's kept boxes. The result is written into
// a tensor of B * C * min(N, max) rows and sliced to the rows written.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Pred = arith::CmpIPredicate;
using FPred = arith::CmpFPredicate;

/// The corners (xmin, xmax, ymin, ymax) of a box as NonMaxSuppression reads
/// it: [y1, x1, y2, x2] with either diagonal, or [xc, yc, w, h].
struct Corners {
  Value xMin, xMax, yMin, yMax;
};

Corners readBox(OpBuilder &b, Location l, Value boxes, Value batch, Value box,
                bool centerPoint) {
  IndexMath m(b, l);
  auto at = [&](int64_t k) -> Value {
    Value v =
        tensor::ExtractOp::create(b, l, boxes, ValueRange{batch, box, m.c(k)});
    return v;
  };
  if (centerPoint) {
    Value half = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.5));
    Value w = arith::MulFOp::create(b, l, at(2), half);
    Value h = arith::MulFOp::create(b, l, at(3), half);
    Value xc = at(0), yc = at(1);
    return {
        arith::SubFOp::create(b, l, xc, w), arith::AddFOp::create(b, l, xc, w),
        arith::SubFOp::create(b, l, yc, h), arith::AddFOp::create(b, l, yc, h)};
  }
  Value y1 = at(0), x1 = at(1), y2 = at(2), x2 = at(3);
  return {arith::MinimumFOp::create(b, l, x1, x2),
          arith::MaximumFOp::create(b, l, x1, x2),
          arith::MinimumFOp::create(b, l, y1, y2),
          arith::MaximumFOp::create(b, l, y1, y2)};
}

/// Whether box `a` suppresses box `c`: both have a positive area, they
/// overlap, and intersection / union > threshold.
Value suppresses(OpBuilder &b, Location l, const Corners &a, const Corners &c,
                 Value threshold) {
  auto f = [&](FPred p, Value x, Value y) -> Value {
    return arith::CmpFOp::create(b, l, p, x, y);
  };
  auto both = [&](Value x, Value y) -> Value {
    return arith::AndIOp::create(b, l, x, y);
  };
  Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0));
  Value iw = arith::SubFOp::create(
      b, l, arith::MinimumFOp::create(b, l, a.xMax, c.xMax),
      arith::MaximumFOp::create(b, l, a.xMin, c.xMin));
  Value ih = arith::SubFOp::create(
      b, l, arith::MinimumFOp::create(b, l, a.yMax, c.yMax),
      arith::MaximumFOp::create(b, l, a.yMin, c.yMin));
  Value inter = arith::MulFOp::create(b, l, iw, ih);
  auto area = [&](const Corners &x) -> Value {
    return arith::MulFOp::create(b, l,
                                 arith::SubFOp::create(b, l, x.xMax, x.xMin),
                                 arith::SubFOp::create(b, l, x.yMax, x.yMin));
  };
  Value areaA = area(a), areaC = area(c);
  Value uni = arith::SubFOp::create(
      b, l, arith::AddFOp::create(b, l, areaA, areaC), inter);
  Value ok = both(f(FPred::OGT, iw, zero), f(FPred::OGT, ih, zero));
  ok = both(ok, f(FPred::OGT, inter, zero));
  ok = both(ok, both(f(FPred::OGT, areaA, zero), f(FPred::OGT, areaC, zero)));
  ok = both(ok, f(FPred::OGT, uni, zero));
  Value iou = arith::DivFOp::create(b, l, inter, uni);
  return both(ok, f(FPred::OGT, iou, threshold));
}

class NonMaxSuppressionLowering
    : public TensorPattern<ONNXNonMaxSuppressionOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXNonMaxSuppressionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value boxes = adaptor.getBoxes(), scores = adaptor.getScores();
    auto boxesType = getMovableRankedType(boxes);
    auto scoresType = getMovableRankedType(scores);
    if (!type || type.getRank() != 2 || !boxesType || !scoresType ||
        boxesType.getRank() != 3 || scoresType.getRank() != 3 ||
        !boxesType.getElementType().isF32() ||
        !scoresType.getElementType().isF32())
      return rewriter.notifyMatchFailure(
          op, "boxes [B, N, 4] and scores [B, C, N] of float");
    int64_t centerPoint = op.getCenterPointBox();
    if (centerPoint != 0 && centerPoint != 1)
      return rewriter.notifyMatchFailure(op, "center_point_box is 0 or 1");
    IndexMath m(rewriter, loc);
    Value numBatches = getDimValue(rewriter, loc, boxes, 0);
    Value numBoxes = getDimValue(rewriter, loc, boxes, 1);
    Value numClasses = getDimValue(rewriter, loc, scores, 1);
    emitRuntimeCheck(
        rewriter, loc, op,
        m.cmp(Pred::ne, getDimValue(rewriter, loc, boxes, 2), m.c(4)),
        "boxes have {0} coordinates per box, not 4",
        {getDimValue(rewriter, loc, boxes, 2)});
    emitRuntimeCheck(
        rewriter, loc, op,
        arith::OrIOp::create(
            rewriter, loc,
            m.cmp(Pred::ne, getDimValue(rewriter, loc, scores, 0), numBatches),
            m.cmp(Pred::ne, getDimValue(rewriter, loc, scores, 2), numBoxes)),
        "scores [{0}, _, {1}] do not match boxes [{2}, {3}, 4]",
        {getDimValue(rewriter, loc, scores, 0),
         getDimValue(rewriter, loc, scores, 2), numBatches, numBoxes});
    // Absent inputs: no box is kept (max 0), IoU threshold 0, no score
    // threshold.
    Value maxOut = m.c(0);
    if (Value v = adaptor.getMaxOutputBoxesPerClass())
      maxOut = m.max(scalarToIndex(rewriter, loc,
                                   extractScalar(rewriter, loc, v), nullptr),
                     m.c(0));
    Value iouThreshold =
        arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    if (Value v = adaptor.getIouThreshold())
      iouThreshold = extractScalar(rewriter, loc, v);
    Value scoreThreshold;
    if (Value v = adaptor.getScoreThreshold())
      scoreThreshold = extractScalar(rewriter, loc, v);

    // rank[b, c, i]: the boxes of (b, c) visited before box i.
    MLIRContext *ctx = getContext();
    auto rankType =
        RankedTensorType::get(scoresType.getShape(), rewriter.getIndexType());
    Value ranks0 = createFilled(rewriter, loc, rankType,
                                getDims(rewriter, loc, scores), m.c(0));
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    AffineMap self = AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx);
    AffineMap other = AffineMap::get(4, 0, {d(0), d(1), d(3)}, ctx);
    SmallVector<utils::IteratorType> iterators(3,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value ranks =
        linalg::GenericOp::create(
            rewriter, loc, rankType, ValueRange{scores, scores}, ranks0,
            ArrayRef<AffineMap>{self, other, self}, iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              IndexMath mm(b, l);
              Value s = args[0], o = args[1];
              Value higher = arith::CmpFOp::create(b, l, FPred::OGT, o, s);
              Value equal = arith::CmpFOp::create(b, l, FPred::OEQ, o, s);
              Value j = linalg::IndexOp::create(b, l, 3);
              Value i = linalg::IndexOp::create(b, l, 2);
              Value first = arith::OrIOp::create(
                  b, l, higher,
                  arith::AndIOp::create(b, l, equal, mm.cmp(Pred::slt, j, i)));
              linalg::YieldOp::create(
                  b, l, mm.add(args[2], mm.select(first, mm.c(1), mm.c(0))));
            })
            .getResult(0);

    // At most min(N, max) rows per (batch, class).
    Value perClass = m.min(numBoxes, maxOut);
    Value rows = m.mul(m.mul(numBatches, numClasses), perClass);
    auto fullType =
        RankedTensorType::get({ShapedType::kDynamic, 3}, rewriter.getI64Type());
    Value out0 = tensor::EmptyOp::create(rewriter, loc, fullType, rows);
    auto listType =
        RankedTensorType::get({ShapedType::kDynamic}, rewriter.getIndexType());
    bool center = centerPoint == 1;
    SmallVector<Value> written = loopNest(
        rewriter, loc, SmallVector<Value>{numBatches, numClasses},
        ValueRange{out0, m.c(0)},
        [&](OpBuilder &b, Location l, ValueRange bc,
            ValueRange iter) -> SmallVector<Value> {
          IndexMath mm(b, l);
          Value batch = bc[0], cls = bc[1];
          // order[r] = the box visited r-th.
          Value order0 = tensor::EmptyOp::create(b, l, listType, numBoxes);
          Value order = loopNest(
              b, l, numBoxes, order0,
              [&](OpBuilder &b2, Location l2, ValueRange i,
                  ValueRange it) -> SmallVector<Value> {
                Value r = tensor::ExtractOp::create(
                    b2, l2, ranks, ValueRange{batch, cls, i[0]});
                return {tensor::InsertOp::create(b2, l2, i[0], it[0], r)};
              })[0];
          Value kept0 = tensor::EmptyOp::create(b, l, listType, perClass);
          SmallVector<Value> scan = loopNest(
              b, l, numBoxes, ValueRange{iter[0], iter[1], kept0, mm.c(0)},
              [&](OpBuilder &b2, Location l2, ValueRange r,
                  ValueRange it) -> SmallVector<Value> {
                IndexMath m2(b2, l2);
                Value box = tensor::ExtractOp::create(b2, l2, order, r[0]);
                Value candidate = m2.cmp(Pred::slt, it[3], perClass);
                if (scoreThreshold) {
                  Value s = tensor::ExtractOp::create(
                      b2, l2, scores, ValueRange{batch, cls, box});
                  candidate = arith::AndIOp::create(
                      b2, l2, candidate,
                      arith::CmpFOp::create(b2, l2, FPred::OGT, s,
                                            scoreThreshold));
                }
                auto ifOp = scf::IfOp::create(b2, l2, it.getTypes(), candidate,
                                              /*withElseRegion=*/true);
                OpBuilder::InsertionGuard g(b2);
                b2.setInsertionPointToStart(ifOp.thenBlock());
                Corners c = readBox(b2, l2, boxes, batch, box, center);
                Value suppressed = loopNest(
                    b2, l2, it[3],
                    arith::ConstantIntOp::create(b2, l2, 0, 1).getResult(),
                    [&](OpBuilder &b3, Location l3, ValueRange k,
                        ValueRange s) -> SmallVector<Value> {
                      Value other =
                          tensor::ExtractOp::create(b3, l3, it[2], k[0]);
                      Corners a = readBox(b3, l3, boxes, batch, other, center);
                      return {arith::OrIOp::create(
                          b3, l3, s[0],
                          suppresses(b3, l3, a, c, iouThreshold))};
                    })[0];
                auto keepIf =
                    scf::IfOp::create(b2, l2, it.getTypes(), suppressed,
                                      /*withElseRegion=*/true);
                scf::YieldOp::create(b2, l2, keepIf.getResults());
                b2.setInsertionPointToStart(keepIf.thenBlock());
                scf::YieldOp::create(b2, l2, it);
                b2.setInsertionPointToStart(keepIf.elseBlock());
                {
                  IndexMath m3(b2, l2);
                  Value out = it[0];
                  Value row = it[1];
                  Value fields[3] = {batch, cls, box};
                  for (int64_t f = 0; f < 3; ++f)
                    out = tensor::InsertOp::create(
                        b2, l2,
                        arith::IndexCastOp::create(b2, l2, b2.getI64Type(),
                                                   fields[f]),
                        out, ValueRange{row, m3.c(f)});
                  Value kept =
                      tensor::InsertOp::create(b2, l2, box, it[2], it[3]);
                  scf::YieldOp::create(b2, l2,
                                       ValueRange{out, m3.add(row, m3.c(1)),
                                                  kept,
                                                  m3.add(it[3], m3.c(1))});
                }
                b2.setInsertionPointToStart(ifOp.elseBlock());
                scf::YieldOp::create(b2, l2, it);
                return SmallVector<Value>(ifOp.getResults());
              });
          return {scan[0], scan[1]};
        });
    Value result = tensor::ExtractSliceOp::create(
        rewriter, loc, written[0],
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                               rewriter.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{written[1], rewriter.getIndexAttr(3)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                               rewriter.getIndexAttr(1)});
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// RoiAlign-16/22: per output element (roi, channel, ph, pw) the bin's
/// sampling grid (sampling_ratio per side, or ceil(roi size / output size)
/// when 0) is read bilinearly as ONNX's reference reads it: samples outside
/// [-1, size] count 0, others are clamped into the image; avg divides the
/// sum by the grid size, max takes the largest weighted corner of any
/// sample. Computed in f32 (f64 for f64 data).
class RoiAlignLowering : public TensorPattern<ONNXRoiAlignOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXRoiAlignOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value x = adaptor.getX(), rois = adaptor.getRois(),
          batchIndices = adaptor.getBatchIndices();
    auto xType = getMovableRankedType(x);
    auto roisType = getMovableRankedType(rois);
    if (!type || !xType || !roisType || xType.getRank() != 4 ||
        roisType.getRank() != 2 || type.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "X [N, C, H, W], rois [R, 4]");
    StringRef mode = op.getMode(), ctm = op.getCoordinateTransformationMode();
    if ((mode != "avg" && mode != "max") ||
        (ctm != "half_pixel" && ctm != "output_half_pixel"))
      return rewriter.notifyMatchFailure(op, "mode or coordinate mode");
    bool halfPixel = ctm == "half_pixel", isMax = mode == "max";
    int64_t outH = op.getOutputHeight(), outW = op.getOutputWidth();
    int64_t ratio = op.getSamplingRatio();
    double scale = op.getSpatialScale().convertToDouble();
    if (outH < 1 || outW < 1 || ratio < 0)
      return rewriter.notifyMatchFailure(op, "output size or sampling ratio");
    Type onnxElem = getONNXElementType(op.getX());
    Type roiElem = getONNXElementType(op.getRois());
    Type ft = xType.getElementType().isF64() ? Type(rewriter.getF64Type())
                                             : Type(rewriter.getF32Type());
    IndexMath m(rewriter, loc);
    Value n = getDimValue(rewriter, loc, x, 0);
    Value height = getDimValue(rewriter, loc, x, 2);
    Value width = getDimValue(rewriter, loc, x, 3);
    Value numRois = getDimValue(rewriter, loc, batchIndices, 0);
    emitRuntimeCheck(
        rewriter, loc, op,
        arith::OrIOp::create(
            rewriter, loc,
            m.cmp(Pred::ne, getDimValue(rewriter, loc, rois, 0), numRois),
            m.cmp(Pred::ne, getDimValue(rewriter, loc, rois, 1), m.c(4))),
        "rois [{0}, {1}] do not match batch_indices [{2}] (rois [R, 4])",
        {getDimValue(rewriter, loc, rois, 0),
         getDimValue(rewriter, loc, rois, 1), numRois});
    emitIndexRangeCheck(rewriter, loc, op, batchIndices, n,
                        /*allowNegative=*/false, "of batch_indices");
    SmallVector<OpFoldResult> sizes{numRois, getDims(rewriter, loc, x)[1],
                                    rewriter.getIndexAttr(outH),
                                    rewriter.getIndexAttr(outW)};
    Value result = buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, sizes), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          auto c = [&](double v) { return createScalarConstant(b, l, ft, v); };
          auto add = [&](Value p, Value q) -> Value {
            return arith::AddFOp::create(b, l, p, q);
          };
          auto sub = [&](Value p, Value q) -> Value {
            return arith::SubFOp::create(b, l, p, q);
          };
          auto mul = [&](Value p, Value q) -> Value {
            return arith::MulFOp::create(b, l, p, q);
          };
          auto div = [&](Value p, Value q) -> Value {
            return arith::DivFOp::create(b, l, p, q);
          };
          auto toF = [&](Value i) { return indexToFloat(b, l, i, ft); };
          auto toIndex = [&](Value f) { return floatToIndex(b, l, f); };
          Value r = ivs[0], ch = ivs[1];
          auto roiAt = [&](int64_t k) {
            Value v =
                tensor::ExtractOp::create(b, l, rois, ValueRange{r, mm.c(k)});
            return sub(mul(castScalar(b, l, v, roiElem, ft), c(scale)),
                       c(halfPixel ? 0.5 : 0.0));
          };
          Value startW = roiAt(0), startH = roiAt(1);
          Value roiW = sub(roiAt(2), startW), roiH = sub(roiAt(3), startH);
          if (!halfPixel) {
            roiW = arith::MaximumFOp::create(b, l, roiW, c(1));
            roiH = arith::MaximumFOp::create(b, l, roiH, c(1));
          }
          Value binH = div(roiH, c(outH)), binW = div(roiW, c(outW));
          Value gridH = ratio > 0 ? mm.c(ratio)
                                  : toIndex(math::CeilOp::create(b, l, binH));
          Value gridW = ratio > 0 ? mm.c(ratio)
                                  : toIndex(math::CeilOp::create(b, l, binW));
          Value count = mm.max(mm.mul(gridH, gridW), mm.c(1));
          Value batch = arith::IndexCastOp::create(
              b, l, b.getIndexType(),
              tensor::ExtractOp::create(b, l, batchIndices, r));
          Value y0 = add(startH, mul(toF(ivs[2]), binH));
          Value x0 = add(startW, mul(toF(ivs[3]), binW));
          Value hF = toF(height), wF = toF(width);
          Value init = c(isMax ? -INFINITY : 0.0);
          Value acc = loopNest(
              b, l,
              SmallVector<Value>{mm.max(gridH, mm.c(0)),
                                 mm.max(gridW, mm.c(0))},
              ValueRange{init, arith::ConstantIntOp::create(b, l, 0, 1)},
              [&](OpBuilder &b2, Location l2, ValueRange g,
                  ValueRange it) -> SmallVector<Value> {
                // scf's loop builders hand `b` itself (positioned in the
                // loop body) to the body: the helpers above build there.
                assert(&b2 == &b && "loop body built with another builder");
                (void)b2;
                (void)l2;
                Value yy =
                    add(y0, div(mul(add(toF(g[0]), c(0.5)), binH), toF(gridH)));
                Value xx =
                    add(x0, div(mul(add(toF(g[1]), c(0.5)), binW), toF(gridW)));
                auto lt = [&](Value p, Value q) -> Value {
                  return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                               p, q);
                };
                auto gt = [&](Value p, Value q) -> Value {
                  return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                               p, q);
                };
                Value outside = arith::OrIOp::create(
                    b, l, arith::OrIOp::create(b, l, lt(yy, c(-1)), gt(yy, hF)),
                    arith::OrIOp::create(b, l, lt(xx, c(-1)), gt(xx, wF)));
                // Clamp into the image: low = floor(max(v, 0)), at the
                // last row/column both taps are that one.
                auto axis = [&](Value v, Value size, Value &lo, Value &hi,
                                Value &frac) {
                  v = arith::MaximumFOp::create(b, l, v, c(0));
                  Value last = mm.sub(size, mm.c(1));
                  Value low = toIndex(v);
                  Value atEnd = mm.cmp(Pred::sge, low, last);
                  lo = mm.select(atEnd, last, low);
                  hi = mm.select(atEnd, last, mm.add(low, mm.c(1)));
                  v = arith::SelectOp::create(b, l, atEnd, toF(last), v);
                  frac = sub(v, toF(lo));
                };
                Value yLo, yHi, ly, xLo, xHi, lx;
                axis(yy, height, yLo, yHi, ly);
                axis(xx, width, xLo, xHi, lx);
                // Outside: read (0, 0) with weight 0, as the reference.
                yLo = mm.select(outside, mm.c(0), yLo);
                yHi = mm.select(outside, mm.c(0), yHi);
                xLo = mm.select(outside, mm.c(0), xLo);
                xHi = mm.select(outside, mm.c(0), xHi);
                Value hy = sub(c(1), ly), hx = sub(c(1), lx);
                auto tap = [&](Value yi, Value xi, Value w) -> Value {
                  Value v = tensor::ExtractOp::create(
                      b, l, x, ValueRange{batch, ch, yi, xi});
                  w = arith::SelectOp::create(b, l, outside, c(0), w);
                  return mul(w, castScalar(b, l, v, onnxElem, ft));
                };
                Value t1 = tap(yLo, xLo, mul(hy, hx));
                Value t2 = tap(yLo, xHi, mul(hy, lx));
                Value t3 = tap(yHi, xLo, mul(ly, hx));
                Value t4 = tap(yHi, xHi, mul(ly, lx));
                if (!isMax)
                  return {add(it[0], add(add(t1, t2), add(t3, t4))), it[1]};
                Value v = arith::MaximumFOp::create(
                    b, l, arith::MaximumFOp::create(b, l, t1, t2),
                    arith::MaximumFOp::create(b, l, t3, t4));
                return {arith::MaximumFOp::create(b, l, it[0], v), it[1]};
              })[0];
          if (isMax) {
            // No sample (an empty grid): 0, as the reference.
            Value none = mm.cmp(Pred::sle, mm.mul(gridH, gridW), mm.c(0));
            acc = arith::SelectOp::create(b, l, none, c(0), acc);
          } else {
            acc = div(acc, toF(count));
          }
          return castScalar(b, l, acc, ft, onnxElem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateDetectionPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<NonMaxSuppressionLowering, RoiAlignLowering>(
      converter, patterns.getContext());
}
