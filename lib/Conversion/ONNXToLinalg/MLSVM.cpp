//===- MLSVM.cpp - ai.onnx.ml SVMRegressor, SVMClassifier -> linalg -------===//
//
// The SVMs as onnxruntime's CPU kernels compute them, in f32 (scores,
// post_transform and labels as MLLinear.cpp's):
//
//   kernels   with support vectors, K [N, V]: LINEAR x.sv, POLY (gamma x.sv
//             + coef0)^degree, SIGMOID tanh(gamma x.sv + coef0) (a matmul,
//             then elementwise), RBF exp(-gamma |x - sv|^2) (a generic
//             reducing over F); without, the coefficients weigh X directly
//             (liblinear), rho[0] added
//   SVC       one score per class pair (i, j), i < j: K x W^T [V, P] + rho,
//             W's row holding coefficients[j - 1] on class i's support
//             vectors and coefficients[i] on class j's. A pair votes for i
//             when its score is > 0, else for j; the label is the class with
//             the most votes (the first of equals)
//   Platt     with prob_a/prob_b: pairwise probabilities 1 - logistic(A s +
//             B), clipped to [1e-7, 1 - 1e-7], coupled into class
//             probabilities by libsvm's multiclass_probability (at most 100
//             rounds; it stops when no |Qp - pQp| reaches 0.005 / C): scf
//             loops over scalars per row, in f32 as onnxruntime's
//
// Two classes (onnxruntime; the spec says nothing): with support vectors and
// no probabilities Z = [-s, s] for NONE, [1 - s, s] otherwise (PROBIT:
// [-p, p] with p = probit(s), where onnxruntime leaves the second column
// unwritten); without support vectors or probabilities, the second label
// where the best score is >= 0.5 (all coefficients >= 0) or > 0 (else),
// otherwise the best score's. SVMRegressor applies post_transform as the
// spec says (onnxruntime ignores it), one_class gives 1 where the score is
// > 0, else -1.
//
//===----------------------------------------------------------------------===//

#include "ML.h"

#include <cmath>

using namespace mlir;
using namespace mlir::onnxc;
using namespace mlir::onnxc::ml;

namespace {

/// The kernel's attributes (kernel_params: gamma, coef0, degree).
struct Kernel {
  enum { Linear, Poly, Rbf, Sigmoid } kind = Linear;
  float gamma = 0, coef0 = 0, degree = 0;
};

FailureOr<Kernel> kernelOf(Operation *op, StringRef type, ArrayAttr params) {
  Kernel k;
  if (type == "POLY")
    k.kind = Kernel::Poly;
  else if (type == "RBF")
    k.kind = Kernel::Rbf;
  else if (type == "SIGMOID")
    k.kind = Kernel::Sigmoid;
  else if (type != "LINEAR")
    return op->emitOpError() << "kernel_type '" << type
                             << "' is not LINEAR, POLY, RBF or SIGMOID";
  SmallVector<float> p = floatsOf(params);
  if (!p.empty() && p.size() < 3)
    return op->emitOpError() << "kernel_params has " << p.size()
                             << " values, not 3 (gamma, coef0, degree)";
  if (!p.empty()) {
    k.gamma = p[0];
    k.coef0 = p[1];
    k.degree = p[2];
  }
  return k;
}

/// K [N, V]: the kernel of each row of x [N, F] with each support vector.
Value kernelMatrix(OpBuilder &b, Location loc, Value x, ArrayRef<float> sv,
                   int64_t v, int64_t f, const Kernel &k) {
  Type f32 = b.getF32Type();
  if (k.kind == Kernel::Rbf) {
    auto xType = cast<RankedTensorType>(x.getType());
    auto type = RankedTensorType::get({xType.getDimSize(0), v}, f32);
    SmallVector<OpFoldResult> sizes{getDims(b, loc, x)[0], b.getIndexAttr(v)};
    Value d2 =
        generic(b, loc, createFilled(b, loc, type, sizes, f32Const(b, loc, 0)),
                {x, constantF32(b, loc, {v, f}, sv)},
                {mapOf(b, 3, {0, 2}), mapOf(b, 3, {1, 2}), mapOf(b, 3, {0, 1})},
                {IT::parallel, IT::parallel, IT::reduction},
                [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                  Value d = arith::SubFOp::create(nb, l, a[0], a[1]);
                  return arith::AddFOp::create(
                      nb, l, a[2], arith::MulFOp::create(nb, l, d, d));
                });
    return buildElementwise(
        b, loc, d2, type, [&](OpBuilder &nb, Location l, ValueRange a) {
          return math::ExpOp::create(
                     nb, l,
                     arith::MulFOp::create(nb, l, f32Const(nb, l, -k.gamma),
                                           a[0]))
              .getResult();
        });
  }
  Value dot = affine(b, loc, x, sv, v, f, {});
  if (k.kind == Kernel::Linear)
    return dot;
  return buildElementwise(
      b, loc, dot, cast<RankedTensorType>(dot.getType()),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value s = arith::AddFOp::create(
            nb, l, arith::MulFOp::create(nb, l, f32Const(nb, l, k.gamma), a[0]),
            f32Const(nb, l, k.coef0));
        if (k.kind == Kernel::Sigmoid)
          return math::TanhOp::create(nb, l, s);
        // onnxruntime: square and cube exactly, else pow. A whole degree
        // by squaring (math.fpowi does not lower); x^2 is s s, x^3 s (s s).
        float d = k.degree;
        if (d == std::floor(d) && std::fabs(d) <= 64) {
          Value r, base = s;
          for (int64_t e = int64_t(std::fabs(d)); e; e >>= 1) {
            if (e & 1)
              r = r ? arith::MulFOp::create(nb, l, r, base).getResult() : base;
            if (e > 1)
              base = arith::MulFOp::create(nb, l, base, base);
          }
          if (!r)
            return f32Const(nb, l, 1);
          return d < 0 ? arith::DivFOp::create(nb, l, f32Const(nb, l, 1), r)
                             .getResult()
                       : r;
        }
        return math::PowFOp::create(nb, l, s, f32Const(nb, l, k.degree));
      });
}

class SVMRegressorLowering : public OpConversionPattern<ONNXMLSVMRegressorOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLSVMRegressorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = getConvertedResultType(*getTypeConverter(), op);
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!type || !xType || xType.getRank() < 1 || xType.getRank() > 2)
      return rewriter.notifyMatchFailure(op, "an input of [F] or [N, F]");
    FailureOr<Kernel> kernel =
        kernelOf(op, op.getKernelType(), op.getKernelParamsAttr());
    FailureOr<Transform> tr = parseTransform(op, op.getPostTransform());
    if (failed(kernel) || failed(tr))
      return failure();
    SmallVector<float> coef = floatsOf(op.getCoefficientsAttr());
    SmallVector<float> sv = floatsOf(op.getSupportVectorsAttr());
    SmallVector<float> rho = floatsOf(op.getRhoAttr());
    int64_t v = int64_t(op.getNSupports());
    if (rho.empty() || coef.empty())
      return op.emitOpError() << "needs rho and coefficients";
    Value x =
        rowsF32(rewriter, loc, adaptor.getX(), getONNXElementType(op.getX()));
    Value s;
    if (v > 0) {
      if (sv.empty() || sv.size() % v != 0 || int64_t(coef.size()) < v)
        return op.emitOpError()
               << "has " << sv.size() << " support vector values and "
               << coef.size() << " coefficients for " << v << " supports";
      int64_t f = sv.size() / v;
      if (failed(checkFeatures(rewriter, loc, op, x, f,
                               "the support vectors have")))
        return failure();
      Value k = kernelMatrix(rewriter, loc, x, sv, v, f, *kernel);
      s = affine(rewriter, loc, k, ArrayRef(coef).take_front(v), 1, v, rho[0]);
    } else {
      // liblinear: the coefficients are one weight per feature.
      int64_t f = coef.size();
      if (failed(checkFeatures(rewriter, loc, op, x, f,
                               "the coefficients are for")))
        return failure();
      s = affine(rewriter, loc, x, coef, 1, f, rho[0]);
    }
    Value y;
    if (op.getOneClass() != 0)
      y = buildElementwise(
          rewriter, loc, s, cast<RankedTensorType>(s.getType()),
          [&](OpBuilder &b, Location l, ValueRange a) {
            Value pos = arith::CmpFOp::create(b, l, FPred::OGT, a[0],
                                              f32Const(b, l, 0));
            return select(b, l, pos, f32Const(b, l, 1), f32Const(b, l, -1));
          });
    else
      y = applyTransform(rewriter, loc, s, *tr);
    FailureOr<Value> r = castTo(rewriter, loc, op, y, type);
    if (failed(r))
      return failure();
    rewriter.replaceOp(op, *r);
    return success();
  }
};

/// libsvm's multiclass_probability (as onnxruntime's, in f32) per row of
/// the pairwise probabilities r [N, P] (pairs i < j in order): [N, C].
Value coupleProbabilities(OpBuilder &b, Location loc, Value r, int64_t c) {
  Type f32 = b.getF32Type();
  auto rType = cast<RankedTensorType>(r.getType());
  int64_t dynN = rType.getDimSize(0);
  Value n = getDimValue(b, loc, r, 0);
  // pair[a][b]: the index of pair (min, max); -1 on the diagonal.
  SmallVector<int64_t> pair(c * c, -1);
  for (int64_t i = 0, p = 0; i < c; ++i)
    for (int64_t j = i + 1; j < c; ++j, ++p)
      pair[i * c + j] = pair[j * c + i] = p;
  Value pairs = constantI64(b, loc, pair);
  // rr(a, b): probability of a over b: r of (a, b) for a < b, else 1 - r.
  auto rr = [&](OpBuilder &nb, Location l, Value row, Value a, Value bb) {
    IndexMath m(nb, l);
    Value k = tensor::ExtractOp::create(
        nb, l, pairs, ValueRange{m.add(m.mul(a, m.c(c)), bb)});
    Value valid = arith::CmpIOp::create(
        nb, l, Pred::sge, k, arith::ConstantIntOp::create(nb, l, 0, 64));
    Value at = arith::IndexCastOp::create(
        nb, l, nb.getIndexType(),
        select(nb, l, valid, k, arith::ConstantIntOp::create(nb, l, 0, 64)));
    Value v = tensor::ExtractOp::create(nb, l, r, ValueRange{row, at});
    Value less = m.cmp(Pred::slt, a, bb);
    return select(nb, l, less, v,
                  arith::SubFOp::create(nb, l, f32Const(nb, l, 1), v));
  };
  // Q [N, C, C]: Q[t][t] = sum over m != t of rr(m, t)^2 (m in order),
  // Q[t][j] = -rr(j, t) rr(t, j).
  auto diagType = RankedTensorType::get({dynN, c}, f32);
  SmallVector<OpFoldResult> nc{n, b.getIndexAttr(c)};
  // (An input over m gives the generic its third loop.)
  Value classes = constantF32(b, loc, {c}, SmallVector<float>(c, 0.0f));
  Value diag =
      generic(b, loc, createFilled(b, loc, diagType, nc, f32Const(b, loc, 0)),
              classes, {mapOf(b, 3, {2}), mapOf(b, 3, {0, 1})},
              {IT::parallel, IT::parallel, IT::reduction},
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                Value row = linalg::IndexOp::create(nb, l, 0);
                Value t = linalg::IndexOp::create(nb, l, 1);
                Value m = linalg::IndexOp::create(nb, l, 2);
                Value same = arith::CmpIOp::create(nb, l, Pred::eq, m, t);
                Value v = rr(nb, l, row, m, t);
                Value add = arith::AddFOp::create(
                    nb, l, a[1], arith::MulFOp::create(nb, l, v, v));
                return select(nb, l, same, a[1], add);
              });
  auto qType = RankedTensorType::get({dynN, c, c}, f32);
  Value q = generic(
      b, loc,
      createEmpty(b, loc, qType, {n, b.getIndexAttr(c), b.getIndexAttr(c)}),
      diag, {mapOf(b, 3, {0, 1}), b.getMultiDimIdentityMap(3)},
      {IT::parallel, IT::parallel, IT::parallel},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value row = linalg::IndexOp::create(nb, l, 0);
        Value t = linalg::IndexOp::create(nb, l, 1);
        Value j = linalg::IndexOp::create(nb, l, 2);
        Value same = arith::CmpIOp::create(nb, l, Pred::eq, t, j);
        Value off = arith::NegFOp::create(
            nb, l,
            arith::MulFOp::create(nb, l, rr(nb, l, row, j, t),
                                  rr(nb, l, row, t, j)));
        return select(nb, l, same, a[0], off);
      });
  // Per row, the iterations on scalars.
  auto pType = RankedTensorType::get({c}, f32);
  Value out = createEmpty(b, loc, diagType, nc);
  Value cc = arith::ConstantIndexOp::create(b, loc, c);
  float eps = 0.005f / float(c);
  return loopNest(
      b, loc, SmallVector<Value>{n}, out,
      [&](OpBuilder &b1, Location l1, ValueRange rowIv,
          ValueRange st) -> SmallVector<Value> {
        Value row = rowIv[0];
        auto qAt = [&](OpBuilder &nb, Location l, Value t, Value j) {
          return tensor::ExtractOp::create(nb, l, q, ValueRange{row, t, j})
              .getResult();
        };
        auto at = [](OpBuilder &nb, Location l, Value v, Value i) {
          return tensor::ExtractOp::create(nb, l, v, ValueRange{i}).getResult();
        };
        auto put = [](OpBuilder &nb, Location l, Value x, Value v, Value i) {
          return tensor::InsertOp::create(nb, l, x, v, ValueRange{i})
              .getResult();
        };
        Value p0 = arith::ConstantOp::create(
            b1, l1,
            DenseElementsAttr::get(pType, ArrayRef<float>(1.0f / float(c))));
        Value done0 = arith::ConstantIntOp::create(b1, l1, 0, 1);
        Value rounds = arith::ConstantIndexOp::create(b1, l1, 100);
        SmallVector<Value> res = loopNest(
            b1, l1, SmallVector<Value>{rounds}, ValueRange{p0, done0},
            [&](OpBuilder &b2, Location l2, ValueRange,
                ValueRange it) -> SmallVector<Value> {
              Value p = it[0], done = it[1];
              auto ifOp = scf::IfOp::create(
                  b2, l2, done,
                  [&](OpBuilder &b3, Location l3) {
                    scf::YieldOp::create(b3, l3, ValueRange{p, done});
                  },
                  [&](OpBuilder &b3, Location l3) {
                    // Qp = Q p, pQp = p . Qp.
                    SmallVector<Value> qp = loopNest(
                        b3, l3, SmallVector<Value>{cc},
                        ValueRange{tensor::EmptyOp::create(b3, l3, pType,
                                                           ValueRange{}),
                                   f32Const(b3, l3, 0)},
                        [&](OpBuilder &b4, Location l4, ValueRange tv,
                            ValueRange acc) -> SmallVector<Value> {
                          Value sum = loopNest(
                              b4, l4, SmallVector<Value>{cc},
                              ValueRange{f32Const(b4, l4, 0)},
                              [&](OpBuilder &b5, Location l5, ValueRange jv,
                                  ValueRange s) -> SmallVector<Value> {
                                Value term = arith::MulFOp::create(
                                    b5, l5, qAt(b5, l5, tv[0], jv[0]),
                                    at(b5, l5, p, jv[0]));
                                return {
                                    arith::AddFOp::create(b5, l5, s[0], term)};
                              })[0];
                          Value pq = arith::AddFOp::create(
                              b4, l4, acc[1],
                              arith::MulFOp::create(b4, l4,
                                                    at(b4, l4, p, tv[0]), sum));
                          return {put(b4, l4, sum, acc[0], tv[0]), pq};
                        });
                    // The largest |Qp[t] - pQp| (NaN skipped).
                    Value err = loopNest(
                        b3, l3, SmallVector<Value>{cc},
                        ValueRange{f32Const(b3, l3, 0)},
                        [&](OpBuilder &b4, Location l4, ValueRange tv,
                            ValueRange e) -> SmallVector<Value> {
                          Value d = math::AbsFOp::create(
                              b4, l4,
                              arith::SubFOp::create(
                                  b4, l4, at(b4, l4, qp[0], tv[0]), qp[1]));
                          Value more = arith::CmpFOp::create(b4, l4, FPred::OGT,
                                                             d, e[0]);
                          return {select(b4, l4, more, d, e[0])};
                        })[0];
                    Value stop = arith::CmpFOp::create(b3, l3, FPred::OLT, err,
                                                       f32Const(b3, l3, eps));
                    auto step = scf::IfOp::create(
                        b3, l3, stop,
                        [&](OpBuilder &b4, Location l4) {
                          scf::YieldOp::create(b4, l4, ValueRange{p, stop});
                        },
                        [&](OpBuilder &b4, Location l4) {
                          SmallVector<Value> upd = loopNest(
                              b4, l4, SmallVector<Value>{cc},
                              ValueRange{p, qp[0], qp[1]},
                              [&](OpBuilder &b5, Location l5, ValueRange tv,
                                  ValueRange s) -> SmallVector<Value> {
                                Value t = tv[0];
                                Value qtt = qAt(b5, l5, t, t);
                                Value qpt = at(b5, l5, s[1], t);
                                Value diff = arith::DivFOp::create(
                                    b5, l5,
                                    arith::AddFOp::create(
                                        b5, l5,
                                        arith::NegFOp::create(b5, l5, qpt),
                                        s[2]),
                                    qtt);
                                Value pv =
                                    put(b5, l5,
                                        arith::AddFOp::create(
                                            b5, l5, at(b5, l5, s[0], t), diff),
                                        s[0], t);
                                Value one = f32Const(b5, l5, 1);
                                Value den =
                                    arith::AddFOp::create(b5, l5, one, diff);
                                Value inner = arith::AddFOp::create(
                                    b5, l5,
                                    arith::MulFOp::create(b5, l5, diff, qtt),
                                    arith::MulFOp::create(
                                        b5, l5, f32Const(b5, l5, 2), qpt));
                                Value pq = arith::DivFOp::create(
                                    b5, l5,
                                    arith::DivFOp::create(
                                        b5, l5,
                                        arith::AddFOp::create(
                                            b5, l5, s[2],
                                            arith::MulFOp::create(b5, l5, diff,
                                                                  inner)),
                                        den),
                                    den);
                                SmallVector<Value> vecs = loopNest(
                                    b5, l5, SmallVector<Value>{cc},
                                    ValueRange{s[1], pv},
                                    [&](OpBuilder &b6, Location l6,
                                        ValueRange jv,
                                        ValueRange w) -> SmallVector<Value> {
                                      Value j = jv[0];
                                      Value qpj = arith::DivFOp::create(
                                          b6, l6,
                                          arith::AddFOp::create(
                                              b6, l6, at(b6, l6, w[0], j),
                                              arith::MulFOp::create(
                                                  b6, l6, diff,
                                                  qAt(b6, l6, t, j))),
                                          den);
                                      Value pj = arith::DivFOp::create(
                                          b6, l6, at(b6, l6, w[1], j), den);
                                      return {put(b6, l6, qpj, w[0], j),
                                              put(b6, l6, pj, w[1], j)};
                                    });
                                return {vecs[1], vecs[0], pq};
                              });
                          scf::YieldOp::create(b4, l4,
                                               ValueRange{upd[0], stop});
                        });
                    scf::YieldOp::create(b3, l3, step.getResults());
                  });
              return {ifOp.getResult(0), ifOp.getResult(1)};
            });
        SmallVector<OpFoldResult> zero2(2, b1.getIndexAttr(0));
        zero2[0] = row;
        Value next = tensor::InsertSliceOp::create(
            b1, l1, res[0], st[0], zero2,
            SmallVector<OpFoldResult>{b1.getIndexAttr(1), b1.getIndexAttr(c)},
            SmallVector<OpFoldResult>(2, b1.getIndexAttr(1)));
        return {next};
      })[0];
}

class SVMClassifierLowering
    : public OpConversionPattern<ONNXMLSVMClassifierOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMLSVMClassifierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto yType = getConvertedResultType(*getTypeConverter(), op, 0);
    auto zType = getConvertedResultType(*getTypeConverter(), op, 1);
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!yType || !zType || !xType || xType.getRank() < 1 ||
        xType.getRank() > 2)
      return rewriter.notifyMatchFailure(op, "an input of [F] or [N, F]");
    FailureOr<Labels> labels =
        labelsOf(op, op.getY(), op.getClasslabelsIntsAttr(),
                 op.getClasslabelsStringsAttr());
    FailureOr<Transform> tr = parseTransform(op, op.getPostTransform());
    FailureOr<Kernel> kernel =
        kernelOf(op, op.getKernelType(), op.getKernelParamsAttr());
    if (failed(labels) || failed(tr) || failed(kernel))
      return failure();
    int64_t c = labels->size();
    SmallVector<int64_t> perClass = intsOf(op.getVectorsPerClassAttr());
    SmallVector<float> coef = floatsOf(op.getCoefficientsAttr());
    SmallVector<float> sv = floatsOf(op.getSupportVectorsAttr());
    SmallVector<float> rho = floatsOf(op.getRhoAttr());
    SmallVector<float> probA = floatsOf(op.getProbAAttr());
    SmallVector<float> probB = floatsOf(op.getProbBAttr());
    int64_t v = 0;
    for (int64_t k : perClass)
      v += k;
    if (c < 1 || coef.empty() || rho.empty() || probA.size() != probB.size())
      return op.emitOpError() << "needs class labels, coefficients, rho, and "
                                 "prob_a and prob_b of one length";
    Value x =
        rowsF32(rewriter, loc, adaptor.getX(), getONNXElementType(op.getX()));
    Value idx, z;
    if (v == 0) {
      // liblinear: a row of coefficients per class, rho[0] added to all.
      if (coef.size() % c != 0)
        return op.emitOpError() << "has " << coef.size() << " coefficients for "
                                << c << " classes";
      int64_t f = coef.size() / c;
      if (failed(checkFeatures(rewriter, loc, op, x, f,
                               "the coefficients are for")))
        return failure();
      Value s = affine(rewriter, loc, x, coef, c, f, rho[0]);
      std::pair<Value, Value> top = argmaxRows(rewriter, loc, s);
      idx = top.second;
      if (c == 2 && probA.empty()) {
        bool positive = llvm::all_of(coef, [](float w) { return w >= 0; });
        idx = buildElementwise(
            rewriter, loc, ValueRange{top.first, top.second},
            cast<RankedTensorType>(idx.getType()),
            [&](OpBuilder &b, Location l, ValueRange a) -> Value {
              Value second = arith::CmpFOp::create(
                  b, l, positive ? FPred::OGE : FPred::OGT, a[0],
                  f32Const(b, l, positive ? 0.5f : 0.0f));
              return select(b, l, second,
                            arith::ConstantIntOp::create(b, l, 1, 64), a[1]);
            });
      }
      z = c >= 2 || *tr == Transform::Probit
              ? applyTransform(rewriter, loc, s, *tr)
              : s;
    } else {
      int64_t pairs = c * (c - 1) / 2;
      if (int64_t(perClass.size()) != c || c < 2 || sv.size() % v != 0 ||
          int64_t(coef.size()) < (c - 1) * v || int64_t(rho.size()) < pairs ||
          (!probA.empty() && int64_t(probA.size()) < pairs))
        return op.emitOpError()
               << "needs vectors_per_class for each of its (at least 2) "
                  "classes, (classes - 1) x vectors coefficients, and rho "
                  "(prob_a, prob_b) for each pair of classes";
      int64_t f = sv.size() / v;
      if (failed(checkFeatures(rewriter, loc, op, x, f,
                               "the support vectors have")))
        return failure();
      Value k = kernelMatrix(rewriter, loc, x, sv, v, f, *kernel);
      // The pairs' weights over the support vectors, and who they vote for.
      SmallVector<int64_t> start(c, 0);
      for (int64_t i = 1; i < c; ++i)
        start[i] = start[i - 1] + perClass[i - 1];
      SmallVector<float> w(pairs * v, 0.0f);
      SmallVector<int64_t> first, second;
      for (int64_t i = 0, p = 0; i < c; ++i)
        for (int64_t j = i + 1; j < c; ++j, ++p) {
          for (int64_t m = start[i]; m < start[i] + perClass[i]; ++m)
            w[p * v + m] = coef[(j - 1) * v + m];
          for (int64_t m = start[j]; m < start[j] + perClass[j]; ++m)
            w[p * v + m] = coef[i * v + m];
          first.push_back(i);
          second.push_back(j);
        }
      Value s = affine(rewriter, loc, k, w, pairs, v,
                       ArrayRef(rho).take_front(pairs));
      // votes [N, C], the label the most voted class.
      Type i64 = rewriter.getI64Type();
      auto vType = RankedTensorType::get(
          {cast<RankedTensorType>(s.getType()).getDimSize(0), c}, i64);
      SmallVector<OpFoldResult> nc{getDims(rewriter, loc, s)[0],
                                   rewriter.getIndexAttr(c)};
      Value votes = generic(
          rewriter, loc,
          createFilled(rewriter, loc, vType, nc,
                       arith::ConstantIntOp::create(rewriter, loc, 0, 64)),
          {s, constantI64(rewriter, loc, first),
           constantI64(rewriter, loc, second)},
          {mapOf(rewriter, 3, {0, 2}), mapOf(rewriter, 3, {2}),
           mapOf(rewriter, 3, {2}), mapOf(rewriter, 3, {0, 1})},
          {IT::parallel, IT::parallel, IT::reduction},
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value pos = arith::CmpFOp::create(b, l, FPred::OGT, a[0],
                                              f32Const(b, l, 0));
            Value winner = select(b, l, pos, a[1], a[2]);
            Value cls = arith::IndexCastOp::create(
                b, l, i64, linalg::IndexOp::create(b, l, 1));
            Value hit = arith::CmpIOp::create(b, l, Pred::eq, winner, cls);
            return arith::AddIOp::create(
                b, l, a[3], arith::ExtUIOp::create(b, l, i64, hit));
          });
      idx = argmaxRows(rewriter, loc, votes).second;
      if (!probA.empty()) {
        // Platt: pairwise probabilities, coupled per row.
        int64_t rank2 = 2;
        Value pr = generic(
            rewriter, loc,
            createEmpty(rewriter, loc, cast<RankedTensorType>(s.getType()),
                        getDims(rewriter, loc, s)),
            {s,
             constantF32(rewriter, loc, {pairs},
                         ArrayRef(probA).take_front(pairs)),
             constantF32(rewriter, loc, {pairs},
                         ArrayRef(probB).take_front(pairs))},
            {rewriter.getMultiDimIdentityMap(rank2), mapOf(rewriter, 2, {1}),
             mapOf(rewriter, 2, {1}), rewriter.getMultiDimIdentityMap(rank2)},
            {IT::parallel, IT::parallel},
            [&](OpBuilder &b, Location l, ValueRange a) -> Value {
              Value val = arith::AddFOp::create(
                  b, l, arith::MulFOp::create(b, l, a[0], a[1]), a[2]);
              Value p = arith::SubFOp::create(b, l, f32Const(b, l, 1),
                                              logistic(b, l, val));
              p = arith::MaxNumFOp::create(b, l, p, f32Const(b, l, 1e-7f));
              return arith::MinNumFOp::create(b, l, p,
                                              f32Const(b, l, 1 - 1e-7f));
            });
        z = applyTransform(rewriter, loc,
                           coupleProbabilities(rewriter, loc, pr, c), *tr);
      } else if (c == 2) {
        z = binaryScores(rewriter, loc, s, *tr == Transform::None,
                         *tr == Transform::Probit);
      } else {
        z = applyTransform(rewriter, loc, s, *tr);
      }
    }
    Value y = labelsAt(rewriter, loc, op, idx, *labels);
    FailureOr<Value> yr = castTo(rewriter, loc, op, y, yType);
    FailureOr<Value> zr = castTo(rewriter, loc, op, z, zType);
    if (failed(yr) || failed(zr))
      return failure();
    rewriter.replaceOp(op, {*yr, *zr});
    return success();
  }
};

} // namespace

void mlir::onnxc::ml::populateSVMPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<SVMRegressorLowering, SVMClassifierLowering>(
      converter, patterns.getContext());
}
