//===- TensorHelpers.cpp - Helpers of the data-movement lowerings ---------===//
//
// Index arithmetic that folds as it builds, reading shape-like operands
// (constant or at run time), generics that compute each element from its
// indices, and reshapes through tensor.collapse_shape/expand_shape.
// Declared in ONNXToLinalg.h; used by Tensor.cpp, Gather.cpp, Selection.cpp.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::onnxc;

bool mlir::onnxc::isMovableElementType(Type t) {
  return !isa<StringType>(t);
}

RankedTensorType mlir::onnxc::getMovableRankedType(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !isMovableElementType(t.getElementType()))
    return nullptr;
  return t;
}

Value mlir::onnxc::IndexMath::c(int64_t v) const {
  return arith::ConstantIndexOp::create(b, loc, v);
}
Value mlir::onnxc::IndexMath::v(OpFoldResult ofr) const {
  return getValueOrCreateConstantIndexOp(b, loc, ofr);
}
Value mlir::onnxc::IndexMath::add(Value x, Value y) const {
  return b.createOrFold<arith::AddIOp>(loc, x, y);
}
Value mlir::onnxc::IndexMath::sub(Value x, Value y) const {
  return b.createOrFold<arith::SubIOp>(loc, x, y);
}
Value mlir::onnxc::IndexMath::mul(Value x, Value y) const {
  return b.createOrFold<arith::MulIOp>(loc, x, y);
}
Value mlir::onnxc::IndexMath::div(Value x, Value y) const {
  return b.createOrFold<arith::DivSIOp>(loc, x, y);
}
Value mlir::onnxc::IndexMath::rem(Value x, Value y) const {
  return b.createOrFold<arith::RemSIOp>(loc, x, y);
}
Value mlir::onnxc::IndexMath::min(Value x, Value y) const {
  return b.createOrFold<arith::MinSIOp>(loc, x, y);
}
Value mlir::onnxc::IndexMath::max(Value x, Value y) const {
  return b.createOrFold<arith::MaxSIOp>(loc, x, y);
}
Value mlir::onnxc::IndexMath::cmp(arith::CmpIPredicate p, Value x,
                                  Value y) const {
  return b.createOrFold<arith::CmpIOp>(loc, p, x, y);
}
Value mlir::onnxc::IndexMath::select(Value c, Value x, Value y) const {
  return b.createOrFold<arith::SelectOp>(loc, c, x, y);
}
Value mlir::onnxc::IndexMath::clamp(Value x, Value lo, Value hi) const {
  return min(max(x, lo), hi);
}
Value mlir::onnxc::IndexMath::wrapNegative(Value i, Value n) const {
  return select(cmp(arith::CmpIPredicate::slt, i, c(0)), add(i, n), i);
}

Value mlir::onnxc::scalarToIndex(OpBuilder &b, Location loc, Value v,
                                 Type onnxType) {
  Type t = v.getType();
  if (isa<IndexType>(t))
    return v;
  if (isa<FloatType>(t))
    v = arith::FPToSIOp::create(b, loc, b.getI64Type(), v);
  else if (onnxType && (onnxType.isUnsignedInteger() || onnxType.isInteger(1)))
    return b.createOrFold<arith::IndexCastUIOp>(loc, b.getIndexType(), v);
  return b.createOrFold<arith::IndexCastOp>(loc, b.getIndexType(), v);
}

Value mlir::onnxc::extractScalar(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> indices(type.getRank(), zero);
  return tensor::ExtractOp::create(b, loc, tensor, indices);
}

FailureOr<SmallVector<OpFoldResult>>
mlir::onnxc::readIndexList(OpBuilder &b, Location loc, Value converted,
                           Value original) {
  auto type = dyn_cast<RankedTensorType>(converted.getType());
  if (!type || type.getRank() > 1 || !type.hasStaticShape())
    return failure();
  int64_t n = type.getNumElements();
  SmallVector<OpFoldResult> result;
  if (auto values = getConstantIntValues(original);
      succeeded(values) && int64_t(values->size()) == n) {
    for (int64_t v : *values)
      result.push_back(b.getIndexAttr(v));
    return result;
  }
  Type onnxType = getONNXElementType(original);
  for (int64_t i = 0; i < n; ++i) {
    SmallVector<Value> idx;
    if (type.getRank() == 1)
      idx.push_back(arith::ConstantIndexOp::create(b, loc, i));
    Value e = tensor::ExtractOp::create(b, loc, converted, idx);
    result.push_back(getAsOpFoldResult(scalarToIndex(b, loc, e, onnxType)));
  }
  return result;
}

Value mlir::onnxc::buildIndexedGeneric(OpBuilder &b, Location loc,
                                       RankedTensorType type,
                                       ArrayRef<OpFoldResult> sizes,
                                       ValueRange inputs,
                                       ArrayRef<AffineMap> inputMaps,
                                       IndexedBodyBuilder body) {
  int64_t rank = type.getRank();
  Value init = createEmpty(b, loc, type, sizes);
  SmallVector<AffineMap> maps(inputMaps);
  while (maps.size() < inputs.size())
    maps.push_back(b.getMultiDimIdentityMap(rank));
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, type, inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> ivs;
        for (int64_t d = 0; d < rank; ++d)
          ivs.push_back(linalg::IndexOp::create(nb, nloc, d));
        Value r = body(nb, nloc, ivs, args.drop_back());
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

/// Reshapes `src` to `dstType` when both have the same non-unit dims in the
/// same order (dims known equal: equal static sizes, or the dst size is the
/// tensor.dim of that src dim). Null otherwise.
static Value reshapeByUnitDims(OpBuilder &b, Location loc, Value src,
                               RankedTensorType dstType,
                               ArrayRef<OpFoldResult> dstSizes) {
  auto srcType = cast<RankedTensorType>(src.getType());
  auto same = [&](int64_t i, int64_t j) {
    int64_t s = srcType.getDimSize(i), d = dstType.getDimSize(j);
    if (!ShapedType::isDynamic(s) || !ShapedType::isDynamic(d))
      return s == d;
    auto dim = dyn_cast_if_present<Value>(dstSizes[j]);
    auto dimOp = dim ? dim.getDefiningOp<tensor::DimOp>() : nullptr;
    return dimOp && dimOp.getSource() == src &&
           dimOp.getConstantIndex() == std::optional<int64_t>(i);
  };
  auto isUnit = [](RankedTensorType t, int64_t i) {
    return t.getDimSize(i) == 1;
  };
  // Pair up the non-unit dims.
  SmallVector<int64_t> srcKept, dstKept;
  for (int64_t i = 0; i < srcType.getRank(); ++i)
    if (!isUnit(srcType, i))
      srcKept.push_back(i);
  for (int64_t j = 0; j < dstType.getRank(); ++j)
    if (!isUnit(dstType, j))
      dstKept.push_back(j);
  if (srcKept.size() != dstKept.size())
    return nullptr;
  for (auto [i, j] : llvm::zip(srcKept, dstKept))
    if (!same(i, j))
      return nullptr;
  // Groups: each kept dim with the unit dims before it (trailing unit dims
  // join the last group). No kept dims: everything is one group of ones.
  auto groupsOf = [](int64_t rank, ArrayRef<int64_t> kept) {
    SmallVector<ReassociationIndices> groups;
    if (kept.empty()) {
      if (rank > 0) {
        groups.emplace_back();
        for (int64_t i = 0; i < rank; ++i)
          groups.back().push_back(i);
      }
      return groups;
    }
    int64_t next = 0;
    for (int64_t k : kept) {
      groups.emplace_back();
      for (; next <= k; ++next)
        groups.back().push_back(next);
    }
    for (; next < rank; ++next)
      groups.back().push_back(next);
    return groups;
  };
  SmallVector<ReassociationIndices> srcGroups =
      groupsOf(srcType.getRank(), srcKept);
  SmallVector<ReassociationIndices> dstGroups =
      groupsOf(dstType.getRank(), dstKept);
  if (srcKept.empty() && (srcType.getRank() == 0 || dstType.getRank() == 0))
    return nullptr; // rank-0 cases are handled by the caller
  // The intermediate type: the kept dims (or a single 1).
  SmallVector<int64_t> midShape;
  SmallVector<OpFoldResult> midSizes;
  if (srcKept.empty()) {
    midShape.push_back(1);
    midSizes.push_back(b.getIndexAttr(1));
  }
  for (auto [i, j] : llvm::zip(srcKept, dstKept)) {
    midShape.push_back(ShapedType::isDynamic(srcType.getDimSize(i))
                           ? dstType.getDimSize(j)
                           : srcType.getDimSize(i));
    midSizes.push_back(dstSizes[j]);
  }
  auto midType = RankedTensorType::get(midShape, srcType.getElementType());
  Value mid = src;
  if (srcGroups.size() != size_t(srcType.getRank()))
    mid = tensor::CollapseShapeOp::create(b, loc, src, srcGroups);
  if (mid.getType() != midType)
    mid = tensor::CastOp::create(b, loc, midType, src);
  if (dstGroups.size() != size_t(dstType.getRank()))
    return tensor::ExpandShapeOp::create(b, loc, dstType, mid, dstGroups,
                                         dstSizes);
  if (mid.getType() != dstType)
    mid = tensor::CastOp::create(b, loc, dstType, mid);
  return mid;
}

Value mlir::onnxc::reshapeTo(OpBuilder &b, Location loc, Value src,
                             RankedTensorType dstType,
                             ArrayRef<OpFoldResult> sizes) {
  auto srcType = cast<RankedTensorType>(src.getType());
  dstType = dstType.clone(srcType.getElementType());
  if (srcType == dstType && srcType.hasStaticShape())
    return src;
  int64_t srcRank = srcType.getRank(), dstRank = dstType.getRank();
  // Rank 0 on either side: every dim is 1.
  if (srcRank == 0 || dstRank == 0) {
    if (srcRank != 0) {
      auto ones = RankedTensorType::get(SmallVector<int64_t>(srcRank, 1),
                                        srcType.getElementType());
      if (ones != srcType)
        src = tensor::CastOp::create(b, loc, ones, src);
      src = tensor::CollapseShapeOp::create(b, loc, dstType, src,
                                            ArrayRef<ReassociationIndices>{});
      return src;
    }
    if (dstRank == 0)
      return src;
    auto ones = RankedTensorType::get(SmallVector<int64_t>(dstRank, 1),
                                      srcType.getElementType());
    Value r = tensor::ExpandShapeOp::create(
        b, loc, ones, src, ArrayRef<ReassociationIndices>{},
        SmallVector<OpFoldResult>(dstRank, b.getIndexAttr(1)));
    if (ones != dstType)
      r = tensor::CastOp::create(b, loc, dstType, r);
    return r;
  }
  // Only unit dims added or removed: collapse then expand around the
  // dims both sides share.
  SmallVector<OpFoldResult> dstSizes;
  for (int64_t i = 0; i < dstRank; ++i)
    dstSizes.push_back(dstType.isDynamicDim(i)
                           ? sizes[i]
                           : b.getIndexAttr(dstType.getDimSize(i)));
  if (Value r = reshapeByUnitDims(b, loc, src, dstType, dstSizes))
    return r;
  // expand_shape with several dynamic dims in one group crashes MLIR 22's
  // expand-strided-metadata: such reshapes go through tensor.reshape.
  if (llvm::count_if(dstType.getShape(), ShapedType::isDynamic) > 1) {
    SmallVector<Value> shape;
    for (OpFoldResult d : dstSizes)
      shape.push_back(getValueOrCreateConstantIndexOp(b, loc, d));
    Value shapeTensor = tensor::FromElementsOp::create(b, loc, shape);
    return tensor::ReshapeOp::create(b, loc, dstType, src, shapeTensor);
  }
  // Through a 1-D tensor; canonicalization folds the pair where it can.
  Value flat = src;
  if (srcRank > 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < srcRank; ++i)
      all.push_back(i);
    flat = tensor::CollapseShapeOp::create(b, loc, src,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (dstRank == 1) {
    if (flat.getType() != dstType)
      flat = tensor::CastOp::create(b, loc, dstType, flat);
    return flat;
  }
  ReassociationIndices all;
  for (int64_t i = 0; i < dstRank; ++i)
    all.push_back(i);
  // A static total size must agree with the static result sizes.
  auto flatType = cast<RankedTensorType>(flat.getType());
  if (dstType.hasStaticShape() && flatType.isDynamicDim(0)) {
    flatType = RankedTensorType::get({dstType.getNumElements()},
                                     dstType.getElementType());
    flat = tensor::CastOp::create(b, loc, flatType, flat);
  } else if (!flatType.isDynamicDim(0) && !dstType.hasStaticShape()) {
    flatType = RankedTensorType::get({ShapedType::kDynamic},
                                     dstType.getElementType());
    flat = tensor::CastOp::create(b, loc, flatType, flat);
  }
  SmallVector<OpFoldResult> outSizes;
  for (int64_t i = 0; i < dstRank; ++i)
    outSizes.push_back(dstType.isDynamicDim(i)
                           ? sizes[i]
                           : b.getIndexAttr(dstType.getDimSize(i)));
  return tensor::ExpandShapeOp::create(b, loc, dstType, flat,
                                       ArrayRef<ReassociationIndices>{all},
                                       outSizes);
}

SmallVector<OpFoldResult>
mlir::onnxc::preferStatic(OpBuilder &b, RankedTensorType type,
                          ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> r;
  for (int64_t i = 0; i < type.getRank(); ++i)
    r.push_back(type.isDynamicDim(i) ? sizes[i]
                                     : b.getIndexAttr(type.getDimSize(i)));
  return r;
}

SmallVector<Value> mlir::onnxc::dimValues(OpBuilder &b, Location loc,
                                          Value t) {
  SmallVector<Value> r;
  for (OpFoldResult d : getDims(b, loc, t))
    r.push_back(getValueOrCreateConstantIndexOp(b, loc, d));
  return r;
}

SmallVector<Value> mlir::onnxc::loopNest(
    OpBuilder &b, Location loc, ArrayRef<Value> ubs, ValueRange iterArgs,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange,
                                    ValueRange)>
        body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> lbs(ubs.size(), zero), steps(ubs.size(), one);
  scf::LoopNest nest =
      scf::buildLoopNest(b, loc, lbs, ubs, steps, iterArgs, body);
  return nest.results;
}

Value mlir::onnxc::isNonZero(OpBuilder &b, Location loc, Value x, Type t) {
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(x.getType()));
  if (isa<FloatType>(t))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
}
