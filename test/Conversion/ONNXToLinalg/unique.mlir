// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// Unique along axis 1 of a 2x4 tensor: X viewed as [A, N, B] = [2, 4, 1];
// slices compared lexicographically (i8: -1, 0, 1) where needed, with no
// N x N table: first occurrences and counts (a loop over i, j and the
// slice), sorted positions, and the gathered Y.
// CHECK-LABEL: func.func @unique_axis
// CHECK-NOT: tensor<?x?xi8>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.cmpi slt, {{.*}} : i32
// CHECK: arith.cmpi sgt, {{.*}} : i32
// CHECK: tensor.insert {{.*}} : tensor<?xindex>
// CHECK: linalg.generic
// CHECK: into tensor<2x?xi32>
// CHECK: return
func.func @unique_axis(%x: tensor<2x4xi32>) -> (tensor<2x?xi32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %0:4 = "onnx.Unique"(%x) {axis = 1 : i64, sorted = 1 : i64, resultSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<2x4xi32>) -> (tensor<2x?xi32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x?xi32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}

// Floats: NaNs compare equal to each other and after every number.
// CHECK-LABEL: func.func @unique_flat_float
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf olt
// CHECK: return
func.func @unique_flat_float(%x: tensor<6xf32>) -> tensor<?xf32> {
  %0 = "onnx.Unique"(%x) {sorted = 0 : i64, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<6xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
