// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// The narrow types are held in i8: float8 as its bits. Cast to float8
// scales |x| to the target's quantum, rounds to even, rebuilds the code and
// (saturate = 0) maps what overflows to E4M3FN's NaN, 0x7f; the sign is
// or'ed back in.
// CHECK-LABEL: func.func @cast_to_f8(
// CHECK-SAME: %{{.*}}: tensor<4xf32>) -> tensor<4xi8>
// CHECK: linalg.generic
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: math.roundeven
// CHECK: arith.fptoui
// CHECK: %[[MAX:.*]] = arith.constant 126 : i32
// CHECK: arith.cmpi sgt, %{{.*}}, %[[MAX]]
// CHECK: %[[NAN:.*]] = arith.constant 127 : i32
// CHECK: arith.select %{{.*}}, %[[NAN]]
// CHECK: arith.ori
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: -> tensor<4xi8>
func.func @cast_to_f8(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %0 = "onnx.Cast"(%x) <{to = 17 : i64, saturate = 0 : i64}> : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// Saturating: what overflows becomes the largest finite code, 0x7e.
// CHECK-LABEL: func.func @cast_to_f8_saturate
// CHECK: %[[MAX:.*]] = arith.constant 126 : i32
// CHECK: arith.cmpi sgt, %{{.*}}, %[[MAX]]
// CHECK: %[[SAT:.*]] = arith.constant 126 : i32
// CHECK: arith.select %{{.*}}, %[[SAT]]
func.func @cast_to_f8_saturate(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %0 = "onnx.Cast"(%x) <{to = 17 : i64}> : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// float8 to float: the fields rebiased into an f32 (subnormals scaled).
// CHECK-LABEL: func.func @cast_from_f8(
// CHECK-SAME: %{{.*}}: tensor<4xi8>) -> tensor<4xf16>
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.uitofp
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @cast_from_f8(%x: tensor<4xf8E5M2>) -> tensor<4xf16> {
  %0 = "onnx.Cast"(%x) <{to = 10 : i64}> : (tensor<4xf8E5M2>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// int4 is held sign-extended: reading it is an i8's cast.
// CHECK-LABEL: func.func @cast_from_i4(
// CHECK-SAME: %{{.*}}: tensor<4xi8>) -> tensor<4xf32>
// CHECK: arith.sitofp %{{.*}} : i8 to f32
func.func @cast_from_i4(%x: tensor<4xi4>) -> tensor<4xf32> {
  %0 = "onnx.Cast"(%x) <{to = 1 : i64}> : (tensor<4xi4>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// To uint4 a float converts through i32 and wraps to the low 4 bits.
// CHECK-LABEL: func.func @cast_to_ui4
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: %[[MASK:.*]] = arith.constant 15 : i8
// CHECK: arith.andi %{{.*}}, %[[MASK]] : i8
func.func @cast_to_ui4(%x: tensor<4xf32>) -> tensor<4xui4> {
  %0 = "onnx.Cast"(%x) <{to = 21 : i64}> : (tensor<4xf32>) -> tensor<4xui4>
  return %0 : tensor<4xui4>
}

// -----

// Constants: int4 sign-extended, float8 as its bits (1.0 and -2.0 in E5M2).
// CHECK-LABEL: func.func @constants
// CHECK: arith.constant dense<[-8, -1, 7]> : tensor<3xi8>
// CHECK: arith.constant dense<[60, -64]> : tensor<2xi8>
func.func @constants() -> (tensor<3xi4>, tensor<2xf8E5M2>) {
  %0 = "onnx.Constant"() <{value = dense<[-8, -1, 7]> : tensor<3xi4>}> : () -> tensor<3xi4>
  %1 = "onnx.Constant"() <{value = dense<[1.0, -2.0]> : tensor<2xf8E5M2>}> : () -> tensor<2xf8E5M2>
  return %0, %1 : tensor<3xi4>, tensor<2xf8E5M2>
}

// -----

// E8M0 (round_mode down): the f32 exponent field is the code; what exceeds
// the largest (0xfe) saturates.
// CHECK-LABEL: func.func @cast_to_e8m0
// CHECK: arith.shrui
// CHECK: %[[TOP:.*]] = arith.constant 254 : i32
// CHECK: arith.cmpi ugt, %{{.*}}, %[[TOP]]
// CHECK-NOT: math.roundeven
// CHECK: arith.trunci %{{.*}} : i32 to i8
func.func @cast_to_e8m0(%x: tensor<4xf32>) -> tensor<4xf8E8M0FNU> {
  %0 = "onnx.Cast"(%x) <{to = 24 : i64, round_mode = "down"}> : (tensor<4xf32>) -> tensor<4xf8E8M0FNU>
  return %0 : tensor<4xf8E8M0FNU>
}

// -----

// BitCast reinterprets the bits: f32 -> i32 directly; int4 -> uint4 masks
// the sign extension of its i8 storage away; bool is a byte.
// CHECK-LABEL: func.func @bitcast
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[MASK:.*]] = arith.constant 15 : i8
// CHECK: arith.andi %{{.*}}, %[[MASK]] : i8
// CHECK: arith.extui %{{.*}} : i1 to i8
func.func @bitcast(%x: tensor<4xf32>, %y: tensor<4xi4>, %z: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xui4>, tensor<4xui8>) {
  %0 = "onnx.BitCast"(%x) <{to = 6 : i64}> : (tensor<4xf32>) -> tensor<4xi32>
  %1 = "onnx.BitCast"(%y) <{to = 21 : i64}> : (tensor<4xi4>) -> tensor<4xui4>
  %2 = "onnx.BitCast"(%z) <{to = 2 : i64}> : (tensor<4xi1>) -> tensor<4xui8>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xui4>, tensor<4xui8>
}
