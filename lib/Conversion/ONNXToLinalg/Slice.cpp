//===- Slice.cpp - Slice and Pad -> linalg --------------------------------===//
//
// Slice (constant or run-time starts, ends, axes and steps; negative steps)
// and Pad (constant, reflect, edge and wrap modes).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// An axis read at run time, negative ones counted from the back: checked
/// to lie in [0, rank) (the failure names the value).
Value checkedRuntimeAxis(OpBuilder &b, Location loc, Operation *op,
                         Value axis, int64_t rank) {
  IndexMath m(b, loc);
  axis = m.wrapNegative(axis, m.c(rank));
  emitRuntimeCheck(
      b, loc, op,
      arith::OrIOp::create(b, loc,
                           m.cmp(arith::CmpIPredicate::slt, axis, m.c(0)),
                           m.cmp(arith::CmpIPredicate::sge, axis, m.c(rank))),
      "axis {0} (after adding the rank to a negative one) is outside [0, " +
          Twine(rank) + ")",
      {axis});
  return axis;
}

using Pred = arith::CmpIPredicate;

//===----------------------------------------------------------------------===//
// Slice, Pad
//===----------------------------------------------------------------------===//

class SliceLowering : public TensorPattern<ONNXSliceOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getData();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!type || !inType || inType.getRank() != type.getRank())
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t rank = type.getRank();
    auto starts =
        readIndexList(rewriter, loc, adaptor.getStarts(), op.getStarts());
    auto ends = readIndexList(rewriter, loc, adaptor.getEnds(), op.getEnds());
    if (failed(starts) || failed(ends) || starts->size() != ends->size())
      return rewriter.notifyMatchFailure(op, "starts/ends length unknown");
    size_t n = starts->size();
    // Axes are usually constant; run-time axes pick each dim's slice
    // parameters with selects.
    SmallVector<OpFoldResult> axes;
    bool constantAxes = true;
    if (Value a = op.getAxes(); a && !isa<NoneType>(a.getType())) {
      auto values = readIndexList(rewriter, loc, adaptor.getAxes(), a);
      if (failed(values) || values->size() != n)
        return rewriter.notifyMatchFailure(op, "axes length unknown");
      for (OpFoldResult x : *values) {
        std::optional<int64_t> c = getConstantIntValue(x);
        if (!c) {
          constantAxes = false;
          axes.push_back(x);
          continue;
        }
        int64_t d = normalizeAxis(*c, rank);
        if (d < 0 || d >= rank)
          return rewriter.notifyMatchFailure(op, "axis out of range");
        axes.push_back(rewriter.getIndexAttr(d));
      }
    } else {
      for (size_t i = 0; i < n; ++i)
        axes.push_back(rewriter.getIndexAttr(i));
    }
    SmallVector<OpFoldResult> steps(n, rewriter.getIndexAttr(1));
    if (Value s = op.getSteps(); s && !isa<NoneType>(s.getType())) {
      auto values = readIndexList(rewriter, loc, adaptor.getSteps(), s);
      if (failed(values) || values->size() != n)
        return rewriter.notifyMatchFailure(op, "steps length unknown");
      steps = *values;
    }
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes(dims);
    // Sets dim d's (offset, stride, size) from slice i, where `applies`
    // (null: always) says whether slice i is on dim d.
    auto sliceDim = [&](size_t i, int64_t d, Value applies) {
      Value dim = m.v(dims[d]);
      Value step = m.v(steps[i]);
      std::optional<int64_t> constStep = getConstantIntValue(steps[i]);
      if ((!applies || d == 0) && (!constStep || *constStep == 0))
        emitRuntimeCheck(rewriter, loc, op, m.cmp(Pred::eq, step, m.c(0)),
                         "step " + Twine(i) + " is 0");
      Value neg = m.cmp(Pred::slt, step, m.c(0));
      Value start = m.wrapNegative(m.v((*starts)[i]), dim);
      Value end = m.wrapNegative(m.v((*ends)[i]), dim);
      // Positive steps clamp to [0, dim], negative ones to [-1, dim - 1].
      Value dimM1 = m.sub(dim, m.c(1));
      start = m.select(neg, m.clamp(start, m.c(0), dimM1),
                       m.clamp(start, m.c(0), dim));
      end = m.select(neg, m.clamp(end, m.c(-1), dimM1),
                     m.clamp(end, m.c(0), dim));
      // ceil((end - start) / step), at least 0.
      Value absStep = m.select(neg, m.sub(m.c(0), step), step);
      Value span = m.select(neg, m.sub(start, end), m.sub(end, start));
      Value size = m.max(
          m.div(m.add(span, m.sub(absStep, m.c(1))), absStep), m.c(0));
      if (applies) {
        start = m.select(applies, start, m.v(offsets[d]));
        step = m.select(applies, step, m.v(strides[d]));
        size = m.select(applies, size, m.v(sizes[d]));
      }
      offsets[d] = getAsOpFoldResult(start);
      strides[d] = getAsOpFoldResult(step);
      sizes[d] = getAsOpFoldResult(size);
    };
    for (size_t i = 0; i < n; ++i) {
      if (constantAxes) {
        sliceDim(i, *getConstantIntValue(axes[i]), nullptr);
        continue;
      }
      Value axis = checkedRuntimeAxis(rewriter, loc, op, m.v(axes[i]), rank);
      for (int64_t d = 0; d < rank; ++d)
        sliceDim(i, d, m.cmp(Pred::eq, axis, m.c(d)));
    }
    emitComputedSizesCheck(rewriter, loc, op, sizes, type, "the slice has");
    sizes = preferStatic(rewriter, type, sizes);
    SmallVector<Value> offsetValues, strideValues;
    for (int64_t d = 0; d < rank; ++d) {
      offsetValues.push_back(m.v(offsets[d]));
      strideValues.push_back(m.v(strides[d]));
    }
    Value r = buildIndexedGeneric(
        rewriter, loc, type, sizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          SmallVector<Value> idx;
          for (int64_t d = 0; d < rank; ++d)
            idx.push_back(
                mm.add(offsetValues[d], mm.mul(ivs[d], strideValues[d])));
          return tensor::ExtractOp::create(b, l, in, idx);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

class PadLowering : public TensorPattern<ONNXPadOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXPadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getData();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!type || !inType || inType.getRank() != type.getRank())
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t rank = type.getRank();
    StringRef mode = op.getMode();
    if (mode != "constant" && mode != "edge" && mode != "reflect" &&
        mode != "wrap")
      return rewriter.notifyMatchFailure(op, "unknown mode");
    auto pads = readIndexList(rewriter, loc, adaptor.getPads(), op.getPads());
    // Pad-18 `axes`: the dims the pads refer to (every dim when absent).
    Value axesIn = op.getAxes();
    bool hasAxes = axesIn && !isa<NoneType>(axesIn.getType());
    FailureOr<SmallVector<OpFoldResult>> axes;
    if (hasAxes) {
      axes = readIndexList(rewriter, loc, adaptor.getAxes(), axesIn);
      if (failed(axes))
        return rewriter.notifyMatchFailure(op, "axes length unknown");
    }
    int64_t numAxes = hasAxes ? int64_t(axes->size()) : rank;
    if (failed(pads) || int64_t(pads->size()) != 2 * numAxes)
      return rewriter.notifyMatchFailure(op, "pads length unknown");
    Type elem = type.getElementType();
    Value padValue;
    if (Value cv = op.getConstantValue();
        cv && !isa<NoneType>(cv.getType()) && mode == "constant") {
      auto cvType = dyn_cast<RankedTensorType>(adaptor.getConstantValue().getType());
      if (!cvType || cvType.getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "constant_value not a scalar");
      padValue = extractScalar(rewriter, loc, adaptor.getConstantValue());
    } else {
      padValue = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getZeroAttr(elem));
    }
    IndexMath m(rewriter, loc);
    // Per dim: the pads before and after it, through the axes.
    SmallVector<OpFoldResult> padBefore(rank, rewriter.getIndexAttr(0)),
        padAfter(rank, rewriter.getIndexAttr(0));
    for (int64_t i = 0; i < numAxes; ++i) {
      OpFoldResult b = (*pads)[i], e = (*pads)[i + numAxes];
      if (!hasAxes) {
        padBefore[i] = b;
        padAfter[i] = e;
        continue;
      }
      if (std::optional<int64_t> a = getConstantIntValue((*axes)[i])) {
        int64_t d = *a < 0 ? *a + rank : *a;
        if (d < 0 || d >= rank)
          return op.emitError() << "'onnx.Pad': axis " << *a
                                << " is outside [" << -rank << ", " << rank
                                << ")";
        padBefore[d] = b;
        padAfter[d] = e;
        continue;
      }
      // A run-time axis: checked, then each dim takes the pads where it is
      // the one named.
      Value axis =
          checkedRuntimeAxis(rewriter, loc, op, m.v((*axes)[i]), rank);
      for (int64_t d = 0; d < rank; ++d) {
        Value named = m.cmp(Pred::eq, axis, m.c(d));
        padBefore[d] = m.select(named, m.v(b), m.v(padBefore[d]));
        padAfter[d] = m.select(named, m.v(e), m.v(padAfter[d]));
      }
    }
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in), sizes;
    SmallVector<Value> before, inDims;
    for (int64_t d = 0; d < rank; ++d) {
      OpFoldResult b = padBefore[d], e = padAfter[d];
      before.push_back(m.v(b));
      inDims.push_back(m.v(dims[d]));
      sizes.push_back(
          getAsOpFoldResult(m.add(m.add(m.v(dims[d]), m.v(b)), m.v(e))));
    }
    // Run-time pads: no negative size, and the static dims of the result
    // type must be what the pads give.
    emitComputedSizesCheck(rewriter, loc, op, sizes, type, "the pads give");
    emitCheckedSizes(rewriter, loc, op, ArrayRef<OpFoldResult>(sizes),
                     "the output");
    sizes = preferStatic(rewriter, type, sizes);
    // One generic reading the input at computed indices (also handles
    // negative pads); fill + insert_slice would bufferize to a strided
    // memref.copy, which needs the memrefCopy runtime function.
    Value r = buildIndexedGeneric(
        rewriter, loc, type, sizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          SmallVector<Value> idx;
          Value inside;
          for (int64_t d = 0; d < rank; ++d) {
            Value n = inDims[d];
            Value i = mm.sub(ivs[d], before[d]);
            Value lastIdx = mm.sub(n, mm.c(1));
            if (mode == "constant") {
              Value ok = arith::AndIOp::create(
                  b, l, mm.cmp(Pred::sge, i, mm.c(0)),
                  mm.cmp(Pred::slt, i, n));
              inside = inside ? arith::AndIOp::create(b, l, inside, ok) : ok;
              i = mm.clamp(i, mm.c(0), lastIdx);
            } else if (mode == "edge") {
              i = mm.clamp(i, mm.c(0), lastIdx);
            } else if (mode == "reflect") {
              // Mirror without repeating the edge; period 2 * (n - 1).
              Value period = mm.max(mm.mul(lastIdx, mm.c(2)), mm.c(1));
              Value a = mm.rem(i, period);
              a = mm.select(mm.cmp(Pred::slt, a, mm.c(0)), mm.add(a, period),
                            a);
              i = mm.select(mm.cmp(Pred::sgt, a, lastIdx),
                            mm.sub(period, a), a);
            } else { // wrap
              Value a = mm.rem(i, n);
              i = mm.select(mm.cmp(Pred::slt, a, mm.c(0)), mm.add(a, n), a);
            }
            idx.push_back(i);
          }
          Value v = tensor::ExtractOp::create(b, l, in, idx);
          if (inside)
            v = arith::SelectOp::create(b, l, inside, v, padValue);
          return v;
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateSlicePatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<SliceLowering, PadLowering>(converter, patterns.getContext());
}
