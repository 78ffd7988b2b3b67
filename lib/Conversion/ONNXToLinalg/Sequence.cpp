//===- Sequence.cpp - Sequence* and Optional* -> runtime calls ------------===//
//
// A sequence or an optional is a pointer (`!llvm.ptr`, the type converter's
// image of `!onnx.seq` and `!onnx.opt`) to a value of the runtime
// (lib/Runtime/onnxc_values.c): a sequence holds tensors of any shapes; an
// optional is its content or null. Values are immutable, so an insertion
// makes a new sequence and every op here is a call:
//
//   onnxc_rt_seq_empty(i32 dtype) -> ptr
//   onnxc_rt_seq_length(ptr) -> i64
//   onnxc_rt_seq_item(ptr, i64 position) -> ptr
//   onnxc_rt_seq_insert(ptr, i64 position, ptr tensor) -> ptr
//   onnxc_rt_seq_erase(ptr, i64 position) -> ptr
//   onnxc_rt_tensor_rank(ptr) -> i64, onnxc_rt_tensor_dim(ptr, i64) -> i64
//   onnxc_rt_tensor_box_<T>(i32 dtype, memref<*xT>) -> ptr   (copies in)
//   onnxc_rt_tensor_read_<T>(ptr, memref<*xT>)              (copies out)
//
// Positions are wrapped and checked here, with messages naming the node;
// a tensor read out of a value gets its shape checked against the static
// dims of the op's inferred type. Tensors reach the runtime as unranked
// memrefs: bufferization.to_buffer of the tensor (read), or a memref.alloc
// the runtime fills and bufferization.to_tensor then owns (write).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::onnxc;

using Pred = arith::CmpIPredicate;

// The helpers SequenceOps.cpp, ControlFlow.cpp, Strings.cpp and Maps.cpp
// share (declared in ONNXToLinalg.h), and this file's own.
namespace mlir::onnxc {

static Type ptrType(MLIRContext *ctx) {
  return LLVM::LLVMPointerType::get(ctx);
}

/// "i32", "f16", ...: the suffix of the copying functions for a (signless)
/// element type; "" for one the runtime cannot copy.
static std::string elementSuffix(Type t) {
  if (auto i = dyn_cast<IntegerType>(t))
    if (llvm::is_contained({1u, 8u, 16u, 32u, 64u}, i.getWidth()))
      return "i" + std::to_string(i.getWidth());
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  return "";
}

/// Calls runtime function `name` (declared after the conversion, see
/// declareRuntimeValueFunctions: a loop body under construction has no
/// module to declare it in yet).
Value seqCallRuntime(OpBuilder &b, Location loc, StringRef name,
                     TypeRange results, ValueRange args) {
  auto call = func::CallOp::create(b, loc, name, results, args);
  return results.empty() ? Value() : call.getResult(0);
}

/// ONNX's TensorProto.DataType of the element types a sequence can hold
/// (the runtime sizes elements by it); 0 for the others (strings, complex,
/// the sub-byte types, which the API packs).
int32_t seqDataType(Type t) {
  if (isa<StringType>(t)) return 8;
  if (t.isF32()) return 1;
  if (t.isF64()) return 11;
  if (t.isF16()) return 10;
  if (t.isBF16()) return 16;
  if (isa<Float8E4M3FNType>(t)) return 17;
  if (isa<Float8E4M3FNUZType>(t)) return 18;
  if (isa<Float8E5M2Type>(t)) return 19;
  if (isa<Float8E5M2FNUZType>(t)) return 20;
  if (isa<Float8E8M0FNUType>(t)) return 24;
  auto i = dyn_cast<IntegerType>(t);
  if (!i)
    return 0;
  bool u = i.isUnsigned();
  switch (i.getWidth()) {
  case 1: return 9;
  case 8: return u ? 2 : 3;
  case 16: return u ? 4 : 5;
  case 32: return u ? 12 : 6;
  case 64: return u ? 13 : 7;
  default: return 0;
  }
}

static Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
}

static Value toIndex(OpBuilder &b, Location loc, Value i64) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i64);
}

Value seqUnrankedView(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Type elem = type.getElementType();
  SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides);
  auto memType = MemRefType::get(type.getShape(), elem, layout);
  Value buffer = bufferization::ToBufferOp::create(b, loc, memType, tensor,
                                                   /*read_only=*/true);
  return memref::CastOp::create(b, loc, UnrankedMemRefType::get(elem, 0),
                                buffer);
}

/// A tensor value of the runtime holding a copy of `tensor`.
Value seqBoxTensor(OpBuilder &b, Location loc, Value tensor, Type onnxElem) {
  Type elem = cast<RankedTensorType>(tensor.getType()).getElementType();
  Value unranked = seqUnrankedView(b, loc, tensor);
  Value dtype = arith::ConstantIntOp::create(b, loc, seqDataType(onnxElem), 32);
  return seqCallRuntime(b, loc, "onnxc_rt_tensor_box_" + elementSuffix(elem),
                        ptrType(b.getContext()), {dtype, unranked});
}

/// Copies tensor value `value` into `buffer` (a memref of its sizes).
void seqReadInto(OpBuilder &b, Location loc, Value value, Value buffer) {
  Type elem = cast<MemRefType>(buffer.getType()).getElementType();
  Value unranked = memref::CastOp::create(
      b, loc, UnrankedMemRefType::get(elem, 0), buffer);
  seqCallRuntime(b, loc, "onnxc_rt_tensor_read_" + elementSuffix(elem), {},
                 {value, unranked});
}

/// The dims of tensor value `value`, checked to be `type`'s rank and static
/// sizes ("what" names the value in the messages).
SmallVector<OpFoldResult> seqValueDims(OpBuilder &b, Location loc,
                                       Operation *op, Value value,
                                       RankedTensorType type,
                                       const Twine &what) {
  Type i64 = b.getI64Type();
  Value rank = seqCallRuntime(b, loc, "onnxc_rt_tensor_rank", i64, value);
  Value expected = i64Const(b, loc, type.getRank());
  Value wrong = arith::CmpIOp::create(b, loc, Pred::ne, rank, expected);
  emitRuntimeCheck(b, loc, op,
                   wrong, what + " has rank {0}, the model's type says {1}",
                   {rank, expected});
  SmallVector<OpFoldResult> dims;
  for (int64_t i = 0; i < type.getRank(); ++i)
    dims.push_back(toIndex(b, loc,
                           seqCallRuntime(b, loc, "onnxc_rt_tensor_dim", i64,
                                          {value, i64Const(b, loc, i)})));
  emitComputedSizesCheck(b, loc, op, dims, type, what);
  // Past the check, the static dims are the type's.
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (!type.isDynamicDim(i))
      dims[i] = b.getIndexAttr(type.getDimSize(i));
  return dims;
}

/// A tensor of `type` read out of tensor value `value`.
Value seqUnboxTensor(OpBuilder &b, Location loc, Operation *op, Value value,
                     RankedTensorType type, const Twine &what) {
  SmallVector<OpFoldResult> dims = seqValueDims(b, loc, op, value, type, what);
  SmallVector<Value> dynamic;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, dims[i]));
  auto memType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer = memref::AllocOp::create(b, loc, memType, dynamic,
                                        b.getI64IntegerAttr(64));
  seqReadInto(b, loc, value, buffer);
  return bufferization::ToTensorOp::create(b, loc, type, buffer,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

/// The position operand as an i64 in [0, n) (`inclusive`: [0, n]),
/// negative positions counted from the end; checked.
static Value checkedPosition(OpBuilder &b, Location loc, Operation *op,
                             Value position, Value onnxPosition, Value length,
                             bool inclusive) {
  Value p = extractScalar(b, loc, position);
  Type onnxType = getElementTypeOrSelf(onnxPosition.getType());
  if (p.getType() != b.getI64Type())
    p = onnxType.isUnsignedInteger()
            ? arith::ExtUIOp::create(b, loc, b.getI64Type(), p).getResult()
            : arith::ExtSIOp::create(b, loc, b.getI64Type(), p).getResult();
  Value zero = i64Const(b, loc, 0);
  Value negative = arith::CmpIOp::create(b, loc, Pred::slt, p, zero);
  Value wrapped = arith::SelectOp::create(
      b, loc, negative, arith::AddIOp::create(b, loc, p, length), p);
  Value below = arith::CmpIOp::create(b, loc, Pred::slt, wrapped, zero);
  Value above = arith::CmpIOp::create(b, loc, inclusive ? Pred::sgt : Pred::sge,
                                      wrapped, length);
  emitRuntimeCheck(b, loc, op, arith::OrIOp::create(b, loc, below, above),
                   Twine("position {0} is out of range for a sequence of "
                         "length {1}") +
                       (inclusive ? " (insertion: -n..n)" : ""),
                   {p, length});
  return wrapped;
}

/// The element type of the tensors of sequence type `t` (after optional).
static Type sequenceElementType(Type t) {
  if (auto opt = dyn_cast<OptType>(t))
    t = opt.getElementType();
  if (auto seq = dyn_cast<SeqType>(t))
    return getElementTypeOrSelf(seq.getElementType());
  return nullptr;
}

bool seqCopyable(Type onnxElem) {
  return onnxElem && seqDataType(onnxElem) != 0 &&
         !elementSuffix(toSignless(onnxElem)).empty();
}

} // namespace mlir::onnxc

namespace {

class SequenceEmptyLowering : public OpConversionPattern<ONNXSequenceEmptyOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXSequenceEmptyOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elem = sequenceElementType(op.getType());
    if (!seqCopyable(elem))
      return rewriter.notifyMatchFailure(op, "element type");
    Location loc = op.getLoc();
    Value dtype =
        arith::ConstantIntOp::create(rewriter, loc, seqDataType(elem), 32);
    rewriter.replaceOp(op, seqCallRuntime(rewriter, loc, "onnxc_rt_seq_empty",
                                          ptrType(getContext()), dtype));
    return success();
  }
};

class SequenceConstructLowering
    : public OpConversionPattern<ONNXSequenceConstructOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXSequenceConstructOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elem = sequenceElementType(op.getType());
    if (!seqCopyable(elem))
      return rewriter.notifyMatchFailure(op, "element type");
    for (Value v : adaptor.getInputs())
      if (!isa<RankedTensorType>(v.getType()))
        return rewriter.notifyMatchFailure(op, "unranked input");
    Location loc = op.getLoc();
    Type ptr = ptrType(getContext());
    Value seq = seqCallRuntime(
        rewriter, loc, "onnxc_rt_seq_empty", ptr,
        arith::ConstantIntOp::create(rewriter, loc, seqDataType(elem), 32)
            .getResult());
    for (auto [i, v] : llvm::enumerate(adaptor.getInputs()))
      seq = seqCallRuntime(rewriter, loc, "onnxc_rt_seq_insert", ptr,
                           {seq, i64Const(rewriter, loc, int64_t(i)),
                            seqBoxTensor(rewriter, loc, v, elem)});
    rewriter.replaceOp(op, seq);
    return success();
  }
};

class SequenceInsertLowering
    : public OpConversionPattern<ONNXSequenceInsertOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXSequenceInsertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elem = sequenceElementType(op.getType());
    if (!seqCopyable(elem) ||
        !isa<RankedTensorType>(adaptor.getTensor().getType()))
      return rewriter.notifyMatchFailure(op,
                                         "ranked tensor of seqCopyable type");
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type(), ptr = ptrType(getContext());
    Value seq = adaptor.getInputSequence();
    Value length =
        seqCallRuntime(rewriter, loc, "onnxc_rt_seq_length", i64, seq);
    Value position = length;
    if (adaptor.getPosition())
      position = checkedPosition(rewriter, loc, op, adaptor.getPosition(),
                                 op.getPosition(), length, /*inclusive=*/true);
    Value item = seqBoxTensor(rewriter, loc, adaptor.getTensor(), elem);
    rewriter.replaceOp(op, seqCallRuntime(rewriter, loc, "onnxc_rt_seq_insert",
                                          ptr, {seq, position, item}));
    return success();
  }
};

class SequenceEraseLowering : public OpConversionPattern<ONNXSequenceEraseOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXSequenceEraseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type(), ptr = ptrType(getContext());
    Value seq = adaptor.getInputSequence();
    Value length =
        seqCallRuntime(rewriter, loc, "onnxc_rt_seq_length", i64, seq);
    Value position;
    if (adaptor.getPosition()) {
      position = checkedPosition(rewriter, loc, op, adaptor.getPosition(),
                                 op.getPosition(), length, /*inclusive=*/false);
    } else {
      Value empty = arith::CmpIOp::create(rewriter, loc, Pred::eq, length,
                                          i64Const(rewriter, loc, 0));
      emitRuntimeCheck(rewriter, loc, op, empty,
                       "erasing from an empty sequence");
      position =
          arith::SubIOp::create(rewriter, loc, length, i64Const(rewriter, loc, 1));
    }
    rewriter.replaceOp(op, seqCallRuntime(rewriter, loc, "onnxc_rt_seq_erase",
                                          ptr, {seq, position}));
    return success();
  }
};

class SequenceAtLowering : public TensorPattern<ONNXSequenceAtOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXSequenceAtOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = resultType(op);
    if (!type || elementSuffix(type.getElementType()).empty())
      return rewriter.notifyMatchFailure(op, "ranked seqCopyable result");
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type(), ptr = ptrType(getContext());
    Value seq = adaptor.getInputSequence();
    Value length =
        seqCallRuntime(rewriter, loc, "onnxc_rt_seq_length", i64, seq);
    Value position =
        checkedPosition(rewriter, loc, op, adaptor.getPosition(),
                        op.getPosition(), length, /*inclusive=*/false);
    Value item = seqCallRuntime(rewriter, loc, "onnxc_rt_seq_item", ptr,
                                {seq, position});
    rewriter.replaceOp(op, seqUnboxTensor(rewriter, loc, op, item, type,
                                          "the sequence's tensor"));
    return success();
  }
};

class SequenceLengthLowering
    : public TensorPattern<ONNXSequenceLengthOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXSequenceLengthOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = resultType(op);
    if (!type || type.getRank() != 0)
      return rewriter.notifyMatchFailure(op, "scalar result");
    Location loc = op.getLoc();
    Value length =
        seqCallRuntime(rewriter, loc, "onnxc_rt_seq_length",
                       rewriter.getI64Type(), adaptor.getInputSequence());
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, type, length);
    return success();
  }
};

} // namespace

namespace mlir::onnxc {
scf::ForOp seqFor(OpBuilder &b, Location loc, Value lb, Value ub, Value step,
                  ValueRange iterArgs,
                  function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  auto loop = scf::ForOp::create(b, loc, lb, ub, step, iterArgs);
  OpBuilder::InsertionGuard guard(b);
  Block *block = loop.getBody();
  if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
    block->back().erase();
  b.setInsertionPointToEnd(block);
  SmallVector<Value> yields = body(loop.getInductionVar(),
                                   loop.getRegionIterArgs());
  scf::YieldOp::create(b, loc, yields);
  return loop;
}
} // namespace mlir::onnxc

void mlir::onnxc::declareRuntimeValueFunctions(ModuleOp module) {
  llvm::StringMap<FunctionType> needed;
  module.walk([&](func::CallOp call) {
    if (call.getCallee().starts_with("onnxc_rt_") &&
        !module.lookupSymbol(call.getCalleeAttr()))
      needed.try_emplace(call.getCallee(), call.getCalleeType());
  });
  OpBuilder b(module.getContext());
  b.setInsertionPointToStart(module.getBody());
  for (auto &[name, type] : needed)
    func::FuncOp::create(b, module.getLoc(), name, type).setPrivate();
}

void mlir::onnxc::populateSequencePatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<SequenceEmptyLowering, SequenceConstructLowering,
               SequenceInsertLowering, SequenceEraseLowering,
               SequenceAtLowering, SequenceLengthLowering>(
      converter, patterns.getContext());
  populateSequenceOpsPatterns(converter, patterns);
}
