// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// gated_delta with per-head decay and GQA (2 query heads per key/value
// head): the state starts from zeros, a loop over (batch, kv head, token)
// decays it by exp(g), corrects the value by beta * (v - S^T k), adds
// k (x) v, then every query head of the group reads scale * q^T S.
// CHECK-LABEL: func.func @gated_delta
// CHECK: linalg.fill
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: math.exp
// CHECK: arith.subf
// CHECK: arith.addf
// CHECK: tensor.insert {{.*}} : tensor<?x?x?xf32>
// CHECK: linalg.generic
// CHECK: return
func.func @gated_delta(%q: tensor<1x3x8xf32>, %k: tensor<1x3x4xf32>, %v: tensor<1x3x6xf32>, %g: tensor<1x3x2xf32>, %b: tensor<1x3x2xf32>) -> (tensor<1x3x12xf32>, tensor<1x2x2x3xf32>) {
  %0:2 = "onnx.LinearAttention"(%q, %k, %v, %g, %b) {q_num_heads = 4 : i64, kv_num_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1>} : (tensor<1x3x8xf32>, tensor<1x3x4xf32>, tensor<1x3x6xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> (tensor<1x3x12xf32>, tensor<1x2x2x3xf32>)
  return %0#0, %0#1 : tensor<1x3x12xf32>, tensor<1x2x2x3xf32>
}

// "linear" without decay or beta: no exp, no correction.
// CHECK-LABEL: func.func @linear
// CHECK-NOT: math.exp
// CHECK: return
func.func @linear(%q: tensor<1x3x4xf32>, %k: tensor<1x3x4xf32>, %v: tensor<1x3x4xf32>) -> (tensor<1x3x4xf32>, tensor<1x1x4x4xf32>) {
  %0:2 = "onnx.LinearAttention"(%q, %k, %v) {q_num_heads = 1 : i64, kv_num_heads = 1 : i64, update_rule = "linear", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>} : (tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>) -> (tensor<1x3x4xf32>, tensor<1x1x4x4xf32>)
  return %0#0, %0#1 : tensor<1x3x4xf32>, tensor<1x1x4x4xf32>
}
