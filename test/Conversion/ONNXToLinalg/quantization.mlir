// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// Per-tensor QuantizeLinear: round half to even, add the zero point,
// saturate to uint8 (signless i8 after conversion).
// CHECK-LABEL: func.func @quantize
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: math.roundeven
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.fptoui {{.*}} to i8
// CHECK: -> tensor<4xi8>
func.func @quantize(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xui8> {
  %0 = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Per-axis DequantizeLinear: the 1-D scale is reshaped to broadcast along
// the axis.
// CHECK-LABEL: func.func @dequantize_axis
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0, 1, 2]] output_shape [1, 3, 1] : tensor<3xf32> into tensor<1x3x1xf32>
// CHECK: linalg.generic
// CHECK: arith.sitofp
// CHECK: arith.subf
// CHECK: arith.mulf
func.func @dequantize_axis(%x: tensor<2x3x4xi8>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<2x3x4xf32> {
  %0 = "onnx.DequantizeLinear"(%x, %s, %z) <{axis = 1 : i64}> : (tensor<2x3x4xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
