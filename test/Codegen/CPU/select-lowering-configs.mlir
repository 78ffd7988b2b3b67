// RUN: onnx-mlir-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(onnxc-select-lowering-configs))' | FileCheck %s

// No target on the module: the reference machine (AVX-512, 32 registers,
// 32 KiB L1). The matmul and the elementwise op get the strategy's
// configuration; the fill and the transpose (data movement) get none.

// CHECK-LABEL: func.func @reference
// CHECK: linalg.fill
// CHECK-NOT: onnxc.lowering_config
// CHECK-SAME: -> tensor<64x96xf32>
// CHECK: linalg.matmul {onnxc.lowering_config = {cache_tiles = array<i64: 48, 256, 256>, dynamic_blocks = array<i64: 64, 32>, register_tile = array<i64: 12, 32>, vector_length = 64 : i64}}
// CHECK: linalg.transpose
// CHECK-NOT: onnxc.lowering_config
// CHECK-SAME: permutation
// CHECK: linalg.generic
// CHECK-SAME: onnxc.lowering_config = {cache_tiles = array<i64: 48, 256, 256>
func.func @reference(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>) -> tensor<96x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %p = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x96xf32>) outs(%c : tensor<64x96xf32>) -> tensor<64x96xf32>
  %et = tensor.empty() : tensor<96x64xf32>
  %t = linalg.transpose ins(%p : tensor<64x96xf32>) outs(%et : tensor<96x64xf32>) permutation = [1, 0]
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<96x64xf32>) outs(%et : tensor<96x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<96x64xf32>
  return %r : tensor<96x64xf32>
}

// -----

// An AVX2 machine (16 registers of 256 bits): 6 x 16 register tiles,
// 24 x 128 x 512 cache tiles (a 512 x 16 panel of B fills the 32 KiB L1),
// dynamic dims in blocks of 32 x 16, rows of 32 elements. An op that has a
// configuration keeps it.

// CHECK-LABEL: func.func @avx2
// CHECK: linalg.matmul {onnxc.lowering_config = {cache_tiles = array<i64: 24, 128, 512>, dynamic_blocks = array<i64: 32, 16>, register_tile = array<i64: 6, 16>, vector_length = 32 : i64}}
// CHECK: linalg.matmul {onnxc.lowering_config = {cache_tiles = array<i64: 8, 8, 8>, dynamic_blocks = array<i64: 8, 8>, register_tile = array<i64: 4, 8>, vector_length = 8 : i64}}
module attributes {onnxc.target = {triple = "x86_64-unknown-linux-gnu", cpu = "haswell", vector_bits = 256 : i64, vector_registers = 16 : i64, avx512 = false, fma = true}} {
  func.func @avx2(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>, %c: tensor<64x96xf32>) -> (tensor<64x96xf32>, tensor<64x96xf32>) {
    %p = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x96xf32>) outs(%c : tensor<64x96xf32>) -> tensor<64x96xf32>
    %q = linalg.matmul {onnxc.lowering_config = {cache_tiles = array<i64: 8, 8, 8>, dynamic_blocks = array<i64: 8, 8>, register_tile = array<i64: 4, 8>, vector_length = 8 : i64}} ins(%a, %b : tensor<64x128xf32>, tensor<128x96xf32>) outs(%c : tensor<64x96xf32>) -> tensor<64x96xf32>
    return %p, %q : tensor<64x96xf32>, tensor<64x96xf32>
  }
}

// -----

// A target the strategy cannot read is an error.

// expected-error @+1 {{malformed 'onnxc.target' attribute}}
module attributes {onnxc.target = {vector_bits = "wide"}} {
  func.func @bad(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %p = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
    return %p : tensor<4x4xf32>
  }
}
