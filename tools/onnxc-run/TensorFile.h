//===- TensorFile.h - .npy and TensorProto files for onnxc-run --*- C++ -*-===//
//
// Reads tensors from numpy .npy files (format versions 1-3, little-endian, C
// order; no strings) and from serialized onnx.TensorProto .pb files
// (raw_data or the typed fields; string_data for strings), and writes
// TensorProto files.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_RUN_TENSORFILE_H
#define ONNXC_TOOLS_ONNXC_RUN_TENSORFILE_H

#include "Tensor.h"

#include <string>

namespace onnx {
class TensorProto;
} // namespace onnx

namespace onnxc::runner {

/// The bytes of `path`; false with `error` set (naming the file) when it
/// cannot be read.
bool readFile(const std::string &path, std::string &contents,
              std::string &error);

/// Reads `path` by its extension (.npy, else TensorProto). On failure returns
/// false and sets `error` (which names the file). `name` receives the
/// TensorProto's name ("" for .npy).
bool readTensorFile(const std::string &path, HostTensor &tensor,
                    std::string &name, std::string &error);

bool readNpy(const std::string &path, HostTensor &tensor, std::string &error);
bool readTensorProto(const std::string &path, HostTensor &tensor,
                     std::string &name, std::string &error);

/// The tensor of a parsed TensorProto; on failure `error` says why (without
/// a file name).
bool tensorFromProto(const onnx::TensorProto &proto, HostTensor &tensor,
                     std::string &error);

/// Fills `proto` (data_type, dims and the values: raw_data, or string_data
/// for strings) from `tensor`; the name is left alone.
void tensorToProto(const HostTensor &tensor, onnx::TensorProto &proto);

/// Writes `tensor` as a TensorProto (see tensorToProto).
bool writeTensorProto(const std::string &path, const std::string &name,
                      const HostTensor &tensor, std::string &error);

} // namespace onnxc::runner

#endif // ONNXC_TOOLS_ONNXC_RUN_TENSORFILE_H
