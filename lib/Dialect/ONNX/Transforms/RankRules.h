//===- RankRules.h - onnxc's own result shapes from operand ranks -*- C++ -*-===//
//
// The result ranks (and the dims that follow without data) that ONNX fixes
// from an op's operand ranks and attributes alone, whatever libonnx's
// inference makes of the node: libonnx gives no shape when an operand's
// shape is partly unknown, a value is only known at run time or a subgraph
// is involved, and one op without a rank makes every op after it lose
// theirs. inferTypesFromSchema applies these rules to every result that
// ONNX's inference leaves without a rank, so that shape inference, the
// importer and autodiff all see them. One function per op family.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_LIB_DIALECT_ONNX_TRANSFORMS_RANKRULES_H
#define ONNXC_LIB_DIALECT_ONNX_TRANSFORMS_RANKRULES_H

#include "mlir/IR/Operation.h"

namespace mlir::onnxc::inference {

/// For each result of `op` whose entry in `types` is not a ranked tensor
/// type: the shape its op family's rule gives (dims dynamic where they are
/// not known), with the element type of `types[i]`, or of the result's own
/// type where `types[i]` is null. Entries no rule gives stay as they are.
/// `onnxRefused`: ONNX's inference function reported an error for the node
/// (its operands mostly do not fit the operator): then only the ops whose
/// newer versions libonnx checks by an older rule get types.
void applyRankRules(Operation *op, MutableArrayRef<Type> types,
                    bool onnxRefused);

} // namespace mlir::onnxc::inference

#endif // ONNXC_LIB_DIALECT_ONNX_TRANSFORMS_RANKRULES_H
