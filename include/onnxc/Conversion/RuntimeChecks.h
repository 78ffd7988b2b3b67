//===- RuntimeChecks.h - Checks the compiled code makes at run time -*- C++ -*-===//
//
// What a model or its inputs decide only at run time (index values, reshape
// sizes, dynamic broadcast dims, loop steps, sizes computed from data) is
// checked by the generated code. A failed check calls the runtime's
//
//   void onnxc_rt_fail(i32 message, i64 v0, i64 v1, i64 v2, i64 v3)
//
// (noreturn; lib/Runtime/onnxc_runtime.c), which frees every buffer of the run
// and makes onnxc_run return ONNXC_ERROR_RUNTIME with the message: entry
// `message` of the module's `onnxc.runtime_messages` array, with {0}..{3}
// replaced by the values. The driver turns that array into the
// `onnxc_model_messages` table of the shared object.
//
// Checks belong before the loops that depend on them: validate an index
// tensor once (one min/max pass), not each element inside the gather loop.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_CONVERSION_RUNTIMECHECKS_H
#define ONNXC_CONVERSION_RUNTIMECHECKS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::onnxc {

inline constexpr llvm::StringLiteral kRuntimeFailFnName = "onnxc_rt_fail";
inline constexpr llvm::StringLiteral kRuntimeMessagesAttrName =
    "onnxc.runtime_messages";

/// "node 'name' (OpType)" for an op the importer made from an ONNX node, or
/// "node (OpType)" when the node has no name.
std::string describeNode(Operation *op);

/// "node 'name'" from the NameLoc in `loc`, or "a node".
std::string describeNode(Location loc);

/// Declares onnxc_rt_fail in `module` (private func.func) when it is not
/// declared yet.
void declareRuntimeFailFn(ModuleOp module);

/// Emits `if (failed) onnxc_rt_fail(...)` at the builder's position. The
/// message is `describeNode(op) + ": " + message` (`op` may be null: the
/// node is then named from `loc`); `values` (index or
/// integer, at most 4) replace {0}..{3}. `failed` is an i1.
void emitRuntimeCheck(OpBuilder &b, Location loc, Operation *op, Value failed,
                      const Twine &message, ValueRange values = {});

/// Checks that every element of the integer tensor `indices` lies in
/// [-bound, bound) (`allowNegative`) or [0, bound): one pass computes the
/// minimum and the maximum, then one check names the offending value.
/// `what` completes the message ("on axis 1").
void emitIndexRangeCheck(OpBuilder &b, Location loc, Operation *op,
                         Value indices, Value bound, bool allowNegative,
                         const Twine &what);

/// Checks at run time that the dynamic dims of `value` that `type` fixes
/// have those sizes ("declared vs actual"); `what` names the value.
void emitStaticDimsCheck(OpBuilder &b, Location loc, Operation *op,
                         Value value, ArrayRef<int64_t> staticShape,
                         const Twine &what);

/// Checks numpy broadcasting at run time: each dim of each operand that is
/// not statically settled is 1 or the result's size (`sizes`, right-aligned).
void emitBroadcastCheck(OpBuilder &b, Location loc, Operation *op,
                        ValueRange operands, ArrayRef<OpFoldResult> sizes);

/// Checks that sizes computed from data (index values) are non-negative and
/// that their product fits in 63 bits; returns the product. `what` names the
/// tensor ("the output").
Value emitCheckedSizes(OpBuilder &b, Location loc, Operation *op,
                       ArrayRef<Value> sizes, const Twine &what);
Value emitCheckedSizes(OpBuilder &b, Location loc, Operation *op,
                       ArrayRef<OpFoldResult> sizes, const Twine &what);

/// Checks that the sizes an op computes at run time (`sizes`) agree with the
/// static dims of its inferred result type `type`: "{what} size {0} in dim
/// d, the model's inferred shape says {1}". Constant sizes are not checked.
void emitComputedSizesCheck(OpBuilder &b, Location loc, Operation *op,
                            ArrayRef<OpFoldResult> sizes,
                            RankedTensorType type, const Twine &what);

} // namespace mlir::onnxc

#endif // ONNXC_CONVERSION_RUNTIMECHECKS_H
