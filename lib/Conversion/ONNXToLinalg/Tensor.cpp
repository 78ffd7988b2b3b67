//===- Tensor.cpp - Shape and data-movement onnx ops -> tensor and linalg -===//
//
// Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Shape, Size,
// ConstantOfShape, Expand, Tile, Slice, Split, Pad, Range, EyeLike, Trilu,
// DepthToSpace and SpaceToDepth. Shape-like operands (a Reshape's shape, a
// Slice's starts, ...) are read at compile time when constant and at run
// time otherwise; sizes that shape inference made static are taken from the
// result types. Gathers and scatters live in Gather.cpp.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <functional>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Pred = arith::CmpIPredicate;

/// Dims of `sizes`, preferring the static dims of `type`.
SmallVector<OpFoldResult> preferStatic(OpBuilder &b, RankedTensorType type,
                                       ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> r;
  for (int64_t i = 0; i < type.getRank(); ++i)
    r.push_back(type.isDynamicDim(i) ? sizes[i]
                                     : b.getIndexAttr(type.getDimSize(i)));
  return r;
}

Value product(IndexMath &m, ArrayRef<OpFoldResult> dims) {
  Value p = m.c(1);
  for (OpFoldResult d : dims)
    p = m.mul(p, m.v(d));
  return p;
}

//===----------------------------------------------------------------------===//
// Reshape, Flatten, Squeeze, Unsqueeze
//===----------------------------------------------------------------------===//

class ReshapeLowering : public TensorPattern<ONNXReshapeOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value data = adaptor.getData();
    auto dataType = dyn_cast<RankedTensorType>(data.getType());
    if (!type || !dataType)
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes;
    if (!type.hasStaticShape()) {
      auto shape =
          readIndexList(rewriter, loc, adaptor.getShape(), op.getShape());
      if (failed(shape) || int64_t(shape->size()) != rank)
        return rewriter.notifyMatchFailure(op, "shape length unknown");
      IndexMath m(rewriter, loc);
      SmallVector<OpFoldResult> inDims = getDims(rewriter, loc, data);
      // 0 copies the input dim (unless allowzero); -1 is inferred.
      SmallVector<Value> copied;
      for (int64_t i = 0; i < rank; ++i) {
        if (!type.isDynamicDim(i)) {
          copied.push_back(m.c(type.getDimSize(i)));
          continue;
        }
        Value s = m.v((*shape)[i]);
        if (!op.getAllowzero() && i < dataType.getRank())
          s = m.select(m.cmp(Pred::eq, s, m.c(0)), m.v(inDims[i]), s);
        copied.push_back(s);
      }
      Value total = product(m, inDims);
      for (int64_t i = 0; i < rank; ++i) {
        if (!type.isDynamicDim(i)) {
          sizes.push_back(rewriter.getIndexAttr(type.getDimSize(i)));
          continue;
        }
        std::optional<int64_t> c = getConstantIntValue((*shape)[i]);
        if (c && *c != -1) {
          sizes.push_back(getAsOpFoldResult(copied[i]));
          continue;
        }
        Value others = m.c(1);
        for (int64_t j = 0; j < rank; ++j)
          if (j != i)
            others = m.mul(others, copied[j]);
        Value inferred = m.div(total, m.max(others, m.c(1)));
        Value isMinusOne = m.cmp(Pred::eq, copied[i], m.c(-1));
        sizes.push_back(
            getAsOpFoldResult(m.select(isMinusOne, inferred, copied[i])));
      }
    } else {
      for (int64_t s : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(s));
    }
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, data, type, sizes));
    return success();
  }
};

class FlattenLowering : public TensorPattern<ONNXFlattenOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXFlattenOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!type || !inType || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t axis = normalizeAxis(op.getAxis(), inType.getRank());
    if (axis > 0 && axis < inType.getRank()) {
      ReassociationIndices outer, inner;
      for (int64_t i = 0; i < inType.getRank(); ++i)
        (i < axis ? outer : inner).push_back(i);
      Value r = tensor::CollapseShapeOp::create(
          rewriter, loc, in, ArrayRef<ReassociationIndices>{outer, inner});
      if (r.getType() != type)
        r = tensor::CastOp::create(rewriter, loc, type, r);
      rewriter.replaceOp(op, r);
      return success();
    }
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in);
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> sizes{
        getAsOpFoldResult(product(m, ArrayRef(dims).take_front(axis))),
        getAsOpFoldResult(product(m, ArrayRef(dims).drop_front(axis)))};
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, in, type,
                                     preferStatic(rewriter, type, sizes)));
    return success();
  }
};

class SqueezeLowering : public TensorPattern<ONNXSqueezeOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXSqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getData();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!type || !inType)
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t rank = inType.getRank();
    if (type.hasStaticShape()) {
      rewriter.replaceOp(op, reshapeTo(rewriter, loc, in, type, {}));
      return success();
    }
    SmallVector<bool> squeezed(rank, false);
    if (Value axes = op.getAxes(); axes && !isa<NoneType>(axes.getType())) {
      auto values = getConstantIntValues(axes);
      if (failed(values))
        return rewriter.notifyMatchFailure(op, "axes not constant");
      for (int64_t a : *values) {
        a = normalizeAxis(a, rank);
        if (a < 0 || a >= rank)
          return rewriter.notifyMatchFailure(op, "axis out of range");
        squeezed[a] = true;
      }
    } else {
      for (int64_t i = 0; i < rank; ++i) {
        if (inType.isDynamicDim(i))
          return rewriter.notifyMatchFailure(op, "which dims are 1 unknown");
        squeezed[i] = inType.getDimSize(i) == 1;
      }
    }
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in), sizes;
    for (int64_t i = 0; i < rank; ++i)
      if (!squeezed[i])
        sizes.push_back(dims[i]);
    if (int64_t(sizes.size()) != type.getRank())
      return rewriter.notifyMatchFailure(op, "result rank mismatch");
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, in, type,
                                     preferStatic(rewriter, type, sizes)));
    return success();
  }
};

class UnsqueezeLowering : public TensorPattern<ONNXUnsqueezeOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXUnsqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getData();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!type || !inType)
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    if (type.hasStaticShape()) {
      rewriter.replaceOp(op, reshapeTo(rewriter, loc, in, type, {}));
      return success();
    }
    auto values = getConstantIntValues(op.getAxes());
    if (failed(values))
      return rewriter.notifyMatchFailure(op, "axes not constant");
    int64_t rank = inType.getRank() + values->size();
    if (rank != type.getRank())
      return rewriter.notifyMatchFailure(op, "result rank mismatch");
    SmallVector<bool> inserted(rank, false);
    for (int64_t a : *values) {
      a = normalizeAxis(a, rank);
      if (a < 0 || a >= rank || inserted[a])
        return rewriter.notifyMatchFailure(op, "bad axes");
      inserted[a] = true;
    }
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in), sizes;
    unsigned next = 0;
    for (int64_t i = 0; i < rank; ++i)
      sizes.push_back(inserted[i] ? rewriter.getIndexAttr(1) : dims[next++]);
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, in, type,
                                     preferStatic(rewriter, type, sizes)));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Transpose, Concat, Split
//===----------------------------------------------------------------------===//

class TransposeLowering : public TensorPattern<ONNXTransposeOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getData();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!type || !inType || inType.getRank() != type.getRank())
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t rank = inType.getRank();
    SmallVector<int64_t> perm;
    if (auto attr = op.getPermAttr()) {
      for (Attribute a : attr)
        perm.push_back(cast<IntegerAttr>(a).getInt());
    } else {
      for (int64_t i = rank - 1; i >= 0; --i)
        perm.push_back(i);
    }
    if (int64_t(perm.size()) != rank)
      return rewriter.notifyMatchFailure(op, "bad perm");
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in), sizes;
    for (int64_t p : perm)
      sizes.push_back(dims[p]);
    Value init = createEmpty(rewriter, loc, type, sizes);
    rewriter.replaceOp(
        op, linalg::TransposeOp::create(rewriter, loc, in, init, perm)
                .getResult()[0]);
    return success();
  }
};

class ConcatLowering : public TensorPattern<ONNXConcatOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    if (!type)
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t rank = type.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    ValueRange inputs = adaptor.getInputs();
    for (Value v : inputs)
      if (!isa<RankedTensorType>(v.getType()) ||
          cast<RankedTensorType>(v.getType()).getRank() != rank)
        return rewriter.notifyMatchFailure(op, "operand ranks differ");
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, inputs[0]);
    Value total = m.c(0);
    for (Value v : inputs)
      total = m.add(total, getDimValue(rewriter, loc, v, axis));
    sizes[axis] = getAsOpFoldResult(total);
    sizes = preferStatic(rewriter, type, sizes);
    // One generic picks the input by the position along the axis. (Writing
    // each input with tensor.insert_slice would bufferize to strided
    // memref.copy, which needs the memrefCopy runtime function.)
    SmallVector<Value> starts;
    Value offset = m.c(0);
    for (Value v : inputs) {
      starts.push_back(offset);
      offset = m.add(offset, getDimValue(rewriter, loc, v, axis));
    }
    starts.push_back(offset);
    Type elem = type.getElementType();
    std::function<Value(OpBuilder &, Location, ValueRange, size_t)> pick =
        [&](OpBuilder &b, Location l, ValueRange ivs, size_t k) -> Value {
      IndexMath mm(b, l);
      SmallVector<Value> at(ivs);
      at[axis] = mm.sub(ivs[axis], starts[k]);
      if (k + 1 == inputs.size())
        return tensor::ExtractOp::create(b, l, inputs[k], at);
      Value inK = mm.cmp(Pred::slt, ivs[axis], starts[k + 1]);
      auto ifOp = scf::IfOp::create(b, l, TypeRange{elem}, inK,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(
          b, l, ValueRange{tensor::ExtractOp::create(b, l, inputs[k], at)});
      b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(b, l, ValueRange{pick(b, l, ivs, k + 1)});
      return ifOp.getResult(0);
    };
    Value result = buildIndexedGeneric(
        rewriter, loc, type, sizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
          return pick(b, l, ivs, 0);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

class SplitLowering : public TensorPattern<ONNXSplitOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXSplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value in = adaptor.getInput();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!inType || !isMovableElementType(inType.getElementType()))
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t rank = inType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    unsigned n = op.getNumResults();
    IndexMath m(rewriter, loc);
    Value dim = getDimValue(rewriter, loc, in, axis);
    SmallVector<Value> lengths;
    if (Value split = op.getSplit();
        split && !isa<NoneType>(split.getType())) {
      auto values = readIndexList(rewriter, loc, adaptor.getSplit(), split);
      if (failed(values) || values->size() != n)
        return rewriter.notifyMatchFailure(op, "split length unknown");
      for (OpFoldResult v : *values)
        lengths.push_back(m.v(v));
    } else {
      // Equal parts, the last one smaller when the dim does not divide.
      Value part = m.div(m.add(dim, m.c(n - 1)), m.c(n));
      Value offset = m.c(0);
      for (unsigned i = 0; i < n; ++i) {
        Value len = m.max(m.min(part, m.sub(dim, offset)), m.c(0));
        lengths.push_back(len);
        offset = m.add(offset, part);
      }
    }
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in);
    SmallVector<Value> results;
    Value offset = m.c(0);
    for (unsigned i = 0; i < n; ++i) {
      auto type = resultType(op, i);
      if (!type || type.getRank() != rank)
        return rewriter.notifyMatchFailure(op, "unranked result");
      SmallVector<OpFoldResult> sizes(dims);
      sizes[axis] = getAsOpFoldResult(lengths[i]);
      Value start = offset;
      results.push_back(buildIndexedGeneric(
          rewriter, loc, type, preferStatic(rewriter, type, sizes), {}, {},
          [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
            SmallVector<Value> at(ivs);
            at[axis] = IndexMath(b, l).add(ivs[axis], start);
            return tensor::ExtractOp::create(b, l, in, at);
          }));
      offset = m.add(offset, lengths[i]);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shape, Size, ConstantOfShape
//===----------------------------------------------------------------------===//

Value indexToI64(OpBuilder &b, Location loc, OpFoldResult v) {
  if (auto attr = dyn_cast<Attribute>(v))
    return arith::ConstantOp::create(
        b, loc, b.getI64IntegerAttr(cast<IntegerAttr>(attr).getInt()));
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), cast<Value>(v));
}

class ShapeLowering : public OpConversionPattern<ONNXShapeOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value in = adaptor.getData();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!inType)
      return rewriter.notifyMatchFailure(op, "unranked data");
    int64_t rank = inType.getRank();
    auto clampAxis = [&](int64_t a) {
      a = a < 0 ? a + rank : a;
      return std::clamp<int64_t>(a, 0, rank);
    };
    int64_t start = clampAxis(op.getStart());
    int64_t end = op.getEnd() ? clampAxis(*op.getEnd()) : rank;
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in);
    SmallVector<Value> elements;
    for (int64_t i = start; i < end; ++i)
      elements.push_back(indexToI64(rewriter, loc, dims[i]));
    auto type = RankedTensorType::get({int64_t(elements.size())},
                                      rewriter.getI64Type());
    Value result;
    if (elements.empty())
      result = tensor::EmptyOp::create(rewriter, loc, type, ValueRange{});
    else
      result = tensor::FromElementsOp::create(rewriter, loc, type, elements);
    Type expected = getTypeConverter()->convertType(op.getType());
    if (expected != type)
      result = tensor::CastOp::create(rewriter, loc, expected, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

class SizeLowering : public OpConversionPattern<ONNXSizeOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value in = adaptor.getData();
    auto type = getConvertedResultType(*getTypeConverter(), op);
    if (!isa<RankedTensorType>(in.getType()) || !type ||
        type.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "unranked data");
    IndexMath m(rewriter, loc);
    Value n = product(m, getDims(rewriter, loc, in));
    Value v = indexToI64(rewriter, loc, getAsOpFoldResult(n));
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, type,
                                                        ValueRange{v});
    return success();
  }
};

class ConstantOfShapeLowering
    : public TensorPattern<ONNXConstantOfShapeOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXConstantOfShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    if (!type)
      return rewriter.notifyMatchFailure(op, "unranked result");
    Type elem = type.getElementType();
    TypedAttr fill;
    if (auto value = op.getValueAttr()) {
      auto dense = dyn_cast<DenseElementsAttr>(value);
      if (!dense || dense.getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "value is not one element");
      Attribute a = *dense.value_begin<Attribute>();
      if (auto f = dyn_cast<FloatAttr>(a))
        fill = FloatAttr::get(elem, f.getValue());
      else if (auto i = dyn_cast<IntegerAttr>(a))
        fill = IntegerAttr::get(elem, i.getValue());
      else
        return rewriter.notifyMatchFailure(op, "unsupported value");
    } else {
      fill = rewriter.getZeroAttr(elem);
    }
    SmallVector<OpFoldResult> sizes;
    if (!type.hasStaticShape()) {
      auto shape =
          readIndexList(rewriter, loc, adaptor.getInput(), op.getInput());
      if (failed(shape) || int64_t(shape->size()) != type.getRank())
        return rewriter.notifyMatchFailure(op, "shape length unknown");
      sizes = *shape;
    } else {
      sizes.assign(type.getRank(), rewriter.getIndexAttr(0));
    }
    Value v = arith::ConstantOp::create(rewriter, loc, fill);
    rewriter.replaceOp(op, createFilled(rewriter, loc, type,
                                        preferStatic(rewriter, type, sizes),
                                        v));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Expand, Tile
//===----------------------------------------------------------------------===//

class ExpandLowering : public TensorPattern<ONNXExpandOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!type || !inType || inType.getRank() > type.getRank())
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t rank = type.getRank(), offset = rank - inType.getRank();
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> sizes(rank, rewriter.getIndexAttr(1));
    if (!type.hasStaticShape()) {
      auto shape =
          readIndexList(rewriter, loc, adaptor.getShape(), op.getShape());
      if (failed(shape))
        return rewriter.notifyMatchFailure(op, "shape length unknown");
      int64_t shapeOffset = rank - int64_t(shape->size());
      for (int64_t d = 0; d < rank; ++d) {
        if (!type.isDynamicDim(d))
          continue;
        int64_t s = d - shapeOffset, i = d - offset;
        Value size = s >= 0 ? m.v((*shape)[s]) : m.c(1);
        if (i >= 0) {
          Value inDim = getDimValue(rewriter, loc, in, i);
          size = m.select(m.cmp(Pred::eq, size, m.c(1)), inDim, size);
        }
        sizes[d] = getAsOpFoldResult(size);
      }
    }
    sizes = preferStatic(rewriter, type, sizes);
    // Input dims of static size index the result directly or broadcast;
    // dynamic ones broadcast when they are 1 at run time.
    bool dynamicIn = !inType.hasStaticShape();
    if (!dynamicIn) {
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < inType.getRank(); ++i)
        exprs.push_back(inType.getDimSize(i) == 1
                            ? rewriter.getAffineConstantExpr(0)
                            : rewriter.getAffineDimExpr(i + offset));
      AffineMap map = AffineMap::get(rank, 0, exprs, getContext());
      Value r = buildIndexedGeneric(
          rewriter, loc, type, sizes, in, map,
          [](OpBuilder &, Location, ValueRange, ValueRange args) {
            return args[0];
          });
      rewriter.replaceOp(op, r);
      return success();
    }
    SmallVector<Value> isOne;
    for (int64_t i = 0; i < inType.getRank(); ++i)
      isOne.push_back(m.cmp(Pred::eq, getDimValue(rewriter, loc, in, i),
                            m.c(1)));
    Value r = buildIndexedGeneric(
        rewriter, loc, type, sizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          SmallVector<Value> idx;
          for (int64_t i = 0; i < inType.getRank(); ++i)
            idx.push_back(mm.select(isOne[i], mm.c(0), ivs[i + offset]));
          return tensor::ExtractOp::create(b, l, in, idx);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

class TileLowering : public TensorPattern<ONNXTileOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!type || !inType || inType.getRank() != type.getRank())
      return rewriter.notifyMatchFailure(op, "unranked or string data");
    int64_t rank = type.getRank();
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in);
    SmallVector<OpFoldResult> sizes(rank, rewriter.getIndexAttr(0));
    if (!type.hasStaticShape()) {
      auto repeats =
          readIndexList(rewriter, loc, adaptor.getRepeats(), op.getRepeats());
      if (failed(repeats) || int64_t(repeats->size()) != rank)
        return rewriter.notifyMatchFailure(op, "repeats length unknown");
      for (int64_t d = 0; d < rank; ++d)
        sizes[d] =
            getAsOpFoldResult(m.mul(m.v(dims[d]), m.v((*repeats)[d])));
    }
    sizes = preferStatic(rewriter, type, sizes);
    SmallVector<Value> inDims;
    for (int64_t d = 0; d < rank; ++d)
      inDims.push_back(m.v(dims[d]));
    Value r = buildIndexedGeneric(
        rewriter, loc, type, sizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          SmallVector<Value> idx;
          for (int64_t d = 0; d < rank; ++d)
            idx.push_back(mm.rem(ivs[d], inDims[d]));
          return tensor::ExtractOp::create(b, l, in, idx);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

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
      Value axis = m.wrapNegative(m.v(axes[i]), m.c(rank));
      for (int64_t d = 0; d < rank; ++d)
        sliceDim(i, d, m.cmp(Pred::eq, axis, m.c(d)));
    }
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
    if (failed(pads) || int64_t(pads->size()) != 2 * rank)
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
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in), sizes;
    SmallVector<Value> before, inDims;
    for (int64_t d = 0; d < rank; ++d) {
      OpFoldResult b = (*pads)[d], e = (*pads)[d + rank];
      before.push_back(m.v(b));
      inDims.push_back(m.v(dims[d]));
      sizes.push_back(
          getAsOpFoldResult(m.add(m.add(m.v(dims[d]), m.v(b)), m.v(e))));
    }
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

//===----------------------------------------------------------------------===//
// Range, EyeLike, Trilu
//===----------------------------------------------------------------------===//

class RangeLowering : public TensorPattern<ONNXRangeOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXRangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    if (!type || type.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "unranked result");
    Type elem = type.getElementType();
    bool isFloat = isa<FloatType>(elem);
    Value start = extractScalar(rewriter, loc, adaptor.getStart());
    Value limit = extractScalar(rewriter, loc, adaptor.getLimit());
    Value delta = extractScalar(rewriter, loc, adaptor.getDelta());
    SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(type.getDimSize(0))};
    if (type.isDynamicDim(0)) {
      // max(ceil((limit - start) / delta), 0), computed in f64.
      Type f64 = rewriter.getF64Type();
      auto toF64 = [&](Value v) { return castScalar(rewriter, loc, v, elem, f64); };
      Value q = arith::DivFOp::create(
          rewriter, loc,
          arith::SubFOp::create(rewriter, loc, toF64(limit), toF64(start)),
          toF64(delta));
      q = math::CeilOp::create(rewriter, loc, q);
      Value n = arith::FPToSIOp::create(rewriter, loc, rewriter.getI64Type(), q);
      IndexMath m(rewriter, loc);
      sizes[0] = getAsOpFoldResult(
          m.max(scalarToIndex(rewriter, loc, n, nullptr), m.c(0)));
    }
    Value r = buildIndexedGeneric(
        rewriter, loc, type, sizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), ivs[0]);
          if (isFloat) {
            Value fi = castScalar(b, l, i, b.getI64Type(), elem);
            return arith::AddFOp::create(
                b, l, start, arith::MulFOp::create(b, l, fi, delta));
          }
          Value ii = castScalar(b, l, i, b.getI64Type(), elem);
          return arith::AddIOp::create(b, l, start,
                                       arith::MulIOp::create(b, l, ii, delta));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

class EyeLikeLowering : public TensorPattern<ONNXEyeLikeOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXEyeLikeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput();
    if (!type || type.getRank() != 2 || !isa<RankedTensorType>(in.getType()))
      return rewriter.notifyMatchFailure(op, "not 2-D");
    Type elem = type.getElementType();
    int64_t k = op.getK();
    Value r = buildIndexedGeneric(
        rewriter, loc, type,
        preferStatic(rewriter, type, getDims(rewriter, loc, in)), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          Value onDiag =
              mm.cmp(Pred::eq, mm.sub(ivs[1], ivs[0]), mm.c(k));
          return arith::SelectOp::create(b, l, onDiag,
                                         createScalarConstant(b, l, elem, 1),
                                         createScalarConstant(b, l, elem, 0));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

class TriluLowering : public TensorPattern<ONNXTriluOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXTriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput();
    if (!type || type.getRank() < 2 || in.getType() != type)
      return rewriter.notifyMatchFailure(op, "rank below 2");
    int64_t rank = type.getRank();
    Value k = arith::ConstantIndexOp::create(rewriter, loc, 0);
    if (Value kv = op.getK(); kv && !isa<NoneType>(kv.getType()))
      k = scalarToIndex(rewriter, loc, extractScalar(rewriter, loc, adaptor.getK()),
                        nullptr);
    bool upper = op.getUpper();
    Type elem = type.getElementType();
    Value r = buildIndexedGeneric(
        rewriter, loc, type, getDims(rewriter, loc, in), in, {},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> Value {
          IndexMath mm(b, l);
          Value diff = mm.sub(ivs[rank - 1], ivs[rank - 2]);
          Value keep = mm.cmp(upper ? Pred::sge : Pred::sle, diff, k);
          Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(elem));
          return arith::SelectOp::create(b, l, keep, args[0], zero);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// DepthToSpace, SpaceToDepth
//===----------------------------------------------------------------------===//

class DepthToSpaceLowering : public TensorPattern<ONNXDepthToSpaceOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXDepthToSpaceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!type || !inType || inType.getRank() != 4 || type.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "not 4-D");
    int64_t bs = op.getBlocksize();
    bool dcr = op.getMode() != "CRD";
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in);
    Value outC = m.div(m.v(dims[1]), m.c(bs * bs));
    SmallVector<OpFoldResult> sizes{
        dims[0], getAsOpFoldResult(outC),
        getAsOpFoldResult(m.mul(m.v(dims[2]), m.c(bs))),
        getAsOpFoldResult(m.mul(m.v(dims[3]), m.c(bs)))};
    Value r = buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, sizes), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          Value bsv = mm.c(bs);
          Value i = mm.rem(ivs[2], bsv), j = mm.rem(ivs[3], bsv);
          Value h = mm.div(ivs[2], bsv), w = mm.div(ivs[3], bsv);
          Value blk = mm.add(mm.mul(i, bsv), j);
          Value c = dcr ? mm.add(mm.mul(blk, outC), ivs[1])
                        : mm.add(mm.mul(ivs[1], mm.c(bs * bs)), blk);
          return tensor::ExtractOp::create(b, l, in,
                                           ValueRange{ivs[0], c, h, w});
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

class SpaceToDepthLowering : public TensorPattern<ONNXSpaceToDepthOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXSpaceToDepthOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value in = adaptor.getInput();
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!type || !inType || inType.getRank() != 4 || type.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "not 4-D");
    int64_t bs = op.getBlocksize();
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in);
    Value inC = m.v(dims[1]);
    SmallVector<OpFoldResult> sizes{
        dims[0], getAsOpFoldResult(m.mul(inC, m.c(bs * bs))),
        getAsOpFoldResult(m.div(m.v(dims[2]), m.c(bs))),
        getAsOpFoldResult(m.div(m.v(dims[3]), m.c(bs)))};
    Value r = buildIndexedGeneric(
        rewriter, loc, type, preferStatic(rewriter, type, sizes), {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          IndexMath mm(b, l);
          Value bsv = mm.c(bs);
          // Output channel = (i * bs + j) * C + c.
          Value c = mm.rem(ivs[1], inC);
          Value blk = mm.div(ivs[1], inC);
          Value i = mm.div(blk, bsv), j = mm.rem(blk, bsv);
          Value h = mm.add(mm.mul(ivs[2], bsv), i);
          Value w = mm.add(mm.mul(ivs[3], bsv), j);
          return tensor::ExtractOp::create(b, l, in,
                                           ValueRange{ivs[0], c, h, w});
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateTensorPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<ReshapeLowering, FlattenLowering, SqueezeLowering,
               UnsqueezeLowering, TransposeLowering, ConcatLowering,
               SplitLowering, ShapeLowering, SizeLowering,
               ConstantOfShapeLowering, ExpandLowering, TileLowering,
               SliceLowering, PadLowering, RangeLowering, EyeLikeLowering,
               TriluLowering, DepthToSpaceLowering, SpaceToDepthLowering>(
      converter, patterns.getContext());
  populateGatherScatterPatterns(converter, patterns);
}
