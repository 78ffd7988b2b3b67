//===- Text.cpp - TfIdfVectorizer -> scf + linalg -------------------------===//
//
// TfIdfVectorizer over integer or string tokens (strings become their
// positions among the pool's distinct strings, -1 for others, and the pool
// those positions: ml::stringPositions). The pool's n-grams are sorted at
// compile time into one constant table per n-gram length, each row with
// its output column (a duplicate n-gram takes the last column given, as the
// reference's trie). Per row of X, skip distance and start position, each
// n-gram that fits is looked up by binary search and its column counted;
// unigrams count once, not once per skip distance. The counts are then
// weighted by mode (TF, IDF, TFIDF) in one generic.
//
//===----------------------------------------------------------------------===//

#include "ML.h"

#include <map>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Pred = arith::CmpIPredicate;

/// The pool's n-grams of one length, sorted, with their output columns.
struct GramTable {
  int64_t length = 0;
  std::map<SmallVector<int64_t>, int64_t> columns;
};

class TfIdfVectorizerLowering : public TensorPattern<ONNXTfIdfVectorizerOp> {
public:
  using TensorPattern::TensorPattern;

  /// The tables of the lengths in [min, max]; fails on an inconsistent
  /// pool.
  static FailureOr<SmallVector<GramTable>>
  buildTables(ONNXTfIdfVectorizerOp op, ArrayRef<int64_t> pool,
              ArrayRef<int64_t> counts, ArrayRef<int64_t> indexes,
              std::string &why) {
    SmallVector<GramTable> tables;
    int64_t id = 0;
    int64_t minLen = op.getMinGramLength(), maxLen = op.getMaxGramLength();
    for (size_t i = 0; i < counts.size(); ++i) {
      int64_t length = i + 1;
      int64_t begin = counts[i];
      int64_t end = i + 1 < counts.size() ? counts[i + 1] : pool.size();
      if (begin < 0 || end < begin || end > int64_t(pool.size())) {
        why = "ngram_counts do not partition the pool";
        return failure();
      }
      int64_t grams = (end - begin) / length;
      if (length < minLen || length > maxLen) {
        id += grams;
        continue;
      }
      GramTable table;
      table.length = length;
      for (int64_t g = 0; g < grams; ++g, ++id) {
        if (id >= int64_t(indexes.size())) {
          why = "ngram_indexes has fewer entries than the pool has n-grams";
          return failure();
        }
        SmallVector<int64_t> gram(pool.begin() + begin + g * length,
                                  pool.begin() + begin + (g + 1) * length);
        table.columns[gram] = indexes[id];
      }
      if (!table.columns.empty())
        tables.push_back(std::move(table));
    }
    return tables;
  }

  LogicalResult
  matchAndRewrite(ONNXTfIdfVectorizerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value x = adaptor.getX();
    auto xType = getMovableRankedType(x);
    if (!type || !xType || (xType.getRank() != 1 && xType.getRank() != 2) ||
        type.getRank() != xType.getRank() ||
        !isa<IntegerType>(xType.getElementType()))
      return rewriter.notifyMatchFailure(op, "integer tokens [C] or [B, C]");
    bool strings = isa<StringType>(getONNXElementType(op.getX()));
    if (strings ? !op.getPoolStrings() : !op.getPoolInt64s())
      return op.emitOpError() << "has no pool_"
                              << (strings ? "strings for its string tokens"
                                          : "int64s for its integer tokens");
    StringRef mode = op.getMode();
    if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
      return rewriter.notifyMatchFailure(op, "mode is TF, IDF or TFIDF");
    auto ints = [](ArrayAttr a) {
      SmallVector<int64_t> v;
      for (Attribute e : a)
        v.push_back(cast<IntegerAttr>(e).getInt());
      return v;
    };
    SmallVector<int64_t> pool;
    if (strings) {
      // Tokens and pool as positions among the pool's distinct strings.
      SmallVector<StringRef> words;
      ArrayAttr poolStrings = *op.getPoolStrings();
      for (Attribute a : poolStrings)
        words.push_back(cast<StringAttr>(a).getValue());
      SmallVector<StringRef> distinct(words);
      llvm::sort(distinct);
      distinct.erase(llvm::unique(distinct), distinct.end());
      for (StringRef w : words)
        pool.push_back(llvm::lower_bound(distinct, w) - distinct.begin());
      x = ml::stringPositions(rewriter, loc, op, x, distinct);
    } else {
      pool = ints(*op.getPoolInt64s());
    }
    SmallVector<int64_t> counts = ints(op.getNgramCounts());
    SmallVector<int64_t> indexes = ints(op.getNgramIndexes());
    if (indexes.empty())
      return rewriter.notifyMatchFailure(op, "empty ngram_indexes");
    int64_t numColumns = *llvm::max_element(indexes) + 1;
    if (llvm::any_of(indexes, [](int64_t i) { return i < 0; }) ||
        type.getDimSize(type.getRank() - 1) != numColumns)
      return rewriter.notifyMatchFailure(op, "ngram_indexes vs result");
    std::string why;
    FailureOr<SmallVector<GramTable>> tables =
        buildTables(op, pool, counts, indexes, why);
    if (failed(tables))
      return rewriter.notifyMatchFailure(op, why);
    SmallVector<float> weights(numColumns, 1.0f);
    if (auto w = op.getWeights()) {
      if (int64_t(w->size()) < numColumns)
        return rewriter.notifyMatchFailure(op, "fewer weights than columns");
      for (int64_t i = 0; i < numColumns; ++i)
        weights[i] = cast<FloatAttr>((*w)[i]).getValueAsDouble();
    }

    IndexMath m(rewriter, loc);
    Type i64 = rewriter.getI64Type(), f32 = rewriter.getF32Type();
    bool batched = xType.getRank() == 2;
    Value rows = batched ? getDimValue(rewriter, loc, x, 0) : m.c(1);
    Value length = getDimValue(rewriter, loc, x, batched ? 1 : 0);
    auto token = [&](OpBuilder &b, Location l, Value row, Value at) -> Value {
      Value v = batched
                    ? tensor::ExtractOp::create(b, l, x, ValueRange{row, at})
                    : tensor::ExtractOp::create(b, l, x, at);
      if (v.getType() != i64)
        v = arith::ExtSIOp::create(b, l, i64, v);
      return v;
    };
    // One constant [P, n] table and [P] columns per length.
    struct Consts {
      int64_t length, size;
      Value grams, columns;
    };
    SmallVector<Consts> consts;
    for (const GramTable &t : *tables) {
      SmallVector<int64_t> flat, cols;
      for (const auto &[gram, col] : t.columns) {
        flat.append(gram.begin(), gram.end());
        cols.push_back(col);
      }
      int64_t p = cols.size();
      auto gType = RankedTensorType::get({p, t.length}, i64);
      auto cType = RankedTensorType::get({p}, i64);
      consts.push_back(
          {t.length, p,
           arith::ConstantOp::create(rewriter, loc,
                                     DenseIntElementsAttr::get(gType, flat)),
           arith::ConstantOp::create(rewriter, loc,
                                     DenseIntElementsAttr::get(cType, cols))});
    }
    auto countsType =
        RankedTensorType::get({ShapedType::kDynamic, numColumns}, f32);
    Value zero = createScalarConstant(rewriter, loc, f32, 0);
    Value counts0 = createFilled(
        rewriter, loc, countsType,
        {getAsOpFoldResult(rows), rewriter.getIndexAttr(numColumns)}, zero);
    Value maxDistance = m.c(op.getMaxSkipCount() + 1);
    Value tf = loopNest(
        rewriter, loc, SmallVector<Value>{rows, maxDistance, length}, counts0,
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange it) -> SmallVector<Value> {
          IndexMath mm(b, l);
          Value row = ivs[0], distance = mm.add(ivs[1], mm.c(1)),
                start = ivs[2];
          Value acc = it[0];
          for (const Consts &c : consts) {
            // The n-gram's last token is inside the row; unigrams only
            // at distance 1.
            Value last = mm.add(start, mm.mul(distance, mm.c(c.length - 1)));
            Value fits = mm.cmp(Pred::slt, last, length);
            if (c.length == 1)
              fits = arith::AndIOp::create(b, l, fits,
                                           mm.cmp(Pred::eq, distance, mm.c(1)));
            auto ifFits = scf::IfOp::create(b, l, acc.getType(), fits,
                                            /*withElseRegion=*/true);
            OpBuilder::InsertionGuard g(b);
            b.setInsertionPointToStart(ifFits.thenBlock());
            // Compares table row `p` with the n-gram: -1, 0 or 1 (i64).
            auto compare = [&](OpBuilder &b2, Location l2, Value p) -> Value {
              Value z = arith::ConstantIntOp::create(b2, l2, i64, 0);
              return loopNest(
                  b2, l2, SmallVector<Value>{IndexMath(b2, l2).c(c.length)}, z,
                  [&](OpBuilder &b3, Location l3, ValueRange k,
                      ValueRange cmp) -> SmallVector<Value> {
                    IndexMath m3(b3, l3);
                    Value t = token(b3, l3, row,
                                    m3.add(start, m3.mul(distance, k[0])));
                    Value e = tensor::ExtractOp::create(b3, l3, c.grams,
                                                        ValueRange{p, k[0]});
                    auto ci = [&](int64_t v) -> Value {
                      return arith::ConstantIntOp::create(b3, l3, i64, v);
                    };
                    Value here = arith::SelectOp::create(
                        b3, l3, arith::CmpIOp::create(b3, l3, Pred::slt, e, t),
                        ci(-1),
                        arith::SelectOp::create(
                            b3, l3,
                            arith::CmpIOp::create(b3, l3, Pred::sgt, e, t),
                            ci(1), ci(0)));
                    Value undecided =
                        arith::CmpIOp::create(b3, l3, Pred::eq, cmp[0], ci(0));
                    return {arith::SelectOp::create(b3, l3, undecided, here,
                                                    cmp[0])};
                  })[0];
            };
            // Lower bound: the first row not less than the n-gram.
            int64_t steps = llvm::Log2_64_Ceil(c.size + 1);
            SmallVector<Value> bounds =
                loopNest(b, l, SmallVector<Value>{mm.c(steps)},
                         ValueRange{mm.c(0), mm.c(c.size)},
                         [&](OpBuilder &b2, Location l2, ValueRange,
                             ValueRange lh) -> SmallVector<Value> {
                           IndexMath m2(b2, l2);
                           Value open = m2.cmp(Pred::slt, lh[0], lh[1]);
                           Value mid = m2.div(m2.add(lh[0], lh[1]), m2.c(2));
                           Value midIn = m2.min(mid, m2.c(c.size - 1));
                           Value less = arith::CmpIOp::create(
                               b2, l2, Pred::slt, compare(b2, l2, midIn),
                               arith::ConstantIntOp::create(b2, l2, i64, 0));
                           Value lo =
                               m2.select(less, m2.add(mid, m2.c(1)), lh[0]);
                           Value hi = m2.select(less, lh[1], mid);
                           return {m2.select(open, lo, lh[0]),
                                   m2.select(open, hi, lh[1])};
                         });
            Value at = mm.min(bounds[0], mm.c(c.size - 1));
            Value found = arith::AndIOp::create(
                b, l, mm.cmp(Pred::slt, bounds[0], mm.c(c.size)),
                arith::CmpIOp::create(
                    b, l, Pred::eq, compare(b, l, at),
                    arith::ConstantIntOp::create(b, l, i64, 0)));
            auto ifFound = scf::IfOp::create(b, l, acc.getType(), found,
                                             /*withElseRegion=*/true);
            scf::YieldOp::create(b, l, ifFound.getResults());
            b.setInsertionPointToStart(ifFound.thenBlock());
            {
              Value col = arith::IndexCastOp::create(
                  b, l, b.getIndexType(),
                  tensor::ExtractOp::create(b, l, c.columns, at));
              Value old =
                  tensor::ExtractOp::create(b, l, acc, ValueRange{row, col});
              Value one = createScalarConstant(b, l, f32, 1);
              Value inc = arith::AddFOp::create(b, l, old, one);
              scf::YieldOp::create(
                  b, l,
                  tensor::InsertOp::create(b, l, inc, acc, ValueRange{row, col})
                      .getResult());
            }
            b.setInsertionPointToStart(ifFound.elseBlock());
            scf::YieldOp::create(b, l, acc);
            b.setInsertionPointToStart(ifFits.elseBlock());
            scf::YieldOp::create(b, l, acc);
            b.setInsertionPointAfter(ifFits);
            acc = ifFits.getResult(0);
          }
          return {acc};
        })[0];
    // Weighting: TF counts; IDF weight where counted; TFIDF count * weight.
    auto wType = RankedTensorType::get({numColumns}, f32);
    Value w = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(wType, ArrayRef<float>(weights)));
    MLIRContext *ctx = getContext();
    AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap col = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
    Value weighted =
        linalg::GenericOp::create(
            rewriter, loc, countsType, ValueRange{tf, w},
            ValueRange{createEmpty(
                rewriter, loc, countsType,
                {getAsOpFoldResult(rows), rewriter.getIndexAttr(numColumns)})},
            ArrayRef<AffineMap>{id2, col, id2},
            SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value c = args[0], wt = args[1], r = c;
              if (mode == "IDF") {
                Value z = createScalarConstant(b, l, f32, 0);
                Value seen = arith::CmpFOp::create(
                    b, l, arith::CmpFPredicate::OGT, c, z);
                r = arith::SelectOp::create(b, l, seen, wt, z);
              } else if (mode == "TFIDF") {
                r = arith::MulFOp::create(b, l, c, wt);
              }
              linalg::YieldOp::create(b, l, r);
            })
            .getResult(0);
    Value result = batched ? weighted
                           : reshapeTo(rewriter, loc, weighted, type,
                                       {rewriter.getIndexAttr(numColumns)});
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateTextPatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<TfIdfVectorizerLowering>(converter, patterns.getContext());
}
