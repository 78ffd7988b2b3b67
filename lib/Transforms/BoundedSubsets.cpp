//===- BoundedSubsets.cpp - Subset comparisons of bounded cost ------------===//
//
// One-shot bufferization asks, for slices of one tensor, whether two subset
// ops touch the same elements or disjoint ones. MLIR's models for the
// tensor slice ops answer through ValueBoundsConstraintSet, which walks the
// whole computation of each offset and size and eliminates it in a
// Presburger set: with dynamic dims each conv's output size is a floordiv
// of the previous one, and the analysis of a 50-layer CNN took minutes.
// These models ask ValueBounds only when every offset and size is computed
// by at most kMaxOps ops; otherwise identical values (CSE makes equal
// computations one value) and constants decide, and what they cannot prove
// is not proven (bufferization then copies instead of working in place).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Transforms/BoundedSubsets.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SubsetOpInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace {

/// Offsets and sizes computed by more ops than this are compared by value.
constexpr int kMaxOps = 24;

/// Whether `ofr` is a constant or computed by at most kMaxOps ops (counted
/// through every operand, tensors included: ValueBounds follows dims too).
bool shallow(OpFoldResult ofr) {
  auto value = dyn_cast<Value>(ofr);
  if (!value)
    return true;
  SmallVector<Value> work{value};
  llvm::DenseSet<Operation *> seen;
  while (!work.empty()) {
    Operation *op = work.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    if (seen.size() > kMaxOps)
      return false;
    llvm::append_range(work, op->getOperands());
  }
  return true;
}

bool allShallow(const HyperrectangularSlice &s) {
  return llvm::all_of(s.getMixedOffsets(), shallow) &&
         llvm::all_of(s.getMixedSizes(), shallow) &&
         llvm::all_of(s.getMixedStrides(), shallow);
}

/// Equal (true), different (false) or not known without analysis.
std::optional<bool> syntacticallyEqual(OpFoldResult a, OpFoldResult b) {
  if (a == b)
    return true;
  std::optional<int64_t> ca = getConstantIntValue(a),
                         cb = getConstantIntValue(b);
  if (ca && cb)
    return *ca == *cb;
  return std::nullopt;
}

/// Whether the slices are the same subset, as far as can be told cheaply.
bool equivalentSlices(MLIRContext *ctx, const HyperrectangularSlice &a,
                      const HyperrectangularSlice &b) {
  bool allEqual = true;
  auto compare = [&](ArrayRef<OpFoldResult> x, ArrayRef<OpFoldResult> y) {
    for (auto [p, q] : llvm::zip_equal(x, y)) {
      std::optional<bool> eq = syntacticallyEqual(p, q);
      if (eq && !*eq)
        return false;
      allEqual &= eq.has_value();
    }
    return true;
  };
  if (!compare(a.getMixedOffsets(), b.getMixedOffsets()) ||
      !compare(a.getMixedSizes(), b.getMixedSizes()) ||
      !compare(a.getMixedStrides(), b.getMixedStrides()))
    return false;
  if (allEqual)
    return true;
  if (!allShallow(a) || !allShallow(b))
    return false;
  FailureOr<bool> eq = ValueBoundsConstraintSet::areEquivalentSlices(ctx, a, b);
  return succeeded(eq) && *eq;
}

/// Whether the slices share no element, as far as can be told cheaply.
bool disjointSlices(MLIRContext *ctx, const HyperrectangularSlice &a,
                    const HyperrectangularSlice &b) {
  // A dim where both are constant unit-stride ranges that do not meet.
  for (int64_t i = 0, e = a.getMixedOffsets().size(); i < e; ++i) {
    std::optional<int64_t> ao = getConstantIntValue(a.getMixedOffsets()[i]),
                           as = getConstantIntValue(a.getMixedSizes()[i]),
                           at = getConstantIntValue(a.getMixedStrides()[i]),
                           bo = getConstantIntValue(b.getMixedOffsets()[i]),
                           bs = getConstantIntValue(b.getMixedSizes()[i]),
                           bt = getConstantIntValue(b.getMixedStrides()[i]);
    if (ao && as && at && bo && bs && bt && *at == 1 && *bt == 1 &&
        (*ao + *as <= *bo || *bo + *bs <= *ao))
      return true;
  }
  if (!allShallow(a) || !allShallow(b))
    return false;
  FailureOr<bool> overlap =
      ValueBoundsConstraintSet::areOverlappingSlices(ctx, a, b);
  return succeeded(overlap) && !*overlap;
}

/// `relation` of `op`'s slice and `candidate`'s when both slice one tensor
/// container (as `equivalenceFn` tells); false otherwise.
bool sliceRelation(Operation *op, SubsetOpInterface candidate,
                   function_ref<bool(Value, Value)> equivalenceFn,
                   bool (*relation)(MLIRContext *, const HyperrectangularSlice &,
                                    const HyperrectangularSlice &)) {
  FailureOr<HyperrectangularSlice> other =
      candidate.getAccessedHyperrectangularSlice();
  if (failed(other) ||
      !equivalenceFn(cast<SubsetOpInterface>(op).getTensorContainer(),
                     candidate.getTensorContainer()))
    return false;
  return relation(
      op->getContext(),
      HyperrectangularSlice(cast<OffsetSizeAndStrideOpInterface>(op)), *other);
}

template <typename OpTy>
struct BoundedSubsetModel
    : public SubsetOpInterface::ExternalModel<BoundedSubsetModel<OpTy>,
                                              OpTy> {
  FailureOr<HyperrectangularSlice>
  getAccessedHyperrectangularSlice(Operation *op) const {
    return HyperrectangularSlice(cast<OffsetSizeAndStrideOpInterface>(op));
  }

  bool operatesOnEquivalentSubset(
      Operation *op, SubsetOpInterface candidate,
      function_ref<bool(Value, Value)> equivalenceFn) const {
    return sliceRelation(op, candidate, equivalenceFn, equivalentSlices);
  }

  bool operatesOnDisjointSubset(
      Operation *op, SubsetOpInterface candidate,
      function_ref<bool(Value, Value)> equivalenceFn) const {
    return sliceRelation(op, candidate, equivalenceFn, disjointSlices);
  }
};

} // namespace

void mlir::onnxc::registerBoundedSubsetModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::ExtractSliceOp::attachInterface<
        BoundedSubsetModel<tensor::ExtractSliceOp>>(*ctx);
    tensor::InsertSliceOp::attachInterface<
        BoundedSubsetModel<tensor::InsertSliceOp>>(*ctx);
    tensor::ParallelInsertSliceOp::attachInterface<
        BoundedSubsetModel<tensor::ParallelInsertSliceOp>>(*ctx);
  });
}
