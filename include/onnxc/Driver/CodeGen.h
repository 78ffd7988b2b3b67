//===- CodeGen.h - LLVM dialect -> object file -> shared object -*- C++ -*-===//
#ifndef ONNXC_DRIVER_CODEGEN_H
#define ONNXC_DRIVER_CODEGEN_H

#include "onnxc/Codegen/Common/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::onnxc {

/// The model's inputs and outputs as the runtime C API reports them.
struct ModelSignature {
  struct Tensor {
    std::string name;
    int type = 0;              // ONNXC_TYPE_* of onnxc_runtime.h
    bool rankKnown = true;     // false: a sequence's items, or an output, of
                               // rank known only at run time
    int32_t dtype;             // onnx TensorProto.DataType
    int32_t keyDtype = 0;      // a map's keys' (0 for the other types)
    std::vector<int64_t> dims; // -1 where dynamic
    std::vector<std::string> dimNames;
  };
  std::vector<Tensor> inputs, outputs;

  /// The text the runtime parses (see lib/Runtime/onnxc_runtime.c).
  std::string serialize() const;
};

/// Reads the signature off the entry function while it is still in the
/// onnx dialect (ONNX element types, onnx.name/onnx.dim_params attrs).
FailureOr<ModelSignature> getModelSignature(func::FuncOp entry);

struct CodeGenOptions {
  unsigned optLevel = 2;
  std::string cpu;      // empty: the host CPU
  std::string features; // empty: the host CPU's features
  std::string triple;   // empty: the host
  std::string arch;     // empty: the triple's; else replaces its arch
};

/// A training step's state (onnx-build-training-step): the entry's inputs
/// from `firstInput` on, returned updated after the loss; `initial` holds
/// each state tensor's initial value as raw little-endian bytes.
struct TrainingState {
  int64_t firstInput = 0;
  std::vector<std::string> initial;
};

/// Takes the training state off the module attributes that
/// onnx-build-training-step set (removing them); std::nullopt when the
/// module is not a training step, failure when a value cannot be read.
FailureOr<std::optional<TrainingState>> takeTrainingState(ModuleOp module);

/// LLVM dialect -> LLVM IR, with the C API glue: the signature string and
/// the packed entry point that the runtime calls; with `training`, the
/// state table and initial values of the runtime's onnxc_train_* API.
std::unique_ptr<llvm::Module>
translateToLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                  StringRef entryName, const ModelSignature &signature,
                  const TrainingState *training = nullptr);

/// Links `function`, another model translated by translateToLLVMIR in the
/// same context, into `module` as a second function of the library: its
/// onnxc_model_{signature,messages,entry,init} become
/// onnxc_<prefix>_{signature,...} (what the runtime looks for: `eval`, a
/// training library's evaluation), its other definitions internal.
LogicalResult linkSecondFunction(llvm::Module &module,
                                 std::unique_ptr<llvm::Module> function,
                                 StringRef prefix, std::string &error);

/// Optimises `module` at `options.optLevel` and writes an object file.
LogicalResult emitObjectFile(llvm::Module &module,
                             const CodeGenOptions &options,
                             llvm::raw_pwrite_stream &os, std::string &error);
/// Whether the target `options` select has `feature` (e.g. "avx512f");
/// false when no target machine can be created for them.
bool targetHasFeature(const CodeGenOptions &options, llvm::StringRef feature);
/// The CPU the options compile for, as the code generators see it
/// (CPUTarget; the driver attaches it to the module as `onnxc.target`).
CPUTarget getCPUTarget(const CodeGenOptions &options);

/// Runs the LLVM optimisation pipeline only (for --emit=llvm-ir).
LogicalResult optimizeModule(llvm::Module &module,
                             const CodeGenOptions &options,
                             std::string &error);

/// Links `objectFile` and the onnxc runtime into the shared object `output`.
/// Splits the module's functions into up to `threads` partitions (at most
/// paths.size()) and optimises and compiles them concurrently, partition i
/// to paths[i]; returns how many were written through `written`. With one
/// partition the object is what emitObjectFile writes. The module's local
/// symbols become hidden, so the shared object's exports do not change.
LogicalResult emitObjectFiles(std::unique_ptr<llvm::Module> module,
                              const CodeGenOptions &options, unsigned threads,
                              ArrayRef<std::string> paths, unsigned &written,
                              std::string &error);

/// `cuda` adds the runtime's CUDA part (lib/Runtime/onnxc_cuda.c).
LogicalResult linkSharedObject(ArrayRef<std::string> objectFiles,
                               StringRef output, bool cuda,
                               std::string &error);

/// Registers the translations to LLVM IR that onnxc's pipelines and
/// translateToLLVMIR use (builtin, LLVM; GPU, NVVM and the NVVM target for
/// the CUDA target).
void registerTranslations(DialectRegistry &registry);

} // namespace mlir::onnxc

#endif // ONNXC_DRIVER_CODEGEN_H
