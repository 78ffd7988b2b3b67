//===- Target.h - The machine a model is compiled for -----------*- C++ -*-===//
//
// One description of the target CPU that every code-generation decision
// reads (docs/Performance.md, "The strategy layer"): its ISA features, its
// vector registers, its caches, and how many threads the model is expected
// to run on. The driver resolves it once from --mcpu/--mattr/--mtriple
// (the host's CPU and features by default) and attaches it to the module as
// the `onnxc.target` dictionary; passes read it with CPUTarget::of(op), and
// a module without the attribute (a lit test) gets CPUTarget::reference(),
// the x86-64 AVX-512 machine the project's defaults were measured on.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_CODEGEN_COMMON_TARGET_H
#define ONNXC_CODEGEN_COMMON_TARGET_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#include <cstdint>
#include <string>

namespace mlir::onnxc {

/// The module attribute holding the target (a DictionaryAttr).
inline constexpr llvm::StringLiteral kTargetAttrName = "onnxc.target";

struct CPUTarget {
  /// What LLVM compiles for: the triple, the CPU name and the feature list
  /// ("+avx2,+fma,..."), resolved (the host's when not given).
  std::string triple, cpu, features;
  /// Width of one vector register and how many the ISA has.
  unsigned vectorBits = 512;
  unsigned vectorRegisters = 32;
  /// Features the code generators choose by.
  bool hasFMA = true;
  bool hasAVX512 = true;     // avx512f (16 f32 lanes, masks, 32 registers)
  bool hasVNNI = false;      // avx512vnni or avxvnni: int8 dot products
  bool hasBF16 = false;      // avx512bf16
  /// The data caches per core (L1, L2) and shared (L3), and the line size.
  uint64_t l1Bytes = 32 * 1024;
  uint64_t l2Bytes = 2 * 1024 * 1024;
  uint64_t l3Bytes = 32 * 1024 * 1024;
  unsigned cacheLineBytes = 64;
  /// Threads the model is expected to run on (0: not known when compiling;
  /// the run-time count decides).
  unsigned threads = 0;

  /// f32 elements per vector register.
  int64_t f32Lanes() const { return vectorBits / 32; }

  /// The machine the defaults were measured on: x86-64 with AVX-512F, FMA,
  /// 32 KiB L1D, 2 MiB L2.
  static CPUTarget reference();
  /// The target from LLVM's view of a CPU: its triple and the resolved
  /// feature string. Cache sizes stay the reference's (LLVM does not know
  /// them).
  static CPUTarget fromFeatures(llvm::StringRef triple, llvm::StringRef cpu,
                                llvm::StringRef features);

  DictionaryAttr toAttr(MLIRContext *context) const;
  /// Fields missing in `attr` keep the reference's values; a field of the
  /// wrong type is an error.
  static FailureOr<CPUTarget> fromAttr(DictionaryAttr attr);

  /// The target of the module that holds `op` (the reference when it has
  /// none or an unreadable one).
  static CPUTarget of(Operation *op);
};

} // namespace mlir::onnxc

#endif // ONNXC_CODEGEN_COMMON_TARGET_H
