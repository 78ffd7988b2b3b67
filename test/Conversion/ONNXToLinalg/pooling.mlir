// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// MaxPool with pads and strides: padded with -inf, then
// linalg.pooling_nchw_max over a kernel-shaped window, from -inf.

func.func @maxpool2d_pads_strides(%x: tensor<1x3x5x5xf32>) -> tensor<1x3x3x3xf32> {
  %0 = "onnx.MaxPool"(%x) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<1x3x5x5xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}
// CHECK-LABEL: func.func @maxpool2d_pads_strides
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x5x5xf32>)
// CHECK: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PADDED:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:   tensor.yield %[[NEG_INF]] : f32
// CHECK: } : tensor<1x3x5x5xf32> to tensor<1x3x7x7xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.+}} : tensor<1x3x3x3xf32>)
// CHECK: %[[WINDOW:.+]] = tensor.empty() : tensor<3x3xf32>
// CHECK: %[[Y:.+]] = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PADDED]], %[[WINDOW]] : tensor<1x3x7x7xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<1x3x3x3xf32>)
// CHECK: return %[[Y]]

// -----

// ceil_mode: the output size comes from the result type (2, not 1) and the
// input is padded on the right so the last window fits.

func.func @maxpool2d_ceil(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = "onnx.MaxPool"(%x) <{ceil_mode = 1 : i64, kernel_shape = [3, 3], strides = [2, 2]}> : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}
// CHECK-LABEL: func.func @maxpool2d_ceil
// CHECK: %[[PADDED:.+]] = tensor.pad %{{.+}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: } : tensor<1x1x4x4xf32> to tensor<1x1x5x5xf32>
// CHECK: linalg.pooling_nchw_max {{.*}} ins(%[[PADDED]], %{{.+}} : tensor<1x1x5x5xf32>, tensor<3x3xf32>) outs(%{{.+}} : tensor<1x1x2x2xf32>)

// -----

// MaxPool on uint8: the named op's max is signed, so a linalg.generic with
// arith.maxui, starting from 0.

func.func @maxpool_uint8(%x: tensor<1x1x5x5xui8>) -> tensor<1x1x4x4xui8> {
  %0 = "onnx.MaxPool"(%x) <{kernel_shape = [2, 2]}> : (tensor<1x1x5x5xui8>) -> tensor<1x1x4x4xui8>
  return %0 : tensor<1x1x4x4xui8>
}
// CHECK-DAG: #[[XMAP:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
// CHECK-DAG: #[[KMAP:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[OMAP:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @maxpool_uint8
// CHECK-SAME: (%[[X:.+]]: tensor<1x1x5x5xi8>)
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i8
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : i8) outs(%{{.+}} : tensor<1x1x4x4xi8>)
// CHECK: linalg.generic {indexing_maps = [#[[XMAP]], #[[KMAP]], #[[OMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[X]], %{{.+}} : tensor<1x1x5x5xi8>, tensor<2x2xi8>) outs(%[[INIT]] : tensor<1x1x4x4xi8>)
// CHECK: ^bb0(%[[IN:.+]]: i8, %{{.+}}: i8, %[[ACC:.+]]: i8):
// CHECK:   %[[M:.+]] = arith.maxui %[[ACC]], %[[IN]] : i8
// CHECK:   linalg.yield %[[M]] : i8

// -----

// MaxPool with the Indices output: one linalg.generic yields the max and
// the row-major flat index of its first occurrence inside the input.

func.func @maxpool_indices(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
  %y, %i = "onnx.MaxPool"(%x) <{kernel_shape = [2, 2], strides = [2, 2]}> : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return %y, %i : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
}
// CHECK-LABEL: func.func @maxpool_indices
// CHECK: %[[VALUES:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x1x2x2xf32>)
// CHECK: %[[UNSET:.+]] = arith.constant -1 : i64
// CHECK: %[[INDICES:.+]] = linalg.fill ins(%[[UNSET]] : i64) outs(%{{.+}} : tensor<1x1x2x2xi64>)
// CHECK: %[[R:.+]]:2 = linalg.generic {{.*}} outs(%[[VALUES]], %[[INDICES]] : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32, %[[ACC:.+]]: f32, %[[ACC_I:.+]]: i64):
// CHECK:   %[[FLAT:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK:   %[[GT:.+]] = arith.cmpf ogt, %[[IN]], %[[ACC]] : f32
// CHECK:   %[[TAKE:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK:   %[[V:.+]] = arith.select %[[TAKE]], %[[IN]], %[[ACC]] : f32
// CHECK:   %[[I:.+]] = arith.select %[[TAKE]], %[[FLAT]], %[[ACC_I]] : i64
// CHECK:   linalg.yield %[[V]], %[[I]] : f32, i64
// CHECK: return %[[R]]#0, %[[R]]#1

// -----

// AveragePool with count_include_pad = 1 and every window inside the
// padded input: the sum (linalg.pooling_nchw_sum over a zero-padded input)
// is divided by the kernel size.

func.func @averagepool_include_pad(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %0 = "onnx.AveragePool"(%x) <{count_include_pad = 1 : i64, kernel_shape = [3, 3], pads = [1, 1, 1, 1]}> : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}
// CHECK-LABEL: func.func @averagepool_include_pad
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PADDED:.+]] = tensor.pad %{{.+}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:   tensor.yield %[[ZERO]] : f32
// CHECK: %[[SUM:.+]] = linalg.pooling_nchw_sum {{.*}} ins(%[[PADDED]], %{{.+}} : tensor<1x3x6x6xf32>, tensor<3x3xf32>) outs(%{{.+}} : tensor<1x3x4x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x3x4x4xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[NINE:.+]] = arith.constant 9.000000e+00 : f32
// CHECK:   %[[AVG:.+]] = arith.divf %[[IN]], %[[NINE]] : f32
// CHECK:   linalg.yield %[[AVG]]

// -----

// AveragePool with count_include_pad = 0: each output divides by the
// number of its window's elements inside the input, per spatial dim
// max(0, min(start + k, size) - max(start, 0)) with start = o * s - pad.
// With static sizes the counts are a constant over the output's spatial
// positions, read along with the sum.

func.func @averagepool_exclude_pad(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %0 = "onnx.AveragePool"(%x) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1]}> : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}
// CHECK-DAG: #[[ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[HW:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @averagepool_exclude_pad
// CHECK: %[[SUM:.+]] = linalg.pooling_nchw_sum
// CHECK: %[[COUNTS:.+]] = arith.constant dense<{{\[}}[4.000000e+00, 6.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<4x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID4]], #[[HW]], #[[ID4]]], {{.*}} ins(%[[SUM]], %[[COUNTS]] : tensor<1x3x4x4xf32>, tensor<4x4xf32>)
// CHECK: ^bb0(%[[S:.+]]: f32, %[[C:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[Q:.+]] = arith.divf %[[S]], %[[C]] : f32
// CHECK:   linalg.yield %[[Q]]

// -----

// Dynamic spatial sizes: the counts are computed in the body.

func.func @averagepool_exclude_pad_dynamic(%x: tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32> {
  %0 = "onnx.AveragePool"(%x) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1]}> : (tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32>
  return %0 : tensor<1x3x?x?xf32>
}
// CHECK-LABEL: func.func @averagepool_exclude_pad_dynamic
// CHECK: %[[SUM:.+]] = linalg.pooling_nchw_sum
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x3x?x?xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[OH:.+]] = linalg.index 2 : index
// CHECK:   %[[START_H:.+]] = arith.subi %[[OH]], %{{.+}} : index
// CHECK:   %[[END_H:.+]] = arith.addi %[[START_H]], %{{.+}} : index
// CHECK:   %[[LO_H:.+]] = arith.maxsi %[[START_H]], %{{.+}} : index
// CHECK:   %[[HI_H:.+]] = arith.minsi %[[END_H]], %{{.+}} : index
// CHECK:   %[[D_H:.+]] = arith.subi %[[HI_H]], %[[LO_H]] : index
// CHECK:   %[[N_H:.+]] = arith.maxsi %[[D_H]], %{{.+}} : index
// CHECK:   %[[OW:.+]] = linalg.index 3 : index
// CHECK:   %[[START_W:.+]] = arith.subi %[[OW]], %{{.+}} : index
// CHECK:   %[[LO_W:.+]] = arith.maxsi %[[START_W]], %{{.+}} : index
// CHECK:   %[[HI_W:.+]] = arith.minsi %{{.+}}, %{{.+}} : index
// CHECK:   %[[D_W:.+]] = arith.subi %[[HI_W]], %[[LO_W]] : index
// CHECK:   %[[N_W:.+]] = arith.maxsi %[[D_W]], %{{.+}} : index
// CHECK:   %[[N:.+]] = arith.muli %[[N_H]], %[[N_W]] : index
// CHECK:   %[[N64:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK:   %[[NF:.+]] = arith.sitofp %[[N64]] : i64 to f32
// CHECK:   %[[AVG:.+]] = arith.divf %[[IN]], %[[NF]] : f32
// CHECK:   linalg.yield %[[AVG]]

// -----

// 3-D AveragePool: no named pooling op in NCDHW, so a linalg.generic.

func.func @averagepool3d(%x: tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32> {
  %0 = "onnx.AveragePool"(%x) <{count_include_pad = 1 : i64, kernel_shape = [2, 2, 2], strides = [2, 2, 2]}> : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  return %0 : tensor<1x2x2x2x2xf32>
}
// CHECK-DAG: #[[XMAP:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4 * 2 + d7)>
// CHECK-LABEL: func.func @averagepool3d
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[XMAP]], #{{.+}}, #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<1x2x4x4x4xf32>, tensor<2x2x2xf32>)
// CHECK:   arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x2x2x2x2xf32>)
// CHECK:   %[[EIGHT:.+]] = arith.constant 8.000000e+00 : f32
// CHECK:   arith.divf %{{.+}}, %[[EIGHT]] : f32

// -----

// LpPool with p = 2: the sum of squares, then the square root.

func.func @lppool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x3x3xf32> {
  %0 = "onnx.LpPool"(%x) <{kernel_shape = [2, 2], p = 2 : i64}> : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}
// CHECK-LABEL: func.func @lppool
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x2x4x4xf32>, tensor<2x2xf32>) outs(%{{.+}} : tensor<1x2x3x3xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32, %[[ACC:.+]]: f32):
// CHECK:   %[[SQ:.+]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK:   %[[ADD:.+]] = arith.addf %[[ACC]], %[[SQ]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x2x3x3xf32>)
// CHECK:   math.sqrt

// -----

// GlobalAveragePool with dynamic batch and spatial dims: a reduction over
// the spatial dims, unit dims re-inserted, divided by H * W read at run time.

func.func @global_average_pool(%x: tensor<?x3x?x?xf32>) -> tensor<?x3x1x1xf32> {
  %0 = "onnx.GlobalAveragePool"(%x) : (tensor<?x3x?x?xf32>) -> tensor<?x3x1x1xf32>
  return %0 : tensor<?x3x1x1xf32>
}
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[RED:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @global_average_pool
// CHECK-SAME: (%[[X:.+]]: tensor<?x3x?x?xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<?x3x?x?xf32>) outs(%{{.+}} : tensor<?x3xf32>)
// CHECK:   arith.addf
// CHECK: %[[EXP:.+]] = tensor.expand_shape %[[SUM]] {{\[}}[0], [1, 2, 3]] output_shape [%{{.+}}, 3, 1, 1] : tensor<?x3xf32> into tensor<?x3x1x1xf32>
// CHECK: %[[H:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x?x?xf32>
// CHECK: %[[W:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x?x?xf32>
// CHECK: %[[HW:.+]] = arith.muli %{{.+}}, %[[W]] : index
// CHECK: %[[HW64:.+]] = arith.index_cast %[[HW]] : index to i64
// CHECK: %[[COUNT:.+]] = arith.sitofp %[[HW64]] : i64 to f32
// CHECK: linalg.generic {{.*}} ins(%[[EXP]] : tensor<?x3x1x1xf32>)
// CHECK:   arith.divf %{{.+}}, %[[COUNT]] : f32

// -----

// GlobalMaxPool: a max reduction from -inf.

func.func @global_max_pool(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32> {
  %0 = "onnx.GlobalMaxPool"(%x) : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  return %0 : tensor<2x3x1x1xf32>
}
// CHECK-LABEL: func.func @global_max_pool
// CHECK: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%{{.+}} : tensor<2x3x4x5xf32>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK:   arith.maximumf
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[MAX]] {{\[}}[0], [1, 2, 3]] output_shape [2, 3, 1, 1] : tensor<2x3xf32> into tensor<2x3x1x1xf32>
// CHECK: return %[[Y]]

// -----

// AveragePool-19 dilations: the sum pools with them, and count_include_pad=0
// counts only the dilated taps inside the input: windows from -1 ({-1, 1})
// and 2 ({2, 4}) hold 1 and 2 input positions per dim.
func.func @avgpool_dilated(%x: tensor<1x1x6x6xf32>) -> tensor<1x1x2x2xf32> {
  %0 = "onnx.AveragePool"(%x) <{kernel_shape = [2, 2], dilations = [2, 2], strides = [3, 3], pads = [1, 1, 1, 1], count_include_pad = 0 : i64}> : (tensor<1x1x6x6xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}
// CHECK-LABEL: func.func @avgpool_dilated
// CHECK: linalg.pooling_nchw_sum {dilations = dense<2> : tensor<2xi64>, strides = dense<3> : tensor<2xi64>}
// CHECK: arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: arith.divf
