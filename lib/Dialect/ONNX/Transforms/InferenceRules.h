//===- InferenceRules.h - onnxc's own type rules for some ops ---*- C++ -*-===//
//
// Result types that onnxc infers itself, before (or instead of) ONNX's
// schema inference: ops whose schema libonnx 1.12 lacks or gets wrong for
// the versions the dialect models. Each rule gives the result types when it
// applies to `op`, std::nullopt otherwise. SchemaInference.cpp tries them in
// turn; InferenceRules.cpp holds them.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_LIB_DIALECT_ONNX_TRANSFORMS_INFERENCERULES_H
#define ONNXC_LIB_DIALECT_ONNX_TRANSFORMS_INFERENCERULES_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::onnxc::inference {

/// The value of `v` when it is known at compile time: a constant, or the
/// Shape of a tensor whose shape is static.
ElementsAttr getKnownData(Value v);

/// Cast, CastLike, BitCast, QuantizeLinear/DequantizeLinear output_dtype.
std::optional<SmallVector<Type>> inferConversion(Operation *op);
std::optional<SmallVector<Type>> inferResize(Operation *op);
std::optional<SmallVector<Type>> inferPad(Operation *op);
std::optional<SmallVector<Type>> inferLinearAttention(Operation *op);
/// Ops whose result shape is an operand's (or computed from constants).
std::optional<SmallVector<Type>> inferShapeFromOperand(Operation *op);
std::optional<SmallVector<Type>> inferTreeEnsemble(Operation *op);
/// The ai.onnx.ml operators.
std::optional<SmallVector<Type>> inferML(Operation *op);

} // namespace mlir::onnxc::inference

#endif // ONNXC_LIB_DIALECT_ONNX_TRANSFORMS_INFERENCERULES_H
