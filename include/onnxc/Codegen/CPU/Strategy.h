//===- Strategy.h - How each root op is lowered on the CPU ------*- C++ -*-===//
//
// The CPU strategy layer: from the target (CPUTarget) and an op, the
// lowering configuration the code generators follow. onnxc-select-lowering-
// configs attaches it to every root op as the `onnxc.lowering_config`
// dictionary; the passes after it read it off the op (and copy it onto the
// ops they make of it). The choices live here, nowhere else.
//
// A contraction's configuration:
//   cache_tiles      [mc, nc, kc]  tiles along m, n, k that stay in cache
//   register_tile    [mr, nr]      the accumulator block held in registers
//   dynamic_blocks   [bm, bn]      blocks a dynamic m or n dim is walked in
//   vector_length    vl            elements per row tile of elementwise ops
//                                  and per chunk of inner reductions
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_CODEGEN_CPU_STRATEGY_H
#define ONNXC_CODEGEN_CPU_STRATEGY_H

#include "onnxc/Codegen/Common/Target.h"

#include <optional>

namespace mlir::onnxc {

/// The discardable attribute holding an op's configuration.
inline constexpr llvm::StringLiteral kLoweringConfigAttrName =
    "onnxc.lowering_config";

struct ContractionConfig {
  int64_t mc = 0, nc = 0, kc = 0;
  int64_t mr = 0, nr = 0;
  int64_t dynamicM = 0, dynamicN = 0;
  int64_t vl = 0;

  DictionaryAttr toAttr(MLIRContext *context) const;
  /// std::nullopt unless every field is there and positive.
  static std::optional<ContractionConfig> fromAttr(DictionaryAttr attr);
  bool operator==(const ContractionConfig &o) const {
    return mc == o.mc && nc == o.nc && kc == o.kc && mr == o.mr &&
           nr == o.nr && dynamicM == o.dynamicM && dynamicN == o.dynamicN &&
           vl == o.vl;
  }
};

/// The configuration of f32 contractions (and the vector length of
/// elementwise ops) on `target`:
///   nr = 2 vector registers of f32 lanes (two FMAs per row and k step);
///   mr = the rows whose 2 registers each fill three quarters of the
///        register file (the rest holds the B row and the A broadcast);
///   kc = the largest power of two whose kc x nr panel of B fits L1;
///   mc = 4 register tiles of rows, nc = 8 register tiles of columns;
///   a dynamic m in blocks of 4 vectors' lanes of rows, a dynamic n in nr;
///   vl = 4 vector registers.
/// On the reference machine (AVX-512, 32 registers, 32 KiB L1): 48 x 256
/// x 256 cache tiles, 12 x 32 register tiles, blocks of 64 x 32, vl 64; on
/// AVX2 (16 registers of 8 lanes): 24 x 128 x 512, 6 x 16, 32 x 16, 32.
ContractionConfig chooseContractionConfig(const CPUTarget &target);

/// The configuration attached to `op`, if any.
std::optional<ContractionConfig> getContractionConfig(Operation *op);
/// The configuration attached to `op`, else the one its module's target
/// gives.
ContractionConfig getOrChooseContractionConfig(Operation *op);
void setLoweringConfig(Operation *op, const ContractionConfig &config);

} // namespace mlir::onnxc

#endif // ONNXC_CODEGEN_CPU_STRATEGY_H
