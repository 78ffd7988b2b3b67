//===- NodeAdapters.h - Newer operator versions -> the dialect's --*- C++ -*-===//
//
// The dialect models most ai.onnx operators at their newest version up to
// opset 17, some at a newer one (utils/gen_onnx_ops.py, VERSIONS).
// Upgrades rewrite a node of an older version into the dialect's (Reduce*'s
// and DFT's axes attributes become constant inputs); they are total. There
// are no downgrades: a node of a newer version than the dialect's that
// changed more than types is reported unsupported.
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

/// What an upgrade may ask of the importer.
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

/// Rewrites an ai.onnx.ml LabelEncoder-1 node (classes_strings) into the
/// attributes of LabelEncoder-2 and later, by its input's element type;
/// fails, with `reason`, where that type is not known.
LogicalResult upgradeLabelEncoder1(onnx::NodeProto &node, AdapterContext &ctx,
                                   std::string &reason);

} // namespace mlir::onnxc

#endif // ONNXC_LIB_IMPORTER_NODEADAPTERS_H
