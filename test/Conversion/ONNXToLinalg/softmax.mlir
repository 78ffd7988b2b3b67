// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// Softmax over a dynamic axis: max, then sum(exp(x - max)), then
// exp(x - max) / sum, the reductions read back with broadcast maps.

func.func @softmax(%x: tensor<2x?x4xf32>) -> tensor<2x?x4xf32> {
  %0 = "onnx.Softmax"(%x) <{axis = 1 : i64}> : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  return %0 : tensor<2x?x4xf32>
}
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[RED:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: tensor<2x?x4xf32>)
// CHECK: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX_INIT:.+]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<2x?x4xf32>) outs(%[[MAX_INIT]] : tensor<2x4xf32>)
// CHECK:   arith.maximumf
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<2x?x4xf32>, tensor<2x4xf32>)
// CHECK:   %[[S:.+]] = arith.subf
// CHECK:   %[[E:.+]] = math.exp %[[S]]
// CHECK:   arith.addf %{{.+}}, %[[E]]
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<2x?x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) outs(%{{.+}} : tensor<2x?x4xf32>)
// CHECK:   ^bb0(%[[IN:.+]]: f32, %[[M:.+]]: f32, %[[TOTAL:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[S2:.+]] = arith.subf %[[IN]], %[[M]]
// CHECK:   %[[E2:.+]] = math.exp %[[S2]]
// CHECK:   %[[R:.+]] = arith.divf %[[E2]], %[[TOTAL]]
// CHECK:   linalg.yield %[[R]]
// CHECK: return %[[Y]]

// -----

// LogSoftmax (default axis -1) on f16: the max is exact in f16, the sum and
// the result are computed in f32 and truncated once.

func.func @logsoftmax_f16(%x: tensor<3x5xf16>) -> tensor<3x5xf16> {
  %0 = "onnx.LogSoftmax"(%x) : (tensor<3x5xf16>) -> tensor<3x5xf16>
  return %0 : tensor<3x5xf16>
}
// CHECK-LABEL: func.func @logsoftmax_f16
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<3x5xf16>) outs(%{{.+}} : tensor<3xf16>)
// CHECK:   arith.maximumf %{{.+}}, %{{.+}} : f16
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<3xf32>)
// CHECK:   arith.extf
// CHECK:   math.exp %{{.+}} : f32
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[MAX]], %[[SUM]] : tensor<3x5xf16>, tensor<3xf16>, tensor<3xf32>) outs(%{{.+}} : tensor<3x5xf16>)
// CHECK:   %[[S:.+]] = arith.subf %{{.+}}, %{{.+}} : f32
// CHECK:   %[[L:.+]] = math.log %{{.+}} : f32
// CHECK:   %[[R:.+]] = arith.subf %[[S]], %[[L]] : f32
// CHECK:   arith.truncf %[[R]] : f32 to f16

// -----

// Hardmax: 1 at the first index of the max, found as the smallest index
// holding it.

func.func @hardmax(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "onnx.Hardmax"(%x) <{axis = 0 : i64}> : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RED:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @hardmax
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["reduction", "parallel"]}
// CHECK: %[[NONE:.+]] = arith.constant 9223372036854775807 : i64
// CHECK: %[[FIRST:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]]], iterator_types = ["reduction", "parallel"]} ins(%{{.+}}, %[[MAX]] : tensor<3x5xf32>, tensor<5xf32>) outs(%{{.+}} : tensor<5xi64>)
// CHECK:   ^bb0(%[[IN:.+]]: f32, %[[M:.+]]: f32, %[[ACC:.+]]: i64):
// CHECK:   %[[I:.+]] = linalg.index 0 : index
// CHECK:   %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK:   %[[IS_MAX:.+]] = arith.cmpf oeq, %[[IN]], %[[M]]
// CHECK:   %[[CAND:.+]] = arith.select %[[IS_MAX]], %[[I64]], %[[NONE]]
// CHECK:   arith.minsi %[[ACC]], %[[CAND]]
// CHECK: linalg.generic {indexing_maps = [#[[RED]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[FIRST]] : tensor<5xi64>) outs(%{{.+}} : tensor<3x5xf32>)
// CHECK:   arith.cmpi eq
// CHECK:   arith.select
