//===- onnxc-fuzz-import.cpp - libFuzzer target for the ONNX importer -----===//
//
// Each input is the bytes of an ONNX model file (a serialized ModelProto).
// It is imported with importONNXModelBuffer (ONNX's graph shape inference on,
// as onnxc runs it), and a module that imports is then run through
// onnx-shape-inference and the verifier, as `onnxc --emit=onnx-inferred`
// does. Diagnostics are expected and swallowed; a crash, an abort, an uncaught
// exception or a sanitizer report is a bug.
//
//   onnxc-fuzz-import [libFuzzer flags] CORPUS...     (utils/fuzz-importer.sh)
//   onnxc-fuzz-import crash-<sha1>                    (reproduce one input)
//
// Environment: ONNXC_FUZZ_NO_ONNX_SHAPE_INFERENCE=1 imports without ONNX's
// graph shape inference (onnxc --no-onnx-shape-inference).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Dialect/ONNX/IR/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/Transforms/Passes.h"
#include "onnxc/Importer/Importer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <cstdint>
#include <cstdlib>
#include <memory>

using namespace mlir;

namespace {
/// The context is reused across inputs, with the dialects loaded once; it is
/// made afresh every so many inputs, since what it uniques (types, attributes,
/// dense_resource blobs) only grows.
constexpr unsigned kInputsPerContext = 1000;

struct FuzzState {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  std::unique_ptr<ScopedDiagnosticHandler> diagnostics;
  unsigned inputs = 0;
  onnxc::ImportOptions options;
  /// External data resolves against an empty folder of its own, so an input
  /// naming a file finds nothing (and cannot reach outside it).
  std::string baseDir;

  void resetContext() {
    diagnostics.reset();
    context = std::make_unique<MLIRContext>(registry);
    context->disableMultithreading();
    context->printOpOnDiagnostic(false);
    context->loadDialect<onnxc::ONNXDialect, func::FuncDialect>();
    diagnostics = std::make_unique<ScopedDiagnosticHandler>(
        context.get(), [](Diagnostic &) { return success(); });
    inputs = 0;
  }
};

FuzzState *state;
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  state = new FuzzState;
  state->registry.insert<onnxc::ONNXDialect, func::FuncDialect>();
  if (const char *v = std::getenv("ONNXC_FUZZ_NO_ONNX_SHAPE_INFERENCE"))
    state->options.onnxShapeInference = std::string(v) != "1";
  SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("onnxc-fuzz-import", dir)) {
    std::abort();
  }
  state->baseDir = std::string(dir);
  state->resetContext();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (++state->inputs > kInputsPerContext)
    state->resetContext();
  MLIRContext *ctx = state->context.get();
  StringRef buffer(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = onnxc::importONNXModelBuffer(
      ctx, buffer, "fuzz.onnx", state->baseDir, state->options);
  if (!module)
    return 0;
  PassManager pm(ctx);
  pm.addNestedPass<func::FuncOp>(onnxc::createONNXShapeInference());
  if (succeeded(pm.run(*module)))
    (void)verify(*module);
  return 0;
}
