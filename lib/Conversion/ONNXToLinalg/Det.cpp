//===- Det.cpp - Det -> scf loops -----------------------------------------===//
//
// The determinant of each [M, M] matrix of X [*, M, M] by Gaussian
// elimination with partial pivoting (as LAPACK's getrf, which numpy uses),
// in f64 whatever the element type: per matrix an scf.for over the pivot
// columns carries the working copy and the running product of pivots (its
// sign flipped per row swap). A zero pivot column gives 0.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

using Pred = arith::CmpIPredicate;

class DetLowering : public TensorPattern<ONNXDetOp> {
public:
  using TensorPattern::TensorPattern;
  LogicalResult
  matchAndRewrite(ONNXDetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value x = adaptor.getX();
    auto xType = getMovableRankedType(x);
    if (!type || !xType || xType.getRank() < 2 ||
        type.getRank() != xType.getRank() - 2 ||
        !isa<FloatType>(xType.getElementType()))
      return rewriter.notifyMatchFailure(op, "float [*, M, M] input");
    int64_t rank = xType.getRank();
    Type onnxElem = getONNXElementType(op.getX());
    Type f64 = rewriter.getF64Type();
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, x);
    Value n = m.v(dims[rank - 1]);
    emitRuntimeCheck(rewriter, loc, op, m.cmp(Pred::ne, m.v(dims[rank - 2]), n),
                     "the matrices are {0} x {1}, not square",
                     {m.v(dims[rank - 2]), n});
    Value batch = m.c(1);
    for (int64_t d = 0; d < rank - 2; ++d)
      batch = m.mul(batch, m.v(dims[d]));
    int64_t dyn = ShapedType::kDynamic;
    // [B, M, M] in f64.
    Value x3 = reshapeTo(
        rewriter, loc, x,
        RankedTensorType::get({dyn, dyn, dyn}, xType.getElementType()),
        {batch, n, n});
    auto wideType = RankedTensorType::get({dyn, dyn, dyn}, f64);
    Value wide =
        buildElementwise(rewriter, loc, x3, wideType,
                         [&](OpBuilder &b, Location l, ValueRange a) {
                           return castScalar(b, l, a[0], onnxElem, f64);
                         });
    auto flatType = RankedTensorType::get({dyn}, xType.getElementType());
    Value out0 = tensor::EmptyOp::create(rewriter, loc, flatType, batch);
    Value dets = loopNest(
        rewriter, loc, SmallVector<Value>{batch}, out0,
        [&](OpBuilder &b, Location l, ValueRange bi,
            ValueRange it) -> SmallVector<Value> {
          IndexMath mm(b, l);
          auto matType = RankedTensorType::get({dyn, dyn}, f64);
          Value a0 = tensor::ExtractSliceOp::create(
              b, l, matType, wide,
              ArrayRef<OpFoldResult>{bi[0], b.getIndexAttr(0),
                                     b.getIndexAttr(0)},
              ArrayRef<OpFoldResult>{b.getIndexAttr(1), n, n},
              ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                                     b.getIndexAttr(1)});
          Value one = createScalarConstant(b, l, f64, 1);
          SmallVector<Value> r =
              loopNest(b, l, SmallVector<Value>{n}, ValueRange{a0, one},
                       [&](OpBuilder &b2, Location l2, ValueRange kv,
                           ValueRange st) -> SmallVector<Value> {
                         return eliminate(b2, l2, kv[0], n, st[0], st[1]);
                       });
          Value det = castScalar(b, l, r[1], f64, onnxElem);
          return {tensor::InsertOp::create(b, l, det, it[0], bi[0])};
        })[0];
    Value result =
        reshapeTo(rewriter, loc, dets, type,
                  preferStatic(rewriter, type, ArrayRef(dims).drop_back(2)));
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Step k of the elimination of `a` (n x n): the pivot row swapped into
  /// row k, the rows below cleared in column k. Returns (a, det * pivot).
  static SmallVector<Value> eliminate(OpBuilder &b, Location l, Value k,
                                      Value n, Value a, Value det) {
    IndexMath m(b, l);
    Type f64 = b.getF64Type();
    auto at = [&](OpBuilder &bb, Location ll, Value t, Value i, Value j) {
      return tensor::ExtractOp::create(bb, ll, t, ValueRange{i, j}).getResult();
    };
    Value rest = m.sub(n, k);
    // The row with the largest |a[i, k]|, i >= k (the first of equals).
    SmallVector<Value> best =
        loopNest(b, l, SmallVector<Value>{rest},
                 ValueRange{createScalarConstant(b, l, f64, -1), k},
                 [&](OpBuilder &b2, Location l2, ValueRange iv,
                     ValueRange st) -> SmallVector<Value> {
                   IndexMath m2(b2, l2);
                   Value i = m2.add(k, iv[0]);
                   Value v = math::AbsFOp::create(b2, l2, at(b2, l2, a, i, k));
                   Value better = arith::CmpFOp::create(
                       b2, l2, arith::CmpFPredicate::OGT, v, st[0]);
                   return {arith::SelectOp::create(b2, l2, better, v, st[0]),
                           m2.select(better, i, st[1])};
                 });
    Value p = best[1];
    // Swap rows k and p (a no-op when p == k), negating det when they
    // differ.
    Value swapped = loopNest(
        b, l, SmallVector<Value>{n}, a,
        [&](OpBuilder &b2, Location l2, ValueRange j,
            ValueRange st) -> SmallVector<Value> {
          Value rk = at(b2, l2, a, k, j[0]);
          Value rp = at(b2, l2, a, p, j[0]);
          Value t =
              tensor::InsertOp::create(b2, l2, rp, st[0], ValueRange{k, j[0]});
          return {tensor::InsertOp::create(b2, l2, rk, t, ValueRange{p, j[0]})};
        })[0];
    Value pivot = at(b, l, swapped, k, k);
    Value sign = arith::SelectOp::create(b, l, m.cmp(Pred::ne, p, k),
                                         createScalarConstant(b, l, f64, -1),
                                         createScalarConstant(b, l, f64, 1));
    Value newDet = arith::MulFOp::create(
        b, l, arith::MulFOp::create(b, l, det, sign), pivot);
    Value zero = createScalarConstant(b, l, f64, 0);
    Value singular =
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, pivot, zero);
    // Rows below k: row_i -= (a[i, k] / pivot) * row_k, for the columns
    // after k (column k is not read again).
    Value below = m.sub(rest, m.c(1));
    Value cleared = loopNest(
        b, l, SmallVector<Value>{below}, swapped,
        [&](OpBuilder &b2, Location l2, ValueRange iv,
            ValueRange st) -> SmallVector<Value> {
          IndexMath m2(b2, l2);
          Value i = m2.add(k, m2.add(iv[0], m2.c(1)));
          Value f =
              arith::DivFOp::create(b2, l2, at(b2, l2, st[0], i, k), pivot);
          f = arith::SelectOp::create(b2, l2, singular, zero, f);
          return loopNest(
              b2, l2, SmallVector<Value>{below}, st[0],
              [&](OpBuilder &b3, Location l3, ValueRange jv,
                  ValueRange row) -> SmallVector<Value> {
                IndexMath m3(b3, l3);
                Value j = m3.add(k, m3.add(jv[0], m3.c(1)));
                Value v = arith::SubFOp::create(
                    b3, l3, at(b3, l3, row[0], i, j),
                    arith::MulFOp::create(b3, l3, f, at(b3, l3, row[0], k, j)));
                return {tensor::InsertOp::create(b3, l3, v, row[0],
                                                 ValueRange{i, j})};
              });
        })[0];
    return {cleared, newDet};
  }
};

} // namespace

void mlir::onnxc::populateDetPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<DetLowering>(converter, patterns.getContext());
}
