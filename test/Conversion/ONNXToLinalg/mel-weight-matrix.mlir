// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// MelWeightMatrix with run-time scalars: the mel edges in f32 (log10), the
// step over num_mel_bins + 2, then one generic over (dft_length / 2 + 1,
// num_mel_bins) computing each column's triangle from three band edges.
// CHECK-LABEL: func.func @mel
// CHECK: func.call @onnxc_rt_fail
// CHECK: math.log10 {{.*}} : f32
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<?x?xf32>)
// CHECK-COUNT-3: math.powf
// CHECK: arith.select
// CHECK: arith.truncf {{.*}} : f64 to f32
func.func @mel(%n: tensor<i32>, %len: tensor<i32>, %rate: tensor<i32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<?x?xf32> {
  %0 = "onnx.MelWeightMatrix"(%n, %len, %rate, %lo, %hi) : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
