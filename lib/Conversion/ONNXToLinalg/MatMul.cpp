//===- MatMul.cpp - MatMul, Gemm and MatMulInteger -> linalg --------------===//
//
// Numpy matmul on linalg's named contractions. 1-D operands get a unit dim
// that is dropped again from the result. Batch dims are matched as numpy
// broadcasts them, and the cheapest form that expresses the match is taken:
//  - the right operand has no batch (or only 1s): the left's batch folds
//    into its rows, one linalg.matmul;
//  - the left has none: linalg.batch_matmul over the right's collapsed
//    batch, with a broadcast indexing map for the left;
//  - both have the same batch: linalg.batch_matmul over the collapsed batch;
//  - anything else (batch dims broadcast on both sides): a linalg.generic
//    contraction with broadcast maps.
// Collapsed dims may be dynamic, several of them (batch and sequence):
// onnxc-expand-dynamic-groups lowers the views that expand them back.
// A batch dim that is dynamic on one side and not 1 on the other broadcasts
// only if it is 1 at run time: the operand is first copied with that dim
// read at index 0 when it is 1, so that both sides agree.
// Accumulation is in the result's element type (f32 for f16/bf16), into a
// zero-filled init. Gemm is one linalg.matmul (transposes as indexing maps)
// accumulating onto beta * C; MatMulInteger widens to i32 first.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"
#include "onnxc/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// Folds a size that is a constant Value into an attribute, so that types
/// built from sizes are static exactly where the sizes are known.
OpFoldResult foldSize(OpFoldResult size) {
  if (auto v = dyn_cast<Value>(size))
    return getAsOpFoldResult(v);
  return size;
}

OpFoldResult dimOf(OpBuilder &b, Location loc, Value v, int64_t i) {
  auto t = cast<RankedTensorType>(v.getType());
  if (!t.isDynamicDim(i))
    return b.getIndexAttr(t.getDimSize(i));
  return tensor::DimOp::create(b, loc, v, i).getResult();
}

RankedTensorType typeFromSizes(ArrayRef<OpFoldResult> sizes, Type elem) {
  SmallVector<int64_t> shape;
  for (OpFoldResult s : sizes) {
    std::optional<int64_t> c = getConstantIntValue(s);
    shape.push_back(c ? *c : ShapedType::kDynamic);
  }
  return RankedTensorType::get(shape, elem);
}

/// Groups [0..n) into one, then every later dim alone.
SmallVector<ReassociationIndices> leadingGroup(int64_t n, int64_t rank) {
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t i = 0; i < n; ++i)
    groups[0].push_back(i);
  for (int64_t i = n; i < rank; ++i)
    groups.push_back({i});
  return groups;
}

Value collapse(OpBuilder &b, Location loc, Value v,
               ArrayRef<ReassociationIndices> groups) {
  if (int64_t(groups.size()) == cast<RankedTensorType>(v.getType()).getRank())
    return v;
  return tensor::CollapseShapeOp::create(b, loc, v, groups);
}

Value expand(OpBuilder &b, Location loc, Value v,
             ArrayRef<ReassociationIndices> groups,
             ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(v.getType());
  if (int64_t(sizes.size()) == type.getRank())
    return v;
  SmallVector<OpFoldResult> folded = llvm::map_to_vector(sizes, foldSize);
  RankedTensorType expanded = typeFromSizes(folded, type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, expanded, v, groups, folded);
}

/// f16 and bf16 products accumulate in f32 (as numpy's and ONNX Runtime's
/// do); other types in themselves.
Type accumulatorType(Type elem) {
  if (isa<FloatType>(elem) && elem.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(elem.getContext());
  return elem;
}

/// Extends a narrow float operand to the accumulator's type.
Value toAcc(OpBuilder &b, Location loc, Value v, Type acc) {
  if (v.getType() == acc)
    return v;
  return arith::ExtFOp::create(b, loc, acc, v);
}

Value mulAdd(OpBuilder &b, Location loc, Value x, Value y, Value acc) {
  x = toAcc(b, loc, x, acc.getType());
  y = toAcc(b, loc, y, acc.getType());
  if (isa<FloatType>(acc.getType()))
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, x, y));
  return arith::AddIOp::create(b, loc, acc,
                               arith::MulIOp::create(b, loc, x, y));
}

Value mulScalar(OpBuilder &b, Location loc, Value x, double factor) {
  if (factor == 1)
    return x;
  Value c = createScalarConstant(b, loc, x.getType(), factor);
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, loc, x, c);
  return arith::MulIOp::create(b, loc, x, c);
}

Value addScalars(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

/// Sets a named contraction's indexing maps (transposes, broadcasts).
template <typename OpTy>
void setMaps(OpBuilder &b, OpTy op, int64_t numLoops,
             ArrayRef<ArrayRef<int64_t>> operandLoops) {
  SmallVector<AffineMap> maps;
  for (ArrayRef<int64_t> loops : operandLoops) {
    SmallVector<AffineExpr> exprs;
    for (int64_t l : loops)
      exprs.push_back(b.getAffineDimExpr(l));
    maps.push_back(AffineMap::get(numLoops, 0, exprs, b.getContext()));
  }
  op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
}

/// a: [batchA..., M, K], b: [batchB..., K, N] (ranks >= 2), `refA[d]` /
/// `refB[d]`: whether the operand has result batch dim d with its size (else
/// it has a 1 there or lacks the dim, and broadcasts). Where both refer to
/// a dim their sizes are equal. Returns [batch..., M, N] of element type
/// `elem`, the accumulator's (operands may be narrower floats).
Value contract(OpBuilder &b, Location loc, Value a, Value bb,
               ArrayRef<bool> refA, ArrayRef<bool> refB, Type elem) {
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(bb.getType());
  int64_t nA = ta.getRank() - 2, nB = tb.getRank() - 2;
  int64_t nR = refA.size();
  Value zero = createScalarConstant(b, loc, elem, 0);

  // The result's sizes, each taken from the operand whose dims it mirrors
  // so that collapsing and expanding agree on what is static.
  bool anyA = llvm::is_contained(refA, true);
  bool anyB = llvm::is_contained(refB, true);
  bool same = llvm::equal(refA, refB);
  auto resultSizes = [&] {
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < nR; ++d) {
      bool fromA = refA[d] && (!anyB || same || !refB[d]);
      if (fromA)
        sizes.push_back(dimOf(b, loc, a, d - (nR - nA)));
      else if (refB[d])
        sizes.push_back(dimOf(b, loc, bb, d - (nR - nB)));
      else
        sizes.push_back(b.getIndexAttr(1));
    }
    sizes.push_back(dimOf(b, loc, a, nA));
    sizes.push_back(dimOf(b, loc, bb, nB + 1));
    return sizes;
  };

  if (!anyB) {
    // [batch * M, K] x [K, N]: the batch folds into the rows.
    Value a2 = collapse(b, loc, a, leadingGroup(nA + 1, nA + 2));
    Value b2 = collapse(b, loc, bb, leadingGroup(nB + 1, nB + 2));
    SmallVector<OpFoldResult> mn = {dimOf(b, loc, a2, 0), dimOf(b, loc, b2, 1)};
    RankedTensorType type = typeFromSizes(mn, elem);
    Value init = createFilled(b, loc, type, mn, zero);
    Value mm = linalg::MatmulOp::create(b, loc, TypeRange{type},
                                        ValueRange{a2, b2}, ValueRange{init})
                   .getResult(0);
    if (nR == 0)
      return mm;
    return expand(b, loc, mm, leadingGroup(nR + 1, nR + 2), resultSizes());
  }
  if ((!anyA && anyB) || (anyA && same)) {
    // [M, K] or [P, M, K] x [P, K, N].
    Value a2 = anyA ? collapse(b, loc, a, leadingGroup(nA, nA + 2))
                    : collapse(b, loc, a, leadingGroup(nA + 1, nA + 2));
    Value b2 = collapse(b, loc, bb, leadingGroup(nB, nB + 2));
    SmallVector<OpFoldResult> pmn = {dimOf(b, loc, b2, 0),
                                     dimOf(b, loc, a2, anyA ? 1 : 0),
                                     dimOf(b, loc, b2, 2)};
    if (anyA)
      pmn[0] = dimOf(b, loc, a2, 0);
    RankedTensorType type = typeFromSizes(pmn, elem);
    Value init = createFilled(b, loc, type, pmn, zero);
    auto bmm = linalg::BatchMatmulOp::create(
        b, loc, TypeRange{type}, ValueRange{a2, b2}, ValueRange{init});
    if (!anyA) // (batch, m, n, k): the left has no batch.
      setMaps(b, bmm, 4, {{1, 3}, {0, 3, 2}, {0, 1, 2}});
    if (nR == 1)
      return bmm.getResult(0);
    return expand(b, loc, bmm.getResult(0), leadingGroup(nR, nR + 2),
                  resultSizes());
  }

  // Both sides broadcast some batch dims, or the batch does not fold: a
  // generic contraction over (batch..., m, n, k).
  MLIRContext *ctx = b.getContext();
  int64_t m = nR, n = nR + 1, k = nR + 2, numLoops = nR + 3;
  auto operandMap = [&](int64_t nOp, ArrayRef<bool> ref, int64_t row,
                        int64_t col) {
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < nOp; ++i) {
      int64_t d = i + nR - nOp;
      exprs.push_back(ref[d] ? getAffineDimExpr(d, ctx)
                             : getAffineConstantExpr(0, ctx));
    }
    exprs.push_back(getAffineDimExpr(row, ctx));
    exprs.push_back(getAffineDimExpr(col, ctx));
    return AffineMap::get(numLoops, 0, exprs, ctx);
  };
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < nR + 2; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineMap> maps = {operandMap(nA, refA, m, k),
                                 operandMap(nB, refB, k, n),
                                 AffineMap::get(numLoops, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);
  iterators[k] = utils::IteratorType::reduction;
  SmallVector<OpFoldResult> sizes = resultSizes();
  RankedTensorType type = typeFromSizes(sizes, elem);
  Value init = createFilled(b, loc, type, sizes, zero);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{a, bb}, ValueRange{init}, maps,
             iterators,
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nloc, mulAdd(nb, nloc, args[0], args[1], args[2]));
             })
      .getResult(0);
}

/// Copies `v` into a tensor of `sizes`, broadcasting each dim i with a
/// non-null `isOne[i]` (true at run time when the dim is 1): such a dim is
/// read at index 0 when it is 1.
Value broadcastAtRunTime(OpBuilder &b, Location loc, Value v,
                         ArrayRef<OpFoldResult> sizes, ArrayRef<Value> isOne) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t rank = t.getRank();
  RankedTensorType type = typeFromSizes(sizes, t.getElementType());
  Value init = createEmpty(b, loc, type, sizes);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
             {b.getMultiDimIdentityMap(rank)}, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange) {
               Value zero = arith::ConstantIndexOp::create(nb, nloc, 0);
               SmallVector<Value> indices;
               for (int64_t i = 0; i < rank; ++i) {
                 Value idx = linalg::IndexOp::create(nb, nloc, i);
                 if (isOne[i])
                   idx = arith::SelectOp::create(nb, nloc, isOne[i], zero, idx);
                 indices.push_back(idx);
               }
               linalg::YieldOp::create(
                   nb, nloc,
                   tensor::ExtractOp::create(nb, nloc, v, indices).getResult());
             })
      .getResult(0);
}

/// Run-time check that A's dim `ia` (the contraction dim) equals B's `ib`.
void checkInnerDims(OpBuilder &b, Location loc, Value a, int64_t ia, Value bb,
                    int64_t ib) {
  Value ka = getDimValue(b, loc, a, ia), kb = getDimValue(b, loc, bb, ib);
  emitRuntimeCheck(
      b, loc, /*op=*/nullptr,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, ka, kb),
      "the contraction dims differ: A has {0}, B has {1}", {ka, kb});
}

/// A size for a message: the number, or "?" where dynamic.
std::string sizeText(int64_t size) {
  return ShapedType::isDynamic(size) ? "?" : std::to_string(size);
}

/// Fails with an error on `op` where the static shapes of numpy matmul's
/// operands `ta` and `tb` (ranks >= 1) contradict each other: inner dims
/// that differ, batch dims that do not broadcast.
LogicalResult checkStaticMatMulShapes(Operation *op, RankedTensorType ta,
                                      RankedTensorType tb) {
  int64_t ka = ta.getDimSize(ta.getRank() - 1);
  int64_t kb = tb.getDimSize(tb.getRank() == 1 ? 0 : tb.getRank() - 2);
  if (!ShapedType::isDynamic(ka) && !ShapedType::isDynamic(kb) && ka != kb)
    return op->emitOpError()
           << "inner dims " << ka << " and " << kb << " differ: A is " << ta
           << ", B is " << tb;
  int64_t nA = std::max<int64_t>(ta.getRank() - 2, 0),
          nB = std::max<int64_t>(tb.getRank() - 2, 0);
  int64_t nR = std::max(nA, nB);
  for (int64_t d = 0; d < nR; ++d) {
    int64_t iA = d - (nR - nA), iB = d - (nR - nB);
    int64_t sa = iA < 0 ? 1 : ta.getDimSize(iA);
    int64_t sb = iB < 0 ? 1 : tb.getDimSize(iB);
    if (sa != 1 && sb != 1 && !ShapedType::isDynamic(sa) &&
        !ShapedType::isDynamic(sb) && sa != sb)
      return op->emitOpError()
             << "batch dims " << sa << " and " << sb
             << " do not broadcast: A is " << ta << ", B is " << tb;
  }
  return success();
}

/// Numpy matmul of `a` by `bb` (signless, same element type), returning a
/// value of `resultType` or failure for shapes numpy rejects; static shapes
/// that contradict each other or `resultType` are errors on `op`.
FailureOr<Value> buildMatMul(OpBuilder &b, Location loc, Operation *op,
                             Value a, Value bb, RankedTensorType resultType) {
  auto ta = dyn_cast<RankedTensorType>(a.getType());
  auto tb = dyn_cast<RankedTensorType>(bb.getType());
  if (!ta || !tb || ta.getRank() == 0 || tb.getRank() == 0)
    return failure();
  if (failed(checkStaticMatMulShapes(op, ta, tb)))
    return failure();
  Type elem = accumulatorType(resultType.getElementType());
  bool vecA = ta.getRank() == 1, vecB = tb.getRank() == 1;
  if (vecA)
    a = expand(b, loc, a, {{0, 1}}, {b.getIndexAttr(1), dimOf(b, loc, a, 0)});
  if (vecB)
    bb =
        expand(b, loc, bb, {{0, 1}}, {dimOf(b, loc, bb, 0), b.getIndexAttr(1)});
  ta = cast<RankedTensorType>(a.getType());
  tb = cast<RankedTensorType>(bb.getType());
  checkInnerDims(b, loc, a, ta.getRank() - 1, bb, tb.getRank() - 2);
  int64_t nA = ta.getRank() - 2, nB = tb.getRank() - 2;
  int64_t nR = std::max(nA, nB);
  if (resultType.getRank() != nR + 2 - vecA - vecB)
    return failure();

  // Which side has each batch dim; dims that are dynamic on one side and
  // not 1 on the other must be equal unless the dynamic one is 1.
  SmallVector<bool> refA(nR), refB(nR);
  SmallVector<int64_t> ambiguous;
  for (int64_t d = 0; d < nR; ++d) {
    int64_t iA = d - (nR - nA), iB = d - (nR - nB);
    int64_t sa = iA < 0 ? 1 : ta.getDimSize(iA);
    int64_t sb = iB < 0 ? 1 : tb.getDimSize(iB);
    refA[d] = sa != 1;
    refB[d] = sb != 1;
    if (!refA[d] || !refB[d])
      continue;
    if (ShapedType::isDynamic(sa) || ShapedType::isDynamic(sb))
      ambiguous.push_back(d);
    else if (sa != sb)
      return failure();
  }

  // A batch dim that is dynamic on one side and not 1 on the other is
  // either equal to it or 1 at run time. The operand that may be 1 there is
  // copied with the dim broadcast by index selection, which makes both sides
  // equal and lets the named ops run. (An scf.if skipping the copy when the
  // sizes are equal would save it, but one-shot-bufferize gives scf.if
  // results a strided layout whose copy needs the memrefCopy runtime.)
  if (!ambiguous.empty()) {
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    SmallVector<OpFoldResult> aSizes =
        llvm::map_to_vector(getDims(b, loc, a), foldSize);
    SmallVector<OpFoldResult> bSizes =
        llvm::map_to_vector(getDims(b, loc, bb), foldSize);
    SmallVector<Value> aIsOne(nA + 2), bIsOne(nB + 2);
    for (int64_t d : ambiguous) {
      int64_t iA = d - (nR - nA), iB = d - (nR - nB);
      Value da = getValueOrCreateConstantIndexOp(b, loc, aSizes[iA]);
      Value db = getValueOrCreateConstantIndexOp(b, loc, bSizes[iB]);
      OpFoldResult size;
      if (!ta.isDynamicDim(iA))
        size = aSizes[iA];
      else if (!tb.isDynamicDim(iB))
        size = bSizes[iB];
      if (ta.isDynamicDim(iA))
        aIsOne[iA] =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, da, one);
      if (tb.isDynamicDim(iB))
        bIsOne[iB] =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, db, one);
      {
        Value equal =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, da, db);
        Value either = arith::OrIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, da, one),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, db, one));
        Value ok = arith::OrIOp::create(b, loc, equal, either);
        emitRuntimeCheck(
            b, loc, /*op=*/nullptr,
            arith::XOrIOp::create(b, loc, ok,
                                  arith::ConstantIntOp::create(b, loc, 1, 1)),
            "batch dim " + Twine(d) + " does not broadcast: A has {0}, B has "
                                      "{1}",
            {da, db});
      }
      if (!size)
        size = arith::SelectOp::create(b, loc, aIsOne[iA], db, da).getResult();
      if (aIsOne[iA])
        aSizes[iA] = size;
      if (bIsOne[iB])
        bSizes[iB] = size;
    }
    if (llvm::any_of(aIsOne, [](Value v) { return bool(v); }))
      a = broadcastAtRunTime(b, loc, a, aSizes, aIsOne);
    if (llvm::any_of(bIsOne, [](Value v) { return bool(v); }))
      bb = broadcastAtRunTime(b, loc, bb, bSizes, bIsOne);
  }
  Value core = contract(b, loc, a, bb, refA, refB, elem);

  // Drop the unit dims added to 1-D operands: [batch..., 1, N] or
  // [batch..., M, 1] merge their last two dims; [1, 1] becomes rank 0.
  if (vecA || vecB) {
    SmallVector<ReassociationIndices> groups;
    if (!(vecA && vecB)) {
      for (int64_t i = 0; i < nR; ++i)
        groups.push_back({i});
      groups.push_back({nR, nR + 1});
    }
    core = tensor::CollapseShapeOp::create(b, loc, core, groups);
  }
  FailureOr<Value> cast =
      castOrReport(b, loc, op, core, resultType.clone(elem));
  if (failed(cast))
    return failure();
  core = *cast;
  if (elem == resultType.getElementType())
    return core;
  return buildElementwise(b, loc, core, resultType,
                          [&](OpBuilder &nb, Location nloc, ValueRange args) {
                            return arith::TruncFOp::create(
                                       nb, nloc, resultType.getElementType(),
                                       args[0])
                                .getResult();
                          });
}

class MatMulLowering : public OpConversionPattern<ONNXMatMulOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "result has no ranked type");
    FailureOr<Value> result = buildMatMul(rewriter, op.getLoc(), op,
                                          adaptor.getA(), adaptor.getB(),
                                          resultType);
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "unsupported operand shapes");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// A linalg.generic over Gemm's (M, N) computing `body(y, c)` from `y`
/// ((M, N), may be null) and `c` (may be null), which broadcasts
/// unidirectionally: each of its dims is the result's or 1. Static 1s
/// broadcast through the indexing map; a dynamic dim that may be 1 is read
/// by index selection, so `y` never needs it.
Value gemmEpilogue(
    OpBuilder &b, Location loc, RankedTensorType type,
    ArrayRef<OpFoldResult> sizes, Value y, Value c,
    function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  AffineMap identity = b.getMultiDimIdentityMap(2);
  if (y) {
    inputs.push_back(y);
    maps.push_back(identity);
  }
  SmallVector<Value> cIsOne;
  bool gatherC = false;
  if (c) {
    auto tc = cast<RankedTensorType>(c.getType());
    int64_t r = tc.getRank();
    SmallVector<AffineExpr> exprs;
    cIsOne.resize(r);
    for (int64_t j = 0; j < r; ++j) {
      int64_t d = j + 2 - r;
      int64_t sc = tc.getDimSize(j);
      if (sc == 1) {
        exprs.push_back(getAffineConstantExpr(0, ctx));
        continue;
      }
      exprs.push_back(getAffineDimExpr(d, ctx));
      if (ShapedType::isDynamic(sc) && type.getDimSize(d) != 1) {
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        cIsOne[j] = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          getDimValue(b, loc, c, j), one);
        gatherC = true;
      }
    }
    if (!gatherC) {
      inputs.push_back(c);
      maps.push_back(AffineMap::get(2, 0, exprs, ctx));
    }
  }
  maps.push_back(identity);
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  Value init = createEmpty(b, loc, type, sizes);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, inputs, init, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value yv = y ? args[0] : Value();
               Value cv;
               if (c && !gatherC) {
                 cv = args[y ? 1 : 0];
               } else if (c) {
                 auto tc = cast<RankedTensorType>(c.getType());
                 int64_t r = tc.getRank();
                 Value zero = arith::ConstantIndexOp::create(nb, nloc, 0);
                 SmallVector<Value> indices;
                 for (int64_t j = 0; j < r; ++j) {
                   if (tc.getDimSize(j) == 1) {
                     indices.push_back(zero);
                     continue;
                   }
                   Value idx = linalg::IndexOp::create(nb, nloc, j + 2 - r);
                   if (cIsOne[j])
                     idx = arith::SelectOp::create(nb, nloc, cIsOne[j], zero,
                                                   idx);
                   indices.push_back(idx);
                 }
                 cv = tensor::ExtractOp::create(nb, nloc, c, indices);
               }
               linalg::YieldOp::create(nb, nloc, body(nb, nloc, yv, cv));
             })
      .getResult(0);
}

/// Y = alpha * A' * B' + beta * C, with C broadcast to (M, N).
class GemmLowering : public OpConversionPattern<ONNXGemmOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXGemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    Value a = adaptor.getA(), b = adaptor.getB(), c = adaptor.getC();
    auto ta = dyn_cast<RankedTensorType>(a.getType());
    auto tb = dyn_cast<RankedTensorType>(b.getType());
    if (!resultType || !ta || !tb || resultType.getRank() != 2 ||
        ta.getRank() != 2 || tb.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "needs 2-D operands");
    auto tc = c ? dyn_cast<RankedTensorType>(c.getType()) : nullptr;
    if (c && (!tc || tc.getRank() > 2))
      return rewriter.notifyMatchFailure(op, "C must broadcast to (M, N)");
    Type elem = resultType.getElementType();
    Type acc = accumulatorType(elem);
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    if (!isa<FloatType>(elem) &&
        (alpha != std::trunc(alpha) || beta != std::trunc(beta)))
      return rewriter.notifyMatchFailure(op, "fractional alpha/beta on ints");
    bool transA = op.getTransA() != 0, transB = op.getTransB() != 0;
    bool useC = c && beta != 0;
    // With alpha = 1, beta * C is the accumulator's initial value.
    bool cInInit = useC && alpha == 1;

    // Static shapes that contradict each other are the model's error.
    int64_t ka = ta.getDimSize(transA ? 0 : 1), kb = tb.getDimSize(transB ? 1 : 0);
    if (!ShapedType::isDynamic(ka) && !ShapedType::isDynamic(kb) && ka != kb)
      return op.emitOpError()
             << "inner dims " << ka << " and " << kb << " differ: A is " << ta
             << (transA ? " (transA = 1)" : "") << ", B is " << tb
             << (transB ? " (transB = 1)" : "");
    int64_t staticMN[2] = {ta.getDimSize(transA ? 1 : 0),
                           tb.getDimSize(transB ? 0 : 1)};
    if (useC) {
      for (int64_t j = 0, r = tc.getRank(); j < r; ++j) {
        int64_t sc = tc.getDimSize(j), want = staticMN[j + 2 - r];
        if (sc != 1 && !ShapedType::isDynamic(sc) &&
            !ShapedType::isDynamic(want) && sc != want)
          return op.emitOpError()
                 << "C is " << tc << ", which does not broadcast to (M, N) = ("
                 << sizeText(staticMN[0]) << ", " << sizeText(staticMN[1])
                 << ")";
      }
    }
    checkInnerDims(rewriter, loc, a, transA ? 0 : 1, b, transB ? 1 : 0);
    SmallVector<OpFoldResult> mn = {dimOf(rewriter, loc, a, transA ? 1 : 0),
                                    dimOf(rewriter, loc, b, transB ? 0 : 1)};
    RankedTensorType type = typeFromSizes(mn, acc);
    Value init;
    if (cInInit) {
      init = gemmEpilogue(rewriter, loc, type, mn, nullptr, c,
                          [&](OpBuilder &nb, Location nloc, Value, Value cv) {
                            return mulScalar(nb, nloc, toAcc(nb, nloc, cv, acc),
                                             beta);
                          });
    } else {
      init = createFilled(rewriter, loc, type, mn,
                          createScalarConstant(rewriter, loc, acc, 0));
    }
    auto mm = linalg::MatmulOp::create(rewriter, loc, TypeRange{type},
                                       ValueRange{a, b}, ValueRange{init});
    if (transA || transB) {
      // (m, n, k)
      SmallVector<int64_t> mapA =
          transA ? SmallVector<int64_t>{2, 0} : SmallVector<int64_t>{0, 2};
      SmallVector<int64_t> mapB =
          transB ? SmallVector<int64_t>{1, 2} : SmallVector<int64_t>{2, 1};
      setMaps(rewriter, mm, 3, {mapA, mapB, {0, 1}});
    }
    Value y = mm.getResult(0);
    if (alpha != 1 || acc != elem) {
      y = gemmEpilogue(rewriter, loc, typeFromSizes(mn, elem), mn, y,
                       useC && !cInInit ? c : nullptr,
                       [&](OpBuilder &nb, Location nloc, Value yv, Value cv) {
                         Value r = mulScalar(nb, nloc, yv, alpha);
                         if (cv)
                           r = addScalars(nb, nloc, r,
                                          mulScalar(nb, nloc,
                                                    toAcc(nb, nloc, cv, acc),
                                                    beta));
                         if (acc != elem)
                           r = arith::TruncFOp::create(nb, nloc, elem, r);
                         return r;
                       });
    }
    FailureOr<Value> result = castOrReport(rewriter, loc, op, y, resultType);
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// int32 (A - a_zero_point) x (B - b_zero_point), the operands widened with
/// their ONNX signedness first.
class MatMulIntegerLowering : public OpConversionPattern<ONNXMatMulIntegerOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ONNXMatMulIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "result has no ranked type");
    Type i32 = rewriter.getI32Type();
    if (resultType.getElementType() != i32)
      return rewriter.notifyMatchFailure(op, "result must be int32");

    auto widen = [&](Value x, Value onnxX, Value zp, Value onnxZp,
                     bool perRow) -> Value {
      auto tx = dyn_cast<RankedTensorType>(x.getType());
      if (!tx)
        return nullptr;
      Type fromX = getONNXElementType(onnxX);
      RankedTensorType wide = tx.clone(i32);
      if (!zp)
        return buildElementwise(
            rewriter, loc, {x}, wide,
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              return castScalar(nb, nloc, args[0], fromX, i32);
            });
      auto tz = dyn_cast<RankedTensorType>(zp.getType());
      if (!tz || tz.getRank() > tx.getRank())
        return nullptr;
      // A's per-row zero points are a vector over M (dim -2).
      if (perRow && tz.getRank() == 1 && tx.getRank() >= 2)
        zp = expand(rewriter, loc, zp, {{0, 1}},
                    {dimOf(rewriter, loc, zp, 0), rewriter.getIndexAttr(1)});
      Type fromZp = getONNXElementType(onnxZp);
      return buildElementwise(
          rewriter, loc, {x, zp}, wide,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value xv = castScalar(nb, nloc, args[0], fromX, i32);
            Value zv = castScalar(nb, nloc, args[1], fromZp, i32);
            return arith::SubIOp::create(nb, nloc, xv, zv).getResult();
          });
    };
    Value a = widen(adaptor.getA(), op.getA(), adaptor.getAZeroPoint(),
                    op.getAZeroPoint(), /*perRow=*/true);
    Value b = widen(adaptor.getB(), op.getB(), adaptor.getBZeroPoint(),
                    op.getBZeroPoint(), /*perRow=*/false);
    if (!a || !b)
      return rewriter.notifyMatchFailure(op, "unsupported zero point shape");
    FailureOr<Value> result = buildMatMul(rewriter, loc, op, a, b, resultType);
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "unsupported operand shapes");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

} // namespace

void mlir::onnxc::populateMatMulPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, GemmLowering, MatMulIntegerLowering>(
      converter, patterns.getContext());
}
