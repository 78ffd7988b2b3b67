// RUN: onnx-mlir-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(onnxc-select-lowering-configs,onnxc-tile-and-vectorize))' | FileCheck %s

// onnxc-tile-and-vectorize follows the configuration the strategy chose for
// the module's target: on AVX-512 (the reference) register tiles of 12 x 32,
// on AVX2 (16 registers of 8 lanes) 6 x 16, so that the accumulators fit
// the register file (12 x 32 would need 48 ymm registers of the 16).

// CHECK-LABEL: func.func @reference
// CHECK: vector.contract
// CHECK-SAME: vector<12x32xf32>
func.func @reference(%a: tensor<48x64xf32>, %b: tensor<64x64xf32>, %c: tensor<48x64xf32>) -> tensor<48x64xf32> {
  %p = linalg.matmul ins(%a, %b : tensor<48x64xf32>, tensor<64x64xf32>) outs(%c : tensor<48x64xf32>) -> tensor<48x64xf32>
  return %p : tensor<48x64xf32>
}

// -----

// CHECK-LABEL: func.func @avx2
// CHECK-NOT: vector<12x32xf32>
// CHECK: vector.contract
// CHECK-SAME: vector<6x16xf32>
// CHECK-NOT: vector<12x32xf32>
module attributes {onnxc.target = {vector_bits = 256 : i64, vector_registers = 16 : i64, avx512 = false}} {
  func.func @avx2(%a: tensor<48x64xf32>, %b: tensor<64x64xf32>, %c: tensor<48x64xf32>) -> tensor<48x64xf32> {
    %p = linalg.matmul ins(%a, %b : tensor<48x64xf32>, tensor<64x64xf32>) outs(%c : tensor<48x64xf32>) -> tensor<48x64xf32>
    return %p : tensor<48x64xf32>
  }
}
