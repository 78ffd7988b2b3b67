//===- Importer.h - ONNX ModelProto -> onnx dialect -------------*- C++ -*-===//
#ifndef ONNXC_IMPORTER_IMPORTER_H
#define ONNXC_IMPORTER_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <set>
#include <string>

namespace mlir::onnxc {

struct ImportOptions {
  /// Run ONNX's graph-level shape inference before import, to give every
  /// value the most precise type ONNX can derive.
  bool onnxShapeInference = true;
  /// Initializers of at least this many bytes become dense_resource blobs.
  size_t resourceThreshold = 1024;
  /// ai.onnx operators replaced by their ONNX function body at import (the
  /// CPU backend lowers the body's ops; the dialect op stays available).
  std::set<std::string> expandFunctionOps = {
      "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss",
      "DynamicQuantizeLinear", "BlackmanWindow", "HammingWindow",
      "HannWindow"};
  /// Give each initializer's onnx.Constant an `onnx.initializer` attribute
  /// with its name (what onnx-build-training-step trains).
  bool markInitializers = false;
  /// Name of the function the main graph becomes.
  std::string entryName = "main_graph";
};

/// Imports the ONNX model in file `path`. Errors are reported through the
/// context's diagnostic engine (one diagnostic listing every unsupported op
/// at once) and yield a null module.
OwningOpRef<ModuleOp> importONNXModelFile(MLIRContext *ctx, StringRef path,
                                          const ImportOptions &options = {});

/// Imports a serialized ModelProto; external data is resolved against
/// `baseDir`, diagnostics name `bufferName`.
OwningOpRef<ModuleOp> importONNXModelBuffer(MLIRContext *ctx,
                                            StringRef buffer,
                                            StringRef bufferName,
                                            StringRef baseDir,
                                            const ImportOptions &options = {});

} // namespace mlir::onnxc

#endif // ONNXC_IMPORTER_IMPORTER_H
