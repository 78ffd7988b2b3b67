//===- ONNXOps.h - The onnx dialect's operations ----------------*- C++ -*-===//
#ifndef ONNXC_DIALECT_ONNX_IR_ONNXOPS_H
#define ONNXC_DIALECT_ONNX_IR_ONNXOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#include "onnxc/Dialect/ONNX/IR/ONNXDialect.h"

namespace mlir::onnxc {

/// Verifies the parts of an ONNX op that ODS cannot: operands and results
/// that share an ONNX type variable must have the same type.
LogicalResult verifyONNXOp(Operation *op);

/// ONNX's `axis` of a tensor of rank `rank`, counted from 0 (a negative
/// axis counts from the end), or nothing when it lies outside
/// [-rank, rank). Shape rules and lowerings alike read axes through it.
inline std::optional<int64_t> normalizedAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

template <typename ConcreteType>
class ONNXOpTrait : public OpTrait::TraitBase<ConcreteType, ONNXOpTrait> {
public:
  static LogicalResult verifyTrait(Operation *op) { return verifyONNXOp(op); }
};

} // namespace mlir::onnxc

#define GET_OP_CLASSES
#include "onnxc/Dialect/ONNX/IR/ONNXOps.h.inc"

namespace mlir::onnxc {

/// A Transpose's permutation of `rank` dims: its `perm` attribute, or the
/// reversal ONNX takes without one. Its length is not checked.
SmallVector<int64_t> getTransposePermutation(ONNXTransposeOp op,
                                             int64_t rank);

} // namespace mlir::onnxc

#endif // ONNXC_DIALECT_ONNX_IR_ONNXOPS_H
