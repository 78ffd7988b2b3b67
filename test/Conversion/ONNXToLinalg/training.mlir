// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// Adagrad on two tensors: four elementwise generics (X1_new, X2_new,
// H1_new, H2_new) over (R, T, X_i, G_i, H_i); the learning rate decays with
// T and the update divides by sqrt(H_new) + epsilon.
// CHECK-LABEL: func.func @adagrad_two
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @adagrad_two(%r: tensor<f32>, %t: tensor<i64>, %x1: tensor<3xf32>, %x2: tensor<2x2xf32>, %g1: tensor<3xf32>, %g2: tensor<2x2xf32>, %h1: tensor<3xf32>, %h2: tensor<2x2xf32>) -> (tensor<3xf32>, tensor<2x2xf32>, tensor<3xf32>, tensor<2x2xf32>) {
  %0:4 = "onnx.preview.training.Adagrad"(%r, %t, %x1, %x2, %g1, %g2, %h1, %h2) {decay_factor = 0.1 : f32, epsilon = 1.0e-6 : f32, norm_coefficient = 0.001 : f32} : (tensor<f32>, tensor<i64>, tensor<3xf32>, tensor<2x2xf32>, tensor<3xf32>, tensor<2x2xf32>, tensor<3xf32>, tensor<2x2xf32>) -> (tensor<3xf32>, tensor<2x2xf32>, tensor<3xf32>, tensor<2x2xf32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<3xf32>, tensor<2x2xf32>, tensor<3xf32>, tensor<2x2xf32>
}

// CHECK-LABEL: func.func @adagrad_body
// CHECK: linalg.generic
// CHECK: ^bb0(%[[R:[^:]+]]: f32, %[[T:[^:]+]]: i64, %[[X:[^:]+]]: f32, %[[G:[^:]+]]: f32, %[[H:[^:]+]]: f32
// CHECK: arith.sitofp %[[T]] : i64 to f32
// CHECK: math.sqrt
// CHECK: arith.subf %[[X]]
func.func @adagrad_body(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<3xf32>, %g: tensor<3xf32>, %h: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0:2 = "onnx.preview.training.Adagrad"(%r, %t, %x, %g, %h) : (tensor<f32>, tensor<i64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xf32>
}

// Momentum: beta applies from the second update on (T > 0), nesterov adds
// alpha * V_new to the step.
// CHECK-LABEL: func.func @momentum_nesterov
// CHECK: linalg.generic
// CHECK: arith.cmpi sgt
// CHECK: arith.select
// CHECK: return
func.func @momentum_nesterov(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<3xf32>, %g: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0:2 = "onnx.preview.training.Momentum"(%r, %t, %x, %g, %v) {alpha = 0.9 : f32, beta = 0.1 : f32, mode = "nesterov", norm_coefficient = 0.01 : f32} : (tensor<f32>, tensor<i64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xf32>
}

// Adam: three outputs per tensor; X_new corrects the rate by
// sqrt(1 - beta^T) / (1 - alpha^T) when T > 0.
// CHECK-LABEL: func.func @adam
// CHECK: linalg.generic
// CHECK: math.powf
// CHECK: math.powf
// CHECK: arith.select
// CHECK-COUNT-2: linalg.generic
// CHECK: return
func.func @adam(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<3xf32>, %g: tensor<3xf32>, %v: tensor<3xf32>, %h: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = "onnx.preview.training.Adam"(%r, %t, %x, %g, %v, %h) : (tensor<f32>, tensor<i64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
