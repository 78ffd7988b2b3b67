// RUN: onnx-mlir-opt %s --split-input-file --onnx-promote-initializers="names=b,w" | FileCheck %s
// RUN: not onnx-mlir-opt %s --split-input-file --onnx-promote-initializers="names=x" 2>&1 | FileCheck %s --check-prefix=ERR

// The evaluation function of a training library: the named initializers
// become arguments after the inputs, in the order named; the other
// initializer (s) stays a constant and loses its mark.
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32> {onnx.name = "x"}, %[[B:.*]]: tensor<2xf32> {onnx.name = "b"}, %[[W:.*]]: tensor<3x2xf32> {onnx.name = "w"})
// CHECK-NOT: onnx.initializer
// CHECK: %[[S:.*]] = "onnx.Constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// CHECK: %[[Y:.*]] = "onnx.Gemm"(%[[X]], %[[W]], %[[B]])
// CHECK: "onnx.Mul"(%[[Y]], %[[S]])

// ERR: error: onnx-promote-initializers: 'x' is not an initializer of the function
func.func @main_graph(%x: tensor<4x3xf32> {onnx.name = "x"}) -> (tensor<4x2xf32> {onnx.name = "y"}) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<3x2xf32>, onnx.initializer = "w"} : () -> tensor<3x2xf32>
  %b = "onnx.Constant"() {value = dense<0.0> : tensor<2xf32>, onnx.initializer = "b"} : () -> tensor<2xf32>
  %s = "onnx.Constant"() {value = dense<2.0> : tensor<f32>, onnx.initializer = "s"} : () -> tensor<f32>
  %y = "onnx.Gemm"(%x, %w, %b) : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %z = "onnx.Mul"(%y, %s) : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  return %z : tensor<4x2xf32>
}
