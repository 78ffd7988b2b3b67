// RUN: onnx-mlir-opt %s --onnxc-conv-to-matmul="min-shifted-channels=1" --canonicalize | FileCheck %s
// RUN: onnx-mlir-opt %s --onnxc-conv-to-matmul --canonicalize | FileCheck %s --check-prefix=IM2COL

// Stride 1: a loop over the nine kernel positions runs one matmul over a
// shifted slice of the flattened, padded input (no copy of the input),
// accumulating into F x positions: OH rows of Wp columns, computed up to a
// multiple of 32 (the register tile), so the input gets zero columns at its
// end. The accumulator holds whole rows (6 x 6 here), so that the result is
// a view of it: the extra rows and columns are dropped by one slice.
// CHECK-LABEL: func.func @conv3x3
// CHECK: %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 0] high[0, 0, 2]
// CHECK: %[[ROWS0:.*]] = tensor.collapse_shape %[[PADDED]] {{\[}}[0], [1, 2]] : tensor<8x4x6xf32> into tensor<8x24xf32>
// CHECK: %[[ACC:.*]] = tensor.pad %[[ROWS0]] low[0, 0] high[0, 12]
// CHECK: %[[WT:.*]] = linalg.transpose ins(%arg1 : tensor<8x4x3x3xf32>) {{.*}} permutation = [2, 3, 0, 1]
// CHECK: %[[FLAT0:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2, 3]] : tensor<1x4x6x6xf32> into tensor<4x36xf32>
// CHECK: %[[FLAT:.*]] = tensor.pad %[[FLAT0]] low[0, 0] high[0, 10]
// CHECK: %[[W:.*]] = tensor.collapse_shape %[[WT]] {{\[}}[0, 1], [2], [3]] : tensor<3x3x8x4xf32> into tensor<9x8x4xf32>
// CHECK: %[[BLOCK:.*]] = tensor.extract_slice %[[ACC]][0, 0] [8, 32] [1, 1]
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %c0 to %c9 step %c1 iter_args(%[[B:.*]] = %[[BLOCK]]) -> (tensor<8x32xf32>)
// CHECK:   %[[WK:.*]] = tensor.extract_slice %[[W]][%[[K]], 0, 0] [1, 8, 4] [1, 1, 1] : tensor<9x8x4xf32> to tensor<8x4xf32>
// CHECK:   %[[R:.*]] = arith.divui %[[K]], %c3
// CHECK:   %[[Q:.*]] = arith.remui %[[K]], %c3
// CHECK:   %[[RW:.*]] = arith.muli %[[R]], %c6
// CHECK:   %[[OFF:.*]] = arith.addi %[[RW]], %[[Q]]
// CHECK:   %[[XK:.*]] = tensor.extract_slice %[[FLAT]][0, %[[OFF]]] [4, 32] [1, 1]
// CHECK:   linalg.matmul ins(%[[WK]], %[[XK]] : tensor<8x4xf32>, tensor<4x32xf32>) outs(%[[B]] : tensor<8x32xf32>)
// CHECK: %[[ALL:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC]][0, 0] [8, 32] [1, 1]
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %[[ALL]] {{\[}}[0], [1, 2]] output_shape [8, 6, 6]
// CHECK: %[[OUT:.*]] = tensor.extract_slice %[[ROWS]][0, 0, 0] [8, 4, 4] [1, 1, 1]
// CHECK: tensor.expand_shape %[[OUT]] {{\[}}[0, 1], [2], [3]] output_shape [1, 8, 4, 4]
// With the default min-shifted-channels (16), 4 input channels take the
// im2col form, stride 1 or not: one matmul with K = 3*3*4.
// IM2COL-LABEL: func.func @conv3x3
// IM2COL: linalg.transpose ins(%arg1 : tensor<8x4x3x3xf32>) {{.*}} permutation = [0, 2, 3, 1]
// IM2COL: scf.for %{{.*}} = %c0 to %c9 step %c1
// IM2COL:   linalg.copy
// IM2COL: } {onnxc.parallel}
// IM2COL-NOT: scf.for
// IM2COL: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x36xf32>, tensor<36x32xf32>)
// IM2COL: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [8, 8, 4]
func.func @conv3x3(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>,
                   %init: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>)
         outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// Stride 2: a loop over the kernel positions copies each one's input
// columns out of the strided input into its slab of an im2col tensor, whose
// columns past the 9 positions (up to 32) are zeros; one matmul of the
// filter as F x (KH*KW*C) by the im2col tensor as (KH*KW*C) x positions.
// CHECK-LABEL: func.func @conv3x3_stride2
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<9x4x32xf32>)
// CHECK: %[[COLS:.*]] = scf.for %[[K:.*]] = %c0 to %c9 step %c1 iter_args(%[[C:.*]] = %[[ZERO]])
// CHECK:   %[[I:.*]] = arith.divui %[[K]], %c3
// CHECK:   %[[J:.*]] = arith.remui %[[K]], %c3
// CHECK:   %[[S4:.*]] = tensor.extract_slice %arg0[0, 0, %[[I]], %[[J]]] [1, 4, 3, 3] [1, 1, 2, 2] : tensor<1x4x7x7xf32> to tensor<1x4x3x3xf32>
// CHECK:   %[[S:.*]] = tensor.collapse_shape %[[S4]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x3x3xf32> into tensor<4x3x3xf32>
// CHECK:   %[[SLAB:.*]] = tensor.extract_slice %[[C]][%[[K]], 0, 0] [1, 4, 9] [1, 1, 1] : tensor<9x4x32xf32> to tensor<4x9xf32>
// CHECK:   %[[SLAB3:.*]] = tensor.expand_shape %[[SLAB]] {{\[}}[0], [1, 2]] output_shape [4, 3, 3]
// CHECK:   %[[CP:.*]] = linalg.copy ins(%[[S]] : tensor<4x3x3xf32>) outs(%[[SLAB3]] : tensor<4x3x3xf32>)
// CHECK:   %[[CP2:.*]] = tensor.collapse_shape %[[CP]]
// CHECK:   tensor.insert_slice %[[CP2]] into %[[C]][%[[K]], 0, 0] [1, 4, 9] [1, 1, 1]
// CHECK: } {onnxc.parallel}
// CHECK: %[[W2:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<8x3x3x4xf32> into tensor<8x36xf32>
// CHECK: %[[X2:.*]] = tensor.collapse_shape %[[COLS]] {{\[}}[0, 1], [2]] : tensor<9x4x32xf32> into tensor<36x32xf32>
// CHECK-NOT: scf.for
// CHECK: linalg.matmul ins(%[[W2]], %[[X2]] : tensor<8x36xf32>, tensor<36x32xf32>) {{.*}} -> tensor<8x32xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [8, 11, 3]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [8, 3, 3] [1, 1, 1]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [1, 8, 3, 3]
func.func @conv3x3_stride2(%x: tensor<1x4x7x7xf32>, %w: tensor<8x4x3x3xf32>,
                           %init: tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %r = linalg.conv_2d_nchw_fchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<1x4x7x7xf32>, tensor<8x4x3x3xf32>)
         outs(%init : tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  return %r : tensor<1x8x3x3xf32>
}

// A batch of 2 is one tall image of 2 x 6 rows (C x N x H x W): the
// matmuls of the batch-1 form compute its 10 output rows, of which each
// image keeps its first 4 of 6 (rows 4-5 read across the two images); the
// result goes back to N x F x OH x OW, and an init that is neither a fill
// nor a bias is added after.
// CHECK-LABEL: func.func @batch2
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x6x6xf32>, %{{.*}}: tensor<8x4x3x3xf32>, %[[INIT:.*]]: tensor<2x8x4x4xf32>)
// CHECK: linalg.transpose ins(%[[X]] : tensor<2x4x6x6xf32>) outs(%{{.*}} : tensor<4x2x6x6xf32>) permutation = [1, 0, 2, 3]
// CHECK: linalg.matmul
// CHECK: %[[ROWS:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [8, 10, 4] [1, 1, 1] : tensor<8x11x6xf32> to tensor<8x10x4xf32>
// CHECK: %[[PAD:.*]] = tensor.pad %[[ROWS]] low[0, 0, 0] high[0, 2, 0]
// CHECK: %[[IMGS:.*]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1, 2], [3]] output_shape [8, 2, 6, 4] : tensor<8x12x4xf32> into tensor<8x2x6x4xf32>
// CHECK: %[[KEEP:.*]] = tensor.extract_slice %[[IMGS]][0, 0, 0, 0] [8, 2, 4, 4] [1, 1, 1, 1]
// CHECK: %[[Y:.*]] = linalg.transpose ins(%[[KEEP]] : tensor<8x2x4x4xf32>) outs(%{{.*}} : tensor<2x8x4x4xf32>) permutation = [1, 0, 2, 3]
// CHECK: %[[SUM:.*]] = linalg.add ins(%[[Y]], %[[INIT]] : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>)
// CHECK: return %[[SUM]]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// Stride 2 (an im2col tensor): 3 images of 8 rows, 11 output rows of the
// 24-row image, 4 per image of which the first 3 are kept; the fill starts
// the accumulator (no add).
// CHECK-LABEL: func.func @batch3_stride2
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 24, 8] : tensor<4x24x8xf32> into tensor<1x4x24x8xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0, %{{.*}}, %{{.*}}] [1, 4, 11, 3] [1, 1, 2, 2]
// CHECK: tensor.expand_shape %{{.*}} output_shape [8, 3, 4, 3] : tensor<8x12x3xf32> into tensor<8x3x4x3xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [8, 3, 3, 3] [1, 1, 1, 1]
// CHECK-NOT: linalg.add
// CHECK: return
// Dynamic shapes stay convolutions.
// CHECK-LABEL: func.func @dynamic
// CHECK: linalg.conv_2d_nchw_fchw
func.func @batch2(%x: tensor<2x4x6x6xf32>, %w: tensor<8x4x3x3xf32>,
                  %init: tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<2x4x6x6xf32>, tensor<8x4x3x3xf32>)
         outs(%init : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  return %r : tensor<2x8x4x4xf32>
}
func.func @batch3_stride2(%x: tensor<3x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<3x8x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x8x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x8x3x3xf32>) -> tensor<3x8x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<3x4x8x8xf32>, tensor<8x4x3x3xf32>)
         outs(%init : tensor<3x8x3x3xf32>) -> tensor<3x8x3x3xf32>
  return %r : tensor<3x8x3x3xf32>
}
func.func @dynamic(%x: tensor<1x4x?x?xf32>, %w: tensor<8x4x3x3xf32>,
                   %init: tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32> {
  %r = linalg.conv_2d_nchw_fchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x4x?x?xf32>, tensor<8x4x3x3xf32>)
         outs(%init : tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32>
  return %r : tensor<1x8x?x?xf32>
}

// A bias (a per-filter broadcast) starts each block of the accumulator in
// cache, instead of a broadcast over the whole output first.
// CHECK-LABEL: func.func @conv_bias
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x36xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[E]][0, 0] [8, 32] [1, 1]
// CHECK: %[[B:.*]] = linalg.broadcast ins(%arg2 : tensor<8xf32>) outs(%[[S]] : tensor<8x32xf32>) dimensions = [1]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[B]]) -> (tensor<8x32xf32>)
// CHECK:   linalg.matmul
func.func @conv_bias(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>,
                     %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %init = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<1x8x4x4xf32>) dimensions = [0, 2, 3]
  %r = linalg.conv_2d_nchw_fchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>)
         outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// Groups (at most 8) of a conv that is not 1x1 with stride 1: one after the other, each a convolution of its
// slices (the filters' at a constant offset, for onnxc-hoist-constants)
// rewritten into matmuls.
// CHECK-LABEL: func.func @grouped
// CHECK-NOT: scf.for
// CHECK: tensor.extract_slice %arg0[0, 0, 0, 0, 0] [1, 1, 3, 5, 5] [1, 1, 1, 1, 1] : tensor<1x2x3x5x5xf32> to tensor<1x3x5x5xf32>
// CHECK: tensor.extract_slice %arg1[0, 0, 0, 0, 0] [1, 4, 3, 3, 3] [1, 1, 1, 1, 1] : tensor<2x4x3x3x3xf32> to tensor<4x3x3x3xf32>
// CHECK: linalg.matmul {{.*}} -> tensor<4x32xf32>
// CHECK: %[[G0:.*]] = tensor.insert_slice %{{.*}} into %arg2[0, 0, 0, 0, 0] [1, 1, 4, 3, 3]
// CHECK: tensor.extract_slice %arg0[0, 1, 0, 0, 0] [1, 1, 3, 5, 5]
// CHECK: tensor.extract_slice %arg1[1, 0, 0, 0, 0] [1, 4, 3, 3, 3]
// CHECK: linalg.matmul {{.*}} -> tensor<4x32xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[G0]][0, 1, 0, 0, 0] [1, 1, 4, 3, 3]
// CHECK-NOT: linalg.conv
func.func @grouped(%x: tensor<1x2x3x5x5xf32>, %w: tensor<2x4x3x3x3xf32>,
                   %init: tensor<1x2x4x3x3xf32>) -> tensor<1x2x4x3x3xf32> {
  %r = linalg.conv_2d_ngchw_gfchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x3x5x5xf32>, tensor<2x4x3x3x3xf32>)
         outs(%init : tensor<1x2x4x3x3xf32>) -> tensor<1x2x4x3x3xf32>
  return %r : tensor<1x2x4x3x3xf32>
}

// More than 8 groups: a loop over them.
// CHECK-LABEL: func.func @grouped_many
// CHECK: scf.for %[[G:.*]] = %c0 to %c9 step %c1 iter_args(%[[OUT:.*]] = %arg2) -> (tensor<1x9x4x3x3xf32>)
// CHECK:   tensor.extract_slice %arg0[0, %[[G]], 0, 0, 0] [1, 1, 3, 5, 5] [1, 1, 1, 1, 1] : tensor<1x9x3x5x5xf32> to tensor<1x3x5x5xf32>
// CHECK:   linalg.matmul {{.*}} -> tensor<4x32xf32>
// CHECK:   tensor.insert_slice %{{.*}} into %[[OUT]][0, %[[G]], 0, 0, 0] [1, 1, 4, 3, 3]
// CHECK-NOT: linalg.conv
func.func @grouped_many(%x: tensor<1x9x3x5x5xf32>, %w: tensor<9x4x3x3x3xf32>,
                        %init: tensor<1x9x4x3x3xf32>) -> tensor<1x9x4x3x3xf32> {
  %r = linalg.conv_2d_ngchw_gfchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x9x3x5x5xf32>, tensor<9x4x3x3x3xf32>)
         outs(%init : tensor<1x9x4x3x3xf32>) -> tensor<1x9x4x3x3xf32>
  return %r : tensor<1x9x4x3x3xf32>
}

// Groups with a bias: each group's conv starts from the broadcast of its
// part of the bias (which rewriteConv builds block by block), not from a
// slice of the broadcast over all groups (copied in and out); the groups
// write into an empty tensor.
// CHECK-LABEL: func.func @grouped_bias
// CHECK-NOT: linalg.broadcast ins(%arg2
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<1x2x4x3x3xf32>
// CHECK: %[[PART0:.*]] = tensor.extract_slice %arg2[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
// CHECK: linalg.broadcast ins(%[[PART0]] : tensor<4xf32>) outs(%{{.*}} : tensor<4x32xf32>) dimensions = [1]
// CHECK: %[[G0:.*]] = tensor.insert_slice %{{.*}} into %[[EMPTY]][0, 0, 0, 0, 0] [1, 1, 4, 3, 3]
// CHECK: %[[PART1:.*]] = tensor.extract_slice %arg2[4] [4] [1] : tensor<8xf32> to tensor<4xf32>
// CHECK: linalg.broadcast ins(%[[PART1]] : tensor<4xf32>) outs(%{{.*}} : tensor<4x32xf32>) dimensions = [1]
// CHECK: tensor.insert_slice %{{.*}} into %[[G0]][0, 1, 0, 0, 0] [1, 1, 4, 3, 3]
// CHECK-NOT: linalg.conv
func.func @grouped_bias(%x: tensor<1x2x3x5x5xf32>, %w: tensor<2x4x3x3x3xf32>,
                        %b: tensor<8xf32>) -> tensor<1x2x4x3x3xf32> {
  %e = tensor.empty() : tensor<1x8x3x3xf32>
  %bc = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<1x8x3x3xf32>) dimensions = [0, 2, 3]
  %init = tensor.expand_shape %bc [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 3, 3] : tensor<1x8x3x3xf32> into tensor<1x2x4x3x3xf32>
  %r = linalg.conv_2d_ngchw_gfchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x3x5x5xf32>, tensor<2x4x3x3x3xf32>)
         outs(%init : tensor<1x2x4x3x3xf32>) -> tensor<1x2x4x3x3xf32>
  return %r : tensor<1x2x4x3x3xf32>
}

// Grouped 1x1 convs of stride 1: one batch_matmul over the groups on views
// of the tensors (filters G x F x C times input G x C x positions), nothing
// copied; the groups are the batch (the threads' loop).
// CHECK-LABEL: func.func @grouped_1x1
// CHECK-DAG: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2], [3, 4]] : tensor<1x2x3x5x5xf32> into tensor<2x3x25xf32>
// CHECK-DAG: %[[W:.*]] = tensor.collapse_shape %arg1 {{\[}}[0], [1], [2, 3, 4]] : tensor<2x4x3x1x1xf32> into tensor<2x4x3xf32>
// CHECK-DAG: %[[INIT:.*]] = tensor.collapse_shape %arg2 {{\[}}[0, 1], [2], [3, 4]] : tensor<1x2x4x5x5xf32> into tensor<2x4x25xf32>
// CHECK: %[[R:.*]] = linalg.batch_matmul ins(%[[W]], %[[X]] : tensor<2x4x3xf32>, tensor<2x3x25xf32>) outs(%[[INIT]] : tensor<2x4x25xf32>)
// CHECK: tensor.expand_shape %[[R]] {{\[}}[0, 1], [2], [3, 4]] output_shape [1, 2, 4, 5, 5]
// CHECK-NOT: tensor.pad
// CHECK-NOT: linalg.conv
func.func @grouped_1x1(%x: tensor<1x2x3x5x5xf32>, %w: tensor<2x4x3x1x1xf32>,
                       %init: tensor<1x2x4x5x5xf32>) -> tensor<1x2x4x5x5xf32> {
  %r = linalg.conv_2d_ngchw_gfchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x3x5x5xf32>, tensor<2x4x3x1x1xf32>)
         outs(%init : tensor<1x2x4x5x5xf32>) -> tensor<1x2x4x5x5xf32>
  return %r : tensor<1x2x4x5x5xf32>
}

// With a bias, the batch_matmul starts from the bias as G x F broadcast
// along the positions (not from the broadcast over all groups).
// CHECK-LABEL: func.func @grouped_1x1_bias
// CHECK: %[[B:.*]] = tensor.expand_shape %arg2 {{\[}}[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
// CHECK: %[[BC:.*]] = linalg.broadcast ins(%[[B]] : tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4x25xf32>) dimensions = [2]
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x4x3xf32>, tensor<2x3x25xf32>) outs(%[[BC]] : tensor<2x4x25xf32>)
// CHECK-NOT: linalg.conv
func.func @grouped_1x1_bias(%x: tensor<1x2x3x5x5xf32>, %w: tensor<2x4x3x1x1xf32>,
                            %b: tensor<8xf32>) -> tensor<1x2x4x5x5xf32> {
  %e = tensor.empty() : tensor<1x8x5x5xf32>
  %bc = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<1x8x5x5xf32>) dimensions = [0, 2, 3]
  %init = tensor.expand_shape %bc [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 5, 5] : tensor<1x8x5x5xf32> into tensor<1x2x4x5x5xf32>
  %r = linalg.conv_2d_ngchw_gfchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x3x5x5xf32>, tensor<2x4x3x1x1xf32>)
         outs(%init : tensor<1x2x4x5x5xf32>) -> tensor<1x2x4x5x5xf32>
  return %r : tensor<1x2x4x5x5xf32>
}

// A 1x1 of stride 2 stays group by group.
// CHECK-LABEL: func.func @grouped_1x1_stride2
// CHECK-NOT: linalg.batch_matmul
// CHECK: linalg.matmul
// CHECK: linalg.matmul
// CHECK-NOT: linalg.conv
func.func @grouped_1x1_stride2(%x: tensor<1x2x3x5x5xf32>, %w: tensor<2x4x3x1x1xf32>,
                               %init: tensor<1x2x4x3x3xf32>) -> tensor<1x2x4x3x3xf32> {
  %r = linalg.conv_2d_ngchw_gfchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x3x5x5xf32>, tensor<2x4x3x1x1xf32>)
         outs(%init : tensor<1x2x4x3x3xf32>) -> tensor<1x2x4x3x3xf32>
  return %r : tensor<1x2x4x3x3xf32>
}

// Depthwise, stride 1: one elementwise generic over C x positions of the
// flattened input (rows of Wp columns; the last row stops (KW-1) columns
// early); its operands are the nine shifted views and the nine filter
// columns, and its body sums the nine products onto the fill's value.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2, 3]] : tensor<1x3x6x6xf32> into tensor<3x36xf32>
// CHECK: %[[X0:.*]] = tensor.extract_slice %[[FLAT]][0, 0] [3, 22] [1, 1]
// CHECK: %[[W0:.*]] = tensor.extract_slice %arg1[0, 0, 0] [3, 1, 1] [1, 1, 1] : tensor<3x3x3xf32> to tensor<3xf32>
// CHECK: %[[X1:.*]] = tensor.extract_slice %[[FLAT]][0, 1] [3, 22] [1, 1]
// CHECK: tensor.extract_slice %[[FLAT]][0, 6] [3, 22] [1, 1]
// CHECK: %[[X8:.*]] = tensor.extract_slice %[[FLAT]][0, 14] [3, 22] [1, 1]
// CHECK: %[[W8:.*]] = tensor.extract_slice %arg1[0, 2, 2] [3, 1, 1] [1, 1, 1] : tensor<3x3x3xf32> to tensor<3xf32>
// CHECK: %[[FULL:.*]] = tensor.empty() : tensor<3x24xf32>
// CHECK: %[[INTO:.*]] = tensor.extract_slice %[[FULL]][0, 0] [3, 22] [1, 1]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X0]], %[[W0]], %[[X1]], {{.*}}, %[[X8]], %[[W8]] : {{.*}}) outs(%[[INTO]] : tensor<3x22xf32>)
// CHECK-COUNT-9: arith.mulf
// CHECK: linalg.yield
// CHECK: %[[ALL:.*]] = tensor.insert_slice %[[SUM]] into %[[FULL]][0, 0] [3, 22] [1, 1]
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %[[ALL]] {{\[}}[0], [1, 2]] output_shape [3, 4, 6]
// CHECK: tensor.extract_slice %[[ROWS]][0, 0, 0] [3, 4, 4] [1, 1, 1]
func.func @depthwise(%x: tensor<1x3x6x6xf32>, %w: tensor<3x3x3xf32>) -> tensor<1x3x4x4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x4x4xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x3x6x6xf32>, tensor<3x3x3xf32>)
         outs(%init : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %r : tensor<1x3x4x4xf32>
}

// Depthwise, stride 2: each kernel position reads a strided view of the
// input planes (rows and columns stride 2; no copies: onnxc-lower-vectors
// reads the columns as a contiguous load and a shuffle). The bias is an
// operand read per channel.
// CHECK-LABEL: func.func @depthwise_stride2
// CHECK: %[[PLANES:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2], [3]]
// CHECK-NOT: linalg.copy
// CHECK: %[[X00:.*]] = tensor.extract_slice %[[PLANES]][0, 0, 0] [3, 3, 3] [1, 2, 2]
// CHECK: %[[X01:.*]] = tensor.extract_slice %[[PLANES]][0, 0, 1] [3, 3, 3] [1, 2, 2]
// CHECK: %[[X02:.*]] = tensor.extract_slice %[[PLANES]][0, 0, 2] [3, 3, 3] [1, 2, 2]
// CHECK: %[[X22:.*]] = tensor.extract_slice %[[PLANES]][0, 2, 2] [3, 3, 3] [1, 2, 2]
// CHECK: linalg.generic {{.*}} ins(%[[X00]], %{{.*}}, %[[X01]], %{{.*}}, %[[X02]], {{.*}}, %[[X22]], %{{.*}}, %arg2 : {{.*}}) outs(%{{.*}} : tensor<3x3x3xf32>)
func.func @depthwise_stride2(%x: tensor<1x3x7x7xf32>, %w: tensor<3x3x3xf32>,
                             %b: tensor<3xf32>) -> tensor<1x3x3x3xf32> {
  %e = tensor.empty() : tensor<1x3x3x3xf32>
  %init = linalg.broadcast ins(%b : tensor<3xf32>) outs(%e : tensor<1x3x3x3xf32>) dimensions = [0, 2, 3]
  %r = linalg.depthwise_conv_2d_nchw_chw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<1x3x7x7xf32>, tensor<3x3x3xf32>)
         outs(%init : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %r : tensor<1x3x3x3xf32>
}

// A matmul reading a weight as N x K (Gemm's transB) gets it transposed to
// K x N first (a weight-only op, run once after onnxc-hoist-constants), and
// becomes a matmul with the default maps.
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK: %[[BT:.*]] = linalg.transpose ins(%{{.*}} : tensor<16x8xf32>) outs(%{{.*}} : tensor<8x16xf32>) permutation = [1, 0]
// CHECK: linalg.matmul ins(%arg0, %[[BT]] : tensor<1x8xf32>, tensor<8x16xf32>) outs(%arg1 : tensor<1x16xf32>)
func.func @gemm_trans_b(%x: tensor<1x8xf32>, %init: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %w = arith.constant dense<1.0> : tensor<16x8xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
         ins(%x, %w : tensor<1x8xf32>, tensor<16x8xf32>)
         outs(%init : tensor<1x16xf32>) -> tensor<1x16xf32>
  return %r : tensor<1x16xf32>
}

// A B computed at run time is transposed only when enough rows of A reuse
// it: with one row the transpose would cost as much as the matmul.
// CHECK-LABEL: func.func @runtime_trans_b
// CHECK: %[[BT:.*]] = linalg.transpose ins(%arg1 : tensor<16x8xf32>)
// CHECK: linalg.matmul ins(%arg0, %[[BT]] : tensor<8x8xf32>, tensor<8x16xf32>)
// CHECK-LABEL: func.func @runtime_trans_b_one_row
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps
func.func @runtime_trans_b(%x: tensor<8x8xf32>, %w: tensor<16x8xf32>,
                           %init: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
         ins(%x, %w : tensor<8x8xf32>, tensor<16x8xf32>)
         outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func @runtime_trans_b_one_row(%x: tensor<1x8xf32>, %w: tensor<16x8xf32>,
                                   %init: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
         ins(%x, %w : tensor<1x8xf32>, tensor<16x8xf32>)
         outs(%init : tensor<1x16xf32>) -> tensor<1x16xf32>
  return %r : tensor<1x16xf32>
}

// Epilogue: the elementwise op after the conv (here X * a + c per output
// channel, then a Relu against a scalar) is applied to each output block
// after its matmuls (a generic over the block, the per-channel operands
// sliced to the block's filters), and replaces the conv's result; the
// per-channel operands computed after the conv are still available.
// CHECK-LABEL: func.func @conv_epilogue
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<8xf32>)
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c9
// CHECK:   linalg.matmul
// CHECK: %[[EPI:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %arg3, %[[ZERO]] : tensor<8xf32>, tensor<8xf32>, tensor<f32>) outs(%[[SUM]] : tensor<8x32xf32>)
// CHECK:   ^bb0(%[[IA:.*]]: f32, %[[IC:.*]]: f32, %[[IZ:.*]]: f32, %[[X:.*]]: f32):
// CHECK:     %[[M:.*]] = arith.mulf %[[X]], %[[IA]]
// CHECK:     %[[S:.*]] = arith.addf %[[M]], %[[IC]]
// CHECK:     %[[R:.*]] = arith.maximumf %[[S]], %[[IZ]]
// CHECK:     linalg.yield %[[R]]
// CHECK: tensor.insert_slice %[[EPI]]
// CHECK-NOT: linalg.generic
// CHECK: return
// A spatially varying operand (a residual) is not an epilogue: the conv's
// result is computed whole, then the elementwise op.
// CHECK-LABEL: func.func @conv_residual
// CHECK: scf.for
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#scalar = affine_map<(d0, d1, d2, d3) -> (0)>
#vec = affine_map<(d0) -> (d0)>
func.func @conv_epilogue(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>,
                         %scale: tensor<8xf32>, %shift: tensor<8xf32>)
    -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %r = linalg.conv_2d_nchw_fchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>)
         outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %e8 = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
         ins(%scale : tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%s: f32, %o: f32):
    %h = arith.mulf %s, %s : f32
    linalg.yield %h : f32
  } -> tensor<8xf32>
  %a3 = tensor.expand_shape %a [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
  %c3 = tensor.expand_shape %shift [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
  %z = arith.constant dense<0.0> : tensor<1xf32>
  %y = linalg.generic {indexing_maps = [#nchw, #chan, #chan, #scalar, #nchw],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%r, %a3, %c3, %z : tensor<1x8x4x4xf32>, tensor<8x1x1xf32>, tensor<8x1x1xf32>, tensor<1xf32>)
         outs(%empty : tensor<1x8x4x4xf32>) {
  ^bb0(%v: f32, %av: f32, %cv: f32, %zv: f32, %o: f32):
    %m = arith.mulf %v, %av : f32
    %s = arith.addf %m, %cv : f32
    %q = arith.maximumf %s, %zv : f32
    linalg.yield %q : f32
  } -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

func.func @conv_residual(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>,
                         %res: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %r = linalg.conv_2d_nchw_fchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>)
         outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %y = linalg.generic {indexing_maps = [#nchw, #nchw, #nchw],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%r, %res : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
         outs(%empty : tensor<1x8x4x4xf32>) {
  ^bb0(%v: f32, %rv: f32, %o: f32):
    %s = arith.addf %v, %rv : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// Max pooling: like a depthwise conv without a filter, one elementwise
// generic over the window's views of the input (here strided by 2) whose
// body takes their maximum, starting from the fill's value
// (max(-inf, x) folds away).
// CHECK-LABEL: func.func @maxpool_stride2
// CHECK-NOT: linalg.pooling_nchw_max
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} ins({{.*}} : tensor<8x3x3xf32>, tensor<8x3x3xf32>, tensor<8x3x3xf32>, tensor<8x3x3xf32>, tensor<8x3x3xf32>, tensor<8x3x3xf32>, tensor<8x3x3xf32>, tensor<8x3x3xf32>, tensor<8x3x3xf32>)
// CHECK-COUNT-8: arith.maximumf
// CHECK: linalg.yield
func.func @maxpool_stride2(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x3x3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %empty = tensor.empty() : tensor<1x8x3x3xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%empty : tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max
         {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %window : tensor<1x8x7x7xf32>, tensor<3x3xf32>)
         outs(%init : tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  return %r : tensor<1x8x3x3xf32>
}


// The blocks: filters in blocks of 48 (the largest multiple of 8 up to 64
// that divides 96), positions in blocks of one width (840 positions:
// four blocks of 224, no remainder block), and one loop over all eight
// blocks, position blocks outside, marked parallel.
// CHECK-LABEL: func.func @blocks
// CHECK: %[[ACC:.*]] = tensor.empty() : tensor<96x900xf32>
// CHECK: %[[ALL:.*]] = scf.for %[[I:.*]] = %c0 to %c8 step %c1 iter_args(%[[A:.*]] = %[[ACC]]) -> (tensor<96x900xf32>)
// CHECK:   %[[PB:.*]] = arith.divui %[[I]], %c2
// CHECK:   %[[PI:.*]] = arith.muli %[[PB]], %c224
// CHECK:   %[[FB:.*]] = arith.remui %[[I]], %c2
// CHECK:   %[[FI:.*]] = arith.muli %[[FB]], %c48
// CHECK:   %[[BLOCK:.*]] = tensor.extract_slice %[[A]][%[[FI]], %[[PI]]] [48, 224] [1, 1]
// CHECK:   linalg.fill {{.*}} outs(%[[BLOCK]] : tensor<48x224xf32>)
// CHECK:   scf.for
// CHECK:     linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<48x16xf32>, tensor<16x224xf32>) outs(%{{.*}} : tensor<48x224xf32>)
// CHECK:   tensor.insert_slice %{{.*}} into %[[A]][%[[FI]], %[[PI]]] [48, 224] [1, 1]
// CHECK: } {onnxc.parallel}
// CHECK: tensor.expand_shape %[[ALL]] {{\[}}[0], [1, 2]] output_shape [96, 30, 30]
func.func @blocks(%x: tensor<1x16x30x30xf32>, %w: tensor<96x16x3x3xf32>) -> tensor<1x96x28x28xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x96x28x28xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<1x96x28x28xf32>) -> tensor<1x96x28x28xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x30x30xf32>, tensor<96x16x3x3xf32>) outs(%init : tensor<1x96x28x28xf32>) -> tensor<1x96x28x28xf32>
  return %y : tensor<1x96x28x28xf32>
}

// A small conv still gets four blocks for the threads: 64 filters on
// 14 x 14 (one block of 64 x 224) become four blocks of 16 filters.
// CHECK-LABEL: func.func @small_blocks
// CHECK: scf.for %[[I:.*]] = %c0 to %c4 step %c1 iter_args(%[[A:.*]] = %{{.*}}) -> (tensor<64x224xf32>)
// CHECK:   %[[FB:.*]] = arith.remui %[[I]], %c4
// CHECK:   %[[FI:.*]] = arith.muli %[[FB]], %c16
// CHECK:   tensor.extract_slice %[[A]][%[[FI]], %{{.*}}] [16, 224] [1, 1]
// CHECK:   linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<32x224xf32>) outs(%{{.*}} : tensor<16x224xf32>)
// CHECK: } {onnxc.parallel}
func.func @small_blocks(%x: tensor<1x32x14x14xf32>, %w: tensor<64x32x1x1xf32>) -> tensor<1x64x14x14xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x14x14xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<1x64x14x14xf32>) -> tensor<1x64x14x14xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x14x14xf32>, tensor<64x32x1x1xf32>) outs(%init : tensor<1x64x14x14xf32>) -> tensor<1x64x14x14xf32>
  return %y : tensor<1x64x14x14xf32>
}

// -----

// A first conv on an RGB image whose im2col tensor would outgrow the L2
// (7 x 7 x 3 = 147 rows x 57 x 57 positions: 1.9 MB): one loop over blocks
// of whole output rows (4 rows of 64 columns: 57 rounded up to 8, and 4 x 64
// a whole number of 32-column register tiles), each copying its rows'
// columns into its own panel of a loop-carried tensor (zeros in the 7
// columns past 57), and running its
// filter blocks (here one) over the panel while it is in cache. The last
// block's rows past 57 read zero rows added at the bottom of the input.
// IM2COL-LABEL: func.func @panels
// IM2COL: tensor.pad %{{.+}} low[0, 0, 0, 0] high[0, 0, 6, 0]
// IM2COL: %[[ALL:.+]] = tensor.empty() : tensor<15x49x3x4x64xf32>
// IM2COL: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}, %[[PANELS:.+]] = %[[ALL]]) -> (tensor<64x3840xf32>, tensor<15x49x3x4x64xf32>)
// IM2COL: %[[PANEL:.+]] = tensor.extract_slice %[[PANELS]][%[[I]], 0, 0, 0, 0] [1, 49, 3, 4, 64]
// IM2COL: scf.for {{.+}} iter_args(%{{.+}} = %[[PANEL]])
// IM2COL: tensor.extract_slice %{{.+}}[0, 0, %{{.+}}, %{{.+}}] [1, 3, 4, 57] [1, 1, 2, 2] : tensor<1x3x125x119xf32> to tensor<1x3x4x57xf32>
// IM2COL: tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2], [3]] : tensor<1x3x4x57xf32> into tensor<3x4x57xf32>
// IM2COL: linalg.copy
// IM2COL: linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3x4x7xf32>)
// IM2COL: tensor.insert_slice %{{.+}} into %{{.+}}[%{{.+}}, 0, 0, 57] [1, 3, 4, 7]
// IM2COL: %[[B:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2, 3]] : tensor<49x3x4x64xf32> into tensor<147x256xf32>
// IM2COL: linalg.matmul ins(%{{.+}}, %[[B]] : tensor<64x147xf32>, tensor<147x256xf32>)
// IM2COL: } {onnxc.parallel}
func.func @panels(%x: tensor<1x3x119x119xf32>, %w: tensor<64x3x7x7xf32>,
                  %init: tensor<1x64x57x57xf32>) -> tensor<1x64x57x57xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<1x3x119x119xf32>, tensor<64x3x7x7xf32>)
    outs(%init : tensor<1x64x57x57xf32>) -> tensor<1x64x57x57xf32>
  return %0 : tensor<1x64x57x57xf32>
}
