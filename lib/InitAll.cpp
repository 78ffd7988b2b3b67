//===- InitAll.cpp - Register every onnxc dialect and pass ----------------===//

#include "onnxc/InitAll.h"

#include "onnxc/Dialect/ONNX/IR/ONNXDialect.h"
#include "onnxc/Codegen/Passes.h"
#include "onnxc/Conversion/Passes.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"
#include "onnxc/Driver/Pipelines.h"
#include "onnxc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

void mlir::onnxc::registerAllDialects(DialectRegistry &registry) {
  registry.insert<ONNXDialect, func::FuncDialect>();
}

void mlir::onnxc::registerAllPasses() {
  registerONNXPasses();
  registerONNXCConversionPasses();
  registerONNXCCodegenPasses();
  registerONNXCTransformsPasses();
  registerPipelines();
}
