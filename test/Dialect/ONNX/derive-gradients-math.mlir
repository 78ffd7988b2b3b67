// RUN: onnx-mlir-opt %s --split-input-file --onnx-derive-gradients | FileCheck %s

// onnx-derive-gradients, one case per rule of the unary math, activations,
// Softmax/LogSoftmax and elementwise arithmetic not covered by
// derive-gradients.mlir (the tensor and network ops:
// derive-gradients-tensor-nn.mlir). The seed (the gradient of y) is a
// constant of ones, captured as G.

// Abs: dX = dY * sign(x).
// CHECK-LABEL: func.func @abs
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[S:.*]] = "onnx.Sign"(%[[X]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[S]])
// CHECK: return %[[GX]] :
func.func @abs(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Abs"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Cos: dX = dY * -sin(x).
// CHECK-LABEL: func.func @cos
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[S:.*]] = "onnx.Sin"(%[[X]])
// CHECK: %[[N:.*]] = "onnx.Neg"(%[[S]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[N]])
// CHECK: return %[[GX]] :
func.func @cos(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Cos"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Sin: dX = dY * cos(x).
// CHECK-LABEL: func.func @sin
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[C:.*]] = "onnx.Cos"(%[[X]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[C]])
// CHECK: return %[[GX]] :
func.func @sin(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Sin"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Erf: dX = dY * 2/sqrt(pi) * exp(-x^2).
// CHECK-LABEL: func.func @erf
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[K:.*]] = "onnx.Constant"() <{value = dense<1.12837923> : tensor<f32>}>
// CHECK: %[[XX:.*]] = "onnx.Mul"(%[[X]], %[[X]])
// CHECK: %[[N:.*]] = "onnx.Neg"(%[[XX]])
// CHECK: %[[E:.*]] = "onnx.Exp"(%[[N]])
// CHECK: %[[D:.*]] = "onnx.Mul"(%[[K]], %[[E]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[D]])
// CHECK: return %[[GX]] :
func.func @erf(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Erf"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Identity: dX = dY, the seed itself.
// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK-NEXT: return %[[G]] :
func.func @identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Identity"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Log: dX = dY / x.
// CHECK-LABEL: func.func @log
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[R:.*]] = "onnx.Reciprocal"(%[[X]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[R]])
// CHECK: return %[[GX]] :
func.func @log(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Log"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Neg: dX = -dY.
// CHECK-LABEL: func.func @neg
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[GX:.*]] = "onnx.Neg"(%[[G]])
// CHECK: return %[[GX]] :
func.func @neg(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Reciprocal: dX = dY * -(y * y).
// CHECK-LABEL: func.func @reciprocal
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.Reciprocal"(%[[X]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[YY:.*]] = "onnx.Mul"(%[[Y]], %[[Y]])
// CHECK: %[[N:.*]] = "onnx.Neg"(%[[YY]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[N]])
// CHECK: return %[[GX]] :
func.func @reciprocal(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Reciprocal"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Sigmoid: dX = dY * y * (1 - y).
// CHECK-LABEL: func.func @sigmoid
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.Sigmoid"(%[[X]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[ONE:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}>
// CHECK: %[[OMY:.*]] = "onnx.Sub"(%[[ONE]], %[[Y]])
// CHECK: %[[D:.*]] = "onnx.Mul"(%[[Y]], %[[OMY]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[D]])
// CHECK: return %[[GX]] :
func.func @sigmoid(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Sigmoid"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Softplus: dX = dY * sigmoid(x).
// CHECK-LABEL: func.func @softplus
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[S:.*]] = "onnx.Sigmoid"(%[[X]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[S]])
// CHECK: return %[[GX]] :
func.func @softplus(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Softplus"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Softsign: dX = dY / (1 + |x|)^2.
// CHECK-LABEL: func.func @softsign
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[ONE:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}>
// CHECK: %[[A:.*]] = "onnx.Abs"(%[[X]])
// CHECK: %[[D:.*]] = "onnx.Add"(%[[ONE]], %[[A]])
// CHECK: %[[DD:.*]] = "onnx.Mul"(%[[D]], %[[D]])
// CHECK: %[[R:.*]] = "onnx.Reciprocal"(%[[DD]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[R]])
// CHECK: return %[[GX]] :
func.func @softsign(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Softsign"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Sqrt: dX = dY * 0.5 / y.
// CHECK-LABEL: func.func @sqrt
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.Sqrt"(%[[X]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[H:.*]] = "onnx.Constant"() <{value = dense<5.000000e-01> : tensor<f32>}>
// CHECK: %[[D:.*]] = "onnx.Div"(%[[H]], %[[Y]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[D]])
// CHECK: return %[[GX]] :
func.func @sqrt(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Sqrt"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Tanh: dX = dY * (1 - y * y).
// CHECK-LABEL: func.func @tanh
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.Tanh"(%[[X]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[ONE:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}>
// CHECK: %[[YY:.*]] = "onnx.Mul"(%[[Y]], %[[Y]])
// CHECK: %[[D:.*]] = "onnx.Sub"(%[[ONE]], %[[YY]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[D]])
// CHECK: return %[[GX]] :
func.func @tanh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Tanh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Elu (alpha 2): dX = dY where x > 0, else dY * (y + alpha).
// CHECK-LABEL: func.func @elu
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.Elu"(%[[X]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[Z:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<f32>}>
// CHECK: %[[POS:.*]] = "onnx.Greater"(%[[X]], %[[Z]])
// CHECK: %[[AL:.*]] = "onnx.Constant"() <{value = dense<2.000000e+00> : tensor<f32>}>
// CHECK: %[[YA:.*]] = "onnx.Add"(%[[Y]], %[[AL]])
// CHECK: %[[NEG:.*]] = "onnx.Mul"(%[[G]], %[[YA]])
// CHECK: %[[GX:.*]] = "onnx.Where"(%[[POS]], %[[G]], %[[NEG]])
// CHECK: return %[[GX]] :
func.func @elu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Elu"(%x) {alpha = 2.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Selu (alpha 2, gamma 3): dX = dY * gamma where x > 0, else
// dY * (y + alpha * gamma).
// CHECK-LABEL: func.func @selu
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.Selu"(%[[X]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[Z:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<f32>}>
// CHECK: %[[POS:.*]] = "onnx.Greater"(%[[X]], %[[Z]])
// CHECK: %[[GAM:.*]] = "onnx.Constant"() <{value = dense<3.000000e+00> : tensor<f32>}>
// CHECK: %[[GG:.*]] = "onnx.Mul"(%[[G]], %[[GAM]])
// CHECK: %[[AG:.*]] = "onnx.Constant"() <{value = dense<6.000000e+00> : tensor<f32>}>
// CHECK: %[[YA:.*]] = "onnx.Add"(%[[Y]], %[[AG]])
// CHECK: %[[NEG:.*]] = "onnx.Mul"(%[[G]], %[[YA]])
// CHECK: %[[GX:.*]] = "onnx.Where"(%[[POS]], %[[GG]], %[[NEG]])
// CHECK: return %[[GX]] :
func.func @selu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Selu"(%x) {alpha = 2.0 : f32, gamma = 3.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// LeakyRelu (alpha 0.25): dX = dY where x > 0, else dY * alpha.
// CHECK-LABEL: func.func @leaky_relu
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[Z:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<f32>}>
// CHECK: %[[POS:.*]] = "onnx.Greater"(%[[X]], %[[Z]])
// CHECK: %[[AL:.*]] = "onnx.Constant"() <{value = dense<2.500000e-01> : tensor<f32>}>
// CHECK: %[[NEG:.*]] = "onnx.Mul"(%[[G]], %[[AL]])
// CHECK: %[[GX:.*]] = "onnx.Where"(%[[POS]], %[[G]], %[[NEG]])
// CHECK: return %[[GX]] :
func.func @leaky_relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.LeakyRelu"(%x) {alpha = 0.25 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// HardSigmoid (alpha 0.25, beta 0.5): dX = dY * alpha where
// 0 < alpha x + beta < 1, else 0.
// CHECK-LABEL: func.func @hard_sigmoid
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[AL:.*]] = "onnx.Constant"() <{value = dense<2.500000e-01> : tensor<f32>}>
// CHECK: %[[AX:.*]] = "onnx.Mul"(%[[X]], %[[AL]])
// CHECK: %[[BE:.*]] = "onnx.Constant"() <{value = dense<5.000000e-01> : tensor<f32>}>
// CHECK: %[[LIN:.*]] = "onnx.Add"(%[[AX]], %[[BE]])
// CHECK: %[[Z:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<f32>}>
// CHECK: %[[GT:.*]] = "onnx.Greater"(%[[LIN]], %[[Z]])
// CHECK: %[[ONE:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}>
// CHECK: %[[LT:.*]] = "onnx.Less"(%[[LIN]], %[[ONE]])
// CHECK: %[[IN:.*]] = "onnx.And"(%[[GT]], %[[LT]])
// CHECK: %[[SL:.*]] = "onnx.Constant"() <{value = dense<2.500000e-01> : tensor<f32>}>
// CHECK: %[[Z2:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<f32>}>
// CHECK: %[[D:.*]] = "onnx.Where"(%[[IN]], %[[SL]], %[[Z2]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[D]])
// CHECK: return %[[GX]] :
func.func @hard_sigmoid(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.HardSigmoid"(%x) {alpha = 0.25 : f32, beta = 0.5 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Gelu (exact): y = x Phi(x), dX = dY * (Phi(x) + x phi(x)) with
// Phi(x) = 0.5 (1 + erf(x / sqrt 2)), phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[C:.*]] = "onnx.Constant"() <{value = dense<0.398942292> : tensor<f32>}>
// CHECK: %[[MH:.*]] = "onnx.Constant"() <{value = dense<-5.000000e-01> : tensor<f32>}>
// CHECK: %[[XX:.*]] = "onnx.Mul"(%[[X]], %[[X]])
// CHECK: %[[ARG:.*]] = "onnx.Mul"(%[[MH]], %[[XX]])
// CHECK: %[[E:.*]] = "onnx.Exp"(%[[ARG]])
// CHECK: %[[PHI:.*]] = "onnx.Mul"(%[[C]], %[[E]])
// CHECK: %[[H:.*]] = "onnx.Constant"() <{value = dense<5.000000e-01> : tensor<f32>}>
// CHECK: %[[ONE:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}>
// CHECK: %[[RS2:.*]] = "onnx.Constant"() <{value = dense<0.707106769> : tensor<f32>}>
// CHECK: %[[XS:.*]] = "onnx.Mul"(%[[X]], %[[RS2]])
// CHECK: %[[ERF:.*]] = "onnx.Erf"(%[[XS]])
// CHECK: %[[OPE:.*]] = "onnx.Add"(%[[ONE]], %[[ERF]])
// CHECK: %[[CDF:.*]] = "onnx.Mul"(%[[H]], %[[OPE]])
// CHECK: %[[XPHI:.*]] = "onnx.Mul"(%[[X]], %[[PHI]])
// CHECK: %[[D:.*]] = "onnx.Add"(%[[CDF]], %[[XPHI]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[D]])
// CHECK: return %[[GX]] :
func.func @gelu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Gelu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Softmax (axis 0): dX = y * (dY - sum_axis(dY * y)).
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.Softmax"(%[[X]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[GY:.*]] = "onnx.Mul"(%[[G]], %[[Y]])
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}>
// CHECK: %[[DOT:.*]] = "onnx.ReduceSum"(%[[GY]], %[[AX]]) <{keepdims = 1 : i64{{.*}}-> tensor<1x3xf32>
// CHECK: %[[D:.*]] = "onnx.Sub"(%[[G]], %[[DOT]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[Y]], %[[D]])
// CHECK: return %[[GX]] :
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Softmax"(%x) {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// LogSoftmax (axis 0): dX = dY - exp(y) * sum_axis(dY).
// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.LogSoftmax"(%[[X]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}>
// CHECK: %[[TOT:.*]] = "onnx.ReduceSum"(%[[G]], %[[AX]]) <{keepdims = 1 : i64{{.*}}-> tensor<1x3xf32>
// CHECK: %[[E:.*]] = "onnx.Exp"(%[[Y]])
// CHECK: %[[M:.*]] = "onnx.Mul"(%[[E]], %[[TOT]])
// CHECK: %[[GX:.*]] = "onnx.Sub"(%[[G]], %[[M]])
// CHECK: return %[[GX]] :
func.func @log_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.LogSoftmax"(%x) {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Sub with b broadcast: dA = dY, dB = -dY summed over dim 0.
// CHECK-LABEL: func.func @sub
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[N:.*]] = "onnx.Neg"(%[[G]])
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}>
// CHECK: %[[S:.*]] = "onnx.ReduceSum"(%[[N]], %[[AX]]) {{.*}} -> tensor<1x3xf32>
// CHECK: %[[GB:.*]] = "onnx.Reshape"(%[[S]], %{{.*}}) {{.*}} -> tensor<3xf32>
// CHECK: return %[[G]], %[[GB]] :
func.func @sub(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %y = "onnx.Sub"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %g:2 = "onnx.preview.training.Gradient"(%a, %b, %a, %b, %y) {xs = ["a", "b"], y = "y"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
  return %g#0, %g#1 : tensor<2x3xf32>, tensor<3xf32>
}

// -----

// Div: y = a / b, dA = dY / b, dB = -(dY * y) / b.
// CHECK-LABEL: func.func @div
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.Div"(%[[A]], %[[B]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[GA:.*]] = "onnx.Div"(%[[G]], %[[B]])
// CHECK: %[[GY:.*]] = "onnx.Mul"(%[[G]], %[[Y]])
// CHECK: %[[Q:.*]] = "onnx.Div"(%[[GY]], %[[B]])
// CHECK: %[[GB:.*]] = "onnx.Neg"(%[[Q]])
// CHECK: return %[[GA]], %[[GB]] :
func.func @div(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = "onnx.Div"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %g:2 = "onnx.preview.training.Gradient"(%a, %b, %a, %b, %y) {xs = ["a", "b"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return %g#0, %g#1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Pow: y = x^p, dX = dY * p * x^(p - 1), dP = dY * y * ln x.
// CHECK-LABEL: func.func @pow
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[P:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.Pow"(%[[X]], %[[P]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[GP:.*]] = "onnx.Mul"(%[[G]], %[[P]])
// CHECK: %[[ONE:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}>
// CHECK: %[[PM1:.*]] = "onnx.Sub"(%[[P]], %[[ONE]])
// CHECK: %[[POW:.*]] = "onnx.Pow"(%[[X]], %[[PM1]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[GP]], %[[POW]])
// CHECK: %[[GY:.*]] = "onnx.Mul"(%[[G]], %[[Y]])
// CHECK: %[[LN:.*]] = "onnx.Log"(%[[X]])
// CHECK: %[[GPW:.*]] = "onnx.Mul"(%[[GY]], %[[LN]])
// CHECK: return %[[GX]], %[[GPW]] :
func.func @pow(%x: tensor<2x3xf32>, %p: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = "onnx.Pow"(%x, %p) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %g:2 = "onnx.preview.training.Gradient"(%x, %p, %x, %p, %y) {xs = ["x", "p"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return %g#0, %g#1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Sum(a, b, a): each operand gets dY (b's summed over its broadcast dim 0),
// a's two uses added.
// CHECK-LABEL: func.func @sum
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}>
// CHECK: %[[S:.*]] = "onnx.ReduceSum"(%[[G]], %[[AX]]) {{.*}} -> tensor<1x3xf32>
// CHECK: %[[GB:.*]] = "onnx.Reshape"(%[[S]], %{{.*}}) {{.*}} -> tensor<3xf32>
// CHECK: %[[GA:.*]] = "onnx.Add"(%[[G]], %[[G]])
// CHECK: return %[[GA]], %[[GB]] :
func.func @sum(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %y = "onnx.Sum"(%a, %b, %a) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %g:2 = "onnx.preview.training.Gradient"(%a, %b, %a, %b, %y) {xs = ["a", "b"], y = "y"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
  return %g#0, %g#1 : tensor<2x3xf32>, tensor<3xf32>
}

// -----

// Mean of 3 inputs: dA = dY / 3.
// CHECK-LABEL: func.func @mean
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[THIRD:.*]] = "onnx.Constant"() <{value = dense<0.333333343> : tensor<f32>}>
// CHECK: %[[GA:.*]] = "onnx.Mul"(%[[G]], %[[THIRD]])
// CHECK: return %[[GA]] :
func.func @mean(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Mean"(%a, %b, %c) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%a, %a, %y) {xs = ["a"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Max: dY goes to the operands equal to y, shared evenly between ties:
// dA = dY * [a == y] / ([a == y] + [b == y]), likewise dB.
// CHECK-LABEL: func.func @max
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.Max"(%[[A]], %[[B]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[EA:.*]] = "onnx.Equal"(%[[A]], %[[Y]])
// CHECK: %[[HA:.*]] = "onnx.CastLike"(%[[EA]], %[[Y]])
// CHECK: %[[EB:.*]] = "onnx.Equal"(%[[B]], %[[Y]])
// CHECK: %[[HB:.*]] = "onnx.CastLike"(%[[EB]], %[[Y]])
// CHECK: %[[CNT:.*]] = "onnx.Add"(%[[HA]], %[[HB]])
// CHECK: %[[EA2:.*]] = "onnx.Equal"(%[[A]], %[[Y]])
// CHECK: %[[HA2:.*]] = "onnx.CastLike"(%[[EA2]], %[[Y]])
// CHECK: %[[MA:.*]] = "onnx.Mul"(%[[G]], %[[HA2]])
// CHECK: %[[GA:.*]] = "onnx.Div"(%[[MA]], %[[CNT]])
// CHECK: %[[EB2:.*]] = "onnx.Equal"(%[[B]], %[[Y]])
// CHECK: %[[HB2:.*]] = "onnx.CastLike"(%[[EB2]], %[[Y]])
// CHECK: %[[MB:.*]] = "onnx.Mul"(%[[G]], %[[HB2]])
// CHECK: %[[GB:.*]] = "onnx.Div"(%[[MB]], %[[CNT]])
// CHECK: return %[[GA]], %[[GB]] :
func.func @max(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = "onnx.Max"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %g:2 = "onnx.preview.training.Gradient"(%a, %b, %a, %b, %y) {xs = ["a", "b"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return %g#0, %g#1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Min: as Max, dA = dY * [a == y] / ([a == y] + [b == y]).
// CHECK-LABEL: func.func @min
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.Min"(%[[A]], %[[B]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[EA:.*]] = "onnx.Equal"(%[[A]], %[[Y]])
// CHECK: %[[HA:.*]] = "onnx.CastLike"(%[[EA]], %[[Y]])
// CHECK: %[[EB:.*]] = "onnx.Equal"(%[[B]], %[[Y]])
// CHECK: %[[HB:.*]] = "onnx.CastLike"(%[[EB]], %[[Y]])
// CHECK: %[[CNT:.*]] = "onnx.Add"(%[[HA]], %[[HB]])
// CHECK: %[[EA2:.*]] = "onnx.Equal"(%[[A]], %[[Y]])
// CHECK: %[[HA2:.*]] = "onnx.CastLike"(%[[EA2]], %[[Y]])
// CHECK: %[[MA:.*]] = "onnx.Mul"(%[[G]], %[[HA2]])
// CHECK: %[[GA:.*]] = "onnx.Div"(%[[MA]], %[[CNT]])
// CHECK: return %[[GA]] :
func.func @min(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Min"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%a, %a, %y) {xs = ["a"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// PRelu with a per-column slope: dX = dY where x > 0, else dY * slope;
// dSlope = 0 where x > 0, else dY * x, summed over the broadcast dim 0.
// CHECK-LABEL: func.func @prelu
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[S:.*]]: tensor<3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[Z:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<f32>}>
// CHECK: %[[POS:.*]] = "onnx.Greater"(%[[X]], %[[Z]])
// CHECK: %[[Z2:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<f32>}>
// CHECK: %[[GS:.*]] = "onnx.Mul"(%[[G]], %[[S]])
// CHECK: %[[GX:.*]] = "onnx.Where"(%[[POS]], %[[G]], %[[GS]])
// CHECK: %[[GXX:.*]] = "onnx.Mul"(%[[G]], %[[X]])
// CHECK: %[[W:.*]] = "onnx.Where"(%[[POS]], %[[Z2]], %[[GXX]])
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}>
// CHECK: %[[R:.*]] = "onnx.ReduceSum"(%[[W]], %[[AX]]) {{.*}} -> tensor<1x3xf32>
// CHECK: %[[GSL:.*]] = "onnx.Reshape"(%[[R]], %{{.*}}) {{.*}} -> tensor<3xf32>
// CHECK: return %[[GX]], %[[GSL]] :
func.func @prelu(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %y = "onnx.PRelu"(%x, %s) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %g:2 = "onnx.preview.training.Gradient"(%x, %s, %x, %s, %y) {xs = ["x", "s"], y = "y"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
  return %g#0, %g#1 : tensor<2x3xf32>, tensor<3xf32>
}

// -----

// Clip: dX = dY where min <= x <= max, else 0.
// CHECK-LABEL: func.func @clip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[LO:.*]]: tensor<f32>, %[[HI:.*]]: tensor<f32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[GE:.*]] = "onnx.GreaterOrEqual"(%[[X]], %[[LO]])
// CHECK: %[[LE:.*]] = "onnx.LessOrEqual"(%[[X]], %[[HI]])
// CHECK: %[[IN:.*]] = "onnx.And"(%[[GE]], %[[LE]])
// CHECK: %[[Z:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<f32>}>
// CHECK: %[[GX:.*]] = "onnx.Where"(%[[IN]], %[[G]], %[[Z]])
// CHECK: return %[[GX]] :
func.func @clip(%x: tensor<2x3xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<2x3xf32> {
  %y = "onnx.Clip"(%x, %lo, %hi) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}
