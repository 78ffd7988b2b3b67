//===- Einsum.cpp - Einsum -> linalg.generic ------------------------------===//
//
// One linalg.generic: a loop per distinct subscript letter, parallel for the
// output's letters and reduction for the others; each input is read through
// the map of its subscripts (a repeated letter reads a diagonal), and the
// body multiplies the inputs and adds to the accumulator. An ellipsis stands
// for the same leading dims in every term (no size-1 broadcasting).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// Letters of one term with the ellipsis expanded to `ellipsisDims` dims,
/// numbered 0.. and written as the upper-case-free placeholders 0..9 before
/// any letter; returns failure on a malformed term.
FailureOr<SmallVector<char>> expandTerm(StringRef term, int64_t rank) {
  SmallVector<char> letters;
  size_t dots = term.find("...");
  int64_t named = int64_t(term.size()) - (dots == StringRef::npos ? 0 : 3);
  int64_t ellipsis = dots == StringRef::npos ? 0 : rank - named;
  if (ellipsis < 0 || (dots == StringRef::npos && named != rank))
    return failure();
  for (size_t i = 0; i < term.size(); ++i) {
    if (dots != StringRef::npos && i == dots) {
      // Ellipsis dims are right-aligned: the last ones are '9', '8', ...
      for (int64_t k = ellipsis; k > 0; --k)
        letters.push_back(char('0' + (10 - k)));
      i += 2;
      continue;
    }
    if (!llvm::isAlpha(term[i]))
      return failure();
    letters.push_back(term[i]);
  }
  return letters;
}

class EinsumLowering : public OpConversionPattern<ONNXEinsumOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXEinsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "unranked result");
    std::string equation;
    for (char c : op.getEquation())
      if (c != ' ')
        equation.push_back(c);
    StringRef eq(equation);
    auto [lhs, rhs] = eq.split("->");
    bool explicitOutput = eq.contains("->");
    SmallVector<StringRef> terms;
    lhs.split(terms, ',');
    ValueRange inputs = adaptor.getInputs();
    if (terms.size() != inputs.size())
      return rewriter.notifyMatchFailure(op, "terms do not match inputs");

    SmallVector<SmallVector<char>> inLetters;
    std::map<char, int> count;
    int64_t maxEllipsis = 0;
    for (auto [term, v] : llvm::zip(terms, inputs)) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        return rewriter.notifyMatchFailure(op, "unranked input");
      auto letters = expandTerm(term, t.getRank());
      if (failed(letters) || letters->size() > 10 + 52)
        return rewriter.notifyMatchFailure(op, "malformed term");
      for (char c : *letters) {
        ++count[c];
        if (llvm::isDigit(c))
          maxEllipsis = std::max<int64_t>(maxEllipsis, 10 - (c - '0'));
      }
      inLetters.push_back(*letters);
    }
    SmallVector<char> outLetters;
    if (explicitOutput) {
      auto letters = expandTerm(rhs, resultType.getRank());
      if (failed(letters))
        return rewriter.notifyMatchFailure(op, "malformed output term");
      outLetters = *letters;
    } else {
      // Implicit output: ellipsis dims, then letters used once, sorted.
      for (int64_t k = maxEllipsis; k > 0; --k)
        outLetters.push_back(char('0' + (10 - k)));
      for (auto &[c, n] : count)
        if (n == 1 && llvm::isAlpha(c))
          outLetters.push_back(c);
    }
    if (int64_t(outLetters.size()) != resultType.getRank())
      return rewriter.notifyMatchFailure(op, "output rank differs");

    // Loop dims: output letters first (parallel), then the others.
    std::map<char, unsigned> dimOf;
    SmallVector<utils::IteratorType> iterators;
    for (char c : outLetters) {
      if (dimOf.count(c))
        return rewriter.notifyMatchFailure(op, "repeated output letter");
      dimOf[c] = iterators.size();
      iterators.push_back(utils::IteratorType::parallel);
    }
    for (auto &letters : inLetters)
      for (char c : letters)
        if (!dimOf.count(c)) {
          dimOf[c] = iterators.size();
          iterators.push_back(utils::IteratorType::reduction);
        }
    unsigned numDims = iterators.size();
    MLIRContext *ctx = rewriter.getContext();

    // Sizes of every letter, and a check that they agree.
    Location loc = op.getLoc();
    std::map<char, int64_t> staticSize;
    std::map<char, std::pair<Value, int64_t>> sizeSource;
    for (auto [letters, v] : llvm::zip(inLetters, inputs)) {
      auto t = cast<RankedTensorType>(v.getType());
      for (auto [i, c] : llvm::enumerate(letters)) {
        int64_t s = t.getDimSize(i);
        if (!sizeSource.count(c))
          sizeSource[c] = {v, int64_t(i)};
        if (ShapedType::isDynamic(s))
          continue;
        auto it = staticSize.find(c);
        if (it != staticSize.end() && it->second != s)
          return rewriter.notifyMatchFailure(op, "sizes of a letter differ");
        staticSize[c] = s;
      }
    }
    SmallVector<AffineMap> maps;
    for (auto &letters : inLetters) {
      SmallVector<AffineExpr> exprs;
      for (char c : letters)
        exprs.push_back(getAffineDimExpr(dimOf[c], ctx));
      maps.push_back(AffineMap::get(numDims, 0, exprs, ctx));
    }
    SmallVector<AffineExpr> outExprs;
    SmallVector<OpFoldResult> outSizes;
    for (char c : outLetters) {
      outExprs.push_back(getAffineDimExpr(dimOf[c], ctx));
      if (!sizeSource.count(c))
        return rewriter.notifyMatchFailure(op, "output letter not in inputs");
      auto [v, i] = sizeSource[c];
      outSizes.push_back(getDims(rewriter, loc, v)[i]);
    }
    maps.push_back(AffineMap::get(numDims, 0, outExprs, ctx));

    Type elem = resultType.getElementType();
    Type onnxElem = getONNXElementType(op.getOutput());
    bool isFloat = isa<FloatType>(elem);
    Value zero = createScalarConstant(rewriter, loc, elem, 0);
    Value init = createFilled(rewriter, loc, resultType, outSizes, zero);
    (void)onnxElem;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, inputs, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value prod = args[0];
          for (Value v : args.drop_front().drop_back())
            prod = isFloat ? (Value)arith::MulFOp::create(b, l, prod, v)
                           : (Value)arith::MulIOp::create(b, l, prod, v);
          Value acc = args.back();
          Value sum = isFloat ? (Value)arith::AddFOp::create(b, l, acc, prod)
                              : (Value)arith::AddIOp::create(b, l, acc, prod);
          linalg::YieldOp::create(b, l, sum);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::onnxc::populateEinsumPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<EinsumLowering>(converter, patterns.getContext());
}
