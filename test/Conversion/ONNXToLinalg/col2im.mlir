// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// Col2Im with run-time image and block shapes: checks that the block sizes
// divide dim 1 and that L counts the block positions, then a loop over the
// input adds each value at its image position when it is inside.
// CHECK-LABEL: func.func @col2im
// CHECK: func.call @onnxc_rt_fail
// CHECK: linalg.fill
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.if
// CHECK: arith.addf
// CHECK: tensor.insert
func.func @col2im(%x: tensor<1x5x5xf32>, %img: tensor<2xi64>, %blk: tensor<2xi64>) -> tensor<1x?x?x?xf32> {
  %0 = "onnx.Col2Im"(%x, %img, %blk) : (tensor<1x5x5xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x?x?x?xf32>
  return %0 : tensor<1x?x?x?xf32>
}

// AffineGrid (2-D, align_corners = 0): one generic over (N, H, W, 2) whose
// sizes are read from `size`; each element is theta[n, k, :] . (x, y, 1).
// CHECK-LABEL: func.func @affine_grid
// CHECK: tensor.extract %{{.+}}[%c2{{.*}}] : tensor<4xi64>
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: arith.mulf
// CHECK: arith.truncf {{.*}} : f64 to f32
func.func @affine_grid(%theta: tensor<2x2x3xf32>, %size: tensor<4xi64>) -> tensor<2x?x?x2xf32> {
  %0 = "onnx.AffineGrid"(%theta, %size) : (tensor<2x2x3xf32>, tensor<4xi64>) -> tensor<2x?x?x2xf32>
  return %0 : tensor<2x?x?x2xf32>
}
