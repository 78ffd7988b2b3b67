//===- TreeEnsemble.cpp - Tree ensembles -> linalg + scf ------------------===//
//
// TreeEnsembleRegressor-3, TreeEnsembleClassifier-3 and TreeEnsemble-5
// (ai.onnx.ml). The trees, read and checked at compile time
// (TreeEnsembleAttrs.cpp), become constant tables (TreeEnsembleWalk.cpp):
// per interior node its feature, split, mode (with the missing-value
// track), the codes of its two children (a node's index, or -1 - leaf), and
// the sets of BRANCH_MEMBER nodes; per leaf the range of its votes (target,
// weight); per target the trees that vote for it. One linalg.generic over
// [N, targets] (parallel, so it runs on the thread pool) walks, per sample
// and target, each of those trees from its root (an scf.while over the node
// code, which ends at a leaf) and folds the leaf's votes for the target into
// the score (in f64: SUM, AVERAGE, MIN or MAX; `has`: some leaf voted).
// Where a tree votes for several targets (random forests of classifiers,
// multi-target trees), a generic over [N, trees] first finds each leaf
// once, and the scores read it instead of walking the tree again per
// target. Then, per element: AVERAGE divides by the number of trees,
// base_values are added, post_transform applies (NONE, LOGISTIC, PROBIT
// elementwise in the same generic; SOFTMAX and SOFTMAX_ZERO over the row in
// a second one), and the classifier takes the label of the best class,
// reading two-class models with one class id as ONNX Runtime does (ONNX
// leaves it open). A feature beyond X's width is a run-time error, checked
// once before the walk.
//
//===----------------------------------------------------------------------===//

#include "TreeEnsemble.h"

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <climits>

using namespace mlir;
using namespace mlir::onnxc;
using namespace mlir::onnxc::trees;

namespace {

using Pred = arith::CmpIPredicate;
using FPred = arith::CmpFPredicate;

FailureOr<Input> prepareInput(OpBuilder &b, Location loc, Value converted,
                              Value original) {
  auto type = dyn_cast<RankedTensorType>(converted.getType());
  if (!type || type.getRank() < 1 || type.getRank() > 2)
    return failure();
  Type elem = getONNXElementType(original);
  if (!isa<FloatType>(elem) && !elem.isInteger(64) && !elem.isInteger(32))
    return failure();
  Input in{converted, elem, b.getIndexAttr(1)};
  if (type.getRank() == 1) {
    OpFoldResult width = getDims(b, loc, converted)[0];
    in.x = reshapeTo(
        b, loc, converted,
        RankedTensorType::get({1, type.getDimSize(0)}, type.getElementType()),
        {b.getIndexAttr(1), width});
  } else {
    in.rows = getDims(b, loc, converted)[0];
  }
  return in;
}

/// Sizes [N, count] of a result of type `type`; fails when its static dims
/// say otherwise.
FailureOr<SmallVector<OpFoldResult>> resultSizes(OpBuilder &b,
                                                 RankedTensorType type,
                                                 const Input &in,
                                                 int64_t count) {
  if (!type || type.getRank() != (count < 0 ? 1 : 2))
    return failure();
  SmallVector<OpFoldResult> sizes{in.rows};
  if (count >= 0) {
    if (!type.isDynamicDim(1) && type.getDimSize(1) != count)
      return failure();
    sizes.push_back(b.getIndexAttr(count));
  }
  if (auto rows = getConstantIntValue(in.rows);
      rows && !type.isDynamicDim(0) && type.getDimSize(0) != *rows)
    return failure();
  return preferStatic(b, type, sizes);
}

/// A score after aggregation: AVERAGE's division, then base_values.
Value adjust(OpBuilder &b, Location l, const Ensemble &e, Value base,
             Value score, Value target) {
  if (e.aggregate == Aggregate::Average && !e.roots.empty())
    score =
        arith::DivFOp::create(b, l, score, f64(b, l, double(e.roots.size())));
  if (e.base.empty())
    return score;
  return arith::AddFOp::create(b, l, score, at(b, l, base, target));
}

bool rowWise(PostTransform post) {
  return post == PostTransform::Softmax || post == PostTransform::SoftmaxZero;
}

/// Regressor and TreeEnsemble-5: [N, targets] scores of `type` (ONNX
/// element type `onnxElem`).
Value buildRegression(OpBuilder &b, Location loc, Operation *op,
                      const Ensemble &e, const Input &in, RankedTensorType type,
                      ArrayRef<OpFoldResult> sizes, Type onnxElem) {
  Value base = floatTable(b, loc, e.base, b.getF64Type());
  Type f64Type = b.getF64Type();
  if (!rowWise(e.post))
    return buildScores(b, loc, op, e, in, false, type,
                       [&](OpBuilder &nb, Location nl, Value score, Value t) {
                         Value v = adjust(nb, nl, e, base, score, t);
                         auto row = [&](OpBuilder &, Location, Value) {
                           return v;
                         };
                         v = transformAt(nb, nl, e.post, row, 1, t);
                         return castScalar(nb, nl, v, f64Type, onnxElem);
                       })[0];
  Value scores = buildScores(b, loc, op, e, in, false, nullptr, nullptr)[0];
  return buildIndexedGeneric(
      b, loc, type, sizes, {}, {},
      [&](OpBuilder &nb, Location nl, ValueRange ivs, ValueRange) {
        auto row = [&](OpBuilder &rb, Location rl, Value k) {
          Value s =
              tensor::ExtractOp::create(rb, rl, scores, ValueRange{ivs[0], k});
          return adjust(rb, rl, e, base, s, k);
        };
        Value v = transformAt(nb, nl, e.post, row, e.targets, ivs[1]);
        return castScalar(nb, nl, v, f64Type, onnxElem);
      });
}

class TreeEnsembleRegressorLowering
    : public OpConversionPattern<ONNXMLTreeEnsembleRegressorOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLTreeEnsembleRegressorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getConvertedResultType(*getTypeConverter(), op);
    if (!type || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "a ranked [N, targets] result");
    std::string why;
    int64_t hint = type.isDynamicDim(1) ? -1 : type.getDimSize(1);
    FailureOr<Ensemble> e = readRegressor(op, hint, why);
    if (failed(e))
      return op.emitError() << "'onnx.ml.TreeEnsembleRegressor': " << why;
    return lower(op, adaptor.getX(), op.getX(), *e, type, rewriter);
  }

  /// Shared with TreeEnsemble-5.
  static LogicalResult lower(Operation *op, Value x, Value originalX,
                             const Ensemble &e, RankedTensorType type,
                             ConversionPatternRewriter &rewriter) {
    Location loc = op->getLoc();
    FailureOr<Input> in = prepareInput(rewriter, loc, x, originalX);
    if (failed(in))
      return rewriter.notifyMatchFailure(op, "X [N, F] or [F] of numbers");
    FailureOr<SmallVector<OpFoldResult>> sizes =
        resultSizes(rewriter, type, *in, e.targets);
    if (failed(sizes))
      return rewriter.notifyMatchFailure(op, "result shape [N, targets]");
    if (!fitsTables(e))
      return rewriter.notifyMatchFailure(op, "more than 2^31 nodes");
    Type onnxElem = getElementTypeOrSelf(op->getResult(0).getType());
    rewriter.replaceOp(
        op, buildRegression(rewriter, loc, op, e, *in, type, *sizes, onnxElem));
    return success();
  }

  static bool fitsTables(const Ensemble &e) {
    auto fits = [](int64_t v) { return v < INT32_MAX; };
    int64_t members = 0;
    for (const auto &set : e.members)
      members += int64_t(set.size());
    return fits(int64_t(e.feature.size()) + 1) && fits(e.numLeaves() + 1) &&
           fits(int64_t(e.weightTarget.size()) + 1) &&
           fits(e.targets) && fits(int64_t(e.roots.size())) &&
           fits(int64_t(e.roots.size()) * e.targets + 1) &&
           llvm::all_of(e.feature, fits) && fits(members + 1);
  }
};

class TreeEnsembleLowering : public OpConversionPattern<ONNXMLTreeEnsembleOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLTreeEnsembleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = getConvertedResultType(*getTypeConverter(), op);
    if (!type || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "a ranked [N, targets] result");
    std::string why;
    int64_t hint = type.isDynamicDim(1) ? -1 : type.getDimSize(1);
    FailureOr<Ensemble> e = readTreeEnsemble(op, hint, why);
    if (failed(e))
      return op.emitError() << "'onnx.ml.TreeEnsemble': " << why;
    return TreeEnsembleRegressorLowering::lower(op, adaptor.getX(), op.getX(),
                                                *e, type, rewriter);
  }
};

class TreeEnsembleClassifierLowering
    : public OpConversionPattern<ONNXMLTreeEnsembleClassifierOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLTreeEnsembleClassifierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto labelType = getConvertedResultType(*getTypeConverter(), op, 0);
    auto scoreType = getConvertedResultType(*getTypeConverter(), op, 1);
    if (!labelType || !scoreType)
      return rewriter.notifyMatchFailure(op, "ranked results");
    ClassifierInfo info;
    std::string why;
    FailureOr<Ensemble> e = readClassifier(op, info, why);
    if (failed(e))
      return op.emitError() << "'onnx.ml.TreeEnsembleClassifier': " << why;
    FailureOr<Input> in =
        prepareInput(rewriter, loc, adaptor.getX(), op.getX());
    if (failed(in))
      return rewriter.notifyMatchFailure(op, "X [N, F] or [F] of numbers");
    int64_t classes = e->targets;
    FailureOr<SmallVector<OpFoldResult>> labelSizes =
        resultSizes(rewriter, labelType, *in, -1);
    FailureOr<SmallVector<OpFoldResult>> scoreSizes =
        resultSizes(rewriter, scoreType, *in, classes);
    if (failed(labelSizes) || failed(scoreSizes) ||
        !labelType.getElementType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "results [N] and [N, classes]");
    if (!TreeEnsembleRegressorLowering::fitsTables(*e))
      return rewriter.notifyMatchFailure(op, "more than 2^31 nodes");

    SmallVector<Value> scored =
        buildScores(rewriter, loc, op, *e, *in, true, nullptr, nullptr);
    Value scores = scored[0], has = scored[1];
    Value labels;
    if (info.stringLabels.empty())
      labels = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(
              RankedTensorType::get({classes}, rewriter.getI64Type()),
              ArrayRef<int64_t>(info.intLabels)));
    else
      labels =
          buildStringConstant(rewriter, loc, op,
                              SmallVector<StringRef>(info.stringLabels.begin(),
                                                     info.stringLabels.end()));
    Value base = floatTable(rewriter, loc, e->base, rewriter.getF64Type());
    Type f32 = rewriter.getF32Type(), f64Type = rewriter.getF64Type();
    const Ensemble &ens = *e;

    // The per-row reading of the scores: the class picked and the score of
    // column `col`.
    auto rowResult = [&](OpBuilder &b, Location l, Value n, Value col,
                         bool wantScore) -> Value {
      IndexMath m(b, l);
      auto scoreAt = [&](OpBuilder &bb, Location ll, Value k) -> Value {
        return tensor::ExtractOp::create(bb, ll, scores, ValueRange{n, k});
      };
      auto hasAt = [&](OpBuilder &bb, Location ll, Value k) -> Value {
        return tensor::ExtractOp::create(bb, ll, has, ValueRange{n, k});
      };
      if (!info.binary) {
        // Every class's score plus its base value; the best class among
        // those with a vote or a base value (the first of equals).
        auto row = [&](OpBuilder &bb, Location ll, Value k) {
          return adjust(bb, ll, ens, base, scoreAt(bb, ll, k), k);
        };
        if (wantScore)
          return transformAt(b, l, ens.post, row, classes, col);
        SmallVector<Value> best = loopNest(
            b, l, SmallVector<Value>{m.c(classes)},
            ValueRange{m.c(-1), f64(b, l, 0)},
            [&](OpBuilder &bb, Location ll, ValueRange k,
                ValueRange acc) -> SmallVector<Value> {
              IndexMath mm(bb, ll);
              Value v = row(bb, ll, k[0]);
              Value voted = ens.base.empty()
                                ? hasAt(bb, ll, k[0])
                                : arith::ConstantIntOp::create(bb, ll, 1, 1);
              Value better = arith::OrIOp::create(
                  bb, ll, mm.cmp(Pred::slt, acc[0], mm.c(0)),
                  cmpf(bb, ll, FPred::OGT, v, acc[1]));
              Value take = arith::AndIOp::create(bb, ll, voted, better);
              return {mm.select(take, k[0], acc[0]),
                      select(bb, ll, take, v, acc[1])};
            });
        return m.max(best[0], m.c(0));
      }
      // Two classes, one class id (ONNX Runtime's binary case).
      Value s0 = scoreAt(b, l, m.c(0)), s1 = scoreAt(b, l, m.c(1));
      Value h0 = hasAt(b, l, m.c(0)), h1 = hasAt(b, l, m.c(1));
      Value zero = f64(b, l, 0);
      Value two = h1; // both scores written, else one score decides
      if (ens.base.size() == 2) {
        Value b0 = at(b, l, base, m.c(0)), b1 = at(b, l, base, m.c(1));
        // A vote for class 1: its score is base[1] + score 0 (as ONNX
        // Runtime), class 0's its opposite; else each adds its base.
        Value s1a = arith::AddFOp::create(b, l, b1, s0);
        Value s0a = arith::NegFOp::create(b, l, s1a);
        Value s1b = arith::AddFOp::create(b, l, s1, b1);
        Value s0b = arith::AddFOp::create(b, l, s0, b0);
        s0 = select(b, l, h1, s0a, s0b);
        s1 = select(b, l, h1, s1a, s1b);
        two = arith::ConstantIntOp::create(b, l, 1, 1);
      } else if (ens.base.size() == 1) {
        s0 = arith::AddFOp::create(b, l, s0, at(b, l, base, m.c(0)));
      }
      if (!wantScore) {
        Value pos = select(b, l, h1, s1, select(b, l, h0, s0, zero));
        Value positive = cmpf(b, l, FPred::OGT, pos,
                              f64(b, l, info.weightsPositive ? 0.5 : 0));
        return m.select(positive, m.c(1), m.c(0));
      }
      Value isFirst = m.cmp(Pred::eq, col, m.c(0));
      auto pair = [&](OpBuilder &bb, Location ll, Value k) -> Value {
        IndexMath mm(bb, ll);
        return select(bb, ll, mm.cmp(Pred::eq, k, mm.c(0)), s0, s1);
      };
      Value both = transformAt(b, l, ens.post, pair, 2, col);
      // One score: its complement (weights >= 0: a probability), or its
      // opposite (through the logistic for LOGISTIC); PROBIT: its probit.
      Value one;
      if (ens.post == PostTransform::Probit) {
        one = select(b, l, isFirst, probit(b, l, s0), zero);
      } else if (info.weightsPositive) {
        one = select(b, l, isFirst,
                     arith::SubFOp::create(b, l, f64(b, l, 1), s0), s0);
      } else {
        Value neg = arith::NegFOp::create(b, l, s0);
        Value v = select(b, l, isFirst, neg, s0);
        one = ens.post == PostTransform::Logistic ? logistic(b, l, v) : v;
      }
      return select(b, l, two, both, one);
    };

    Value z = buildIndexedGeneric(
        rewriter, loc, scoreType, *scoreSizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
          return castScalar(b, l, rowResult(b, l, ivs[0], ivs[1], true),
                            f64Type, f32);
        });
    Value y = buildIndexedGeneric(
        rewriter, loc, labelType, *labelSizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          Value k = rowResult(b, l, ivs[0], Value(), false);
          return tensor::ExtractOp::create(b, l, labels, k);
        });
    rewriter.replaceOp(op, {y, z});
    return success();
  }
};

} // namespace

void mlir::onnxc::populateTreeEnsemblePatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<TreeEnsembleRegressorLowering, TreeEnsembleClassifierLowering,
               TreeEnsembleLowering>(converter, patterns.getContext());
}
