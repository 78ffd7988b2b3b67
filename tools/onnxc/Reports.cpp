//===- Reports.cpp - What onnxc prints besides its output -----------------===//

#include "Reports.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir;

namespace mlir::onnxc {

/// The process's peak resident set in KiB (VmHWM: the high-water mark of
/// this program's own address space; getrusage's ru_maxrss would include
/// the RSS of whatever process forked it, from before the exec).
long peakRSSKiB() {
  // (/proc files have no size: read them as a stream.)
  auto status = llvm::MemoryBuffer::getFileAsStream("/proc/self/status");
  if (!status)
    return -1;
  StringRef text = (*status)->getBuffer();
  size_t at = text.find("VmHWM:");
  if (at == StringRef::npos)
    return -1;
  long kib = -1;
  text.drop_front(at + 6).trim().consumeInteger(10, kib);
  return kib;
}

std::string formatBytes(int64_t bytes) {
  char text[32];
  if (bytes >= (int64_t(1) << 20))
    snprintf(text, sizeof(text), "%.1f MiB", bytes / 1048576.0);
  else if (bytes >= 1024)
    snprintf(text, sizeof(text), "%.1f KiB", bytes / 1024.0);
  else
    snprintf(text, sizeof(text), "%lld B", (long long)bytes);
  return text;
}

/// onnxc --memory-stats: the memory plan onnxc-plan-buffers recorded on each
/// function, and the constant globals (weights).
void printStats(ModuleOp module) {
  auto attr = [](Operation *op, StringRef name) -> int64_t {
    auto a = op->getAttrOfType<IntegerAttr>(name);
    return a ? a.getInt() : 0;
  };
  module.walk([&](LLVM::LLVMFuncOp func) {
    if (!func->hasAttr("onnxc.planned_buffers") ||
        func.getSymName().starts_with("_mlir_ciface_"))
      return;
    llvm::errs() << "onnxc: memory of '" << func.getSymName()
                 << "': " << formatBytes(attr(func, "onnxc.arena_bytes"))
                 << " arena";
    if (func->hasAttr("onnxc.device_arena_bytes"))
      llvm::errs() << " ("
                   << formatBytes(attr(func, "onnxc.device_arena_bytes"))
                   << " of it device memory)";
    llvm::errs() << " for " << attr(func, "onnxc.planned_buffers")
                 << " buffers ("
                 << formatBytes(attr(func, "onnxc.buffer_bytes"))
                 << " without reuse); " << attr(func, "onnxc.output_allocs")
                 << " output buffers, " << attr(func, "onnxc.dynamic_allocs")
                 << " other buffers allocated at run time\n";
  });
  int64_t weights = 0, count = 0;
  DataLayout layout(module);
  module.walk([&](LLVM::GlobalOp global) {
    if (global.getConstant()) {
      weights += layout.getTypeSize(global.getGlobalType()).getFixedValue();
      ++count;
    }
  });
  llvm::errs() << "onnxc: constants: " << formatBytes(weights) << " in "
               << count << " read-only globals\n";
}

/// "model.onnx: node 'conv1': error: ...".
LogicalResult printNodeDiagnostic(Diagnostic &diag) {
  auto describe = [](Location loc) {
    std::string node, file;
    loc->walk([&](Location l) {
      if (auto name = dyn_cast<NameLoc>(l); name && node.empty())
        node = name.getName().str();
      if (auto flc = dyn_cast<FileLineColLoc>(l); flc && file.empty())
        file = flc.getFilename().str();
      return WalkResult::advance();
    });
    std::string prefix = file.empty() ? "onnxc" : file;
    if (!node.empty())
      prefix += ": node '" + node + "'";
    return prefix;
  };
  auto print = [&](Diagnostic &d) {
    StringRef severity =
        d.getSeverity() == DiagnosticSeverity::Error     ? "error"
        : d.getSeverity() == DiagnosticSeverity::Warning ? "warning"
        : d.getSeverity() == DiagnosticSeverity::Note    ? "note"
                                                         : "remark";
    llvm::errs() << describe(d.getLocation()) << ": " << severity << ": "
                 << d.str() << "\n";
  };
  print(diag);
  for (Diagnostic &note : diag.getNotes())
    print(note);
  return success();
}

} // namespace mlir::onnxc
