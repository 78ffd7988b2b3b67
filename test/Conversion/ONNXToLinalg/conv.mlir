// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// 2-D Conv with pads, strides and a bias: the input is zero-padded with
// tensor.pad, the bias broadcast along the channels is the accumulator of
// linalg.conv_2d_nchw_fchw.

func.func @conv2d_pads_strides_bias(%x: tensor<1x3x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x3x3xf32> {
  %0 = "onnx.Conv"(%x, %w, %b) <{auto_pad = "NOTSET", group = 1 : i64, pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<1x3x5x5xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}
// CHECK-LABEL: func.func @conv2d_pads_strides_bias
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x5x5xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PADDED:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:   tensor.yield %[[ZERO]] : f32
// CHECK: } : tensor<1x3x5x5xf32> to tensor<1x3x7x7xf32>
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<1x4x3x3xf32>
// CHECK: %[[BIAS:.+]] = linalg.broadcast ins(%[[B]] : tensor<4xf32>) outs(%[[EMPTY]] : tensor<1x4x3x3xf32>) dimensions = [0, 2, 3]
// CHECK: %[[Y:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PADDED]], %[[W]] : tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>) outs(%[[BIAS]] : tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
// CHECK: return %[[Y]]

// -----

// 1-D Conv with dilations and no bias: no padding, a zero accumulator.

func.func @conv1d_dilations(%x: tensor<2x3x10xf32>, %w: tensor<4x3x3xf32>) -> tensor<2x4x6xf32> {
  %0 = "onnx.Conv"(%x, %w) <{dilations = [2]}> : (tensor<2x3x10xf32>, tensor<4x3x3xf32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}
// CHECK-LABEL: func.func @conv1d_dilations
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x10xf32>, %[[W:.+]]: tensor<4x3x3xf32>)
// CHECK-NOT: tensor.pad
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x4x6xf32>)
// CHECK: %[[Y:.+]] = linalg.conv_1d_ncw_fcw {dilations = dense<2> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%[[X]], %[[W]] : tensor<2x3x10xf32>, tensor<4x3x3xf32>) outs(%[[INIT]] : tensor<2x4x6xf32>)
// CHECK: return %[[Y]]

// -----

// 3-D Conv.

func.func @conv3d(%x: tensor<1x2x4x4x4xf32>, %w: tensor<3x2x2x2x2xf32>) -> tensor<1x3x3x3x3xf32> {
  %0 = "onnx.Conv"(%x, %w) : (tensor<1x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>) -> tensor<1x3x3x3x3xf32>
  return %0 : tensor<1x3x3x3x3xf32>
}
// CHECK-LABEL: func.func @conv3d
// CHECK: linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%{{.+}}, %{{.+}} : tensor<1x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>) outs(%{{.+}} : tensor<1x3x3x3x3xf32>)

// -----

// 2-D Conv in 2 groups: input, weights and output get a group dim for
// linalg.conv_2d_ngchw_gfchw, and the result is collapsed back.

func.func @conv2d_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32> {
  %0 = "onnx.Conv"(%x, %w) <{group = 2 : i64}> : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}
// CHECK-LABEL: func.func @conv2d_groups
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x5x5xf32>, %[[W:.+]]: tensor<6x2x3x3xf32>)
// CHECK: %[[INIT:.+]] = linalg.fill
// CHECK: %[[XG:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 5, 5] : tensor<1x4x5x5xf32> into tensor<1x2x2x5x5xf32>
// CHECK: %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK: %[[INITG:.+]] = tensor.expand_shape %[[INIT]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 3, 3, 3] : tensor<1x6x3x3xf32> into tensor<1x2x3x3x3xf32>
// CHECK: %[[YG:.+]] = linalg.conv_2d_ngchw_gfchw {{.*}} ins(%[[XG]], %[[WG]] : tensor<1x2x2x5x5xf32>, tensor<2x3x2x3x3xf32>) outs(%[[INITG]] : tensor<1x2x3x3x3xf32>)
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[YG]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x3x3x3xf32> into tensor<1x6x3x3xf32>
// CHECK: return %[[Y]]

// -----

// Depthwise 2-D Conv (one input and one output channel per group): the
// weights lose their unit dim for linalg.depthwise_conv_2d_nchw_chw.

func.func @conv2d_depthwise(%x: tensor<1x4x5x5xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = "onnx.Conv"(%x, %w) <{group = 4 : i64}> : (tensor<1x4x5x5xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}
// CHECK-LABEL: func.func @conv2d_depthwise
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x5x5xf32>, %[[W:.+]]: tensor<4x1x3x3xf32>)
// CHECK: %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1], [2], [3]] : tensor<4x1x3x3xf32> into tensor<4x3x3xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{.*}} ins(%[[X]], %[[WC]] : tensor<1x4x5x5xf32>, tensor<4x3x3xf32>) outs(%{{.+}} : tensor<1x4x3x3xf32>)

// -----

// Grouped 1-D Conv: no named op fits, so a linalg.generic over the
// group-split forms (loops n, g, m, o | c, k).

func.func @conv1d_groups(%x: tensor<1x4x8xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x3xf32> {
  %0 = "onnx.Conv"(%x, %w) <{group = 2 : i64, strides = [2]}> : (tensor<1x4x8xf32>, tensor<4x2x3xf32>) -> tensor<1x4x3xf32>
  return %0 : tensor<1x4x3xf32>
}
// CHECK-DAG: #[[XMAP:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 * 2 + d5)>
// CHECK-DAG: #[[WMAP:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>
// CHECK-DAG: #[[OMAP:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv1d_groups
// CHECK: %[[XG:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2], [3]] output_shape [1, 2, 2, 8]
// CHECK: %[[WG:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0, 1], [2], [3]] output_shape [2, 2, 2, 3]
// CHECK: %[[INITG:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2], [3]] output_shape [1, 2, 2, 3]
// CHECK: %[[YG:.+]] = linalg.generic {indexing_maps = [#[[XMAP]], #[[WMAP]], #[[OMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[XG]], %[[WG]] : tensor<1x2x2x8xf32>, tensor<2x2x2x3xf32>) outs(%[[INITG]] : tensor<1x2x2x3xf32>)
// CHECK: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK:   %[[P:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK:   %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK:   linalg.yield %[[S]] : f32
// CHECK: tensor.collapse_shape %[[YG]] {{\[}}[0], [1, 2], [3]] : tensor<1x2x2x3xf32> into tensor<1x4x3xf32>

// -----

// auto_pad SAME_UPPER with dynamic batch and spatial dims: the output size
// ceil(in / stride) and the padding (the odd element at the end) are
// computed at run time.

func.func @conv2d_same_upper_dynamic(%x: tensor<?x3x?x?xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32> {
  %0 = "onnx.Conv"(%x, %w) <{auto_pad = "SAME_UPPER", strides = [2, 2]}> : (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32>
  return %0 : tensor<?x8x?x?xf32>
}
// CHECK-LABEL: func.func @conv2d_same_upper_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x3x?x?xf32>, %[[W:.+]]: tensor<8x3x3x3xf32>)
// CHECK-DAG: %[[N:.+]] = tensor.dim %[[X]], %c0
// CHECK-DAG: %[[H:.+]] = tensor.dim %[[X]], %c2
// CHECK-DAG: %[[WD:.+]] = tensor.dim %[[X]], %c3
// CHECK: %[[OH:.+]] = arith.ceildivsi %[[H]], %{{.+}} : index
// CHECK: %[[TOTAL_H:.+]] = arith.maxsi
// CHECK: %[[LOW_H:.+]] = arith.floordivsi %[[TOTAL_H]], %{{.+}} : index
// CHECK: %[[HIGH_H:.+]] = arith.subi %[[TOTAL_H]], %[[LOW_H]] : index
// CHECK: %[[HIGH_H2:.+]] = arith.maxsi %[[HIGH_H]], %{{.+}} : index
// CHECK: %[[OW:.+]] = arith.ceildivsi %[[WD]], %{{.+}} : index
// CHECK: %[[LOW_W:.+]] = arith.floordivsi
// CHECK: %[[HIGH_W2:.+]] = arith.maxsi
// CHECK: %[[PADDED:.+]] = tensor.pad %[[X]] low[0, 0, %[[LOW_H]], %[[LOW_W]]] high[0, 0, %[[HIGH_H2]], %[[HIGH_W2]]]
// CHECK: } : tensor<?x3x?x?xf32> to tensor<?x3x?x?xf32>
// CHECK: %[[EMPTY:.+]] = tensor.empty(%{{.+}}, %[[OH]], %[[OW]]) : tensor<?x8x?x?xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[EMPTY]] : tensor<?x8x?x?xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PADDED]], %[[W]] : tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) outs(%[[INIT]] : tensor<?x8x?x?xf32>)

// -----

// ConvTranspose with strides 2 and pads 1: the input is spread over a zero
// tensor with stride 2 (offset effK - 1 - pad = 1), W's channels are swapped
// and its kernel reversed, then a stride-1 conv accumulates onto the bias.

func.func @conv_transpose(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x5x5xf32> {
  %0 = "onnx.ConvTranspose"(%x, %w, %b) <{pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}
// CHECK-DAG: #[[FLIP:.+]] = affine_map<(d0, d1, d2, d3) -> ((d0 floordiv 3) * 2 + d1, d0 mod 3, -d2 + 2, -d3 + 2)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_transpose
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x3x3xf32>, %[[W:.+]]: tensor<2x3x3x3xf32>, %[[B:.+]]: tensor<3xf32>)
// CHECK: %[[ZEROS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x7x7xf32>)
// CHECK: %[[SPREAD:.+]] = tensor.insert_slice %[[X]] into %[[ZEROS]][0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 2, 2] : tensor<1x2x3x3xf32> into tensor<1x2x7x7xf32>
// CHECK: %[[WF:.+]] = linalg.generic {indexing_maps = [#[[FLIP]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[W]] : tensor<2x3x3x3xf32>) outs(%{{.+}} : tensor<3x2x3x3xf32>)
// CHECK: %[[BIAS:.+]] = linalg.broadcast ins(%[[B]] : tensor<3xf32>) outs(%{{.+}} : tensor<1x3x5x5xf32>) dimensions = [0, 2, 3]
// CHECK: %[[Y:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[SPREAD]], %[[WF]] : tensor<1x2x7x7xf32>, tensor<3x2x3x3xf32>) outs(%[[BIAS]] : tensor<1x3x5x5xf32>)
// CHECK: return %[[Y]]

// -----

// Grouped ConvTranspose: W (C, M/G, K) becomes (M, C/G, K) group by group
// and the grouped conv path follows.

func.func @conv_transpose_groups(%x: tensor<1x4x3x3xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x2x5x5xf32> {
  %0 = "onnx.ConvTranspose"(%x, %w) <{group = 2 : i64}> : (tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}
// CHECK-DAG: #[[FLIP:.+]] = affine_map<(d0, d1, d2, d3) -> (d0 * 2 + d1, 0, -d2 + 2, -d3 + 2)>
// CHECK-LABEL: func.func @conv_transpose_groups
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 2, 2] [1, 4, 3, 3] [1, 1, 1, 1] : tensor<1x4x3x3xf32> into tensor<1x4x7x7xf32>
// CHECK: linalg.generic {indexing_maps = [#[[FLIP]], #{{.+}}]{{.*}} ins(%{{.+}} : tensor<4x1x3x3xf32>) outs(%{{.+}} : tensor<2x2x3x3xf32>)
// CHECK: linalg.conv_2d_ngchw_gfchw {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x2x2x7x7xf32>, tensor<2x1x2x3x3xf32>) outs(%{{.+}} : tensor<1x2x1x5x5xf32>)
