//===- BoundedSubsets.h - Subset comparisons of bounded cost ----*- C++ -*-===//
#ifndef ONNXC_TRANSFORMS_BOUNDEDSUBSETS_H
#define ONNXC_TRANSFORMS_BOUNDEDSUBSETS_H

namespace mlir {
class DialectRegistry;
namespace onnxc {

/// Attaches onnxc's SubsetOpInterface models to tensor.extract_slice,
/// tensor.insert_slice and tensor.parallel_insert_slice. They answer
/// one-shot bufferization's "same subset?" and "disjoint subsets?" questions
/// as MLIR's models do (ValueBoundsConstraintSet), but only for offsets and
/// sizes computed by a few ops; for deeper computations (the chains of
/// floordivs that a dynamic-resolution CNN's sizes are) they compare the
/// values themselves, so the analysis stays fast (ShuffleNetV2 with dynamic
/// H/W: 200 s of analysis). Must be called before MLIR's registrations:
/// the first model attached to an op wins.
void registerBoundedSubsetModels(DialectRegistry &registry);

} // namespace onnxc
} // namespace mlir

#endif // ONNXC_TRANSFORMS_BOUNDEDSUBSETS_H
