// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// Operators new after opset 17 that lower to one elementwise linalg.generic.

// Gelu-20, exact: 0.5 x (1 + erf(x / sqrt 2)).

func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "onnx.Gelu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @gelu
// CHECK: linalg.generic
// CHECK:   %[[R:.+]] = arith.constant 0.707106769 : f32
// CHECK:   %[[S:.+]] = arith.mulf %{{.+}}, %[[R]] : f32
// CHECK:   %[[E:.+]] = math.erf %[[S]] : f32
// CHECK:   %[[H:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK:   %[[P:.+]] = arith.addf %{{.+}}, %[[E]] : f32
// CHECK:   %[[Y:.+]] = arith.mulf %[[H]], %[[P]] : f32
// CHECK:   linalg.yield %[[Y]]

// -----

// Gelu-20, approximate = "tanh": 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).

func.func @gelu_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "onnx.Gelu"(%x) <{approximate = "tanh"}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @gelu_tanh
// CHECK: linalg.generic
// CHECK:   %[[C:.+]] = arith.constant 4.471500e-02 : f32
// CHECK:   arith.mulf %[[C]], %{{.+}} : f32
// CHECK:   %[[K:.+]] = arith.constant 0.797884583 : f32
// CHECK:   %[[A:.+]] = arith.mulf %[[K]], %{{.+}} : f32
// CHECK:   math.tanh %[[A]] : f32
// CHECK-NOT: math.erf
// CHECK: return

// -----

// Mish-22: x * tanh(log1p(exp(x))); Swish-24: x / (1 + exp(-alpha x)).

func.func @mish_swish(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "onnx.Mish"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "onnx.Swish"(%x) <{alpha = 2.0 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @mish_swish
// CHECK: linalg.generic
// CHECK:   %[[E:.+]] = math.exp %{{.+}} : f32
// CHECK:   %[[SP:.+]] = math.log1p %[[E]] : f32
// CHECK:   %[[T:.+]] = math.tanh %[[SP]] : f32
// CHECK:   arith.mulf %{{.+}}, %[[T]] : f32
// CHECK: linalg.generic
// CHECK:   %[[ALPHA:.+]] = arith.constant 2.000000e+00 : f32
// CHECK:   %[[AX:.+]] = arith.mulf %[[ALPHA]], %{{.+}} : f32
// CHECK:   %[[N:.+]] = arith.negf %[[AX]] : f32
// CHECK:   math.exp %[[N]] : f32
// CHECK:   arith.divf

// -----

// Bitwise ops on (signless) integers; BitwiseNot xors with all ones.

func.func @bitwise(%a: tensor<3xui8>, %b: tensor<3xui8>, %c: tensor<2x3xi32>) -> (tensor<3xui8>, tensor<2x3xi32>) {
  %0 = "onnx.BitwiseXor"(%a, %b) : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  %1 = "onnx.BitwiseNot"(%c) : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0, %1 : tensor<3xui8>, tensor<2x3xi32>
}
// CHECK-LABEL: func.func @bitwise
// CHECK: linalg.generic
// CHECK:   arith.xori %{{.+}}, %{{.+}} : i8
// CHECK: linalg.generic
// CHECK:   %[[ONES:.+]] = arith.constant -1 : i32
// CHECK:   arith.xori %{{.+}}, %[[ONES]] : i32

// -----

// Mod-28 with fmod = 0 on floats: the floored modulus, from remf: shifted
// by the divisor where the signs differ, a zero result signed like the
// divisor (its sign bit).
// CHECK-LABEL: func.func @mod_floor_float
// CHECK: linalg.generic
// CHECK: arith.remf
// CHECK: arith.addf
// CHECK: arith.bitcast {{.*}} : f32 to i32
// CHECK: arith.select
func.func @mod_floor_float(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "onnx.Mod"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
