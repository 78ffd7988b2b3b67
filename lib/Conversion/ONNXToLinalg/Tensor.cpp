//===- Tensor.cpp - Shape and data-movement onnx ops -> tensor and linalg -===//
//
// Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Shape, Size,
// ConstantOfShape, Expand, Tile, Split, DepthToSpace and SpaceToDepth.
// Shape-like operands (a Reshape's shape, ...) are read at compile time when
// constant and at run time otherwise; sizes that shape inference made static
// are taken from the result types. Slice and Pad live in Slice.cpp, Range,
// EyeLike and Trilu in Generators.cpp, gathers and scatters in Gather.cpp.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <functional>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Pred = arith::CmpIPredicate;

Value product(IndexMath &m, ArrayRef<OpFoldResult> dims) {
  Value p = m.c(1);
  for (OpFoldResult d : dims)
    p = m.mul(p, m.v(d));
  return p;
}

//===----------------------------------------------------------------------===//
// Reshape, Flatten, Squeeze, Unsqueeze
//===----------------------------------------------------------------------===//

/// Fails with an error on `op` where a static input's element count cannot
/// fill the result: the result's static dims hold a different count (all
/// static), or one that does not divide it.
LogicalResult checkStaticElementCount(Operation *op, RankedTensorType inType,
                                      RankedTensorType type) {
  if (!inType.hasStaticShape())
    return success();
  int64_t total = 1, known = 1;
  for (int64_t s : inType.getShape()) {
    std::optional<int64_t> next = llvm::checkedMul(total, s);
    if (!next)
      return success(); // Said at run time (the input cannot exist).
    total = *next;
  }
  for (int64_t s : type.getShape()) {
    if (ShapedType::isDynamic(s))
      continue;
    std::optional<int64_t> next = llvm::checkedMul(known, s);
    if (!next)
      return op->emitOpError() << "declares its result as " << type
                               << ": more than 2^63 elements, the input "
                               << inType << " has " << total;
    known = *next;
  }
  if (type.hasStaticShape() ? known != total
                            : (known == 0 ? total != 0 : total % known != 0))
    return op->emitOpError()
           << "declares its result as " << type << " ("
           << (type.hasStaticShape() ? "" : "a multiple of ") << known
           << " elements), but the input " << inType << " has " << total;
  return success();
}

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
    if (failed(checkStaticElementCount(op, dataType, type)))
      return failure();
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
    // The new shape holds exactly the input's elements (this also catches a
    // -1 whose division is inexact, and 0 or -1 used wrongly).
    IndexMath m(rewriter, loc);
    Value count = emitCheckedSizes(rewriter, loc, op,
                                   ArrayRef<OpFoldResult>(sizes), "the output");
    Value total = product(m, getDims(rewriter, loc, data));
    emitRuntimeCheck(rewriter, loc, op, m.cmp(Pred::ne, count, total),
                     "the new shape has {0} elements, the input has {1}",
                     {count, total});
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
      FailureOr<Value> cast = castOrReport(rewriter, loc, op, r, type);
      if (failed(cast))
        return failure();
      rewriter.replaceOp(op, *cast);
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
      for (int64_t i = 0; i < rank; ++i)
        squeezed[i] = inType.getDimSize(i) == 1;
    }
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, in), sizes;
    // Without axes, shape inference kept the dynamic dims (taken not to be
    // 1): one that is 1 at run time would have gone, so it is an error.
    if (!op.getAxes() || isa<NoneType>(op.getAxes().getType())) {
      IndexMath m(rewriter, loc);
      for (int64_t i = 0; i < rank; ++i)
        if (inType.isDynamicDim(i)) {
          Value dim = m.v(dims[i]);
          emitRuntimeCheck(
              rewriter, loc, op, m.cmp(Pred::eq, dim, m.c(1)),
              "Squeeze without axes: dim " + Twine(i) +
                  " of the input is 1 at run time, but the graph was "
                  "compiled with it kept (a dynamic dim is taken not to be "
                  "1); give the Squeeze its axes");
        }
    }
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
    SmallVector<int64_t> perm = getTransposePermutation(op, rank);
    if (int64_t(perm.size()) != rank)
      return rewriter.notifyMatchFailure(op, "bad perm");
    for (int64_t i = 0; i < rank; ++i) {
      int64_t from = inType.getDimSize(perm[i]), to = type.getDimSize(i);
      if (!ShapedType::isDynamic(from) && !ShapedType::isDynamic(to) &&
          from != to)
        return op.emitOpError()
               << "declares its result as " << type << ", but dim " << i
               << " is the input's dim " << perm[i] << ": " << from
               << " (the input is " << inType << ")";
    }
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
    // Every input has the first one's dims off the axis.
    for (auto [k, v] : llvm::enumerate(inputs.drop_front()))
      for (int64_t d = 0; d < rank; ++d) {
        if (d == axis)
          continue;
        Value x = getDimValue(rewriter, loc, v, d), y = m.v(sizes[d]);
        emitRuntimeCheck(rewriter, loc, op, m.cmp(Pred::ne, x, y),
                         "input " + Twine(k + 1) + " has size {0} in dim " +
                             Twine(d) + ", input 0 has {1}",
                         {x, y});
      }
    Value total = m.c(0);
    for (Value v : inputs)
      total = m.add(total, getDimValue(rewriter, loc, v, axis));
    sizes[axis] = getAsOpFoldResult(total);
    sizes = preferStatic(rewriter, type, sizes);
    // Each input is inserted at its offset along the axis: bufferization
    // makes each insert a copy into the result's buffer (onnxc-outline-
    // parallel-loops spreads the large ones over the threads).
    Value result = createEmpty(rewriter, loc, type, sizes);
    Value offset = m.c(0);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    for (Value v : inputs) {
      // An empty input inserts nothing (and its offset may be the end).
      if (llvm::is_contained(cast<RankedTensorType>(v.getType()).getShape(), 0))
        continue;
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = getAsOpFoldResult(offset);
      result = tensor::InsertSliceOp::create(rewriter, loc, v, result, offsets,
                                             getDims(rewriter, loc, v),
                                             strides);
      offset = m.add(offset, getDimValue(rewriter, loc, v, axis));
    }
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
      Value sum = m.c(0);
      for (auto [i, v] : llvm::enumerate(*values)) {
        lengths.push_back(m.v(v));
        emitRuntimeCheck(rewriter, loc, op,
                         m.cmp(Pred::slt, lengths.back(), m.c(0)),
                         "split " + Twine(i) + " is negative ({0})",
                         {lengths.back()});
        sum = m.add(sum, lengths.back());
      }
      emitRuntimeCheck(rewriter, loc, op, m.cmp(Pred::ne, sum, dim),
                       "the splits add up to {0}, the axis has {1}",
                       {sum, dim});
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
      emitCheckedSizes(rewriter, loc, op, ArrayRef<OpFoldResult>(sizes),
                       "the output");
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
      emitCheckedSizes(rewriter, loc, op, ArrayRef<OpFoldResult>(sizes),
                       "the output");
    }
    sizes = preferStatic(rewriter, type, sizes);
    // A static input dim that is not 1 must be the output's size where that
    // is known here (the run-time check below leaves such dims out).
    for (int64_t i = 0; i < inType.getRank(); ++i) {
      int64_t s = inType.getDimSize(i);
      std::optional<int64_t> out = getConstantIntValue(sizes[i + offset]);
      if (s != 1 && !ShapedType::isDynamic(s) && out && *out != s)
        return op.emitOpError()
               << "the input " << inType << " has " << s << " in dim " << i
               << ", which does not broadcast to the output's " << *out
               << " (the result is declared " << type << ")";
    }
    emitBroadcastCheck(rewriter, loc, op, in, sizes);
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
        emitRuntimeCheck(rewriter, loc, op,
                         m.cmp(Pred::slt, m.v((*repeats)[d]), m.c(0)),
                         "repeats[" + Twine(d) + "] is negative ({0})",
                         {m.v((*repeats)[d])});
      for (int64_t d = 0; d < rank; ++d)
        sizes[d] =
            getAsOpFoldResult(m.mul(m.v(dims[d]), m.v((*repeats)[d])));
      emitCheckedSizes(rewriter, loc, op, ArrayRef<OpFoldResult>(sizes),
                       "the output");
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
               DepthToSpaceLowering, SpaceToDepthLowering>(
      converter, patterns.getContext());
  populateSlicePatterns(converter, patterns);
  populateGeneratorPatterns(converter, patterns);
  populateGatherScatterPatterns(converter, patterns);
}
