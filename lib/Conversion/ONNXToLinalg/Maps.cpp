//===- Maps.cpp - ZipMap, DictVectorizer, CastMap -> runtime calls --------===//
//
// A map is a pointer (`!llvm.ptr`, the type converter's image of
// `!onnx.map`) to the runtime's map value: its keys and its values as two
// 1-D tensor values (lib/Runtime/onnxc_maps.c). The ops here are calls:
//
//   ZipMap          onnxc_rt_zipmap(keys, X): a sequence of one map per row
//                   of X, keyed by the class labels (a boxed constant)
//   DictVectorizer  onnxc_rt_dict_vectorize_<T>(map, vocabulary, out): the
//                   map's values at their keys' vocabulary positions
//   CastMap         onnxc_rt_cast_map(map, to, sparse, max_map): a [1, n]
//                   tensor value, read out here
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

Type ptrType(MLIRContext *ctx) { return LLVM::LLVMPointerType::get(ctx); }

/// A boxed 1-D constant of the int64 values or the strings of `ints` or
/// `strings` (whichever is given), or null when neither is.
Value boxedKeys(OpBuilder &b, Location loc, Operation *op,
                std::optional<ArrayAttr> ints, std::optional<ArrayAttr> strings) {
  if (strings && !strings->empty()) {
    SmallVector<StringRef> list;
    for (Attribute a : *strings)
      list.push_back(cast<StringAttr>(a).getValue());
    return seqBoxTensor(b, loc, buildStringConstant(b, loc, op, list),
                        StringType::get(b.getContext()));
  }
  if (ints && !ints->empty()) {
    SmallVector<int64_t> list;
    for (Attribute a : *ints)
      list.push_back(cast<IntegerAttr>(a).getInt());
    auto type = RankedTensorType::get({int64_t(list.size())}, b.getI64Type());
    Value c = arith::ConstantOp::create(
        b, loc, DenseIntElementsAttr::get(type, ArrayRef<int64_t>(list)));
    return seqBoxTensor(b, loc, c, b.getI64Type());
  }
  return nullptr;
}

class ZipMapLowering : public OpConversionPattern<ONNXMLZipMapOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLZipMapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!xType || xType.getRank() < 1 || xType.getRank() > 2)
      return rewriter.notifyMatchFailure(op, "a [N, C] or [C] input");
    Location loc = op.getLoc();
    Value keys = boxedKeys(rewriter, loc, op, op.getClasslabelsInt64s(),
                           op.getClasslabelsStrings());
    if (!keys)
      return op.emitError() << "ZipMap needs classlabels_int64s or "
                               "classlabels_strings";
    int64_t numKeys = op.getClasslabelsStrings()
                          ? int64_t(op.getClasslabelsStrings()->size())
                          : int64_t(op.getClasslabelsInt64s()->size());
    int64_t c = xType.getDimSize(xType.getRank() - 1);
    if (!ShapedType::isDynamic(c) && c != numKeys)
      return op.emitError() << "ZipMap's input has " << c
                            << " columns for " << numKeys << " class labels";
    Value unranked = seqUnrankedView(rewriter, loc, x);
    rewriter.replaceOp(op, seqCallRuntime(rewriter, loc, "onnxc_rt_zipmap",
                                          ptrType(getContext()),
                                          {keys, unranked}));
    return success();
  }
};

class DictVectorizerLowering
    : public OpConversionPattern<ONNXMLDictVectorizerOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLDictVectorizerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getConvertedResultType(*getTypeConverter(), op, 0);
    auto mapType = dyn_cast<MapType>(op.getX().getType());
    if (!type || !mapType || type.getRank() < 1 || type.getRank() > 2)
      return rewriter.notifyMatchFailure(op, "a map and a ranked result");
    Location loc = op.getLoc();
    Value vocab = boxedKeys(rewriter, loc, op, op.getInt64Vocabulary(),
                            op.getStringVocabulary());
    if (!vocab)
      return op.emitError() << "DictVectorizer needs int64_vocabulary or "
                               "string_vocabulary";
    bool stringKeys = isa<StringType>(mapType.getKeyType());
    if (stringKeys != bool(op.getStringVocabulary()))
      return op.emitError() << "the vocabulary's type differs from the map's "
                               "keys";
    int64_t v = stringKeys ? int64_t(op.getStringVocabulary()->size())
                           : int64_t(op.getInt64Vocabulary()->size());
    SmallVector<int64_t> shape(type.getShape());
    shape.back() = v;
    if (type.getRank() == 2)
      shape[0] = 1;
    Type elem = type.getElementType();
    std::string suffix = elem.isF32()   ? "f32"
                         : elem.isF64() ? "f64"
                                        : "i64"; // int64 or a string
    auto memType = MemRefType::get(shape, elem);
    Value buffer = memref::AllocOp::create(rewriter, loc, memType, ValueRange{},
                                           rewriter.getI64IntegerAttr(64));
    Value unranked = memref::CastOp::create(
        rewriter, loc, UnrankedMemRefType::get(elem, 0), buffer);
    seqCallRuntime(rewriter, loc, "onnxc_rt_dict_vectorize_" + suffix, {},
                   {adaptor.getX(), vocab, unranked});
    Value result = bufferization::ToTensorOp::create(
        rewriter, loc, RankedTensorType::get(shape, elem), buffer,
        /*restrict=*/true, /*writable=*/true);
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

class CastMapLowering : public OpConversionPattern<ONNXMLCastMapOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLCastMapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getConvertedResultType(*getTypeConverter(), op, 0);
    if (!type || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "a [1, n] result");
    StringRef to = op.getCastTo(), form = op.getMapForm();
    int32_t dtype = to == "TO_FLOAT"    ? 1
                    : to == "TO_INT64"  ? 7
                    : to == "TO_STRING" ? 8
                                        : 0;
    if (!dtype || (form != "DENSE" && form != "SPARSE"))
      return op.emitError() << "CastMap: cast_to '" << to << "', map_form '"
                            << form << "' are not supported";
    Location loc = op.getLoc();
    Value value = seqCallRuntime(
        rewriter, loc, "onnxc_rt_cast_map", ptrType(getContext()),
        {adaptor.getX(),
         arith::ConstantIntOp::create(rewriter, loc, dtype, 32).getResult(),
         arith::ConstantIntOp::create(rewriter, loc, form == "SPARSE", 32)
             .getResult(),
         arith::ConstantIntOp::create(rewriter, loc, op.getMaxMap(), 64)
             .getResult()});
    rewriter.replaceOp(op, seqUnboxTensor(rewriter, loc, op, value, type,
                                          "CastMap's result"));
    return success();
  }
};

} // namespace

void mlir::onnxc::populateMapPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<ZipMapLowering, DictVectorizerLowering, CastMapLowering>(
      converter, patterns.getContext());
}
