//===- ShapeOverrides.h - Input shapes given at compile time ----*- C++ -*-===//
//
// `onnxc --input-shape NAME:D1xD2...` and `onnxc --dim NAME=N` fix dims that
// the model leaves dynamic, before ONNX's inference runs: a model whose
// ranks follow from its input sizes (TorchScript exports that squeeze a dim
// only when it is 1, in an If on the size) compiles for the sizes given, as
// onnx-mlir's --shapeInformation and ONNX Runtime's free dimension overrides
// do.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_LIB_IMPORTER_SHAPEOVERRIDES_H
#define ONNXC_LIB_IMPORTER_SHAPEOVERRIDES_H

#include "onnxc/Importer/Importer.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace mlir::onnxc {

/// Applies `options.inputShapes` and `options.dimValues` to the graph inputs,
/// outputs and value_info of `model`'s main graph. Returns an empty string,
/// or what is wrong: an unknown input or dim name, an input that is not a
/// tensor, a rank or a static dim other than the model's, two values for
/// one dim name.
std::string applyShapeOverrides(onnx::ModelProto &model,
                                const ImportOptions &options);

} // namespace mlir::onnxc

#endif // ONNXC_LIB_IMPORTER_SHAPEOVERRIDES_H
