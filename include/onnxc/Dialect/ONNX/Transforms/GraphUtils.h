//===- GraphUtils.h - Helpers of the graph passes ---------------*- C++ -*-===//

#ifndef ONNXC_DIALECT_ONNX_TRANSFORMS_GRAPHUTILS_H
#define ONNXC_DIALECT_ONNX_TRANSFORMS_GRAPHUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::onnxc {

/// Whether `v` depends on no function argument and no op with effects or
/// regions: a weight, or ops on weights (ConstantOfShape, Cast, ...).
bool isWeightOnly(Value v);

/// An onnx.Constant of `value`.
Value createONNXConstant(OpBuilder &b, Location loc, DenseElementsAttr value);

/// An onnx.Constant scalar (rank 0) of the float type `elementType`.
Value createONNXScalar(OpBuilder &b, Location loc, Type elementType,
                       double value);

/// An onnx.Constant of the i64 vector `values`.
Value createONNXShapeConstant(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> values);

/// Replaces `consumer` by the results of `fused` (the op that does what
/// `producer` then `consumer` did) and erases `producer`, whose only user
/// `consumer` was.
void replaceFusedPair(RewriterBase &rewriter, Operation *consumer,
                      Operation *producer, Operation *fused);

} // namespace mlir::onnxc

#endif // ONNXC_DIALECT_ONNX_TRANSFORMS_GRAPHUTILS_H
