// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// Batched matmul: b, i, k are parallel (output letters first), j reduces.
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[O:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batch_matmul
// CHECK: %[[INIT:.+]] = linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%[[INIT]] : tensor<2x3x5xf32>)
// CHECK: %[[P:.+]] = arith.mulf
// CHECK: arith.addf %{{.+}}, %[[P]]
func.func @batch_matmul(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = "onnx.Einsum"(%a, %b) <{equation = "bij,bjk->bik"}> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// A repeated letter reads the diagonal; the implicit output keeps the
// ellipsis dims and the letters used once.
// CHECK-DAG: #[[D:.+]] = affine_map<(d0, d1) -> (d0, d1, d1)>
// CHECK-DAG: #[[O:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @batch_trace
// CHECK: linalg.generic {indexing_maps = [#[[D]], #[[O]]], iterator_types = ["parallel", "reduction"]}
func.func @batch_trace(%a: tensor<3x4x4xf32>) -> tensor<3xf32> {
  %0 = "onnx.Einsum"(%a) <{equation = "...ii"}> : (tensor<3x4x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
