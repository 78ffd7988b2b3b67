// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// Forward DFT of a real signal along axis 1: one generic over the output
// (batch, k, c); its body sums over j with an scf.for in f64, angle
// 2 pi (j k mod n) / n, the sine negated; c selects the real or imaginary
// sum.
// CHECK-LABEL: func.func @dft_real
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<2x8x2xf32>)
// CHECK: %[[STEP:.+]] = arith.divf %{{.+}}, %{{.+}} : f64
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (f64, f64)
// CHECK: tensor.extract %{{.+}} : tensor<2x8x1xf32>
// CHECK: arith.remsi
// CHECK: math.cos
// CHECK: math.sin
// CHECK: arith.negf
// CHECK: scf.yield
// CHECK: arith.select
// CHECK: arith.truncf %{{.+}} : f64 to f32
func.func @dft_real(%x: tensor<2x8x1xf32>) -> tensor<2x8x2xf32> {
  %0 = "onnx.DFT"(%x) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x8x1xf32>) -> tensor<2x8x2xf32>
  return %0 : tensor<2x8x2xf32>
}

// -----

// Inverse of a onesided spectrum (irfft): n = 2 (5 - 1) = 8 output
// positions, bins above n/2 read as the conjugates of bins n - j; the sum
// is divided by n.
// CHECK-LABEL: func.func @irfft
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x8x1xf32>)
// CHECK: scf.for
// CHECK: arith.cmpi sge
// CHECK: arith.select
// CHECK: tensor.extract %{{.+}} : tensor<1x5x2xf32>
// CHECK: arith.negf
// CHECK-NOT: arith.negf
// CHECK: scf.yield
// CHECK: arith.divf
func.func @irfft(%x: tensor<1x5x2xf32>) -> tensor<1x8x1xf32> {
  %0 = "onnx.DFT"(%x) <{inverse = 1 : i64, onesided = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<1x5x2xf32>) -> tensor<1x8x1xf32>
  return %0 : tensor<1x8x1xf32>
}

// -----

// STFT: frames of the window's length (16) every frame_step samples; the
// step is checked positive and the frame no longer than the signal; each
// output (batch, frame, bin, c) sums the windowed frame's transform.
// CHECK-LABEL: func.func @stft_window
// CHECK: call @onnxc_rt_fail
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x15x9x2xf32>)
// CHECK: scf.for
// CHECK: tensor.extract %{{.+}} : tensor<1x128x1xf32>
// CHECK: tensor.extract %{{.+}} : tensor<16xf32>
// CHECK: math.cos
func.func @stft_window(%x: tensor<1x128x1xf32>, %step: tensor<i64>, %w: tensor<16xf32>) -> tensor<1x15x9x2xf32> {
  %0 = "onnx.STFT"(%x, %step, %w) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
  return %0 : tensor<1x15x9x2xf32>
}

// -----

// DFT-20 with a run-time axis on (batch, 4, 6, parts): the axis is checked
// to be a signal dim, the signal length and each signal dim's output size
// are selected by it, and the body reads the summed index on that dim.
// CHECK-LABEL: func.func @dft_runtime_axis
// CHECK: func.call @onnxc_rt_fail
// CHECK: arith.select
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x4x6x2xf32>)
// CHECK: scf.for
// CHECK: arith.select
// CHECK: tensor.extract %{{.+}} : tensor<1x4x6x1xf32>
func.func @dft_runtime_axis(%x: tensor<1x4x6x1xf32>, %axis: tensor<i64>) -> tensor<1x4x6x2xf32> {
  %0 = "onnx.DFT"(%x, %axis) {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<1x4x6x1xf32>, tensor<i64>) -> tensor<1x4x6x2xf32>
  return %0 : tensor<1x4x6x2xf32>
}
