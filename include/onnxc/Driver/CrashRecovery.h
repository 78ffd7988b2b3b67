//===- CrashRecovery.h - Internal failures as errors naming the node ------===//
//
// The compiler must never crash: a pass that dereferences a null value,
// an LLVM fatal error or a failed assertion inside a pipeline becomes one
// error that names the stage, the pass, the pattern and the ONNX node being
// rewritten when it happened, and the compiler exits with an error status.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_DRIVER_CRASHRECOVERY_H
#define ONNXC_DRIVER_CRASHRECOVERY_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"

namespace mlir::onnxc {

/// Tracks, through `context`'s action handler, the pass and the rewrite
/// pattern being applied and the op (its location and name) they work on.
/// One per context; the context must be single-threaded
/// (MLIRContext::disableMultithreading), as onnxc's is.
class CrashRecovery {
public:
  explicit CrashRecovery(MLIRContext &context);
  ~CrashRecovery();
  CrashRecovery(const CrashRecovery &) = delete;
  CrashRecovery &operator=(const CrashRecovery &) = delete;

  /// Runs `fn` (a pipeline of `stage`) under llvm::CrashRecoveryContext.
  /// Returns fn's result, or, when it crashed, prints "onnxc: error:
  /// internal compiler error in stage '<stage>' ... while rewriting node
  /// '<name>' (<op>)" and exits with status 1 without running destructors
  /// (the IR may be half rewritten).
  LogicalResult run(StringRef stage, function_ref<LogicalResult()> fn);

  /// What `run` prints after a crash in `stage`, from what is being done
  /// now (for tests and for crashes outside `run`).
  std::string describeCrash(StringRef stage) const;

private:
  MLIRContext &context;
};

/// A pass that crashes while rewriting the op of ONNX node `node` (a trap,
/// or an LLVM fatal error): onnxc --testing-crash-at-node, for the tests of
/// CrashRecovery.
std::unique_ptr<Pass> createCrashTestPass(StringRef node, bool fatalError);

} // namespace mlir::onnxc

#endif // ONNXC_DRIVER_CRASHRECOVERY_H
