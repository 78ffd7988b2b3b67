// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// DeformConv: channel and offset checks, then one generic over the output
// whose body loops over the group's input channels and the 3x3 taps, reads
// the tap's (dy, dx) offsets and mask, and samples X bilinearly (four taps,
// 0 outside the image).
// CHECK-LABEL: func.func @deform_conv
// CHECK: func.call @onnxc_rt_fail
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x4x3x3xf32>)
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.extract %{{.+}} : tensor<1x18x3x3xf32>
// CHECK: math.floor
// CHECK-COUNT-4: tensor.extract %{{.+}} : tensor<1x2x5x5xf32>
// CHECK: tensor.extract %{{.+}} : tensor<1x9x3x3xf32>
func.func @deform_conv(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %off: tensor<1x18x3x3xf32>, %b: tensor<4xf32>, %mask: tensor<1x9x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = "onnx.DeformConv"(%x, %w, %off, %b, %mask) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<1x18x3x3xf32>, tensor<4xf32>, tensor<1x9x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}
