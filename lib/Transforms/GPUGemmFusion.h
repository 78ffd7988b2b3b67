//===- GPUGemmFusion.h - Pointwise ops fused into the CUDA GEMM kernels -*-===//
//
// onnxc-gpu-tiled-matmul's fusion: the op that initialises a product's
// result (a fill with zero, a Conv's or Gemm's bias broadcast) and the
// elementwise op that reads it afterwards (a bias, Relu, a cast back to
// f16) evaluated inside the product's kernel, element by element, where it
// reads C's initial value and stores its sums, instead of as kernels of
// their own over the whole result.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_LIB_TRANSFORMS_GPUGEMMFUSION_H
#define ONNXC_LIB_TRANSFORMS_GPUGEMMFUSION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::onnxc {

/// The buffer a memref value is a view of (through subviews, casts,
/// reshapes).
Value rootBuffer(Value v);

/// Evaluates the body of `op`, an all-parallel linalg op on buffers, at the
/// point `ivs` of its iteration space: `given` (one of its input operands,
/// or null) has the value `givenValue`, the output's block argument the
/// value `outValue` (null: the body must not read it), every other shaped
/// input is loaded at its indexing map's indices, scalars are used as they
/// are. Returns what the body yields.
Value evaluateAt(OpBuilder &b, Location loc, linalg::LinalgOp op,
                 ValueRange ivs, OpOperand *given, Value givenValue,
                 Value outValue);

/// `linear` split into indices of `sizes` (the last fastest).
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> sizes);

/// What a product writing `C` can absorb.
struct GemmFusion {
  /// The op right before the product that writes every element of C from
  /// other buffers or scalars (linalg.fill, linalg.broadcast, a generic);
  /// the product reads its value at each element instead of C.
  linalg::LinalgOp init;
  /// The elementwise op right after the product that reads C (once, with
  /// the identity map, or a reshape of it) and writes its only output
  /// `output` with the identity map; the product's kernel stores its value
  /// there instead of C's. C then has no other user (or is `output` itself).
  linalg::LinalgOp epilogue;
  OpOperand *epilogueInput = nullptr;
  Value output;
  /// The expand_shape or collapse_shape of C the epilogue reads instead of
  /// C (static shapes), or null.
  Operation *reshape = nullptr;

  /// The initial value of C's element `indices`: the fused init op's, or
  /// C's own.
  Value initialValue(OpBuilder &b, Location loc, Value C,
                     ValueRange indices) const;

  /// Stores `value`, C's final element `indices`: through the fused
  /// epilogue into its output, or into C.
  void store(OpBuilder &b, Location loc, Value C, Value value,
             ValueRange indices) const;

  /// The fusions legal for `gemm` (a matmul or convolution on buffers whose
  /// result C's rank is the iteration rank of both ops) that reads the
  /// buffers `reads` (its operands but C): neither op may write a buffer
  /// another of them reads, and both may only read buffers defined before
  /// the product.
  static GemmFusion find(linalg::LinalgOp gemm, Value C, ArrayRef<Value> reads);

  /// Erases the fused ops, and C where nothing else uses it (after the
  /// product itself has been erased).
  void eraseFused(Value C);
};

/// A convolution's input padded by the ops before it: a buffer filled with
/// one value (`padValue`), its interior (a subview at `offsets`, unit
/// strides) written after that, then read by the convolution only. Its
/// kernel reads `source` where the window falls inside it and `padValue`
/// elsewhere: the interior itself, so that the fill goes; or, where the
/// interior is a copy of a buffer nothing writes before the convolution
/// (`copy`), that buffer, so that the copy and the padded buffer go too.
struct PaddedInput {
  Value source;
  SmallVector<OpFoldResult> offsets;
  Value padValue;
  Operation *fill = nullptr, *copy = nullptr;
  Operation *subview = nullptr;
  Operation *alloc = nullptr;

  /// `input` of `consumer` so padded, where nothing between the copy and
  /// `consumer` writes the source.
  static std::optional<PaddedInput> find(Operation *consumer, Value input);

  /// Erases the fill, and the copy and the buffer if there is one (after
  /// `consumer`).
  void erase();
};

} // namespace mlir::onnxc

#endif // ONNXC_LIB_TRANSFORMS_GPUGEMMFUSION_H
