// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// Det of a batch of 3x3 matrices: widened to f64, then per matrix a loop
// over the pivot columns: the largest |a[i, k]| picks the pivot row, rows
// are swapped (det negated), the rows below are cleared.
// CHECK-LABEL: func.func @det_batch
// CHECK: arith.extf {{.*}} : f32 to f64
// CHECK: scf.for
// CHECK: scf.for
// CHECK: math.absf
// CHECK: arith.cmpf ogt
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: arith.truncf {{.*}} : f64 to f32
// CHECK: tensor<2xf32>
func.func @det_batch(%x: tensor<2x3x3xf32>) -> tensor<2xf32> {
  %0 = "onnx.Det"(%x) : (tensor<2x3x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
