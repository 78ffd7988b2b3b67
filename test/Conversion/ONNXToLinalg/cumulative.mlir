// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// CumProd-26 shares CumSum's element-by-element loop: each element is the
// previous output times this (inclusive) or the previous input (exclusive)
// element; the first exclusive element is the empty product 1.

func.func @cumprod_exclusive(%x: tensor<4xf32>) -> tensor<4xf32> {
  %axis = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %0 = "onnx.CumProd"(%x, %axis) <{exclusive = 1 : i64}> : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @cumprod_exclusive
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (tensor<4xf32>)
// CHECK:   %[[PREV_OUT:.+]] = tensor.extract %[[ACC]]
// CHECK:   %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:   %[[P:.+]] = arith.mulf %[[PREV_OUT]], %{{.+}} : f32
// CHECK:   %[[V:.+]] = arith.select %{{.+}}, %[[ONE]], %[[P]] : f32
// CHECK:   tensor.insert %[[V]] into %[[ACC]][%[[I]]]
