//===- ConvUtils.h - Helpers of the conv rewrites ---------------*- C++ -*-===//
//
// Shared by onnxc-conv-to-matmul's rewrites: ConvToMatmul.cpp (convs as
// matmuls), GroupedConv.cpp and Windowed.cpp (depthwise convs and pooling as
// one elementwise generic over shifted views); derivesFromConstants also by
// onnxc-pack-matmul-weights.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_LIB_TRANSFORMS_CONVUTILS_H
#define ONNXC_LIB_TRANSFORMS_CONVUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::onnxc::conv {

/// `v` (rank 4, leading dim 1) without its leading dim, its last two dims
/// merged when `mergeLast`.
Value dropBatch(OpBuilder &b, Location loc, Value v, bool mergeLast);
/// `v` zero-padded at the end of each dim by `high`.
Value zeroPadHigh(OpBuilder &b, Location loc, Value v,
                  ArrayRef<int64_t> high);
/// A linalg op on static f32 tensors only.
bool isStaticF32(linalg::LinalgOp op);
/// ... whose first input has batch 1 (the conv forms rewritten here).
bool isStaticF32Batch1(linalg::LinalgOp conv);
SmallVector<int64_t> attrValues(DenseIntElementsAttr a);
/// Whether `v` is computed from constants only (a weight, or work on
/// weights that onnxc-hoist-constants then runs once).
bool derivesFromConstants(Value v);

/// How a conv's or window's accumulator starts: its init is a fill (a
/// scalar), a broadcast of a per-channel vector along N, H and W (a bias),
/// or any other tensor.
struct ConvStart {
  Value scalar, bias, tensor;
  explicit ConvStart(Value init);
};

/// The windowed ops: a depthwise conv, or a max or sum pooling.
enum class Window { None, Depthwise, Max, Sum };
Window windowKind(Operation *op);
/// `acc` combined with the window's `taps` views: `args` holds each tap's
/// view (and, for a depthwise conv, its filter value after it).
Value combineWindow(OpBuilder &b, Location loc, Window kind, Value acc,
                    ValueRange args, int64_t taps);

/// Replaces `conv` (or, when there is one, its fused epilogue op, then
/// erases `conv`) by `rows` (C x R x W, R >= OH and W >= OW: rows of
/// W computed positions) without its extra rows and columns, as the
/// conv's 1 x C x OH x OW result.
void replaceConvByRows(RewriterBase &rewriter, Location loc, Operation *conv,
                       Operation *epilogue, Value rows);

/// A 2-D NCHW convolution (static f32, batch 1) as sums of matmuls
/// (ConvToMatmul.cpp); its elementwise consumer is applied to each output
/// block when `fuseEpilogue` (see ConvEpilogue.h).
LogicalResult rewriteConv(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                          int64_t minShiftedChannels, bool fuseEpilogue);

/// A convolution of a batch of N > 1 images (static f32) replaced by one of
/// a single tall image, the batch's images stacked along the rows
/// (BatchedConv.cpp), which rewriteConv takes; returns that conv. Fails
/// when the padded height is not a multiple of the row stride.
FailureOr<linalg::Conv2DNchwFchwOp>
foldBatchIntoRows(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv);

/// A grouped convolution (GroupedConv.cpp): a 1x1 of stride 1 as one
/// batch_matmul over the groups, any other as rewriteConv per group.
LogicalResult rewriteGroupedConv(RewriterBase &rewriter,
                                 linalg::Conv2DNgchwGfchwOp conv,
                                 int64_t minShiftedChannels);

/// A depthwise convolution or a max or sum pooling (static f32, batch 1)
/// as one elementwise generic over the window's shifted views of the
/// input; a depthwise conv's elementwise consumer joins its body when
/// `fuseEpilogue` (see ConvEpilogue.h).
LogicalResult rewriteWindowed(RewriterBase &rewriter, linalg::LinalgOp op,
                              bool fuseEpilogue);

} // namespace mlir::onnxc::conv

#endif // ONNXC_LIB_TRANSFORMS_CONVUTILS_H
