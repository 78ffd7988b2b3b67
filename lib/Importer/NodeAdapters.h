//===- NodeAdapters.h - Newer operator versions -> the dialect's --*- C++ -*-===//
//
// The dialect models most ai.onnx operators at their newest version up to
// opset 17, some at a newer one (utils/gen_onnx_ops.py, VERSIONS).
// Upgrades rewrite a node of an older version into the dialect's (Reduce*'s
// axes attribute becomes a constant input); they are total. Adapters rewrite
// a node of a newer version (opsets 18-28) whose change the node does not
// use (an attribute left at its default, an input moved from an attribute
// that holds a constant) into the dialect's older form, and refuse the rest.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_LIB_IMPORTER_NODEADAPTERS_H
#define ONNXC_LIB_IMPORTER_NODEADAPTERS_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <optional>
#include <string>

namespace mlir::onnxc {

/// What an adapter may ask of the importer.
struct AdapterContext {
  /// The integer values of a constant input (initializer or Constant node).
  std::function<std::optional<SmallVector<int64_t>>(StringRef name)>
      constantInts;
  /// The MLIR type of a value defined so far (null if unknown).
  std::function<Type(StringRef name)> typeOf;
  /// Defines a new 1-D int64 constant and returns its value name.
  std::function<std::string(ArrayRef<int64_t> values)> makeInt64Constant;
};

/// The attribute `name` of `node`, or null.
const onnx::AttributeProto *findNodeAttr(const onnx::NodeProto &node,
                                         StringRef name);

/// Rewrites `node`, an ai.onnx node of operator version `version`, into the
/// dialect's newer version `dialectVersion` (called where a version in
/// between changed more than type constraints); fails, with `reason`, for an
/// operator that has no upgrade.
LogicalResult upgradeNode(onnx::NodeProto &node, int version,
                          int dialectVersion, AdapterContext &ctx,
                          std::string &reason);

/// Whether an adapter exists for `opType`.
bool hasNodeAdapter(StringRef opType);

/// Rewrites `node`, an ai.onnx node of operator version `version` (> 17),
/// into the opset-17 form. On failure `reason` says which feature of the
/// newer version the node uses.
LogicalResult adaptNode(onnx::NodeProto &node, int version,
                        AdapterContext &ctx, std::string &reason);

} // namespace mlir::onnxc

#endif // ONNXC_LIB_IMPORTER_NODEADAPTERS_H
