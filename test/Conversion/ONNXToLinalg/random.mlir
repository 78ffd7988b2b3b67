// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// RandomUniform: one generic whose body hashes the element's linear index
// (splitmix64: shifts, xors, multiplies in i64) and scales the top 24 bits
// to [low, high).
// CHECK-LABEL: func.func @uniform
// CHECK: linalg.generic
// CHECK: arith.muli {{.*}} : i64
// CHECK: arith.shrui
// CHECK: arith.xori
// CHECK: arith.uitofp {{.*}} : i64 to f32
// CHECK: linalg.yield
func.func @uniform() -> tensor<2x3xf32> {
  %0 = "onnx.RandomUniform"() {shape = [2, 3], low = -1.0 : f32, high = 1.0 : f32, seed = 4.0 : f32} : () -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Training-mode Dropout: the ratio is checked to be in [0, 1) when
// training; the output keeps x / (1 - ratio) where the draw is >= ratio,
// the mask says where.
// CHECK-LABEL: func.func @dropout
// CHECK: func.call @onnxc_rt_fail
// CHECK: linalg.generic
// CHECK: arith.cmpf oge
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<4xi1>)
func.func @dropout(%x: tensor<4xf32>, %r: tensor<f32>, %t: tensor<i1>) -> (tensor<4xf32>, tensor<4xi1>) {
  %0:2 = "onnx.Dropout"(%x, %r, %t) {operandSegmentSizes = array<i32: 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<4xf32>, tensor<f32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xi1>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xi1>
}
