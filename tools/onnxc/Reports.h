//===- Reports.h - What onnxc prints besides its output ---------*- C++ -*-===//
//
// Diagnostics naming the ONNX node, --memory-stats and the peak RSS of
// --time-stages.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_REPORTS_H
#define ONNXC_TOOLS_ONNXC_REPORTS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::onnxc {

/// The process's peak resident set in KiB (VmHWM), -1 when unknown.
long peakRSSKiB();

/// "12.3 MiB", "4.0 KiB", "17 B".
std::string formatBytes(int64_t bytes);

/// onnxc --memory-stats: the memory plan onnxc-plan-buffers recorded on each
/// function, and the constant globals (weights).
void printStats(ModuleOp module);

/// Prints the peak RSS when it goes out of scope (after the timing report).
struct PeakRSSReport {
  bool enabled = false;
  ~PeakRSSReport() {
    if (enabled)
      llvm::errs() << "onnxc: peak RSS " << peakRSSKiB() / 1024 << " MiB\n";
  }
};

/// Prints `diag` and its notes as "model.onnx: node 'conv1': error: ...":
/// the model file and the ONNX node of its location.
LogicalResult printNodeDiagnostic(Diagnostic &diag);

} // namespace mlir::onnxc

#endif // ONNXC_TOOLS_ONNXC_REPORTS_H
