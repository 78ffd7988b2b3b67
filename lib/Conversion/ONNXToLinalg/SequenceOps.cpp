//===- SequenceOps.cpp - SplitToSequence, ConcatFromSequence, Optional* ---===//
//
// The sequence ops that loop (SplitToSequence: a slice boxed per chunk;
// ConcatFromSequence: the total size along the axis summed over the
// tensors, each tensor's other dims checked against the first's, then each
// read into its subview of the result) and the optionals (a pointer, null
// for none), on the runtime calls of Sequence.cpp.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Pred = arith::CmpIPredicate;

Type ptrType(MLIRContext *ctx) { return LLVM::LLVMPointerType::get(ctx); }

Value toIndex(OpBuilder &b, Location loc, Value i64) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i64);
}

Value toI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

class SplitToSequenceLowering
    : public OpConversionPattern<ONNXSplitToSequenceOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXSplitToSequenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    auto type = getMovableRankedType(input);
    Type onnxElem = getONNXElementType(op.getInput());
    if (!type || type.getRank() == 0 || !seqCopyable(onnxElem))
      return rewriter.notifyMatchFailure(op, "ranked input of copyable type");
    int64_t rank = type.getRank(), axis = op.getAxis();
    if (axis < -rank || axis >= rank)
      return op.emitError() << "axis " << axis << " is out of range for rank "
                            << rank;
    if (axis < 0)
      axis += rank;
    Value split = adaptor.getSplit();
    auto splitType =
        split ? dyn_cast<RankedTensorType>(split.getType()) : nullptr;
    if (split && (!splitType || splitType.getRank() > 1))
      return rewriter.notifyMatchFailure(op, "split of rank 0 or 1");
    bool scalarSplit = splitType && splitType.getRank() == 0;
    bool squeeze = !split && op.getKeepdims() == 0;

    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    Type ptr = ptrType(getContext());
    Value dim = tensor::DimOp::create(rewriter, loc, input, axis);
    Value count = dim, chunk;
    Type splitElem = split ? getONNXElementType(op.getSplit()) : Type();
    if (scalarSplit) {
      chunk = scalarToIndex(rewriter, loc, extractScalar(rewriter, loc, split),
                            splitElem);
      emitRuntimeCheck(rewriter, loc, op,
                       m.cmp(Pred::sle, chunk, m.c(0)),
                       "split {0} is not positive", {chunk});
      count = m.div(m.add(dim, m.sub(chunk, m.c(1))), chunk);
    } else if (split) {
      count = tensor::DimOp::create(rewriter, loc, split, 0);
    }
    Value empty = seqCallRuntime(
        rewriter, loc, "onnxc_rt_seq_empty", ptr,
        arith::ConstantIntOp::create(rewriter, loc, seqDataType(onnxElem),
                                     32)
            .getResult());
    OpBuilder &b = rewriter;
    auto loop = seqFor(
        rewriter, loc, m.c(0), count, m.c(1), ValueRange{empty, m.c(0)},
        [&](Value i, ValueRange args) -> SmallVector<Value> {
          IndexMath bm(b, loc);
          Value offset = args[1], size = bm.c(1);
          if (scalarSplit) {
            size = bm.min(chunk, bm.sub(dim, offset));
          } else if (split) {
            Value s = tensor::ExtractOp::create(b, loc, split, i);
            size = scalarToIndex(b, loc, s, splitElem);
            Value bad = arith::OrIOp::create(
                b, loc, bm.cmp(Pred::slt, size, bm.c(0)),
                bm.cmp(Pred::sgt, bm.add(offset, size), dim));
            emitRuntimeCheck(b, loc, op, bad,
                             "split sizes run past the input's size {1} "
                             "along the axis (size {0} at offset {2})",
                             {size, dim, offset});
          }
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)),
              sizes = getDims(b, loc, input),
              strides(rank, b.getIndexAttr(1));
          offsets[axis] = offset;
          sizes[axis] = squeeze ? OpFoldResult(b.getIndexAttr(1))
                                : OpFoldResult(size);
          Value slice;
          if (squeeze) {
            SmallVector<int64_t> shape;
            for (int64_t d = 0; d < rank; ++d)
              if (d != axis)
                shape.push_back(type.getDimSize(d));
            auto sliceType = RankedTensorType::get(shape, type.getElementType());
            slice = tensor::ExtractSliceOp::create(b, loc, sliceType, input,
                                                   offsets, sizes, strides);
          } else {
            slice = tensor::ExtractSliceOp::create(b, loc, input, offsets,
                                                   sizes, strides);
          }
          Value item = seqBoxTensor(b, loc, slice, onnxElem);
          Value seq = seqCallRuntime(b, loc, "onnxc_rt_seq_insert", ptr,
                                     {args[0], toI64(b, loc, i), item});
          return {seq, bm.add(offset, size)};
        });
    if (split && !scalarSplit) {
      Value total = loop.getResult(1);
      emitRuntimeCheck(rewriter, loc, op, m.cmp(Pred::ne, total, dim),
                       "split sizes sum to {0}, the input's size along the "
                       "axis is {1}",
                       {total, dim});
    }
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

/// The tensors of sequence `seq` concatenated along `axis` (a new axis
/// there: stacked) into a tensor of `type` (its static dims checked). Each
/// tensor's dims must equal the first's but along the axis. `allowEmpty`: an
/// empty sequence gives a tensor of 0 along the axis and 0 for the dims
/// `type` leaves dynamic (a Loop's scan output after no iteration).
Value mlir::onnxc::buildConcatFromSequence(OpBuilder &rewriter, Location loc,
                                           Operation *op, Value seq, RankedTensorType type, int64_t axis,
                              bool newAxis, bool allowEmpty) {
  int64_t outRank = type.getRank(), inRank = outRank - (newAxis ? 1 : 0);
  IndexMath m(rewriter, loc);
  Type i64 = rewriter.getI64Type(), ptr = ptrType(rewriter.getContext());
  Value length =
      toIndex(rewriter, loc,
              seqCallRuntime(rewriter, loc, "onnxc_rt_seq_length", i64, seq));
  if (!allowEmpty)
    emitRuntimeCheck(rewriter, loc, op, m.cmp(Pred::eq, length, m.c(0)),
                     "concatenating an empty sequence");
  // The tensors' type: the result's without the new axis, dynamic along
  // the concatenated one (each tensor's dims are checked against it and
  // the first tensor's).
  SmallVector<int64_t> itemShape;
  for (int64_t d = 0; d < outRank; ++d)
    if (d != axis)
      itemShape.push_back(type.getDimSize(d));
    else if (!newAxis)
      itemShape.push_back(ShapedType::kDynamic);
  auto itemType = RankedTensorType::get(itemShape, type.getElementType());
  auto item = [&](OpBuilder &b, Location loc, Value i) {
    return seqCallRuntime(b, loc, "onnxc_rt_seq_item", ptr,
                          {seq, toI64(b, loc, i)});
  };
  SmallVector<OpFoldResult> first;
  if (!allowEmpty) {
    first = seqValueDims(rewriter, loc, op, item(rewriter, loc, m.c(0)),
                         itemType, "tensor 0 of the sequence");
  } else {
    // No tensor 0 to read when the sequence is empty: its dims are then
    // the type's, 0 where dynamic.
    SmallVector<Type> indexTypes(inRank, rewriter.getIndexType());
    auto ifOp = scf::IfOp::create(rewriter, loc, indexTypes,
                                  m.cmp(Pred::eq, length, m.c(0)),
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> none;
    for (int64_t d = 0; d < inRank; ++d)
      none.push_back(m.c(itemType.isDynamicDim(d) ? 0 : itemType.getDimSize(d)));
    scf::YieldOp::create(rewriter, loc, none);
    rewriter.setInsertionPointToStart(ifOp.elseBlock());
    SmallVector<Value> dims;
    for (OpFoldResult d :
         seqValueDims(rewriter, loc, op, item(rewriter, loc, m.c(0)),
                      itemType, "tensor 0 of the sequence"))
      dims.push_back(m.v(d));
    scf::YieldOp::create(rewriter, loc, dims);
    for (int64_t d = 0; d < inRank; ++d)
      first.push_back(itemType.isDynamicDim(d)
                          ? OpFoldResult(ifOp.getResult(d))
                          : OpFoldResult(rewriter.getIndexAttr(
                                itemType.getDimSize(d))));
  }
  // The size along the axis; the other dims equal the first tensor's.
  Value total = length;
  if (!newAxis) {
    OpBuilder &b = rewriter;
    auto sum = seqFor(
        rewriter, loc, m.c(0), length, m.c(1), ValueRange{m.c(0)},
        [&](Value i, ValueRange args) -> SmallVector<Value> {
          IndexMath bm(b, loc);
          SmallVector<OpFoldResult> dims = seqValueDims(
              b, loc, op, item(b, loc, i), itemType, "a tensor of the sequence");
          for (int64_t d = 0; d < inRank; ++d) {
            if (d == axis)
              continue;
            Value got = bm.v(dims[d]), want = bm.v(first[d]);
            emitRuntimeCheck(b, loc, op, bm.cmp(Pred::ne, got, want),
                             "tensor {0} of the sequence has size {1} in "
                             "dim " + Twine(d) + ", tensor 0 has {2}",
                             {i, got, want});
          }
          return {bm.add(args[0], bm.v(dims[axis]))};
        });
    total = sum.getResult(0);
  }
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  SmallVector<OpFoldResult> outDims;
  for (int64_t d = 0, k = 0; d < outRank; ++d) {
    if (d == axis) {
      outDims.push_back(total);
      if (!newAxis)
        ++k;
      continue;
    }
    outDims.push_back(first[k++]);
  }
  for (OpFoldResult size : outDims) {
    std::optional<int64_t> c = getConstantIntValue(size);
    shape.push_back(c ? *c : ShapedType::kDynamic);
    if (!c)
      dynamic.push_back(m.v(size));
  }
  auto memType = MemRefType::get(shape, type.getElementType());
  Value buffer = memref::AllocOp::create(rewriter, loc, memType, dynamic,
                                         rewriter.getI64IntegerAttr(64));
  OpBuilder &b = rewriter;
  seqFor(
      rewriter, loc, m.c(0), length, m.c(1), ValueRange{m.c(0)},
      [&](Value i, ValueRange args) -> SmallVector<Value> {
        IndexMath bm(b, loc);
        Value value = item(b, loc, i);
        SmallVector<OpFoldResult> offsets(outRank, b.getIndexAttr(0)),
            sizes, strides(outRank, b.getIndexAttr(1));
        Value size = bm.c(1);
        for (int64_t d = 0, k = 0; d < outRank; ++d) {
          if (d == axis && newAxis) {
            sizes.push_back(b.getIndexAttr(1));
            continue;
          }
          Value s = toIndex(
              b, loc,
              seqCallRuntime(b, loc, "onnxc_rt_tensor_dim", b.getI64Type(),
                             {value, arith::ConstantIntOp::create(b, loc, k, 64)
                                         .getResult()}));
          if (d == axis)
            size = s;
          sizes.push_back(s);
          ++k;
        }
        offsets[axis] = args[0];
        Value view;
        if (newAxis) {
          SmallVector<int64_t> reduced(inRank, ShapedType::kDynamic);
          auto viewType = memref::SubViewOp::inferRankReducedResultType(
              reduced, memType, offsets, sizes, strides);
          view = memref::SubViewOp::create(b, loc, viewType, buffer, offsets,
                                           sizes, strides);
        } else {
          view = memref::SubViewOp::create(b, loc, buffer, offsets, sizes,
                                           strides);
        }
        seqReadInto(b, loc, value, view);
        return {bm.add(args[0], size)};
      });
  auto fullType = RankedTensorType::get(shape, type.getElementType());
  Value result = bufferization::ToTensorOp::create(
      rewriter, loc, fullType, buffer, /*restrict=*/true, /*writable=*/true);
  if (fullType != type)
    result = tensor::CastOp::create(rewriter, loc, type, result);
  return result;
}

namespace {

class ConcatFromSequenceLowering
    : public TensorPattern<ONNXConcatFromSequenceOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXConcatFromSequenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = resultType(op);
    Type onnxElem = getONNXElementType(op.getConcatResult());
    if (!type || !seqCopyable(onnxElem))
      return rewriter.notifyMatchFailure(op, "ranked copyable result");
    bool newAxis = op.getNewAxis() != 0;
    int64_t outRank = type.getRank(), inRank = outRank - (newAxis ? 1 : 0);
    int64_t axis = op.getAxis();
    if (inRank < (newAxis ? 0 : 1) || axis < -outRank || axis >= outRank)
      return op.emitError() << "axis " << axis << " is out of range for "
                            << (newAxis ? "a new axis among " : "rank ")
                            << outRank << (newAxis ? " dims" : "");
    if (axis < 0)
      axis += outRank;
    rewriter.replaceOp(op, buildConcatFromSequence(
                               rewriter, op.getLoc(), op,
                               adaptor.getInputSequence(), type, axis, newAxis,
                               /*allowEmpty=*/false));
    return success();
  }
};

/// Optional(input): the input's pointer (a sequence), a boxed copy (a
/// tensor), or null (no input).
class OptionalLowering : public OpConversionPattern<ONNXOptionalOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXOptionalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    if (!input) {
      rewriter.replaceOpWithNewOp<LLVM::ZeroOp>(op, ptrType(getContext()));
      return success();
    }
    if (isa<LLVM::LLVMPointerType>(input.getType())) {
      rewriter.replaceOp(op, input);
      return success();
    }
    Type onnxElem = getONNXElementType(op.getInput());
    if (!isa<RankedTensorType>(input.getType()) || !seqCopyable(onnxElem))
      return rewriter.notifyMatchFailure(op, "ranked copyable tensor");
    rewriter.replaceOp(op, seqBoxTensor(rewriter, loc, input, onnxElem));
    return success();
  }
};

class OptionalHasElementLowering
    : public TensorPattern<ONNXOptionalHasElementOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXOptionalHasElementOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = resultType(op);
    if (!type || type.getRank() != 0)
      return rewriter.notifyMatchFailure(op, "scalar result");
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    Value has;
    if (!input) {
      has = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
    } else if (!isa<OptType>(op.getInput().getType())) {
      has = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
    } else {
      Value address = LLVM::PtrToIntOp::create(rewriter, loc,
                                               rewriter.getI64Type(), input);
      has = arith::CmpIOp::create(
          rewriter, loc, Pred::ne, address,
          arith::ConstantIntOp::create(rewriter, loc, 0, 64));
    }
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, type, has);
    return success();
  }
};

class OptionalGetElementLowering
    : public OpConversionPattern<ONNXOptionalGetElementOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXOptionalGetElementOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    if (!isa<OptType>(op.getInput().getType())) {
      rewriter.replaceOp(op, input); // a tensor or a sequence: itself
      return success();
    }
    Value address =
        LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), input);
    Value none = arith::CmpIOp::create(
        rewriter, loc, Pred::eq, address,
        arith::ConstantIntOp::create(rewriter, loc, 0, 64));
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (isa_and_nonnull<LLVM::LLVMPointerType>(resultType)) {
      emitRuntimeCheck(rewriter, loc, op, none, "the optional is empty");
      rewriter.replaceOp(op, input);
      return success();
    }
    auto type = dyn_cast_or_null<RankedTensorType>(resultType);
    if (!type || !seqCopyable(getONNXElementType(op.getOutput())))
      return rewriter.notifyMatchFailure(op, "ranked copyable result");
    emitRuntimeCheck(rewriter, loc, op, none, "the optional is empty");
    rewriter.replaceOp(op, seqUnboxTensor(rewriter, loc, op, input, type,
                                          "the optional's tensor"));
    return success();
  }
};

/// Identity of a sequence or an optional: the same pointer.
class ValueIdentityLowering : public OpConversionPattern<ONNXIdentityOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXIdentityOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<LLVM::LLVMPointerType>(adaptor.getInput().getType()))
      return rewriter.notifyMatchFailure(op, "not a sequence or optional");
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

/// SequenceMap -> an scf.for over the first sequence's length carrying the
/// output sequences: per iteration each sequence input's tensor is read out
/// and passed to the body (moved into the loop), whose results are boxed
/// and appended. The other sequence inputs' lengths are checked to match.
class SequenceMapLowering : public OpConversionPattern<ONNXSequenceMapOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXSequenceMapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    SmallVector<Value> inputs = {adaptor.getInputSequence()};
    llvm::append_range(inputs, adaptor.getAdditionalInputs());
    SmallVector<Value> onnxInputs = {op.getInputSequence()};
    llvm::append_range(onnxInputs, op.getAdditionalInputs());
    if (body.getNumArguments() != inputs.size())
      return rewriter.notifyMatchFailure(op, "body arity");
    // Each body argument: the tensor type it takes, converted.
    SmallVector<RankedTensorType> argTypes;
    for (BlockArgument arg : body.getArguments()) {
      auto t = dyn_cast_or_null<RankedTensorType>(
          getTypeConverter()->convertType(arg.getType()));
      if (!t || !seqCopyable(getElementTypeOrSelf(arg.getType())))
        return rewriter.notifyMatchFailure(op, "ranked tensor body arguments");
      argTypes.push_back(t);
    }
    Operation *yield = body.getTerminator();
    SmallVector<Type> resultElems;
    for (auto [i, result] : llvm::enumerate(op.getResults())) {
      Type elem = sequenceElementOf(result.getType());
      if (!seqCopyable(elem) ||
          !isa<RankedTensorType>(getTypeConverter()->convertType(
              yield->getOperand(i).getType())))
        return rewriter.notifyMatchFailure(op, "ranked tensor results");
      resultElems.push_back(elem);
    }
    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    Type i64 = rewriter.getI64Type(), ptr = ptrType(getContext());
    Value length = seqCallRuntime(rewriter, loc, "onnxc_rt_seq_length", i64,
                                  inputs[0]);
    for (unsigned j = 1; j < inputs.size(); ++j) {
      if (!isa<SeqType>(onnxInputs[j].getType()))
        continue;
      Value other = seqCallRuntime(rewriter, loc, "onnxc_rt_seq_length", i64,
                                   inputs[j]);
      emitRuntimeCheck(
          rewriter, loc, op,
          arith::CmpIOp::create(rewriter, loc, Pred::ne, other, length),
          "input " + Twine(j) + " is a sequence of length {0}, the first of "
                                "length {1}",
          {other, length});
    }
    SmallVector<Value> init;
    for (Type elem : resultElems)
      init.push_back(seqCallRuntime(
          rewriter, loc, "onnxc_rt_seq_empty", ptr,
          arith::ConstantIntOp::create(rewriter, loc, seqDataType(elem), 32)
              .getResult()));
    auto loop = scf::ForOp::create(rewriter, loc, m.c(0),
                                   toIndex(rewriter, loc, length), m.c(1), init);
    Block *loopBody = loop.getBody();
    if (!loopBody->empty())
      rewriter.eraseOp(&loopBody->back());
    rewriter.setInsertionPointToEnd(loopBody);
    Value i = toI64(rewriter, loc, loop.getInductionVar());
    SmallVector<Value> bodyArgs;
    for (auto [j, arg] : llvm::enumerate(body.getArguments())) {
      Value v = inputs[j];
      if (isa<SeqType>(onnxInputs[j].getType())) {
        Value item =
            seqCallRuntime(rewriter, loc, "onnxc_rt_seq_item", ptr, {v, i});
        v = seqUnboxTensor(rewriter, loc, op, item, argTypes[j],
                           "tensor of sequence input " + Twine(j));
      } else if (v.getType() != argTypes[j]) {
        v = tensor::CastOp::create(rewriter, loc, argTypes[j], v);
      }
      if (v.getType() != arg.getType())
        v = UnrealizedConversionCastOp::create(rewriter, loc, arg.getType(), v)
                .getResult(0);
      bodyArgs.push_back(v);
    }
    rewriter.mergeBlocks(&body, loopBody, bodyArgs);
    rewriter.setInsertionPoint(yield);
    SmallVector<Value> next;
    for (auto [k, value] : llvm::enumerate(yield->getOperands())) {
      Type type = getTypeConverter()->convertType(value.getType());
      Value tensor = value;
      if (type != value.getType())
        tensor = UnrealizedConversionCastOp::create(rewriter, loc, type, value)
                     .getResult(0);
      Value boxed = seqBoxTensor(rewriter, loc, tensor, resultElems[k]);
      next.push_back(seqCallRuntime(rewriter, loc, "onnxc_rt_seq_insert", ptr,
                                    {loop.getRegionIterArg(k), i, boxed}));
    }
    rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, next);
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }

private:
  static Type sequenceElementOf(Type t) {
    auto seq = dyn_cast<SeqType>(t);
    return seq ? getElementTypeOrSelf(seq.getElementType()) : Type();
  }
};

} // namespace

void mlir::onnxc::populateSequenceOpsPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<SplitToSequenceLowering, ConcatFromSequenceLowering,
               OptionalLowering, OptionalHasElementLowering,
               OptionalGetElementLowering, ValueIdentityLowering,
               SequenceMapLowering>(
      converter, patterns.getContext());
}
