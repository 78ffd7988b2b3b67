// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// 2-D: one linalg.matmul into a zero-filled init.

func.func @matmul_2d(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
// CHECK-LABEL: func.func @matmul_2d
// CHECK-SAME: (%[[A:.+]]: tensor<3x4xf32>, %[[B:.+]]: tensor<4x5xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<3x5xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<3x5xf32>)
// CHECK: %[[Y:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<3x4xf32>, tensor<4x5xf32>) outs(%[[INIT]] : tensor<3x5xf32>)
// CHECK: return %[[Y]]

// -----

// A batch times a 2-D right operand: the batch folds into the rows.

func.func @matmul_batch_rows(%a: tensor<?x7x4xf32>, %b: tensor<4x5xf32>) -> tensor<?x7x5xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<?x7x4xf32>, tensor<4x5xf32>) -> tensor<?x7x5xf32>
  return %0 : tensor<?x7x5xf32>
}
// CHECK-LABEL: func.func @matmul_batch_rows
// CHECK-SAME: (%[[A:.+]]: tensor<?x7x4xf32>, %[[B:.+]]: tensor<4x5xf32>)
// CHECK: %[[ROWS:.+]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] : tensor<?x7x4xf32> into tensor<?x4xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[ROWS]], %[[B]] : tensor<?x4xf32>, tensor<4x5xf32>) outs(%{{.+}} : tensor<?x5xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x7x4xf32>
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2]] output_shape [%[[N]], 7, 5] : tensor<?x5xf32> into tensor<?x7x5xf32>
// CHECK: return %[[Y]]

// -----

// Equal batches (integers, accumulated in i32): one collapsed batch dim for
// linalg.batch_matmul.

func.func @matmul_batch(%a: tensor<2x3x?x4xi32>, %b: tensor<2x3x4x5xi32>) -> tensor<2x3x?x5xi32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x3x?x4xi32>, tensor<2x3x4x5xi32>) -> tensor<2x3x?x5xi32>
  return %0 : tensor<2x3x?x5xi32>
}
// CHECK-LABEL: func.func @matmul_batch
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x?x4xi32>, %[[B:.+]]: tensor<2x3x4x5xi32>)
// CHECK: %[[A3:.+]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x?x4xi32> into tensor<6x?x4xi32>
// CHECK: %[[B3:.+]] = tensor.collapse_shape %[[B]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x4x5xi32> into tensor<6x4x5xi32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{[^ ]+}} : i32) outs(%{{.+}} : tensor<6x?x5xi32>)
// CHECK: %[[BMM:.+]] = linalg.batch_matmul ins(%[[A3]], %[[B3]] : tensor<6x?x4xi32>, tensor<6x4x5xi32>) outs(%[[INIT]] : tensor<6x?x5xi32>)
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[BMM]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 3, %{{.+}}, 5] : tensor<6x?x5xi32> into tensor<2x3x?x5xi32>
// CHECK: return %[[Y]]

// -----

// 1-D times 3-D: the vector becomes [1, K], broadcast over the batch by
// batch_matmul's indexing map; the unit row is dropped from the result.

func.func @matmul_1d_3d(%a: tensor<4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x5xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<4xf32>, tensor<2x4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}
// CHECK-DAG: #[[MAP_A:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[MAP_B:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[MAP_Y:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_1d_3d
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<2x4x5xf32>)
// CHECK: %[[ROW:.+]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
// CHECK: %[[BMM:.+]] = linalg.batch_matmul indexing_maps = [#[[MAP_A]], #[[MAP_B]], #[[MAP_Y]]] ins(%[[ROW]], %[[B]] : tensor<1x4xf32>, tensor<2x4x5xf32>) outs(%{{.+}} : tensor<2x1x5xf32>)
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[BMM]] {{\[\[}}0], [1, 2]] : tensor<2x1x5xf32> into tensor<2x5xf32>
// CHECK: return %[[Y]]

// -----

// 1-D times 1-D: a rank-0 dot product.

func.func @matmul_1d_1d(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
// CHECK-LABEL: func.func @matmul_1d_1d
// CHECK: %[[ROW:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
// CHECK: %[[COL:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[ROW]], %[[COL]] : tensor<1x4xf32>, tensor<4x1xf32>) outs(%{{.+}} : tensor<1x1xf32>)
// CHECK: %[[Y:.+]] = tensor.collapse_shape %[[MM]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK: return %[[Y]]

// -----

// Batch dims broadcast on both sides: a generic contraction whose maps read
// the size-1 dims at index 0.

func.func @matmul_mixed_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  return %0 : tensor<2x5x3x6xf32>
}
// CHECK-DAG: #[[MAP_A:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[MAP_B:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[MAP_Y:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_mixed_broadcast
// CHECK-SAME: (%[[A:.+]]: tensor<2x1x3x4xf32>, %[[B:.+]]: tensor<5x4x6xf32>)
// CHECK: %[[INIT:.+]] = linalg.fill
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[MAP_A]], #[[MAP_B]], #[[MAP_Y]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) outs(%[[INIT]] : tensor<2x5x3x6xf32>)
// CHECK:   ^bb0(%[[X:.+]]: f32, %[[W:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK:   %[[P:.+]] = arith.mulf %[[X]], %[[W]] : f32
// CHECK:   %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK:   linalg.yield %[[S]]
// CHECK: return %[[Y]]

// -----

// Two dynamic dims (batch and sequence) collapse into the rows of one
// linalg.matmul, as static ones do, and expand back
// (onnxc-expand-dynamic-groups lowers that view).

func.func @matmul_two_dynamic(%a: tensor<?x?x8xf32>, %b: tensor<8x6xf32>) -> tensor<?x?x6xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<?x?x8xf32>, tensor<8x6xf32>) -> tensor<?x?x6xf32>
  return %0 : tensor<?x?x6xf32>
}
// CHECK-LABEL: func.func @matmul_two_dynamic
// CHECK: %[[A2:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[A2]], %{{.+}} : tensor<?x8xf32>, tensor<8x6xf32>)
// CHECK: tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]] output_shape [%{{.+}}, %{{.+}}, 6] : tensor<?x6xf32> into tensor<?x?x6xf32>

// -----

// Batch dims dynamic on both sides: either may be 1 at run time. Each
// operand is copied with that dim read at index 0 when it is 1, so that the
// batches agree for linalg.batch_matmul.

func.func @matmul_dynamic_batch(%a: tensor<?x3x4xf32>, %b: tensor<?x4x5xf32>) -> tensor<?x3x5xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<?x3x4xf32>, tensor<?x4x5xf32>) -> tensor<?x3x5xf32>
  return %0 : tensor<?x3x5xf32>
}
// CHECK-LABEL: func.func @matmul_dynamic_batch
// CHECK-SAME: (%[[A:.+]]: tensor<?x3x4xf32>, %[[B:.+]]: tensor<?x4x5xf32>)
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[DA:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x3x4xf32>
// CHECK-DAG: %[[DB:.+]] = tensor.dim %[[B]], %{{.+}} : tensor<?x4x5xf32>
// CHECK: %[[A_ONE:.+]] = arith.cmpi eq, %[[DA]], %[[ONE]] : index
// CHECK: %[[B_ONE:.+]] = arith.cmpi eq, %[[DB]], %[[ONE]] : index
// CHECK: %[[N:.+]] = arith.select %[[A_ONE]], %[[DB]], %[[DA]] : index
// CHECK: %[[A_EMPTY:.+]] = tensor.empty(%[[N]]) : tensor<?x3x4xf32>
// CHECK: %[[A_FULL:.+]] = linalg.generic {{.*}} outs(%[[A_EMPTY]] : tensor<?x3x4xf32>)
// CHECK:   %[[I:.+]] = linalg.index 0 : index
// CHECK:   %[[IA:.+]] = arith.select %[[A_ONE]], %{{.+}}, %[[I]] : index
// CHECK:   tensor.extract %[[A]][%[[IA]], %{{.+}}, %{{.+}}] : tensor<?x3x4xf32>
// CHECK: %[[B_FULL:.+]] = linalg.generic
// CHECK:   arith.select %[[B_ONE]]
// CHECK:   tensor.extract %[[B]]
// CHECK: %[[Y:.+]] = linalg.batch_matmul ins(%[[A_FULL]], %[[B_FULL]] : tensor<?x3x4xf32>, tensor<?x4x5xf32>) outs(%{{.+}} : tensor<?x3x5xf32>)
// CHECK: return %[[Y]]

// -----

// f16 accumulates in f32 (like numpy), truncated once at the end.

func.func @matmul_f16(%a: tensor<3x4xf16>, %b: tensor<4x5xf16>) -> tensor<3x5xf16> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<3x4xf16>, tensor<4x5xf16>) -> tensor<3x5xf16>
  return %0 : tensor<3x5xf16>
}
// CHECK-LABEL: func.func @matmul_f16
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<3x5xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<3x4xf16>, tensor<4x5xf16>) outs(%[[INIT]] : tensor<3x5xf32>)
// CHECK: %[[Y:.+]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<3x5xf32>) outs(%{{.+}} : tensor<3x5xf16>)
// CHECK:   arith.truncf %{{.+}} : f32 to f16
// CHECK: return %[[Y]]

// -----

// Gemm with transposes (matmul indexing maps) and beta * C as the
// accumulator's initial value.

func.func @gemm(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %c: tensor<5xf32>) -> tensor<3x5xf32> {
  %0 = "onnx.Gemm"(%a, %b, %c) {transA = 1 : i64, transB = 1 : i64, beta = 2.0 : f32} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[MAP_A:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[MAP_B:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MAP_Y:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<5x4xf32>, %[[C:.+]]: tensor<5xf32>)
// CHECK: %[[INIT:.+]] = linalg.generic {indexing_maps = [#[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[C]] : tensor<5xf32>) outs(%{{.+}} : tensor<3x5xf32>)
// CHECK:   %[[BETA:.+]] = arith.constant 2.000000e+00 : f32
// CHECK:   arith.mulf %{{.+}}, %[[BETA]]
// CHECK: %[[Y:.+]] = linalg.matmul indexing_maps = [#[[MAP_A]], #[[MAP_B]], #[[MAP_Y]]] ins(%[[A]], %[[B]] : tensor<4x3xf32>, tensor<5x4xf32>) outs(%[[INIT]] : tensor<3x5xf32>)
// CHECK: return %[[Y]]

// -----

// Gemm with alpha != 1: alpha * (A B) + C afterwards. C's dynamic first dim
// is M or 1, read at index 0 when it is 1.

func.func @gemm_alpha(%a: tensor<?x4xf32>, %b: tensor<4x5xf32>, %c: tensor<?x1xf32>) -> tensor<?x5xf32> {
  %0 = "onnx.Gemm"(%a, %b, %c) {alpha = 0.5 : f32} : (tensor<?x4xf32>, tensor<4x5xf32>, tensor<?x1xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}
// CHECK-LABEL: func.func @gemm_alpha
// CHECK-SAME: (%[[A:.+]]: tensor<?x4xf32>, %[[B:.+]]: tensor<4x5xf32>, %[[C:.+]]: tensor<?x1xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<?x4xf32>, tensor<4x5xf32>)
// CHECK: %[[DC:.+]] = tensor.dim %[[C]], %{{.+}} : tensor<?x1xf32>
// CHECK: %[[C_ONE:.+]] = arith.cmpi eq, %[[DC]], %{{.+}} : index
// CHECK: %[[Y:.+]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<?x5xf32>) outs(%{{.+}} : tensor<?x5xf32>)
// CHECK:   ^bb0(%[[AB:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[I:.+]] = arith.select %[[C_ONE]], %{{.+}}, %{{.+}} : index
// CHECK:   %[[CV:.+]] = tensor.extract %[[C]][%[[I]], %{{.+}}] : tensor<?x1xf32>
// CHECK:   %[[ALPHA:.+]] = arith.constant 5.000000e-01 : f32
// CHECK:   %[[SCALED:.+]] = arith.mulf %[[AB]], %[[ALPHA]] : f32
// CHECK:   %[[R:.+]] = arith.addf %[[SCALED]], %[[CV]] : f32
// CHECK:   linalg.yield %[[R]]
// CHECK: return %[[Y]]

// -----

// MatMulInteger: operands widened to i32 with their signedness, minus the
// zero points (A's per-row vector becomes a column), then an i32 matmul.

func.func @matmul_integer(%a: tensor<3x4xui8>, %b: tensor<4x5xi8>, %za: tensor<3xui8>, %zb: tensor<i8>) -> tensor<3x5xi32> {
  %0 = "onnx.MatMulInteger"(%a, %b, %za, %zb) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (tensor<3x4xui8>, tensor<4x5xi8>, tensor<3xui8>, tensor<i8>) -> tensor<3x5xi32>
  return %0 : tensor<3x5xi32>
}
// CHECK-LABEL: func.func @matmul_integer
// CHECK-SAME: (%[[A:.+]]: tensor<3x4xi8>, %[[B:.+]]: tensor<4x5xi8>, %[[ZA:.+]]: tensor<3xi8>, %[[ZB:.+]]: tensor<i8>)
// CHECK: %[[ZA_COL:.+]] = tensor.expand_shape %[[ZA]] {{\[\[}}0, 1]] output_shape [3, 1] : tensor<3xi8> into tensor<3x1xi8>
// CHECK: %[[A32:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[ZA_COL]] : tensor<3x4xi8>, tensor<3x1xi8>) outs(%{{.+}} : tensor<3x4xi32>)
// CHECK:   arith.extui %{{.+}} : i8 to i32
// CHECK:   arith.extui %{{.+}} : i8 to i32
// CHECK:   arith.subi
// CHECK: %[[B32:.+]] = linalg.generic {{.*}} ins(%[[B]], %[[ZB]] : tensor<4x5xi8>, tensor<i8>) outs(%{{.+}} : tensor<4x5xi32>)
// CHECK:   arith.extsi %{{.+}} : i8 to i32
// CHECK:   arith.extsi %{{.+}} : i8 to i32
// CHECK:   arith.subi
// CHECK: %[[Y:.+]] = linalg.matmul ins(%[[A32]], %[[B32]] : tensor<3x4xi32>, tensor<4x5xi32>) outs(%{{.+}} : tensor<3x5xi32>)
// CHECK: return %[[Y]]
