//===- TreeEnsembleWalk.cpp - Walking tree ensembles per sample -----------===//
//
// The tables of an Ensemble (TreeEnsemble.h) and the generic that walks
// them for every (sample, target), and the post_transforms the patterns
// apply to the scores (TreeEnsemble.cpp says how it all fits together).
//
//===----------------------------------------------------------------------===//

#include "TreeEnsemble.h"

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "llvm/ADT/SetVector.h"

#include <cmath>

using namespace mlir;
using namespace mlir::onnxc;
using namespace mlir::onnxc::trees;

namespace {

using Pred = arith::CmpIPredicate;
using FPred = arith::CmpFPredicate;

Value i32Table(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  SmallVector<int32_t> v(values.begin(), values.end());
  auto type = RankedTensorType::get({int64_t(v.size())}, b.getI32Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, ArrayRef<int32_t>(v)));
}

} // namespace

Value trees::floatTable(OpBuilder &b, Location loc, ArrayRef<double> values,
                        FloatType elem) {
  SmallVector<APFloat> v;
  for (double d : values) {
    APFloat f(d);
    bool lost;
    f.convert(elem.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    v.push_back(f);
  }
  auto type = RankedTensorType::get({int64_t(v.size())}, elem);
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, v));
}

Value trees::at(OpBuilder &b, Location l, Value table, ValueRange i) {
  Value v = tensor::ExtractOp::create(b, l, table, i);
  if (v.getType().isInteger(32))
    return arith::IndexCastOp::create(b, l, b.getIndexType(), v);
  return v;
}

Value trees::f64(OpBuilder &b, Location l, double v) {
  return arith::ConstantOp::create(b, l, b.getF64FloatAttr(v));
}

Value trees::cmpf(OpBuilder &b, Location l, FPred p, Value x, Value y) {
  return arith::CmpFOp::create(b, l, p, x, y);
}

Value trees::select(OpBuilder &b, Location l, Value c, Value x, Value y) {
  return arith::SelectOp::create(b, l, c, x, y);
}

/// 1 / (1 + exp(-v)) in f64, without overflow or cancellation: with
/// e = exp(-|v|), 1 / (1 + e) for v >= 0, e / (1 + e) below.
Value trees::logistic(OpBuilder &b, Location l, Value v) {
  Value e = math::ExpOp::create(
      b, l, arith::NegFOp::create(b, l, math::AbsFOp::create(b, l, v)));
  Value p = arith::DivFOp::create(b, l, f64(b, l, 1),
                                  arith::AddFOp::create(b, l, f64(b, l, 1), e));
  return select(b, l, cmpf(b, l, FPred::OLT, v, f64(b, l, 0)),
                arith::MulFOp::create(b, l, e, p), p);
}

/// sqrt(2) erfinv(2 v - 1) with the approximation of erfinv that ONNX
/// Runtime and ONNX's reference use (Winitzki's, a = 0.147), in f64.
Value trees::probit(OpBuilder &b, Location l, Value v) {
  auto c = [&](double x) { return f64(b, l, x); };
  Value x =
      arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, c(2), v), c(1));
  Value sign = select(b, l, cmpf(b, l, FPred::OLT, x, c(0)), c(-1), c(1));
  Value w = arith::MulFOp::create(b, l, arith::SubFOp::create(b, l, c(1), x),
                                  arith::AddFOp::create(b, l, c(1), x));
  Value lg = math::LogOp::create(b, l, w);
  Value a = arith::AddFOp::create(b, l, c(2 / (M_PI * 0.147)),
                                  arith::MulFOp::create(b, l, c(0.5), lg));
  Value a2 = arith::DivFOp::create(b, l, lg, c(0.147));
  Value r = math::SqrtOp::create(
      b, l,
      arith::SubFOp::create(
          b, l,
          math::SqrtOp::create(
              b, l,
              arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, a, a),
                                    a2)),
          a));
  return arith::MulFOp::create(b, l, c(M_SQRT2),
                               arith::MulFOp::create(b, l, sign, r));
}

/// post_transform of column `col` of a row of `count` scores `row` (f64).
Value trees::transformAt(OpBuilder &b, Location l, PostTransform post,
                         RowFn row, int64_t count, Value col) {
  Value v = row(b, l, col);
  switch (post) {
  case PostTransform::None:
    return v;
  case PostTransform::Logistic:
    return logistic(b, l, v);
  case PostTransform::Probit:
    return probit(b, l, v);
  case PostTransform::Softmax:
  case PostTransform::SoftmaxZero:
    break;
  }
  bool zero = post == PostTransform::SoftmaxZero;
  // SOFTMAX_ZERO (ONNX Runtime): scores within 1e-7 of 0 take no part.
  auto nonZero = [&](OpBuilder &bb, Location ll, Value x) -> Value {
    Value a = math::AbsFOp::create(bb, ll, x);
    return cmpf(bb, ll, FPred::OGT, a, f64(bb, ll, 1e-7));
  };
  IndexMath m(b, l);
  Value max = loopNest(
      b, l, SmallVector<Value>{m.c(count)}, ValueRange{f64(b, l, -INFINITY)},
      [&](OpBuilder &bb, Location ll, ValueRange k,
          ValueRange acc) -> SmallVector<Value> {
        return {arith::MaximumFOp::create(bb, ll, acc[0], row(bb, ll, k[0]))};
      })[0];
  Value sum =
      loopNest(b, l, SmallVector<Value>{m.c(count)}, ValueRange{f64(b, l, 0)},
               [&](OpBuilder &bb, Location ll, ValueRange k,
                   ValueRange acc) -> SmallVector<Value> {
                 Value x = row(bb, ll, k[0]);
                 Value e = math::ExpOp::create(
                     bb, ll, arith::SubFOp::create(bb, ll, x, max));
                 if (zero)
                   e = select(bb, ll, nonZero(bb, ll, x), e, f64(bb, ll, 0));
                 return {arith::AddFOp::create(bb, ll, acc[0], e)};
               })[0];
  Value e = math::ExpOp::create(b, l, arith::SubFOp::create(b, l, v, max));
  if (zero)
    e = select(
        b, l, nonZero(b, l, v), e,
        arith::MulFOp::create(
            b, l, v,
            math::ExpOp::create(b, l, arith::NegFOp::create(b, l, max))));
  return arith::DivFOp::create(b, l, e, sum);
}

namespace {

/// The tables of an ensemble and the walk over them.
class Walker {
public:
  Walker(const Ensemble &e, OpBuilder &b, Location loc, Value x, Type xElem)
      : e(e), x(x), xElem(xElem) {
    cmpType = xElem.isF64() || e.doubleSplits ? Type(b.getF64Type())
                                              : Type(b.getF32Type());
    // Per target, the trees that vote for it (through a leaf they reach),
    // and what the walk needs to know of the nodes they reach.
    SmallVector<SmallVector<int64_t>> perTarget(e.targets);
    llvm::SetVector<Mode> modes;
    for (auto [tree, root] : llvm::enumerate(e.roots)) {
      SmallVector<int64_t> nodes, leaves;
      e.reachable(root, nodes, leaves);
      for (int64_t n : nodes) {
        maxFeature = std::max(maxFeature, e.feature[n]);
        modes.insert(e.mode[n]);
        missing |= e.missingTracksTrue[n];
      }
      llvm::SmallSetVector<int64_t, 4> targets;
      for (int64_t leaf : leaves)
        for (int64_t k = e.leafBegin[leaf]; k < e.leafBegin[leaf + 1]; ++k)
          targets.insert(e.weightTarget[k]);
      for (int64_t t : targets)
        perTarget[t].push_back(int64_t(tree));
      shared |= targets.size() > 1;
    }
    presentModes.assign(modes.begin(), modes.end());
    uniform = presentModes.size() <= 1 && !missing &&
              !llvm::is_contained(presentModes, Mode::Member);
    oneVote =
        llvm::all_of(llvm::seq<int64_t>(0, e.numLeaves()), [&](int64_t l) {
          return e.leafBegin[l + 1] - e.leafBegin[l] == 1;
        });
    SmallVector<int64_t> begin{0}, trees;
    for (const auto &list : perTarget) {
      trees.append(list.begin(), list.end());
      begin.push_back(int64_t(trees.size()));
    }
    auto cmpFloat = cast<FloatType>(cmpType);
    feature = i32Table(b, loc, e.feature);
    split = floatTable(b, loc, e.split, cmpFloat);
    yes = i32Table(b, loc, e.yes);
    no = i32Table(b, loc, e.no);
    if (!uniform) {
      SmallVector<int64_t> bits;
      for (size_t n = 0; n < e.mode.size(); ++n)
        bits.push_back(int64_t(e.mode[n]) | (e.missingTracksTrue[n] ? 8 : 0));
      modeBits = i32Table(b, loc, bits);
    }
    if (llvm::is_contained(presentModes, Mode::Member)) {
      SmallVector<int64_t> memberBegin{0};
      SmallVector<double> values;
      for (const auto &set : e.members) {
        values.append(set.begin(), set.end());
        memberBegin.push_back(int64_t(values.size()));
      }
      members = floatTable(b, loc, values, cmpFloat);
      membersBegin = i32Table(b, loc, memberBegin);
    }
    leafBegin = i32Table(b, loc, e.leafBegin);
    weightTarget = i32Table(b, loc, e.weightTarget);
    weightValue = floatTable(b, loc, e.weightValue, b.getF64Type());
    targetBegin = i32Table(b, loc, begin);
    targetTrees = i32Table(b, loc, trees);
    roots = i32Table(b, loc, e.roots);
  }

  /// The largest feature a walk reads, -1 when none.
  int64_t maxFeature = -1;

  /// Some tree votes for several targets: walking it once per target would
  /// repeat the walk, so the leaves are found first (leaves()).
  bool sharesTrees() const { return shared; }

  /// The leaf each tree reaches for each row: [N, trees] (i32), one
  /// parallel generic.
  Value leaves(OpBuilder &b, Location loc, OpFoldResult rows) const {
    auto type = RankedTensorType::get(
        {getConstantIntValue(rows).value_or(ShapedType::kDynamic),
         int64_t(e.roots.size())},
        b.getI32Type());
    return buildIndexedGeneric(
        b, loc, type, {rows, b.getIndexAttr(int64_t(e.roots.size()))}, {}, {},
        [&](OpBuilder &nb, Location nl, ValueRange ivs, ValueRange) -> Value {
          Value leaf = walk(nb, nl, ivs[0],
                            tensor::ExtractOp::create(nb, nl, roots, ivs[1]));
          return arith::IndexCastOp::create(nb, nl, nb.getI32Type(), leaf);
        });
  }

  /// The aggregated votes of row `n` for target `t` (index values): the
  /// score (f64, 0 without votes) and whether some leaf voted. `leafOf`:
  /// the leaves() of the rows, or null to walk the trees here.
  std::pair<Value, Value> score(OpBuilder &b, Location l, Value n, Value t,
                                Value leafOf) const {
    IndexMath m(b, l);
    Value none = arith::ConstantIntOp::create(b, l, 0, 1);
    auto loop = scf::ForOp::create(b, l, at(b, l, targetBegin, t),
                                   at(b, l, targetBegin, m.add(t, m.c(1))),
                                   m.c(1), ValueRange{f64(b, l, 0), none});
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      Value tree = at(b, l, targetTrees, loop.getInductionVar());
      Value leaf =
          leafOf ? at(b, l, leafOf, ValueRange{n, tree})
                 : walk(b, l, n, tensor::ExtractOp::create(b, l, roots, tree));
      ValueRange acc = loop.getRegionIterArgs();
      SmallVector<Value> next;
      if (oneVote) {
        next = vote(b, l, t, leaf, acc[0], acc[1]);
      } else {
        auto votes = scf::ForOp::create(
            b, l, at(b, l, leafBegin, leaf),
            at(b, l, leafBegin, m.add(leaf, m.c(1))), m.c(1), acc);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(votes.getBody());
        scf::YieldOp::create(b, l,
                             vote(b, l, t, votes.getInductionVar(),
                                  votes.getRegionIterArgs()[0],
                                  votes.getRegionIterArgs()[1]));
        next = SmallVector<Value>(votes.getResults());
      }
      scf::YieldOp::create(b, l, next);
    }
    return {loop.getResult(0), loop.getResult(1)};
  }

private:
  /// Folds vote `k` into (score, has) when it is for target `t`.
  SmallVector<Value> vote(OpBuilder &b, Location l, Value t, Value k, Value acc,
                          Value has) const {
    Value w = at(b, l, weightValue, k);
    Value folded;
    switch (e.aggregate) {
    case Aggregate::Sum:
    case Aggregate::Average:
      folded = arith::AddFOp::create(b, l, acc, w);
      break;
    case Aggregate::Min:
    case Aggregate::Max: {
      // ONNX Runtime: the first vote, then a smaller (larger) one.
      Value better =
          cmpf(b, l, e.aggregate == Aggregate::Min ? FPred::OLT : FPred::OGT, w,
               acc);
      Value first = arith::XOrIOp::create(
          b, l, has, arith::ConstantIntOp::create(b, l, 1, 1));
      folded = select(b, l, arith::OrIOp::create(b, l, first, better), w, acc);
      break;
    }
    }
    if (e.targets == 1)
      return {folded, arith::ConstantIntOp::create(b, l, 1, 1)};
    IndexMath m(b, l);
    Value match = m.cmp(Pred::eq, at(b, l, weightTarget, k), t);
    return {select(b, l, match, folded, acc),
            arith::OrIOp::create(b, l, has, match)};
  }

  /// Descends from the node code `root` (i32) for row `n` to a leaf; its
  /// index.
  Value walk(OpBuilder &b, Location l, Value n, Value root) const {
    Type i32 = b.getI32Type();
    auto loop = scf::WhileOp::create(
        b, l, TypeRange{i32}, ValueRange{root},
        [](OpBuilder &bb, Location ll, ValueRange args) {
          Value zero = arith::ConstantIntOp::create(bb, ll, 0, 32);
          Value interior =
              arith::CmpIOp::create(bb, ll, Pred::sge, args[0], zero);
          scf::ConditionOp::create(bb, ll, interior, args);
        },
        [&](OpBuilder &bb, Location ll, ValueRange args) {
          Value node =
              arith::IndexCastOp::create(bb, ll, bb.getIndexType(), args[0]);
          Value value = tensor::ExtractOp::create(
              bb, ll, x, ValueRange{n, at(bb, ll, feature, node)});
          value = castScalar(bb, ll, value, xElem, cmpType);
          Value taken = condition(bb, ll, node, value);
          scf::YieldOp::create(
              bb, ll,
              ValueRange{select(bb, ll, taken,
                                tensor::ExtractOp::create(bb, ll, yes, node),
                                tensor::ExtractOp::create(bb, ll, no, node))});
        });
    // The leaf's code is -1 - leaf.
    Value code =
        arith::IndexCastOp::create(b, l, b.getIndexType(), loop.getResult(0));
    IndexMath m(b, l);
    return m.sub(m.c(-1), code);
  }

  /// Whether interior node `node` sends `value` (of cmpType) to its true
  /// child.
  Value condition(OpBuilder &b, Location l, Value node, Value value) const {
    Value th = at(b, l, split, node);
    auto compare = [&](Mode mode) -> Value {
      switch (mode) {
      case Mode::LEQ:
        return cmpf(b, l, FPred::OLE, value, th);
      case Mode::LT:
        return cmpf(b, l, FPred::OLT, value, th);
      case Mode::GTE:
        return cmpf(b, l, FPred::OGE, value, th);
      case Mode::GT:
        return cmpf(b, l, FPred::OGT, value, th);
      case Mode::EQ:
        return cmpf(b, l, FPred::OEQ, value, th);
      case Mode::NEQ:
        return cmpf(b, l, FPred::UNE, value, th);
      case Mode::Member:
        return member(b, l, node, value);
      }
      llvm_unreachable("mode");
    };
    if (uniform)
      return compare(presentModes.empty() ? Mode::LEQ : presentModes.front());
    Value bits = tensor::ExtractOp::create(b, l, modeBits, node);
    auto i32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, l, v, 32);
    };
    Value which = arith::AndIOp::create(b, l, bits, i32(7));
    Value taken = compare(presentModes.back());
    for (Mode m : ArrayRef(presentModes).drop_back())
      taken = select(
          b, l, arith::CmpIOp::create(b, l, Pred::eq, which, i32(int64_t(m))),
          compare(m), taken);
    if (missing) {
      Value tracks = arith::CmpIOp::create(
          b, l, Pred::ne, arith::AndIOp::create(b, l, bits, i32(8)), i32(0));
      Value isNaN = cmpf(b, l, FPred::UNO, value, value);
      taken = arith::OrIOp::create(b, l, taken,
                                   arith::AndIOp::create(b, l, tracks, isNaN));
    }
    return taken;
  }

  /// Whether `value` is in the set of BRANCH_MEMBER node `node`.
  Value member(OpBuilder &b, Location l, Value node, Value value) const {
    IndexMath m(b, l);
    auto loop = scf::ForOp::create(
        b, l, at(b, l, membersBegin, node),
        at(b, l, membersBegin, m.add(node, m.c(1))), m.c(1),
        ValueRange{arith::ConstantIntOp::create(b, l, 0, 1).getResult()});
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value v = at(b, l, members, loop.getInductionVar());
    scf::YieldOp::create(
        b, l,
        ValueRange{arith::OrIOp::create(b, l, loop.getRegionIterArgs()[0],
                                        cmpf(b, l, FPred::OEQ, value, v))});
    return loop.getResult(0);
  }

  const Ensemble &e;
  Value x;
  Type xElem, cmpType;
  SmallVector<Mode> presentModes;
  bool missing = false, uniform = true, oneVote = true, shared = false;
  Value feature, split, modeBits, yes, no, members, membersBegin;
  Value leafBegin, weightTarget, weightValue, targetBegin, targetTrees, roots;
};

} // namespace

SmallVector<Value> trees::buildScores(OpBuilder &b, Location loc, Operation *op,
                                      const Ensemble &e, const Input &in,
                                      bool withHas, RankedTensorType finishType,
                                      FinishFn finish) {
  Walker walker(e, b, loc, in.x, in.elem);
  if (walker.maxFeature >= 0) {
    IndexMath m(b, loc);
    Value width = getDimValue(b, loc, in.x, 1);
    emitRuntimeCheck(b, loc, op,
                     m.cmp(Pred::sle, width, m.c(walker.maxFeature)),
                     "a tree reads feature {0}, but X has {1} features",
                     {m.c(walker.maxFeature), width});
  }
  Value leafOf =
      walker.sharesTrees() ? walker.leaves(b, loc, in.rows) : Value();
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> sizes{in.rows, b.getIndexAttr(e.targets)};
  SmallVector<Type> types;
  SmallVector<Value> inits;
  auto add = [&](Type elem) {
    auto type = RankedTensorType::get(
        {getConstantIntValue(in.rows).value_or(ShapedType::kDynamic),
         e.targets},
        elem);
    types.push_back(type);
    inits.push_back(createEmpty(b, loc, type, sizes));
  };
  if (finish) {
    types.push_back(finishType);
    inits.push_back(createEmpty(b, loc, finishType, sizes));
  } else {
    add(b.getF64Type());
    if (withHas)
      add(b.getI1Type());
  }
  SmallVector<AffineMap> maps(inits.size(),
                              AffineMap::getMultiDimIdentityMap(2, ctx));
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, types, ValueRange{}, inits, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value n = linalg::IndexOp::create(nb, nl, 0);
        Value t = linalg::IndexOp::create(nb, nl, 1);
        auto [score, has] = walker.score(nb, nl, n, t, leafOf);
        SmallVector<Value> yields;
        if (finish)
          yields.push_back(finish(nb, nl, score, t));
        else
          yields.push_back(score);
        if (!finish && withHas)
          yields.push_back(has);
        linalg::YieldOp::create(nb, nl, yields);
      });
  return SmallVector<Value>(generic.getResults());
}
