// RUN: onnx-mlir-opt %s --split-input-file --onnx-derive-gradients | FileCheck %s

// d = (a + b) * a: the gradient of a sums its two uses (through the Add and
// as the Mul's operand); b, broadcast along dim 0, gets the gradient summed
// over it and reshaped to its shape. The seed is ones of d's shape.
// CHECK-LABEL: func.func @add_mul
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[C:.*]] = "onnx.Add"(%[[A]], %[[B]])
// CHECK: "onnx.Mul"(%[[C]], %[[A]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[ONES:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[GC:.*]] = "onnx.Mul"(%[[ONES]], %[[A]])
// CHECK: %[[GA1:.*]] = "onnx.Mul"(%[[ONES]], %[[C]])
// CHECK: %[[AXES:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}>
// CHECK: %[[SUM:.*]] = "onnx.ReduceSum"(%[[GC]], %[[AXES]]) <{keepdims = 1 : i64{{.*}}}> : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<1x3xf32>
// CHECK: %[[GB:.*]] = "onnx.Reshape"(%[[SUM]], %{{.*}}) {{.*}} -> tensor<3xf32>
// CHECK: %[[GA:.*]] = "onnx.Add"(%[[GA1]], %[[GC]])
// CHECK: return %[[GA]], %[[GB]]
func.func @add_mul(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %c = "onnx.Add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %d = "onnx.Mul"(%c, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %g:2 = "onnx.preview.training.Gradient"(%a, %b, %a, %b, %d) {xs = ["a", "b"], y = "d"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
  return %g#0, %g#1 : tensor<2x3xf32>, tensor<3xf32>
}

// -----

// MatMul: dA = dY B^T, dB = A^T dY.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<4x2xf32>)
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<3x2xf32>}>
// CHECK: %[[BT:.*]] = "onnx.Transpose"(%[[B]]) <{perm = [1, 0]}> : (tensor<4x2xf32>) -> tensor<2x4xf32>
// CHECK: %[[GA:.*]] = "onnx.MatMul"(%[[G]], %[[BT]]) : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK: %[[AT:.*]] = "onnx.Transpose"(%[[A]]) <{perm = [1, 0]}>
// CHECK: %[[GB:.*]] = "onnx.MatMul"(%[[AT]], %[[G]]) : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
// CHECK: return %[[GA]], %[[GB]]
func.func @matmul(%a: tensor<3x4xf32>, %b: tensor<4x2xf32>) -> (tensor<3x4xf32>, tensor<4x2xf32>) {
  %y = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %g:2 = "onnx.preview.training.Gradient"(%a, %b, %a, %b, %y) {xs = ["a", "b"], y = "y"} : (tensor<3x4xf32>, tensor<4x2xf32>, tensor<3x4xf32>, tensor<4x2xf32>, tensor<3x2xf32>) -> (tensor<3x4xf32>, tensor<4x2xf32>)
  return %g#0, %g#1 : tensor<3x4xf32>, tensor<4x2xf32>
}

// -----

// Relu passes the gradient where x > 0; z, which y does not depend on, gets
// zeros.
// CHECK-LABEL: func.func @relu_unused
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %{{.*}}: tensor<4xf32>)
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<4xf32>}>
// CHECK: %[[POS:.*]] = "onnx.Greater"(%[[X]], %{{.*}}) : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
// CHECK: %[[GX:.*]] = "onnx.Where"(%[[POS]], %[[G]], %{{.*}}) : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[GZ:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<4xf32>}>
// CHECK: return %[[GX]], %[[GZ]]
func.func @relu_unused(%x: tensor<4xf32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = "onnx.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %g:2 = "onnx.preview.training.Gradient"(%x, %z, %x, %z, %y) {xs = ["x", "z"], y = "y"} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %g#0, %g#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Gemm with transB: dA = alpha dY B, dB = alpha dY^T A, dC = dY summed over
// the rows C was broadcast to.
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<2x4xf32>, %{{.*}}: tensor<2xf32>)
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<3x2xf32>}>
// CHECK: %[[GA:.*]] = "onnx.Gemm"(%[[G]], %[[B]]) <{alpha = 5.000000e-01 : f32, {{.*}}transA = 0 : i64, transB = 0 : i64}> : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK: %[[GB:.*]] = "onnx.Gemm"(%[[G]], %[[A]]) <{alpha = 5.000000e-01 : f32, {{.*}}transA = 1 : i64, transB = 0 : i64}> : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[S:.*]] = "onnx.ReduceSum"(%[[G]], %{{.*}}) {{.*}} -> tensor<1x2xf32>
// CHECK: %[[GC:.*]] = "onnx.Reshape"(%[[S]], %{{.*}}) {{.*}} -> tensor<2xf32>
// CHECK: return %[[GA]], %[[GB]], %[[GC]]
func.func @gemm(%a: tensor<3x4xf32>, %b: tensor<2x4xf32>, %c: tensor<2xf32>) -> (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) {
  %y = "onnx.Gemm"(%a, %b, %c) {transB = 1 : i64, alpha = 0.5 : f32} : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %g:3 = "onnx.preview.training.Gradient"(%a, %b, %c, %a, %b, %c, %y) {xs = ["a", "b", "c"], y = "y"} : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>, tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>, tensor<3x2xf32>) -> (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>)
  return %g#0, %g#1, %g#2 : tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>
}

// -----

// Conv (stride 2, pads 1): dX is a ConvTranspose of dY by W with the same
// window; dW a Conv of X by dY with batch and channels swapped and strides
// and dilations exchanged, cut to the kernel's size; dB dY summed over all
// but the channels.
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x5x5xf32>, %[[W:.*]]: tensor<3x2x3x3xf32>, %{{.*}}: tensor<3xf32>)
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1x3x3x3xf32>}>
// CHECK: %[[GX:.*]] = "onnx.ConvTranspose"(%[[G]], %[[W]]) <{{{.*}}dilations = [1, 1], group = 1 : i64, output_padding = [0, 0], pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<1x3x3x3xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x5x5xf32>
// CHECK: %[[XT:.*]] = "onnx.Transpose"(%[[X]]) <{perm = [1, 0, 2, 3]}>
// CHECK: %[[GT:.*]] = "onnx.Transpose"(%[[G]]) <{perm = [1, 0, 2, 3]}>
// CHECK: %[[FULL:.*]] = "onnx.Conv"(%[[XT]], %[[GT]]) <{{{.*}}dilations = [2, 2], {{.*}}pads = [1, 1, 1, 1], strides = [1, 1]}> : (tensor<2x1x5x5xf32>, tensor<3x1x3x3xf32>) -> tensor<2x3x3x3xf32>
// CHECK: %[[CUT:.*]] = "onnx.Slice"(%[[FULL]],
// CHECK: %[[GW:.*]] = "onnx.Transpose"(%[[CUT]]) <{perm = [1, 0, 2, 3]}> : (tensor<2x3x3x3xf32>) -> tensor<3x2x3x3xf32>
// CHECK: %[[AXES:.*]] = "onnx.Constant"() <{value = dense<[0, 2, 3]> : tensor<3xi64>}>
// CHECK: %[[GB:.*]] = "onnx.ReduceSum"(%[[G]], %[[AXES]]) <{keepdims = 0 : i64{{.*}}-> tensor<3xf32>
// CHECK: return %[[GX]], %[[GW]], %[[GB]]
func.func @conv(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3xf32>) -> (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) {
  %y = "onnx.Conv"(%x, %w, %b) {pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32>
  %g:3 = "onnx.preview.training.Gradient"(%x, %w, %b, %x, %w, %b, %y) {xs = ["x", "w", "b"], y = "y"} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>, tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>, tensor<1x3x3x3xf32>) -> (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>)
  return %g#0, %g#1, %g#2 : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>
}

// -----

// An x computed by other ops is an independent variable: the walk stops at
// it (dy/dh of y = exp(h) is exp(h), nothing flows to w or x).
// CHECK-LABEL: func.func @intermediate
// CHECK: %[[H:.*]] = "onnx.Mul"
// CHECK: %[[Y:.*]] = "onnx.Exp"(%[[H]])
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<4xf32>}>
// CHECK: %[[GH:.*]] = "onnx.Mul"(%[[G]], %[[Y]])
// CHECK-NEXT: return %[[GH]]
func.func @intermediate(%w: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %h = "onnx.Mul"(%w, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = "onnx.Exp"(%h) : (tensor<4xf32>) -> tensor<4xf32>
  %g = "onnx.preview.training.Gradient"(%h, %h, %y) {xs = ["h"], y = "y"} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// The gradient at another point than the named tensor's value: the
// computation of y from a is cloned on the Gradient's input a1 and
// differentiated there (d(a1 * a1)/da1 = a1 + a1).
// CHECK-LABEL: func.func @other_point
// CHECK-SAME: (%[[A:.*]]: tensor<f32>, %[[A1:.*]]: tensor<f32>)
// CHECK: "onnx.Mul"(%[[A]], %[[A]])
// CHECK: "onnx.Mul"(%[[A1]], %[[A1]])
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}>
// CHECK: %[[L:.*]] = "onnx.Mul"(%[[G]], %[[A1]])
// CHECK: %[[R:.*]] = "onnx.Mul"(%[[G]], %[[A1]])
// CHECK: %[[S:.*]] = "onnx.Add"(%[[L]], %[[R]])
// CHECK: return %[[S]]
func.func @other_point(%a: tensor<f32>, %a1: tensor<f32>) -> tensor<f32> {
  %y = "onnx.Mul"(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %g = "onnx.preview.training.Gradient"(%a1, %a, %y) {xs = ["a"], y = "y"} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}

// -----

// Resize in linear mode, only dim 3 resized (4 -> 8): the gradient is
// dY times the transposed response R (4 x 8) of the same Resize to a 4 x 4
// identity with the scale of dim 3 on its last dim, dim 3 moved last and
// back (here it is last already).
// CHECK-LABEL: func.func @resize_linear
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x2x4xf32>)
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1x1x2x8xf32>}>
// CHECK: %[[EYE:.*]] = "onnx.Constant"() <{value = dense<{{\[}}[1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00
// CHECK: %[[S:.*]] = "onnx.Constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}>
// CHECK: %[[R:.*]] = "onnx.Resize"(%[[EYE]], %[[S]]) <{{{.*}}mode = "linear"{{.*}}}> {{.*}} -> tensor<4x8xf32>
// CHECK: %[[RT:.*]] = "onnx.Transpose"(%[[R]]) <{perm = [1, 0]}>
// CHECK: %[[GX:.*]] = "onnx.MatMul"(%[[G]], %[[RT]]) {{.*}} -> tensor<1x1x2x4xf32>
// CHECK: return %[[GX]]
func.func @resize_linear(%x: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %s = "onnx.Constant"() {value = dense<[1.0, 1.0, 1.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %y = "onnx.Resize"(%x, %s) {mode = "linear", operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (tensor<1x1x2x4xf32>, tensor<4xf32>) -> tensor<1x1x2x8xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x8xf32>) -> tensor<1x1x2x4xf32>
  return %g : tensor<1x1x2x4xf32>
}

// -----

// Slice with a step of 2: the same Slice of the elements' flat indices
// says where each result element came from; its gradient is scattered
// (added) there.
// CHECK-LABEL: func.func @slice_steps
// CHECK-SAME: (%[[X:.*]]: tensor<6xf32>)
// CHECK: %[[R:.*]] = "onnx.Range"
// CHECK: %[[IDX:.*]] = "onnx.Reshape"(%[[R]]
// CHECK: %[[PICK:.*]] = "onnx.Slice"(%[[IDX]], {{.*}} : (tensor<6xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
// CHECK: "onnx.ScatterElements"({{.*}}) <{axis = 0 : i64, reduction = "add"}>
func.func @slice_steps(%x: tensor<6xf32>) -> tensor<6xf32> {
  %st = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = "onnx.Constant"() {value = dense<6> : tensor<1xi64>} : () -> tensor<1xi64>
  %ax = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %sp = "onnx.Constant"() {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %y = "onnx.Slice"(%x, %st, %en, %ax, %sp) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<6xf32>, tensor<6xf32>, tensor<3xf32>) -> tensor<6xf32>
  return %g : tensor<6xf32>
}
