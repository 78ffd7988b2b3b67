//===- ProtoConversion.h - ONNX protobuf <-> MLIR types/attrs ---*- C++ -*-===//
//
// Conversions between ONNX's protobuf messages (TypeProto, TensorProto,
// AttributeProto) and MLIR types and attributes, shared by the importer and
// the schema-driven shape inference.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_SUPPORT_PROTOCONVERSION_H
#define ONNXC_SUPPORT_PROTOCONVERSION_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

namespace mlir::onnxc {

/// onnx::TensorProto::DataType -> MLIR element type; null if not supported.
Type convertONNXElementType(MLIRContext *ctx, int32_t dataType);
/// MLIR element type -> onnx::TensorProto::DataType; UNDEFINED (0) if none.
int32_t getONNXDataType(Type elementType);

/// TypeProto -> MLIR type (tensor, !onnx.seq, !onnx.opt, !onnx.map). Unknown
/// dims become dynamic; `dimParams`, when given, receives the symbolic name
/// of each dim of a tensor type ("" where none). Returns null for a TypeProto
/// that does not say enough (no element type) or is not supported.
Type convertTypeProto(MLIRContext *ctx, const onnx::TypeProto &type,
                      SmallVectorImpl<std::string> *dimParams = nullptr);
/// MLIR type -> TypeProto. Returns false when the type has no ONNX form.
bool toTypeProto(Type type, onnx::TypeProto &proto);

/// Where tensor data may come from besides the proto itself.
struct TensorDataOptions {
  /// Directory of the model file; external data paths are relative to it.
  std::string baseDir;
  /// Tensors of at least this many bytes become dense_resource blobs.
  size_t resourceThreshold = 1024;
};

/// TensorProto -> ElementsAttr. Large tensors become DenseResourceElementsAttr
/// blobs that take over the proto's raw_data (no second copy) or map the
/// external data file. On failure returns null and sets `error`.
ElementsAttr convertTensorProto(MLIRContext *ctx, onnx::TensorProto &tensor,
                                const TensorDataOptions &options,
                                std::string &error);
/// ElementsAttr -> TensorProto (raw_data, or string_data for strings).
bool toTensorProto(ElementsAttr attr, onnx::TensorProto &proto);

/// MLIR attribute -> AttributeProto of the given ONNX attribute type.
bool toAttributeProto(StringRef name, Attribute attr, int attrType,
                      onnx::AttributeProto &proto);

} // namespace mlir::onnxc

#endif // ONNXC_SUPPORT_PROTOCONVERSION_H
