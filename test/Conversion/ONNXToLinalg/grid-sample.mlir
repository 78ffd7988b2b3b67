// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// Bilinear, zeros padding: one generic over N x C x Hout x Wout reading the
// grid's (x, y), four taps, each masked to 0 outside the image.
// CHECK-LABEL: func.func @grid_bilinear
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME: outs(%{{.+}} : tensor<1x2x3x3xf32>)
// CHECK: tensor.extract %{{.+}} : tensor<1x3x3x2xf32>
// CHECK: math.floor
// CHECK-COUNT-4: tensor.extract %{{.+}} : tensor<1x2x4x4xf32>
// CHECK: arith.truncf {{.*}} : f64 to f32
func.func @grid_bilinear(%x: tensor<1x2x4x4xf32>, %g: tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32> {
  %0 = "onnx.GridSample"(%x, %g) : (tensor<1x2x4x4xf32>, tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// Volumetric (5-D X, grid (x, y, z) per output voxel), trilinear: eight
// taps, the grid's z reading X's depth dim.
// CHECK-LABEL: func.func @grid_trilinear
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME: outs(%{{.+}} : tensor<1x1x2x3x3xf32>)
// CHECK-COUNT-3: tensor.extract %{{.+}} : tensor<1x2x3x3x3xf32>
// CHECK-COUNT-8: tensor.extract %{{.+}} : tensor<1x1x4x4x4xf32>
// CHECK-NOT: tensor.extract %{{.+}} : tensor<1x1x4x4x4xf32>
// CHECK: linalg.yield
func.func @grid_trilinear(%x: tensor<1x1x4x4x4xf32>, %g: tensor<1x2x3x3x3xf32>) -> tensor<1x1x2x3x3xf32> {
  %0 = "onnx.GridSample"(%x, %g) : (tensor<1x1x4x4x4xf32>, tensor<1x2x3x3x3xf32>) -> tensor<1x1x2x3x3xf32>
  return %0 : tensor<1x1x2x3x3xf32>
}

