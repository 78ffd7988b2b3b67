//===- onnx-mlir-opt.cpp - mlir-opt with the onnxc dialects and passes ----===//

#include "onnxc/Driver/CodeGen.h"
#include "onnxc/InitAll.h"
#include "onnxc/Transforms/BoundedSubsets.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::onnxc::registerAllPasses();
  mlir::DialectRegistry registry;
  // First: the first model attached to an op wins.
  mlir::onnxc::registerBoundedSubsetModels(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::onnxc::registerAllDialects(registry);
  mlir::onnxc::registerTranslations(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "onnxc optimizer driver\n", registry));
}
