// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// Nearest upsampling: one generic over the output; size-1 dims read their
// index directly, resized dims map back (asymmetric: x = o / scale), floor.
// CHECK-LABEL: func.func @resize_nearest
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x1x4x4xf32>)
// CHECK: linalg.index 2
// CHECK: arith.divf
// CHECK: math.floor
// CHECK: tensor.extract %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : tensor<1x1x2x2xf32>
func.func @resize_nearest(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %s = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "onnx.Resize"(%x, %s) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor"}> : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Linear: two taps per resized dim, weighted and summed in f64.
// CHECK-LABEL: func.func @resize_linear
// CHECK: linalg.generic
// CHECK-COUNT-4: tensor.extract %{{.+}} : tensor<1x1x2x2xf32>
// CHECK: arith.truncf {{.*}} : f64 to f32
func.func @resize_linear(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %s = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "onnx.Resize"(%x, %s) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, mode = "linear"}> : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}
