// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file --verify-diagnostics %s | FileCheck %s

// An If branch that its shapes make invalid (here an LSTM handed a rank-4
// input, as Silero VAD v5's 8 kHz branch is for a 16 kHz chunk) beside a
// branch that compiles: the branch is compiled to fail at run time, with a
// warning naming the op; the other branch is lowered as usual. (onnx.If's
// regions are else_branch, then_branch.)
// CHECK-LABEL: func.func @one_branch_invalid
// CHECK: scf.if
// CHECK-NOT: linalg.generic
// CHECK: call @onnxc_rt_fail
// CHECK: arith.constant dense<0.000000e+00> : tensor<1x2x2xf32>
// CHECK: } else {
// CHECK: linalg.generic
func.func @one_branch_invalid(%c: tensor<i1>, %x: tensor<1x2x3x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x2xf32>, %h0: tensor<1x2x2xf32>) -> tensor<1x2x2xf32> {
  %0 = "onnx.If"(%c) ({
    %a = "onnx.Relu"(%h0) : (tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
    onnx.Yield %a : tensor<1x2x2xf32>
  }, {
    // expected-warning @+1 {{'onnx.LSTM' cannot be compiled for the shapes this If branch gives it (tensor<1x2x3x4xf32>, tensor<1x8x4xf32>, tensor<1x8x2xf32>): the then branch of node (If) fails at run time if it is taken}}
    %y, %h, %cell = "onnx.LSTM"(%x, %w, %r) {hidden_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x2x3x4xf32>, tensor<1x8x4xf32>, tensor<1x8x2xf32>) -> (tensor<1x1x2x3x2xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>)
    %b = "onnx.Relu"(%h) : (tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
    onnx.Yield %b : tensor<1x2x2xf32>
  }) : (tensor<i1>) -> tensor<1x2x2xf32>
  return %0 : tensor<1x2x2xf32>
}

// -----

// Both branches invalid: the If can never run, the ops are compile errors.
func.func @both_branches_invalid(%c: tensor<i1>, %x: tensor<1x2x3x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x2xf32>) -> tensor<1x2x2xf32> {
  %0 = "onnx.If"(%c) ({
    // expected-error @+1 {{'onnx.LSTM' is not supported by the CPU backend}}
    %y, %h, %cell = "onnx.LSTM"(%x, %w, %r) {hidden_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x2x3x4xf32>, tensor<1x8x4xf32>, tensor<1x8x2xf32>) -> (tensor<1x1x2x3x2xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>)
    onnx.Yield %h : tensor<1x2x2xf32>
  }, {
    // expected-error @+1 {{'onnx.LSTM' is not supported by the CPU backend}}
    %y, %h, %cell = "onnx.LSTM"(%x, %w, %r) {hidden_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x2x3x4xf32>, tensor<1x8x4xf32>, tensor<1x8x2xf32>) -> (tensor<1x1x2x3x2xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>)
    onnx.Yield %cell : tensor<1x2x2xf32>
  }) : (tensor<i1>) -> tensor<1x2x2xf32>
  return %0 : tensor<1x2x2xf32>
}

// -----

// An op whose operand has no rank stays an error (shape inference, not the
// model, may be what failed), even beside a branch that compiles.
func.func @unranked_operand(%c: tensor<i1>, %x: tensor<2xf32>, %u: tensor<*xf32>) -> tensor<2xf32> {
  %0 = "onnx.If"(%c) ({
    onnx.Yield %x : tensor<2xf32>
  }, {
    // expected-error @+1 {{'onnx.Relu' is not supported by the CPU backend with operand type 'tensor<*xf32>'}}
    %r = "onnx.Relu"(%u) : (tensor<*xf32>) -> tensor<2xf32>
    onnx.Yield %r : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
