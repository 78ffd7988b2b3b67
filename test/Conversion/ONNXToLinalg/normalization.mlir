// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// BatchNormalization (inference) with a dynamic batch: per channel,
// a = scale / sqrt(var + eps) and c = B - mean * a (weight-only work when the
// statistics are constants); then one broadcasting linalg.generic computes
// x * a + c, with a and c as [C, 1, 1].

func.func @batchnorm(%x: tensor<?x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<?x3x4x4xf32> {
  %0 = "onnx.BatchNormalization"(%x, %s, %b, %m, %v) <{epsilon = 1.0e-03 : f32, resultSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<?x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3x4x4xf32>
  return %0 : tensor<?x3x4x4xf32>
}
// CHECK-DAG: #[[V1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
// CHECK-LABEL: func.func @batchnorm
// CHECK-SAME: (%[[X:.+]]: tensor<?x3x4x4xf32>, %[[S:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<3xf32>, %[[M:.+]]: tensor<3xf32>, %[[V:.+]]: tensor<3xf32>)
// CHECK: %[[A:.+]] = linalg.generic {indexing_maps = [#[[V1]], #[[V1]], #[[V1]]], iterator_types = ["parallel"]} ins(%[[S]], %[[V]] : tensor<3xf32>, tensor<3xf32>)
// CHECK:   ^bb0(%[[SI:.+]]: f32, %[[VI:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[EPS:.+]] = arith.constant 1.000000e-03 : f32
// CHECK:   %[[VE:.+]] = arith.addf %[[VI]], %[[EPS]]
// CHECK:   %[[STD:.+]] = math.sqrt %[[VE]]
// CHECK:   %[[AI:.+]] = arith.divf %[[SI]], %[[STD]]
// CHECK:   linalg.yield %[[AI]]
// CHECK: %[[C:.+]] = linalg.generic {{.+}} ins(%[[B]], %[[M]], %[[A]] : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK:   ^bb0(%[[BI:.+]]: f32, %[[MI:.+]]: f32, %[[AJ:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[MA:.+]] = arith.mulf %[[MI]], %[[AJ]]
// CHECK:   %[[CI:.+]] = arith.subf %[[BI]], %[[MA]]
// CHECK:   linalg.yield %[[CI]]
// CHECK: %[[A3:.+]] = tensor.expand_shape %[[A]] {{\[}}[0, 1, 2]] output_shape [3, 1, 1] : tensor<3xf32> into tensor<3x1x1xf32>
// CHECK: %[[C3:.+]] = tensor.expand_shape %[[C]]
// CHECK: %[[EMPTY:.+]] = tensor.empty(%{{.+}}) : tensor<?x3x4x4xf32>
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]], %[[A3]], %[[C3]] : {{.*}}) outs(%[[EMPTY]] : tensor<?x3x4x4xf32>)
// CHECK:   ^bb0(%[[XI:.+]]: f32, %[[AK:.+]]: f32, %[[CK:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[XA:.+]] = arith.mulf %[[XI]], %[[AK]]
// CHECK:   %[[R:.+]] = arith.addf %[[XA]], %[[CK]]
// CHECK:   linalg.yield %[[R]]
// CHECK: return %[[Y]]

// -----

// InstanceNormalization over a dynamic spatial dim: mean, then the
// variance of x - mean, each a reduction divided by the run-time count.

func.func @instancenorm(%x: tensor<2x3x?xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x?xf32> {
  %0 = "onnx.InstanceNormalization"(%x, %s, %b) : (tensor<2x3x?xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x?xf32>
  return %0 : tensor<2x3x?xf32>
}
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[RED:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[STAT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-DAG: #[[CH:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @instancenorm
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x?xf32>
// CHECK: %[[DIM:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<2x3x?xf32>
// CHECK: %[[COUNT:.+]] = arith.sitofp %{{.+}} : i64 to f32
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x?xf32>)
// CHECK: %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2x3xf32>)
// CHECK:   arith.divf %{{.+}}, %[[COUNT]]
// CHECK: %[[MEANK:.+]] = tensor.expand_shape %[[MEAN]] {{\[}}[0], [1, 2]] output_shape [2, 3, 1]
// CHECK: %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[STAT]], #[[ID]]], {{.*}} ins(%[[X]], %[[MEANK]] : tensor<2x3x?xf32>, tensor<2x3x1xf32>)
// CHECK:   %[[D:.+]] = arith.subf
// CHECK:   arith.mulf %[[D]], %[[D]]
// CHECK: %[[SQSUM:.+]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<2x3x?xf32>)
// CHECK: %[[VAR:.+]] = linalg.generic {{.*}} ins(%[[SQSUM]] : tensor<2x3xf32>)
// CHECK: %[[VARK:.+]] = tensor.expand_shape %[[VAR]]
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[STAT]], #[[STAT]], #[[CH]], #[[CH]], #[[ID]]], {{.*}} ins(%[[X]], %[[MEANK]], %[[VARK]], %{{.+}}, %{{.+}} : tensor<2x3x?xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>, tensor<3x1xf32>, tensor<3x1xf32>)
// CHECK:   math.sqrt
// CHECK: return %[[Y]]

// -----

// LayerNormalization on f16 with its Mean and InvStdDev outputs: the
// statistics are f32 (stash_type), kept in keepdims form, and returned as
// they are.

func.func @layernorm(%x: tensor<2x5xf16>, %s: tensor<5xf16>, %b: tensor<5xf16>) -> (tensor<2x5xf16>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %y, %mean, %inv = "onnx.LayerNormalization"(%x, %s, %b) <{resultSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<2x5xf16>, tensor<5xf16>, tensor<5xf16>) -> (tensor<2x5xf16>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %y, %mean, %inv : tensor<2x5xf16>, tensor<2x1xf32>, tensor<2x1xf32>
}
// CHECK-LABEL: func.func @layernorm
// CHECK-SAME: (%[[X:.+]]: tensor<2x5xf16>, %[[S:.+]]: tensor<5xf16>, %[[B:.+]]: tensor<5xf16>)
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x5xf16>) outs(%{{.+}} : tensor<2xf32>)
// CHECK:   arith.extf %{{.+}} : f16 to f32
// CHECK: %[[MEANK:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK: %[[VARK:.+]] = tensor.expand_shape
// CHECK: %[[INV:.+]] = linalg.generic {{.*}} ins(%[[VARK]] : tensor<2x1xf32>) outs(%{{.+}} : tensor<2x1xf32>)
// CHECK:   %[[STD:.+]] = math.sqrt
// CHECK:   arith.divf %{{.+}}, %[[STD]]
// CHECK: %[[Y:.+]] = linalg.generic {{.*}} ins(%[[X]], %[[MEANK]], %[[INV]], %[[S]], %[[B]] : tensor<2x5xf16>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<5xf16>, tensor<5xf16>) outs(%{{.+}} : tensor<2x5xf16>)
// CHECK:   arith.truncf %{{.+}} : f32 to f16
// CHECK: return %[[Y]], %[[MEANK]], %[[INV]]

// -----

// LpNormalization (p = 1, axis -1): sum |x| then x / norm; an all-zero
// slice divides by 1.

func.func @lpnorm(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = "onnx.LpNormalization"(%x) <{p = 1 : i64}> : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
// CHECK-LABEL: func.func @lpnorm
// CHECK: %[[NORM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]}
// CHECK:   math.absf
// CHECK: %[[NORMK:.+]] = tensor.expand_shape %[[NORM]]
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[NORMK]] : tensor<3x4xf32>, tensor<3x1xf32>)
// CHECK:   %[[Z:.+]] = arith.cmpf oeq
// CHECK:   %[[N:.+]] = arith.select %[[Z]]
// CHECK:   arith.divf %{{.+}}, %[[N]]

// -----

// MeanVarianceNormalization with the default axes [0, 2, 3]: statistics per
// channel, (x - mean) / (sqrt(var) + 1e-9).

func.func @mvn(%x: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {
  %0 = "onnx.MeanVarianceNormalization"(%x) : (tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}
// CHECK-LABEL: func.func @mvn
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction", "reduction"]} {{.*}} outs(%{{.+}} : tensor<3xf32>)
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0, 1, 2, 3]] output_shape [1, 3, 1, 1] : tensor<3xf32> into tensor<1x3x1x1xf32>
// CHECK: %[[Y:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<2x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>)
// CHECK:   %[[STD:.+]] = math.sqrt
// CHECK:   %[[EPS:.+]] = arith.constant 9.99999971E-10 : f32
// CHECK:   arith.addf %[[STD]], %[[EPS]]
// CHECK: return %[[Y]]

// -----

// LRN (size 3): the squares, zero-padded by one channel on each side,
// summed over three channel-shifted views (c - 1 .. c + 1) by one
// elementwise generic; then x / (bias + alpha / size * sum) ^ beta, the
// default beta 0.75 as sqrt(s) * sqrt(sqrt(s)).

func.func @lrn(%x: tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32> {
  %0 = "onnx.LRN"(%x) <{size = 3 : i64}> : (tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32>
  return %0 : tensor<1x5x2x2xf32>
}
// CHECK-LABEL: func.func @lrn
// CHECK-SAME: (%[[X:.+]]: tensor<1x5x2x2xf32>)
// CHECK: %[[SQ:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x5x2x2xf32>)
// CHECK:   arith.mulf %[[IN:.+]], %[[IN]] : f32
// CHECK: %[[PAD:.+]] = tensor.pad %[[SQ]] low[0, 1, 0, 0] high[0, 1, 0, 0]
// CHECK: %[[S0:.+]] = tensor.extract_slice %[[PAD]][0, 0, 0, 0] [1, 5, 2, 2] [1, 1, 1, 1] : tensor<1x7x2x2xf32> to tensor<1x5x2x2xf32>
// CHECK: %[[S1:.+]] = tensor.extract_slice %[[PAD]][0, 1, 0, 0] [1, 5, 2, 2]
// CHECK: %[[S2:.+]] = tensor.extract_slice %[[PAD]][0, 2, 0, 0] [1, 5, 2, 2]
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[S0]], %[[S1]], %[[S2]] :
// CHECK:   arith.addf
// CHECK:   arith.addf
// CHECK: %[[Y:.+]] = linalg.generic {{.*}} ins(%[[X]], %[[SUM]] : tensor<1x5x2x2xf32>, tensor<1x5x2x2xf32>)
// CHECK:   %[[R:.+]] = math.sqrt %[[BASE:.+]] : f32
// CHECK:   %[[R4:.+]] = math.sqrt %[[R]] : f32
// CHECK:   %[[DEN:.+]] = arith.mulf %[[R]], %[[R4]] : f32
// CHECK:   arith.divf %{{.+}}, %[[DEN]]
// CHECK: return %[[Y]]

// -----

// Another beta: math.powf.
func.func @lrn_beta(%x: tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32> {
  %0 = "onnx.LRN"(%x) <{size = 2 : i64, beta = 0.6 : f32}> : (tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32>
  return %0 : tensor<1x5x2x2xf32>
}
// CHECK-LABEL: func.func @lrn_beta
// CHECK: tensor.pad %{{.+}} low[0, 0, 0, 0] high[0, 1, 0, 0]
// CHECK: math.powf %{{.+}}, %{{.+}} : f32
// CHECK-NOT: math.sqrt

// -----

// RMSNormalization-23 on f16: the mean square over the dims from `axis` on,
// accumulated in f32; Y = X * 1/sqrt(ms + epsilon) * scale, truncated once.

func.func @rms_norm_f16(%x: tensor<2x4x8xf16>, %s: tensor<8xf16>) -> tensor<2x4x8xf16> {
  %0 = "onnx.RMSNormalization"(%x, %s) <{axis = -1 : i64, epsilon = 1.0e-05 : f32}> : (tensor<2x4x8xf16>, tensor<8xf16>) -> tensor<2x4x8xf16>
  return %0 : tensor<2x4x8xf16>
}
// CHECK-LABEL: func.func @rms_norm_f16
// CHECK: %[[SS:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}} : tensor<2x4x8xf16>) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK:   %[[E:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:   %[[SQ:.+]] = arith.mulf %[[E]], %[[E]] : f32
// CHECK:   arith.addf %{{.+}}, %[[SQ]] : f32
// CHECK: %[[INV:.+]] = linalg.generic {{.*}} ins(%[[SS]] : tensor<2x4xf32>)
// CHECK:   arith.divf %{{.+}}, %{{.+}} : f32
// CHECK:   arith.constant 9.99999974E-6 : f32
// CHECK:   math.sqrt
// CHECK: %[[K:.+]] = tensor.expand_shape %[[INV]] {{\[}}[0], [1, 2]] output_shape [2, 4, 1]
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[K]], %{{.+}} : tensor<2x4x8xf16>, tensor<2x4x1xf32>, tensor<8xf16>) outs(%{{.+}} : tensor<2x4x8xf16>)
// CHECK:   arith.truncf %{{.+}} : f32 to f16
