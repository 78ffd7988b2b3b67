//===- ValueFile.h - Tensor, sequence, optional and map files ---*- C++ -*-===//
//
// Reads the file of a signature entry by its type, as the ONNX backend tests
// store values: a .npy or onnx.TensorProto file for a tensor, an
// onnx.SequenceProto of tensors for a sequence, an onnx.OptionalProto for an
// optional (a .npy file gives an optional tensor with a value), an
// onnx.MapProto for a map (int64 `keys` or `string_keys`, the values a
// SequenceProto of one 0-d tensor per key, as onnx.helper.make_map and
// onnx.numpy_helper.from_dict write it) and an onnx.SequenceProto of
// MapProto (elem_type MAP) for a sequence of maps. Writes values the same
// way.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_RUN_VALUEFILE_H
#define ONNXC_TOOLS_ONNXC_RUN_VALUEFILE_H

#include "CompiledModel.h"
#include "Value.h"

#include <string>

namespace onnxc::runner {

/// Reads `path` as a value of the type of `info`. The tensors keep the
/// file's element types (the model or the comparison checks them). On
/// failure returns false and sets `error`, which names the file and, for a
/// file of the wrong kind, what it holds.
bool readValueFile(const std::string &path, const ValueInfo &info,
                   HostValue &value, std::string &error);

/// Writes `value` as a TensorProto, a SequenceProto of tensors or of maps,
/// an OptionalProto (elem_type UNDEFINED when it has no value, as ONNX's
/// numpy_helper.from_optional(None) writes it) or a MapProto, tensors with
/// raw_data (strings with string_data).
bool writeValueFile(const std::string &path, const std::string &name,
                    const HostValue &value, std::string &error);

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_VALUEFILE_H
