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

// ConvTranspose with strides 2 and pads 1, split into the stride's four
// phases: output (2q + r0, 2q + r1) takes only the kernel taps
// k = (r + 1) mod 2 + 2j, so each phase is a stride-1 conv with a 1- or
// 2-tap reversed sub-kernel (no products of inserted zeros), inserted into
// Z (N, 2, 2, M, 3, 3); one elementwise op interleaves Z's phases and adds
// the bias, and the 6x6 result is cut to 5x5.

func.func @conv_transpose(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x5x5xf32> {
  %0 = "onnx.ConvTranspose"(%x, %w, %b) <{pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}
// CHECK-DAG: #[[P00:.+]] = affine_map<(d0, d1, d2, d3) -> ((d0 floordiv 3) * 2 + d1, d0 mod 3, d2 * -2 + 1, d3 * -2 + 1)>
// CHECK-DAG: #[[P11:.+]] = affine_map<(d0, d1, d2, d3) -> ((d0 floordiv 3) * 2 + d1, d0 mod 3, (-d2 + 1) * 2, (-d3 + 1) * 2)>
// CHECK-DAG: #[[ZREAD:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d5, d1, d2, d4)>
// CHECK-DAG: #[[BREAD:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1)>
// CHECK-LABEL: func.func @conv_transpose
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x3x3xf32>, %[[W:.+]]: tensor<2x3x3x3xf32>, %[[B:.+]]: tensor<3xf32>)
// CHECK: %[[Z:.+]] = tensor.empty() : tensor<1x2x2x3x3x3xf32>
// CHECK: %[[W00:.+]] = linalg.generic {indexing_maps = [#[[P00]], #{{.+}}]{{.*}} ins(%[[W]] : tensor<2x3x3x3xf32>) outs(%{{.+}} : tensor<3x2x1x1xf32>)
// CHECK: %[[Y00:.+]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[X]], %[[W00]] : tensor<1x2x3x3xf32>, tensor<3x2x1x1xf32>) outs(%{{.+}} : tensor<1x3x3x3xf32>)
// CHECK: %[[Z00:.+]] = tensor.insert_slice %[[Y00]] into %[[Z]][0, 0, 0, 0, 0, 0] [1, 1, 1, 3, 3, 3]
// CHECK: tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 0, 1]
// CHECK: tensor.insert_slice %{{.+}} into %[[Z00]][0, 0, 1, 0, 0, 0] [1, 1, 1, 3, 3, 3]
// CHECK: tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 0]
// CHECK: %[[PAD11:.+]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: %[[W11:.+]] = linalg.generic {indexing_maps = [#[[P11]], #{{.+}}]{{.*}} ins(%[[W]] : tensor<2x3x3x3xf32>) outs(%{{.+}} : tensor<3x2x2x2xf32>)
// CHECK: %[[Y11:.+]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[PAD11]], %[[W11]] : tensor<1x2x4x4xf32>, tensor<3x2x2x2xf32>)
// CHECK: %[[ZALL:.+]] = tensor.insert_slice %[[Y11]] into %{{.+}}[0, 1, 1, 0, 0, 0] [1, 1, 1, 3, 3, 3]
// CHECK: %[[Y6:.+]] = linalg.generic {indexing_maps = [#[[ZREAD]], #[[BREAD]], #{{.+}}]{{.*}} ins(%[[ZALL]], %[[B]] : tensor<1x2x2x3x3x3xf32>, tensor<3xf32>) outs(%{{.+}} : tensor<1x3x3x2x3x2xf32>)
// CHECK: arith.addf
// CHECK: %[[FULL:.+]] = tensor.collapse_shape %[[Y6]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x3x3x2x3x2xf32> into tensor<1x3x6x6xf32>
// CHECK: %[[Y:.+]] = tensor.extract_slice %[[FULL]][0, 0, 0, 0] [1, 3, 5, 5] [1, 1, 1, 1]
// CHECK: return %[[Y]]

// -----

// Kernel = stride (a UNet's 2x2 up-sampling): every phase is a 1x1 conv of
// the same input, so the four phases are one conv with 4 x 3 filters
// (filter p * 3 + m is tap p of output channel m).

func.func @conv_transpose_up(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x2x2xf32>, %b: tensor<3xf32>) -> tensor<1x3x16x16xf32> {
  %0 = "onnx.ConvTranspose"(%x, %w, %b) <{kernel_shape = [2, 2], strides = [2, 2]}> : (tensor<1x4x8x8xf32>, tensor<4x3x2x2xf32>, tensor<3xf32>) -> tensor<1x3x16x16xf32>
  return %0 : tensor<1x3x16x16xf32>
}
// CHECK-DAG: #[[TAPS:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d0 mod 3, (d0 floordiv 6) mod 2 - d2 * 2, (d0 floordiv 3) mod 2 - d3 * 2)>
// CHECK-DAG: #[[ZREAD:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d5, d1, d2, d4)>
// CHECK-LABEL: func.func @conv_transpose_up
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x8x8xf32>, %[[W:.+]]: tensor<4x3x2x2xf32>, %[[B:.+]]: tensor<3xf32>)
// CHECK: %[[WP:.+]] = linalg.generic {indexing_maps = [#[[TAPS]], #{{.+}}]{{.*}} ins(%[[W]] : tensor<4x3x2x2xf32>) outs(%{{.+}} : tensor<12x4x1x1xf32>)
// CHECK: %[[ACC:.+]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[X]], %[[WP]] : tensor<1x4x8x8xf32>, tensor<12x4x1x1xf32>) outs(%{{.+}} : tensor<1x12x8x8xf32>)
// CHECK: %[[Z:.+]] = tensor.expand_shape %[[ACC]] {{\[}}[0], [1, 2, 3], [4], [5]] output_shape [1, 2, 2, 3, 8, 8]
// CHECK: %[[Y6:.+]] = linalg.generic {indexing_maps = [#[[ZREAD]], #{{.+}}, #{{.+}}]{{.*}} ins(%[[Z]], %[[B]] : tensor<1x2x2x3x8x8xf32>, tensor<3xf32>) outs(%{{.+}} : tensor<1x3x8x2x8x2xf32>)
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[Y6]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x3x8x2x8x2xf32> into tensor<1x3x16x16xf32>
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

// -----

// Grouped float16 (1-D: the generic path): accumulated in f32 like the
// ungrouped convs, the generic widens x and w in its body; rounded to f16
// once at the end.
// CHECK-LABEL: func.func @conv1d_grouped_f16
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x2x2x3xf32>)
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: arith.mulf {{.*}} : f32
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @conv1d_grouped_f16(%x: tensor<1x4x8xf16>, %w: tensor<4x2x3xf16>) -> tensor<1x4x3xf16> {
  %0 = "onnx.Conv"(%x, %w) <{group = 2 : i64, strides = [2]}> : (tensor<1x4x8xf16>, tensor<4x2x3xf16>) -> tensor<1x4x3xf16>
  return %0 : tensor<1x4x3xf16>
}
