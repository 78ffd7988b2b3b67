//===- ConvEpilogue.h - Elementwise ops fused into conv blocks --*- C++ -*-===//
//
// The elementwise op after a convolution (a bias, BatchNormalization's
// X * a + c, Relu, Clip, ... fused into one linalg.generic by
// onnxc-fuse-elementwise) applied to each output block of
// onnxc-conv-to-matmul while the block is in cache, instead of in a pass of
// its own over the whole output.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_LIB_TRANSFORMS_CONVEPILOGUE_H
#define ONNXC_LIB_TRANSFORMS_CONVEPILOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::onnxc {

class ConvEpilogue {
public:
  /// The only user of `convResult` (1 x F x OH x OW, f32) when it is an
  /// elementwise linalg.generic of that shape that reads it with the
  /// identity map, whose other inputs are per output channel (F values
  /// along dim 1, unit dims elsewhere) or scalars, and whose body does not
  /// read its output or the indices; and whose result is not padded (see
  /// onnxc-write-into-pads: that op writes it into the padded buffer).
  static std::optional<ConvEpilogue> match(Value convResult);

  linalg::GenericOp getOp() const { return op; }

  /// Builds the per-channel operands as F-vectors and the scalars as
  /// rank-0 tensors, at the builder's insertion point (before the blocks'
  /// loops).
  void prepare(OpBuilder &b, Location loc);

  /// The prepared operands (F-vectors and rank-0 tensors), and their
  /// indexing maps in an iteration space of `rank` dims whose dim 0 is the
  /// output channel.
  ArrayRef<Value> getOperands() const { return operands; }
  SmallVector<AffineMap> getOperandMaps(unsigned rank) const;

  /// Clones the op's body at `b`: `value` is the conv's value, `args` the
  /// values of getOperands() (in order); returns what the body yields.
  Value emitBody(OpBuilder &b, Value value, ValueRange args) const;

  /// The epilogue applied to `block`, fb filters from `fi` by any number of
  /// positions (an F x positions tile of the conv's result).
  Value apply(OpBuilder &b, Location loc, Value block, Value fi,
              int64_t fb) const;

private:
  ConvEpilogue(linalg::GenericOp op, unsigned convInput)
      : op(op), convInput(convInput) {}

  mutable linalg::GenericOp op;
  unsigned convInput;
  /// For each input but the conv's: its F-vector or rank-0 form.
  SmallVector<Value> operands;
};

} // namespace mlir::onnxc

#endif // ONNXC_LIB_TRANSFORMS_CONVEPILOGUE_H
