//===- VectorizeReductions.h - Row reductions in vectors -------*- C++ -*-===//
//
// Part of onnxc-tile-and-vectorize: reductions over the innermost loop
// (Softmax's max and sum, LayerNormalization's mean and variance,
// ReduceSum/Mean/Max over the last axis, GlobalAveragePool) are tiled into
// rows and chunks of the reduced dim, vectorised, and each chunk reduced
// horizontally with a reassociating vector.reduction.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_LIB_TRANSFORMS_VECTORIZEREDUCTIONS_H
#define ONNXC_LIB_TRANSFORMS_VECTORIZEREDUCTIONS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::onnxc {

/// An f32 linalg op whose only reduction loop is its innermost one, read
/// contiguously (as the innermost dim) by every input that uses it. Sizes
/// may be dynamic.
bool isInnerReduction(linalg::LinalgOp op);

/// Tiles `op` into rows: every loop but the innermost by 1 (marked
/// parallel), the innermost by `inner` elements (marked parallel when
/// `innerParallel`; peeled), and marks the tiles with `marker`. Shared by
/// the elementwise and the reduction tiling of onnxc-tile-and-vectorize.
LogicalResult tileRows(RewriterBase &rewriter, linalg::LinalgOp op,
                       int64_t inner, StringRef marker, bool innerParallel);

/// Tiles `op` into one row per tile (every parallel loop by 1, marked
/// parallel) and chunks of up to `chunk` elements of the reduced dim (the
/// remainder peeled: with a dynamic reduced dim, the chunks have a static
/// size and the remainder a dynamic one), and marks the tiles with
/// `marker`.
LogicalResult tileInnerReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                                 int64_t chunk, StringRef marker);

/// Rewrites each vector.multi_reduction under `root` that reduces the last
/// dim of a vector whose other dims are 1 into a vector.reduction of that
/// row with the reassoc flag (LLVM then reduces it as a tree of vector
/// ops instead of one element after the other).
void lowerRowReductions(RewriterBase &rewriter, Operation *root);

} // namespace mlir::onnxc

#endif // ONNXC_LIB_TRANSFORMS_VECTORIZEREDUCTIONS_H
