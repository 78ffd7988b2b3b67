// RUN: onnx-mlir-opt %s --onnxc-conv-to-matmul --canonicalize | FileCheck %s

// Stride 1: a loop over the nine kernel positions runs one matmul over a
// shifted slice of the flattened, padded input (no copy of the input),
// accumulating into F x (OH * Wp); the Wp - OW extra columns of each output
// row are dropped at the end, and the last row's are not computed.
// CHECK-LABEL: func.func @conv3x3
// CHECK: %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 0] high[0, 0, 2]
// CHECK: %[[ACC:.*]] = tensor.collapse_shape %[[PADDED]] {{\[}}[0], [1, 2]] : tensor<8x4x6xf32> into tensor<8x24xf32>
// CHECK: %[[WT:.*]] = linalg.transpose ins(%arg1 : tensor<8x4x3x3xf32>) {{.*}} permutation = [2, 3, 0, 1]
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2, 3]] : tensor<1x4x6x6xf32> into tensor<4x36xf32>
// CHECK: %[[W:.*]] = tensor.collapse_shape %[[WT]] {{\[}}[0, 1], [2], [3]] : tensor<3x3x8x4xf32> into tensor<9x8x4xf32>
// CHECK: %[[BLOCK:.*]] = tensor.extract_slice %[[ACC]][0, 0] [8, 22] [1, 1]
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %c0 to %c9 step %c1 iter_args(%[[B:.*]] = %[[BLOCK]]) -> (tensor<8x22xf32>)
// CHECK:   %[[WK:.*]] = tensor.extract_slice %[[W]][%[[K]], 0, 0] [1, 8, 4] [1, 1, 1] : tensor<9x8x4xf32> to tensor<8x4xf32>
// CHECK:   %[[R:.*]] = arith.divui %[[K]], %c3
// CHECK:   %[[Q:.*]] = arith.remui %[[K]], %c3
// CHECK:   %[[RW:.*]] = arith.muli %[[R]], %c6
// CHECK:   %[[OFF:.*]] = arith.addi %[[RW]], %[[Q]]
// CHECK:   %[[XK:.*]] = tensor.extract_slice %[[FLAT]][0, %[[OFF]]] [4, 22] [1, 1]
// CHECK:   linalg.matmul ins(%[[WK]], %[[XK]] : tensor<8x4xf32>, tensor<4x22xf32>) outs(%[[B]] : tensor<8x22xf32>)
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC]][0, 0] [8, 22] [1, 1]
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %[[INS]] {{\[}}[0], [1, 2]] output_shape [8, 4, 6]
// CHECK: %[[OUT:.*]] = tensor.extract_slice %[[ROWS]][0, 0, 0] [8, 4, 4] [1, 1, 1]
// CHECK: tensor.expand_shape %[[OUT]] {{\[}}[0, 1], [2], [3]] output_shape [1, 8, 4, 4]
func.func @conv3x3(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>,
                   %init: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>)
         outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// Stride 2: each kernel position's input columns are copied out of the
// strided input into its slab of an im2col tensor; no extra columns.
// CHECK-LABEL: func.func @conv3x3_stride2
// CHECK: %[[S00:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 4, 3, 3] [1, 1, 2, 2] : tensor<1x4x7x7xf32> to tensor<4x3x3xf32>
// CHECK: %[[C00:.*]] = linalg.copy ins(%[[S00]] : tensor<4x3x3xf32>)
// CHECK: %[[SLAB:.*]] = tensor.collapse_shape %[[C00]] {{\[}}[0], [1, 2]] : tensor<4x3x3xf32> into tensor<4x9xf32>
// CHECK: tensor.insert_slice %[[SLAB]] into %{{.*}}[0, 0, 0] [1, 4, 9] [1, 1, 1] : tensor<4x9xf32> into tensor<9x4x9xf32>
// CHECK-COUNT-8: linalg.copy
// CHECK: scf.for %[[K:.*]] = %c0 to %c9 step %c1
// CHECK:   tensor.extract_slice %{{.*}}[%[[K]], 0, 0] [1, 4, 9] [1, 1, 1] : tensor<9x4x9xf32> to tensor<4x9xf32>
// CHECK:   linalg.matmul {{.*}} -> tensor<8x9xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2, 3]] output_shape [1, 8, 3, 3]
func.func @conv3x3_stride2(%x: tensor<1x4x7x7xf32>, %w: tensor<8x4x3x3xf32>,
                           %init: tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %r = linalg.conv_2d_nchw_fchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<1x4x7x7xf32>, tensor<8x4x3x3xf32>)
         outs(%init : tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  return %r : tensor<1x8x3x3xf32>
}

// A batch of 2 and dynamic shapes stay convolutions.
// CHECK-LABEL: func.func @batch2
// CHECK: linalg.conv_2d_nchw_fchw
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
func.func @dynamic(%x: tensor<1x4x?x?xf32>, %w: tensor<8x4x3x3xf32>,
                   %init: tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32> {
  %r = linalg.conv_2d_nchw_fchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x4x?x?xf32>, tensor<8x4x3x3xf32>)
         outs(%init : tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32>
  return %r : tensor<1x8x?x?xf32>
}
