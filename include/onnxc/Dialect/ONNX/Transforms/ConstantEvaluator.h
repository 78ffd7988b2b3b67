//===- ConstantEvaluator.h - Compile-time evaluation of onnx ops -*- C++ -*-===//
//
// Evaluates the onnx ops that shape computations are made of (Shape, Gather,
// Slice, Concat, Unsqueeze, Cast, integer and float arithmetic, Range, ...)
// on values known at compile time. A value may be partly known: the Shape of
// a tensor with dynamic dims has its static dims as numbers and the dynamic
// ones unknown, so Gather(Shape(x), 0) is known when dim 0 of x is static.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_DIALECT_ONNX_TRANSFORMS_CONSTANTEVALUATOR_H
#define ONNXC_DIALECT_ONNX_TRANSFORMS_CONSTANTEVALUATOR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <vector>

namespace mlir::onnxc {

/// A tensor value known at compile time, possibly only in part. Integer and
/// bool elements are held as int64 (an unknown element as kUnknown), float
/// elements as double (an unknown element as NaN with `unknown` set).
struct KnownTensor {
  static constexpr int64_t kUnknown = INT64_MIN;

  SmallVector<int64_t> shape;
  bool isFloat = false;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  /// Some element is unknown (then the value cannot become a constant).
  bool partial = false;

  int64_t numElements() const;
  int64_t size() const { return isFloat ? floats.size() : ints.size(); }

  /// The value of a dense integer, index, bool or float constant; nullopt
  /// for other element types or more than `maxElements` elements.
  static std::optional<KnownTensor> fromAttr(ElementsAttr attr,
                                             int64_t maxElements);
  /// The constant of `elementType` (integers wrap to its width, floats
  /// round to its precision); null when some element is unknown.
  DenseElementsAttr toAttr(Type elementType) const;
};

/// Looks up what is known about an operand.
using KnownLookup = llvm::function_ref<const KnownTensor *(Value)>;

/// The value of `op`'s single result when `known` gives enough of its
/// operands, nullopt when `op` is not one the evaluator models or an
/// operand is not known (or would take more than `maxElements`). Ops whose
/// result is undefined or an error for the values given (an index out of
/// range, an integer division by zero) are not evaluated: they fail at run
/// time with the node's name, as they would without the fold.
std::optional<KnownTensor> evaluateONNXOp(Operation *op, KnownLookup known,
                                          int64_t maxElements);

} // namespace mlir::onnxc

#endif // ONNXC_DIALECT_ONNX_TRANSFORMS_CONSTANTEVALUATOR_H
