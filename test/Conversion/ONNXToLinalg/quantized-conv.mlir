// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// ConvInteger: x and w widened to i32 with their zero points subtracted
// (uint8 x: zero-extended), padded with 0, one i32 conv.
// CHECK-LABEL: func.func @conv_integer
// CHECK: linalg.generic
// CHECK: arith.extui {{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: tensor.pad
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.+}} : tensor<1x1x3x3xi32>)
func.func @conv_integer(%x: tensor<1x1x3x3xui8>, %w: tensor<1x1x2x2xui8>, %xzp: tensor<ui8>) -> tensor<1x1x3x3xi32> {
  %0 = "onnx.ConvInteger"(%x, %w, %xzp) {pads = [1, 1, 0, 0], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x1x3x3xui8>, tensor<1x1x2x2xui8>, tensor<ui8>) -> tensor<1x1x3x3xi32>
  return %0 : tensor<1x1x3x3xi32>
}

// QLinearConv with per-channel w_scale and w_zero_point (reshaped to the
// channel dim) and an i32 bias as the accumulator's init; the result is
// requantized by x_scale * w_scale / y_scale, rounded half to even.
// CHECK-LABEL: func.func @qlinear_conv
// CHECK: tensor.expand_shape {{.*}} : tensor<2xi8> into tensor<2x1x1x1xi8>
// CHECK: linalg.broadcast
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: tensor.expand_shape {{.*}} : tensor<2xf32> into tensor<1x2x1x1xf32>
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: math.roundeven
// CHECK: arith.maximumf
func.func @qlinear_conv(%x: tensor<1x3x4x4xi8>, %xs: tensor<f32>, %xzp: tensor<i8>, %w: tensor<2x3x1x1xi8>, %ws: tensor<2xf32>, %wzp: tensor<2xi8>, %ys: tensor<f32>, %yzp: tensor<i8>, %b: tensor<2xi32>) -> tensor<1x2x4x4xi8> {
  %0 = "onnx.QLinearConv"(%x, %xs, %xzp, %w, %ws, %wzp, %ys, %yzp, %b) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<1x3x4x4xi8>, tensor<f32>, tensor<i8>, tensor<2x3x1x1xi8>, tensor<2xf32>, tensor<2xi8>, tensor<f32>, tensor<i8>, tensor<2xi32>) -> tensor<1x2x4x4xi8>
  return %0 : tensor<1x2x4x4xi8>
}
