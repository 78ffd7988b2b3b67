//===- ConvNCHWc.h - Helpers of onnxc-conv-nchwc ----------------*- C++ -*-===//
//
// The blocked NCHWc layout (N x C/16 x H x W x 16): packing and unpacking,
// and the patterns that move unpacks past the ops that MLIR's data-layout
// propagation does not handle (ConvNCHWcPatterns.cpp); used by
// onnxc-conv-nchwc (ConvNCHWc.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_LIB_TRANSFORMS_CONVNCHWC_H
#define ONNXC_LIB_TRANSFORMS_CONVNCHWC_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <utility>

namespace mlir::onnxc::nchwc {

/// Channels per block.
constexpr int64_t kBlock = 16;

/// `v` packed in blocks of 16 along `innerDims`; a dim that is not a
/// multiple of 16 is zero-padded to one.
Value packTensor(OpBuilder &b, Location loc, Value v,
                 ArrayRef<int64_t> innerDims);
/// `packed` (N x C/16 x H x W x 16) unpacked to `type` (N x C x H x W).
Value unpackResult(OpBuilder &b, Location loc, Value packed,
                   RankedTensorType type);

/// Whether `op` is an elementwise generic (all loops parallel, every map a
/// projected permutation) that is not a kernel call.
bool isPlainElementwise(Operation *op);

/// The bounds [lo, hi] when `op` clamps its one input (identity maps):
/// max(x, lo) (a Relu: hi = inf), or max then min (a Clip), either way round.
std::optional<std::pair<APFloat, APFloat>> clampBounds(linalg::GenericOp op);

/// A Concat along the channels of blocked tensors as insert_slices of whole
/// blocks, and elementwise ops with several blocked operands (a residual
/// Add; loop indices in the body remapped) on the blocked tensors.
void populateBlockedLayoutPatterns(RewritePatternSet &patterns);

} // namespace mlir::onnxc::nchwc

#endif // ONNXC_LIB_TRANSFORMS_CONVNCHWC_H
