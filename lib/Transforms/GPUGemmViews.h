//===- GPUGemmViews.h - Products as the CUDA GEMM kernels see them -*- C++
//-*-===//
//
// onnxc-gpu-tiled-matmul's views: a matmul, a batch matmul or an NCHW
// convolution (grouped too) on buffers as C[b] += A[b] x B[b], with element
// accessors that the kernels (and the host reference) read and write
// through.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_LIB_TRANSFORMS_GPUGEMMVIEWS_H
#define ONNXC_LIB_TRANSFORMS_GPUGEMMVIEWS_H

#include "GPUGemmFusion.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <functional>
#include <optional>

namespace mlir::onnxc {

/// A product C[b] += A[b] x B[b] (M x K times K x N, `batch` of them) as
/// the tiled kernel sees it: element accessors for in-range indices. C is
/// the result's buffer (`cIndices`: its indices of element (b, i, j)),
/// `reads` the buffers the product reads. `loadC` gives an element's
/// initial value and `storeC` stores its final one, as the pass sets them
/// (through a GemmFusion, GPUGemmFusion.h: C's own where nothing is fused).
struct GemmView {
  Value M, N, K, batch;
  /// A convolution's padded input read from its source (GPUGemmFusion.h).
  std::optional<PaddedInput> padded;
  Type operandType; // of A and B: f32, f16 or bf16 (C is f32)
  Value C;
  SmallVector<Value, 2> reads;
  std::function<Value(OpBuilder &, Value b, Value i, Value k)> loadA;
  std::function<Value(OpBuilder &, Value b, Value k, Value j)> loadB;
  std::function<SmallVector<Value>(OpBuilder &, Value b, Value i, Value j)>
      cIndices;
  std::function<Value(OpBuilder &, Value b, Value i, Value j)> loadC;
  std::function<void(OpBuilder &, Value v, Value b, Value i, Value j)> storeC;
};

/// A matmul or batch matmul on f32, f16 or bf16 memrefs (f32 sums) with the
/// default indexing maps, built at `b`.
std::optional<GemmView> matmulView(OpBuilder &b, linalg::LinalgOp op);

/// A 2-D NCHW convolution (or grouped one, wide enough) as an implicit GEMM.
std::optional<GemmView> convView(OpBuilder &b, linalg::LinalgOp op);

} // namespace mlir::onnxc

#endif // ONNXC_LIB_TRANSFORMS_GPUGEMMVIEWS_H
