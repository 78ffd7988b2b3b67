//===- SchemaInference.h - ONNX schema type/shape inference -----*- C++ -*-===//
//
// Runs the type-and-shape inference function that ONNX's schema registry
// defines for an operator on one op of the onnx dialect.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_DIALECT_ONNX_TRANSFORMS_SCHEMAINFERENCE_H
#define ONNXC_DIALECT_ONNX_TRANSFORMS_SCHEMAINFERENCE_H

#include "mlir/IR/Operation.h"

#include <string>

namespace onnx {
class ISchemaRegistry;
} // namespace onnx

namespace mlir::onnxc {

/// ONNX's schema registry, with guards around inference functions that
/// libonnx 1.12 runs unchecked into null or out-of-bounds reads on malformed
/// nodes; for ONNX's graph inference and inferTypesFromSchema alike.
const onnx::ISchemaRegistry *guardedONNXSchemaRegistry();

/// Returns one type per result of `op` (null where ONNX inferred nothing).
/// Fails, with a reason in `error`, when the op has no schema or the
/// schema's inference function reports an error.
FailureOr<SmallVector<Type>> inferTypesFromSchema(Operation *op,
                                                  std::string &error);

/// The most precise type that agrees with both `current` and `inferred`;
/// `current` when they disagree or `inferred` adds nothing.
Type refineType(Type current, Type inferred);

} // namespace mlir::onnxc

#endif // ONNXC_DIALECT_ONNX_TRANSFORMS_SCHEMAINFERENCE_H
