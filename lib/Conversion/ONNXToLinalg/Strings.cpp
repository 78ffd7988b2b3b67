//===- Strings.cpp - String tensors -> pointers and runtime calls ---------===//
//
// A string tensor converts to a tensor of i64: one pointer per element to a
// NUL-terminated string (the caller's, a constant's in a read-only global,
// or one a run made; lib/Runtime/onnxc_strings.c). Data movement moves the
// pointers like any integers; what looks at the characters calls the
// runtime:
//
//   constants            a global of the packed strings, whose pointers
//                        onnxc_rt_string_fill writes into a buffer
//   Equal                onnxc_rt_string_equal per element
//   Cast from string     onnxc_rt_string_to_{f32,f64,i64} per element
//   Cast to string       onnxc_rt_{f32,f64,i64}_to_string per element
//                        (numpy's str() of the value)
//   StringNormalizer     onnxc_rt_string_normalize over the tensor (its
//                        result's length depends on the data)
//
// checkStringOps (run by the pass first) refuses every other op that takes
// or gives strings, naming it: their patterns would compute on pointers.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <regex.h>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

bool isStringTensor(Type t) {
  auto s = dyn_cast<ShapedType>(t);
  return s && isa<StringType>(s.getElementType());
}

/// The address of a private constant global holding `bytes` (a new one per
/// call, named apart).
Value globalBytes(OpBuilder &b, Location loc, Operation *anchor,
                  StringRef bytes) {
  std::string name =
      addConstantGlobal(b, loc, anchor, "__onnxc_strings_",
                        LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size()),
                        b.getStringAttr(bytes));
  return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(
                                               b.getContext()),
                                   name);
}

/// The strings one after another, each ending in NUL, then an empty one.
std::string packStrings(ArrayRef<StringRef> strings) {
  std::string packed;
  for (StringRef s : strings) {
    packed += s.str();
    packed += '\0';
  }
  packed += '\0';
  return packed;
}

class StringConstantLowering : public OpConversionPattern<ONNXConstantOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(op.getValueAttr());
    if (!dense || !isa<StringType>(dense.getElementType()))
      return rewriter.notifyMatchFailure(op, "not a string constant");
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(dense.getType()));
    if (!type)
      return rewriter.notifyMatchFailure(op, "ranked constant");
    SmallVector<StringRef> strings;
    for (StringRef s : dense.getValues<StringRef>())
      strings.push_back(s);
    Location loc = op.getLoc();
    int64_t count = type.getNumElements();
    Value packed = globalBytes(rewriter, loc, op, packStrings(strings));
    Type i64 = rewriter.getI64Type();
    auto flatType = MemRefType::get({count}, i64);
    Value buffer = memref::AllocOp::create(rewriter, loc, flatType,
                                           ValueRange{},
                                           rewriter.getI64IntegerAttr(64));
    Value unranked = memref::CastOp::create(
        rewriter, loc, UnrankedMemRefType::get(i64, 0), buffer);
    // A splat holds its one string once; the runtime fills `count`.
    Value n = arith::ConstantIntOp::create(rewriter, loc,
                                           dense.isSplat() ? -count : count, 64);
    seqCallRuntime(rewriter, loc, "onnxc_rt_string_fill", {},
                   {packed, n, unranked});
    Value flat = bufferization::ToTensorOp::create(
        rewriter, loc, RankedTensorType::get({count}, i64), buffer,
        /*restrict=*/true, /*writable=*/true);
    SmallVector<int64_t> shape(type.getShape());
    Value shapeValue = arith::ConstantOp::create(
        rewriter, loc,
        DenseIntElementsAttr::get(
            RankedTensorType::get({int64_t(shape.size())}, i64), shape));
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, type, flat, shapeValue);
    return success();
  }
};

/// Equal on strings: the characters compared per element.
class StringEqualLowering : public OpConversionPattern<ONNXEqualOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXEqualOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isStringTensor(op.getA().getType()))
      return rewriter.notifyMatchFailure(op, "not strings");
    auto type = getConvertedResultType(*getTypeConverter(), op, 0);
    if (!type || !isa<RankedTensorType>(adaptor.getA().getType()) ||
        !isa<RankedTensorType>(adaptor.getB().getType()))
      return rewriter.notifyMatchFailure(op, "ranked operands and result");
    Value result = buildElementwise(
        rewriter, op.getLoc(), {adaptor.getA(), adaptor.getB()}, type,
        [](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value eq = seqCallRuntime(b, loc, "onnxc_rt_string_equal",
                                    b.getI32Type(), {args[0], args[1]});
          return arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ne, eq,
              arith::ConstantIntOp::create(b, loc, 0, 32));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Cast and CastLike from or to strings, element by element.
template <typename CastOp>
class StringCastLowering : public OpConversionPattern<CastOp> {
public:
  using OpConversionPattern<CastOp>::OpConversionPattern;
  using OpAdaptor = typename CastOp::Adaptor;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = op->getOperand(0);
    Type from = getElementTypeOrSelf(input.getType());
    Type to = getElementTypeOrSelf(op->getResult(0).getType());
    bool fromString = isa<StringType>(from), toString = isa<StringType>(to);
    if (!fromString && !toString)
      return rewriter.notifyMatchFailure(op, "no strings");
    auto type =
        getConvertedResultType(*this->getTypeConverter(), op, 0);
    Value converted = adaptor.getOperands()[0];
    if (!type || !isa<RankedTensorType>(converted.getType()))
      return rewriter.notifyMatchFailure(op, "ranked input and result");
    Type other = fromString ? to : from;
    auto otherInt = dyn_cast<IntegerType>(other);
    bool supported = fromString && toString;
    supported |= isa<FloatType>(other) && other.getIntOrFloatBitWidth() >= 16 &&
                 other.getIntOrFloatBitWidth() <= 64 &&
                 !isNarrowFloat(other);
    supported |= otherInt && otherInt.getWidth() >= 8;
    if (!supported)
      return op.emitError() << "casting between strings and " << other
                            << " is not supported";
    if (fromString && toString) {
      rewriter.replaceOp(op, converted);
      return success();
    }
    Type resultElem = type.getElementType();
    Value result = buildElementwise(
        rewriter, op.getLoc(), converted, type,
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Type i64 = b.getI64Type(), f32 = b.getF32Type(), f64 = b.getF64Type();
          Value x = args[0];
          if (fromString) {
            if (auto f = dyn_cast<FloatType>(resultElem)) {
              bool wide = f.getWidth() == 64;
              Value v = seqCallRuntime(
                  b, loc, wide ? "onnxc_rt_string_to_f64" : "onnxc_rt_string_to_f32",
                  wide ? f64 : f32, x);
              return f.getWidth() < 32
                         ? arith::TruncFOp::create(b, loc, f, v).getResult()
                         : v;
            }
            Value v = seqCallRuntime(b, loc, "onnxc_rt_string_to_i64", i64, x);
            return resultElem == i64
                       ? v
                       : arith::TruncIOp::create(b, loc, resultElem, v)
                             .getResult();
          }
          if (auto f = dyn_cast<FloatType>(x.getType())) {
            if (f.getWidth() == 64)
              return seqCallRuntime(b, loc, "onnxc_rt_f64_to_string", i64, x);
            if (f.getWidth() < 32)
              x = arith::ExtFOp::create(b, loc, f32, x);
            return seqCallRuntime(b, loc, "onnxc_rt_f32_to_string", i64, x);
          }
          if (x.getType() != i64)
            x = otherInt.isUnsigned()
                    ? arith::ExtUIOp::create(b, loc, i64, x).getResult()
                    : arith::ExtSIOp::create(b, loc, i64, x).getResult();
          return seqCallRuntime(b, loc, "onnxc_rt_i64_to_string", i64, x);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

class StringNormalizerLowering
    : public OpConversionPattern<ONNXStringNormalizerOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXStringNormalizerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getConvertedResultType(*getTypeConverter(), op, 0);
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!type || !xType || xType.getRank() > 2 ||
        type.getRank() != std::max<int64_t>(xType.getRank(), 1))
      return rewriter.notifyMatchFailure(op, "a [C] or [1, C] input");
    StringRef action = op.getCaseChangeAction();
    int32_t caseChange = action == "LOWER" ? 1 : action == "UPPER" ? 2 : 0;
    if (caseChange == 0 && action != "NONE")
      return op.emitError() << "case_change_action '" << action
                            << "' is not NONE, LOWER or UPPER";
    Location loc = op.getLoc();
    SmallVector<StringRef> stopwords;
    if (auto words = op.getStopwords())
      for (Attribute a : *words)
        stopwords.push_back(cast<StringAttr>(a).getValue());
    Value words = globalBytes(rewriter, loc, op, packStrings(stopwords));
    Value unranked = seqUnrankedView(rewriter, loc, x);
    Value value = seqCallRuntime(
        rewriter, loc, "onnxc_rt_string_normalize",
        LLVM::LLVMPointerType::get(getContext()),
        {arith::ConstantIntOp::create(rewriter, loc, caseChange, 32).getResult(),
         arith::ConstantIntOp::create(rewriter, loc,
                                      op.getIsCaseSensitive() != 0, 32)
             .getResult(),
         words, unranked});
    rewriter.replaceOp(op, seqUnboxTensor(rewriter, loc, op, value, type,
                                          "the normalized strings"));
    return success();
  }
};

/// StringConcat: a new string per element of the broadcast.
class StringConcatLowering : public OpConversionPattern<ONNXStringConcatOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXStringConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getConvertedResultType(*getTypeConverter(), op, 0);
    if (!type || !isa<RankedTensorType>(adaptor.getX().getType()) ||
        !isa<RankedTensorType>(adaptor.getY().getType()))
      return rewriter.notifyMatchFailure(op, "ranked operands and result");
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, op.getLoc(), {adaptor.getX(), adaptor.getY()}, type,
                [](OpBuilder &b, Location loc, ValueRange args) -> Value {
                  return seqCallRuntime(b, loc, "onnxc_rt_string_concat",
                                        b.getI64Type(), {args[0], args[1]});
                }));
    return success();
  }
};

/// StringSplit: the runtime splits the whole tensor (the parts' width is
/// the largest count, known only then) and gives both results as a
/// sequence of two tensors, read out here.
class StringSplitLowering : public OpConversionPattern<ONNXStringSplitOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXStringSplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto yType = getConvertedResultType(*getTypeConverter(), op, 0);
    auto zType = getConvertedResultType(*getTypeConverter(), op, 1);
    Value x = adaptor.getX();
    auto xType = dyn_cast<RankedTensorType>(x.getType());
    if (!yType || !zType || !xType ||
        yType.getRank() != xType.getRank() + 1 ||
        zType.getRank() != xType.getRank())
      return rewriter.notifyMatchFailure(op, "ranked operands and results");
    Location loc = op.getLoc();
    Type ptr = LLVM::LLVMPointerType::get(getContext());
    std::optional<StringRef> delimiter = op.getDelimiter();
    Value delim =
        delimiter && !delimiter->empty()
            ? globalBytes(rewriter, loc, op, (delimiter->str() + '\0'))
            : LLVM::ZeroOp::create(rewriter, loc, ptr).getResult();
    int64_t maxsplit = op.getMaxsplit() ? int64_t(*op.getMaxsplit()) : -1;
    Value boxed = seqBoxTensor(rewriter, loc, x, StringType::get(getContext()));
    Value pair = seqCallRuntime(
        rewriter, loc, "onnxc_rt_string_split", ptr,
        {delim, arith::ConstantIntOp::create(rewriter, loc, maxsplit, 64).getResult(),
         boxed});
    SmallVector<Value> results;
    for (auto [i, type] : llvm::enumerate(
             SmallVector<RankedTensorType>{yType, zType})) {
      Value item = seqCallRuntime(
          rewriter, loc, "onnxc_rt_seq_item", ptr,
          {pair, arith::ConstantIntOp::create(rewriter, loc, i, 64).getResult()});
      results.push_back(seqUnboxTensor(rewriter, loc, op, item, type,
                                       i ? "the counts" : "the substrings"));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// ONNX's RE2 pattern in POSIX extended syntax (glibc's, with its \b and
/// \w extensions), anchored at both ends for a full match; fails (with
/// `why`) on what has no equivalent.
FailureOr<std::string> toPosixFullMatch(StringRef re2, std::string &why) {
  std::string out = "^(";
  bool inBracket = false, bracketDash = false;
  for (size_t i = 0; i < re2.size(); ++i) {
    char c = re2[i];
    if (inBracket) {
      if (c == ']' && !(out.back() == '[' || (out.back() == '^' &&
                                               out[out.size() - 2] == '['))) {
        if (bracketDash)
          out += '-';
        out += ']';
        inBracket = bracketDash = false;
        continue;
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (++i == re2.size())
        return why = "a pattern ends in a backslash", failure();
      char e = re2[i];
      if (e == 'w')
        out += "[:alnum:]_";
      else if (e == 'd')
        out += "0-9";
      else if (e == 's')
        out += "[:space:]";
      else if (e == '-')
        bracketDash = true;
      else if (e == 'n')
        out += '\n';
      else if (e == 't')
        out += '\t';
      else if (e == '.' || e == '_' || e == '/' || e == '@' || e == '+' ||
               e == '*' || e == '?' || e == '(' || e == ')' || e == '{' ||
               e == '}' || e == '|' || e == '$' || e == '^' || e == '\\')
        out += e;
      else
        return why = std::string("the escape \\") + e +
                     " inside brackets has no POSIX equivalent",
               failure();
      continue;
    }
    if (c == '[') {
      inBracket = true;
      out += c;
      if (i + 1 < re2.size() && re2[i + 1] == '^')
        out += re2[++i];
      continue;
    }
    if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < re2.size() &&
        re2[i + 1] == '?')
      return why = "non-greedy repetition has no POSIX equivalent", failure();
    if (c == '(' && i + 1 < re2.size() && re2[i + 1] == '?') {
      if (i + 2 < re2.size() && re2[i + 2] == ':') {
        out += '(';
        i += 2;
        continue;
      }
      return why = "flags and named groups '(?' have no POSIX equivalent",
             failure();
    }
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i == re2.size())
      return why = "a pattern ends in a backslash", failure();
    char e = re2[i];
    switch (e) {
    case 'd': out += "[0-9]"; break;
    case 'D': out += "[^0-9]"; break;
    case 's': out += "[[:space:]]"; break;
    case 'S': out += "[^[:space:]]"; break;
    case 'w': out += "[[:alnum:]_]"; break;
    case 'W': out += "[^[:alnum:]_]"; break;
    case 'b': out += "\\b"; break;
    case 'B': out += "\\B"; break;
    case 'n': out += '\n'; break;
    case 't': out += '\t'; break;
    default:
      if (llvm::isAlnum(e))
        return why = std::string("the escape \\") + e +
                     " has no POSIX equivalent",
               failure();
      out += '\\';
      out += e;
    }
  }
  if (inBracket)
    return why = "an unclosed bracket", failure();
  out += ")$";
  regex_t compiled;
  if (regcomp(&compiled, out.c_str(), REG_EXTENDED | REG_NOSUB))
    return why = "POSIX rejects its translation '" + out + "'", failure();
  regfree(&compiled);
  return out;
}

/// RegexFullMatch: the pattern translated (and checked) here, matched by
/// the runtime over the whole tensor.
class RegexFullMatchLowering
    : public OpConversionPattern<ONNXRegexFullMatchOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXRegexFullMatchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getConvertedResultType(*getTypeConverter(), op, 0);
    if (!type || !isa<RankedTensorType>(adaptor.getX().getType()))
      return rewriter.notifyMatchFailure(op, "ranked operand and result");
    std::string why;
    FailureOr<std::string> pattern =
        toPosixFullMatch(op.getPattern().value_or(""), why);
    if (failed(pattern))
      return op.emitError() << "the pattern '" << op.getPattern().value_or("")
                            << "' is not supported: " << why;
    Location loc = op.getLoc();
    Type ptr = LLVM::LLVMPointerType::get(getContext());
    Value boxed = seqBoxTensor(rewriter, loc, adaptor.getX(),
                               StringType::get(getContext()));
    Value value = seqCallRuntime(
        rewriter, loc, "onnxc_rt_regex_full_match", ptr,
        {globalBytes(rewriter, loc, op, *pattern + '\0'), boxed});
    rewriter.replaceOp(op, seqUnboxTensor(rewriter, loc, op, value, type,
                                          "the matches"));
    return success();
  }
};

/// Ops whose lowering moves elements without looking at them (or that
/// this file lowers): they may take and give strings.
bool handlesStrings(Operation *op) {
  return isa<ONNXConstantOp, ONNXEqualOp, ONNXCastOp, ONNXCastLikeOp,
             ONNXStringNormalizerOp, ONNXStringConcatOp, ONNXStringSplitOp,
             ONNXRegexFullMatchOp, ONNXTfIdfVectorizerOp, ONNXIdentityOp,
             ONNXReshapeOp, ONNXFlattenOp, ONNXSqueezeOp, ONNXUnsqueezeOp,
             ONNXTransposeOp, ONNXConcatOp, ONNXSplitOp, ONNXSliceOp,
             ONNXGatherOp, ONNXGatherElementsOp, ONNXGatherNDOp, ONNXExpandOp,
             ONNXTileOp, ONNXWhereOp, ONNXCompressOp, ONNXShapeOp, ONNXSizeOp,
             ONNXDepthToSpaceOp, ONNXSpaceToDepthOp, ONNXScatterElementsOp,
             ONNXScatterNDOp, ONNXReverseSequenceOp, ONNXIfOp, ONNXLoopOp,
             ONNXYieldOp, ONNXSequenceConstructOp, ONNXSequenceInsertOp,
             ONNXSequenceAtOp, ONNXSequenceEmptyOp, ONNXSequenceEraseOp,
             ONNXSequenceLengthOp, ONNXSplitToSequenceOp,
             ONNXConcatFromSequenceOp, ONNXOptionalOp,
             ONNXMLArrayFeatureExtractorOp, ONNXMLLabelEncoderOp,
             ONNXMLCategoryMapperOp, ONNXMLOneHotEncoderOp,
             ONNXMLLinearClassifierOp, ONNXMLSVMClassifierOp,
             ONNXOptionalGetElementOp, ONNXOptionalHasElementOp>(op) ||
         isa<ONNXMLZipMapOp, ONNXMLDictVectorizerOp, ONNXMLCastMapOp>(op) ||
         isa<ONNXMLTreeEnsembleClassifierOp>(op);
}

bool involvesStrings(Operation *op) {
  auto strings = [](Type t) {
    if (auto opt = dyn_cast<OptType>(t))
      t = opt.getElementType();
    if (auto seq = dyn_cast<SeqType>(t))
      t = seq.getElementType();
    return isStringTensor(t);
  };
  return llvm::any_of(op->getOperandTypes(), strings) ||
         llvm::any_of(op->getResultTypes(), strings);
}

} // namespace

std::string mlir::onnxc::addConstantGlobal(OpBuilder &b, Location loc,
                                           Operation *anchor, StringRef prefix,
                                           Type type, Attribute value) {
  auto module = anchor->getParentOfType<ModuleOp>();
  std::string name;
  for (unsigned i = 0;; ++i) {
    name = (prefix + Twine(i)).str();
    if (!module.lookupSymbol(name))
      break;
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                         LLVM::Linkage::Internal, name, value);
  return name;
}

Value mlir::onnxc::buildStringConstant(OpBuilder &b, Location loc,
                                       Operation *anchor,
                                       ArrayRef<StringRef> strings) {
  Value packed = globalBytes(b, loc, anchor, packStrings(strings));
  Type i64 = b.getI64Type();
  int64_t count = int64_t(strings.size());
  Value buffer = memref::AllocOp::create(b, loc, MemRefType::get({count}, i64),
                                         ValueRange{}, b.getI64IntegerAttr(64));
  Value unranked =
      memref::CastOp::create(b, loc, UnrankedMemRefType::get(i64, 0), buffer);
  seqCallRuntime(b, loc, "onnxc_rt_string_fill", {},
                 {packed, arith::ConstantIntOp::create(b, loc, count, 64)
                              .getResult(),
                  unranked});
  return bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get({count}, i64), buffer, /*restrict=*/true,
      /*writable=*/true);
}

LogicalResult mlir::onnxc::checkStringOps(ModuleOp module) {
  bool ok = true;
  module.walk([&](Operation *op) {
    if (!isa<ONNXDialect>(op->getDialect()) || handlesStrings(op) ||
        !involvesStrings(op))
      return;
    op->emitError() << "'" << op->getName()
                    << "' on string tensors is not supported by the CPU "
                       "backend";
    ok = false;
  });
  return success(ok);
}

void mlir::onnxc::populateStringPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<StringConstantLowering, StringEqualLowering,
               StringCastLowering<ONNXCastOp>,
               StringCastLowering<ONNXCastLikeOp>, StringNormalizerLowering,
               StringConcatLowering, StringSplitLowering,
               RegexFullMatchLowering>(
      converter, patterns.getContext());
}
