//===- onnxc.cpp - The onnxc compiler driver ------------------------------===//
//
// onnxc MODEL.onnx [-o OUT] [--emit=STAGE]
//
// Imports an ONNX model and emits the requested stage. Stages beyond the
// imported `onnx` dialect arrive with the lowering to LLVM.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/Transforms/Passes.h"
#include "onnxc/Importer/Importer.h"
#include "onnxc/InitAll.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace {
enum class EmitStage { ONNX, ONNXInferred };

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<model.onnx>"),
                                     llvm::cl::Required);
llvm::cl::opt<std::string> outputFile("o", llvm::cl::desc("Output file"),
                                      llvm::cl::value_desc("file"),
                                      llvm::cl::init("-"));
llvm::cl::opt<EmitStage> emit(
    "emit", llvm::cl::desc("What to produce"),
    llvm::cl::values(
        clEnumValN(EmitStage::ONNX, "onnx",
                   "the imported onnx dialect (types from ONNX's inference)"),
        clEnumValN(EmitStage::ONNXInferred, "onnx-inferred",
                   "the onnx dialect after onnx-shape-inference")),
    llvm::cl::init(EmitStage::ONNX));
llvm::cl::opt<bool> noONNXShapeInference(
    "no-onnx-shape-inference",
    llvm::cl::desc("Import without running ONNX's graph shape inference"),
    llvm::cl::init(false));
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  llvm::cl::ParseCommandLineOptions(argc, argv, "onnxc: ONNX compiler\n");

  DialectRegistry registry;
  onnxc::registerAllDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);

  onnxc::ImportOptions options;
  options.onnxShapeInference = !noONNXShapeInference;
  OwningOpRef<ModuleOp> module =
      onnxc::importONNXModelFile(&context, inputFile, options);
  if (!module)
    return 1;

  if (emit == EmitStage::ONNXInferred) {
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return 1;
    pm.addNestedPass<func::FuncOp>(onnxc::createONNXShapeInference());
    if (failed(pm.run(*module)))
      return 1;
  }

  std::string error;
  auto output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "onnxc: " << error << "\n";
    return 1;
  }
  module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}
