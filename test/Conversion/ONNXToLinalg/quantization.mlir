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

// -----

// Blocked DequantizeLinear (block_size 2 along axis 1): the scale is
// repeated to x's shape through a floordiv map, then the usual body.
// CHECK: #[[BLOCK:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
// CHECK-LABEL: func.func @dequantize_blocked
// CHECK: linalg.generic {indexing_maps = [#[[BLOCK]], #{{.*}}]{{.*}} ins(%{{.*}} : tensor<2x2xf32>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: linalg.generic
// CHECK: arith.sitofp %{{.*}} : i8 to f32
// CHECK: arith.mulf
func.func @dequantize_blocked(%x: tensor<2x4xi4>, %s: tensor<2x2xf32>) -> tensor<2x4xf32> {
  %0 = "onnx.DequantizeLinear"(%x, %s) <{axis = 1 : i64, block_size = 2 : i64}> : (tensor<2x4xi4>, tensor<2x2xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// QuantizeLinear to float8: no rounding to integers or clamping; Cast's
// encoding with saturate.
// CHECK-LABEL: func.func @quantize_f8
// CHECK: arith.divf
// CHECK-NOT: arith.maximumf
// CHECK: math.roundeven
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: -> tensor<4xi8>
func.func @quantize_f8(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<f8E4M3FN>) -> tensor<4xf8E4M3FN> {
  %0 = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}
