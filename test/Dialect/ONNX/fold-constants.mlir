// RUN: onnx-mlir-opt %s --split-input-file --onnx-fold-constants="max-elements=1000" | FileCheck %s

// The chain exporters emit for x.view(b, t, 4, -1): with every dim of x
// static, the whole shape computation becomes one constant.
// CHECK-LABEL: func.func @static_shape_chain
// CHECK-NEXT: %[[SHAPE:.+]] = "onnx.Constant"() <{value = dense<[2, 16, 4, -1]> : tensor<4xi64>}>
// CHECK-NEXT: "onnx.Reshape"(%{{.+}}, %[[SHAPE]])
// CHECK-NEXT: return
func.func @static_shape_chain(%x: tensor<2x16x64xf32>) -> tensor<2x16x4x16xf32> {
  %s = "onnx.Shape"(%x) : (tensor<2x16x64xf32>) -> tensor<3xi64>
  %st = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %en = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %bt = "onnx.Slice"(%s, %st, %en) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %h = "onnx.Constant"() <{value = dense<[4, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %shape = "onnx.Concat"(%bt, %h) <{axis = 0}> : (tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>
  %y = "onnx.Reshape"(%x, %shape) : (tensor<2x16x64xf32>, tensor<4xi64>) -> tensor<2x16x4x16xf32>
  return %y : tensor<2x16x4x16xf32>
}

// -----

// A dynamic batch dim: the Shape is known in part, so Gather(shape, 1) (the
// static t = 16) folds while Gather(shape, 0) and the Concat stay.
// CHECK-LABEL: func.func @dynamic_shape_chain
// CHECK: %[[S:.+]] = "onnx.Shape"
// CHECK: %[[B:.+]] = "onnx.Gather"(%[[S]]
// CHECK: %[[BU:.+]] = "onnx.Unsqueeze"(%[[B]]
// CHECK: %[[T:.+]] = "onnx.Constant"() <{value = dense<16> : tensor<1xi64>}>
// CHECK: "onnx.Concat"(%[[BU]], %[[T]], %{{.+}})
// CHECK-NOT: "onnx.Gather"
func.func @dynamic_shape_chain(%x: tensor<?x16x64xf32>) -> tensor<?x16x4x16xf32> {
  %s = "onnx.Shape"(%x) : (tensor<?x16x64xf32>) -> tensor<3xi64>
  %i0 = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %i1 = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %b = "onnx.Gather"(%s, %i0) <{axis = 0}> : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %t = "onnx.Gather"(%s, %i1) <{axis = 0}> : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %ax = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %bu = "onnx.Unsqueeze"(%b, %ax) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %tu = "onnx.Unsqueeze"(%t, %ax) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %h = "onnx.Constant"() <{value = dense<[4, 16]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %shape = "onnx.Concat"(%bu, %tu, %h) <{axis = 0}> : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  %y = "onnx.Reshape"(%x, %shape) : (tensor<?x16x64xf32>, tensor<4xi64>) -> tensor<?x16x4x16xf32>
  return %y : tensor<?x16x4x16xf32>
}

// -----

// Arithmetic: integer Div truncates toward zero (as the lowering's divsi),
// Cast to float, Mul with broadcasting, Range, ConstantOfShape, Equal.
// CHECK-LABEL: func.func @arith
// CHECK-DAG: %[[M:.+]] = "onnx.Constant"() <{value = dense<[1.500000e+00, -1.500000e+00, 2.000000e+00]> : tensor<3xf32>}>
// CHECK-DAG: %[[R:.+]] = "onnx.Constant"() <{value = dense<[0, 2, 4]> : tensor<3xi64>}>
// CHECK-DAG: %[[C:.+]] = "onnx.Constant"() <{value = dense<1.500000e+00> : tensor<2x3xf32>}>
// CHECK-DAG: %[[EQ:.+]] = "onnx.Constant"() <{value = dense<[false, true, false]> : tensor<3xi1>}>
// CHECK: return %[[M]], %[[R]], %[[C]], %[[EQ]]
func.func @arith() -> (tensor<3xf32>, tensor<3xi64>, tensor<2x3xf32>, tensor<3xi1>) {
  %a = "onnx.Constant"() <{value = dense<[7, -7, 9]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %b = "onnx.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %d = "onnx.Div"(%a, %b) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %f = "onnx.Cast"(%d) <{to = 1}> : (tensor<3xi64>) -> tensor<3xf32>
  %h = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %m = "onnx.Mul"(%f, %h) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %z = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %n = "onnx.Constant"() <{value = dense<5> : tensor<i64>}> : () -> tensor<i64>
  %r = "onnx.Range"(%z, %n, %b) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<3xi64>
  %s2 = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %c = "onnx.ConstantOfShape"(%s2) <{value = dense<1.5> : tensor<1xf32>}> : (tensor<2xi64>) -> tensor<2x3xf32>
  %eq = "onnx.Equal"(%r, %b) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  return %m, %r, %c, %eq : tensor<3xf32>, tensor<3xi64>, tensor<2x3xf32>, tensor<3xi1>
}

// -----

// Data movement: Transpose, Expand, Slice backwards with an end past the
// start (INT64_MIN + 1, as exporters write "to the beginning"), Where.
// CHECK-LABEL: func.func @movement
// CHECK-DAG: %[[T:.+]] = "onnx.Constant"() <{value = dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>}>
// CHECK-DAG: %[[E:.+]] = "onnx.Constant"() <{value = dense<{{\[}}{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00]], {{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00]]]> : tensor<2x2x3xf32>}>
// CHECK-DAG: %[[REV:.+]] = "onnx.Constant"() <{value = dense<[3, 2, 2]> : tensor<3xi64>}>
// CHECK-DAG: %[[W:.+]] = "onnx.Constant"() <{value = dense<[3, 0, 0]> : tensor<3xi64>}>
// CHECK: return %[[T]], %[[E]], %[[REV]], %[[W]]
func.func @movement() -> (tensor<3x2xf32>, tensor<2x2x3xf32>, tensor<3xi64>, tensor<3xi64>) {
  %a = "onnx.Constant"() <{value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %t = "onnx.Transpose"(%a) <{perm = [1, 0]}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %sh = "onnx.Constant"() <{value = dense<[2, 2, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %row = "onnx.Constant"() <{value = dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>}> : () -> tensor<1x3xf32>
  %e = "onnx.Expand"(%row, %sh) : (tensor<1x3xf32>, tensor<3xi64>) -> tensor<2x2x3xf32>
  %st = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %en = "onnx.Constant"() <{value = dense<-9223372036854775807> : tensor<1xi64>}> : () -> tensor<1xi64>
  %stp = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ax = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %rev = "onnx.Slice"(%sh, %st, %en, %ax, %stp) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>}> : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %two = "onnx.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %gt = "onnx.Greater"(%rev, %two) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %zero = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %lt = "onnx.Less"(%rev, %two) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %w0 = "onnx.Where"(%gt, %rev, %zero) : (tensor<3xi1>, tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %w = "onnx.Where"(%lt, %rev, %w0) : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %t, %e, %rev, %w : tensor<3x2xf32>, tensor<2x2x3xf32>, tensor<3xi64>, tensor<3xi64>
}

// -----

// Left alone: a result over max-elements (ConstantOfShape 100 x 100), a
// Gather index out of range and an integer division by zero (run-time
// errors that name the node), arithmetic on a dynamic dim.
// CHECK-LABEL: func.func @not_folded
// CHECK: "onnx.ConstantOfShape"
// CHECK: "onnx.Gather"
// CHECK: "onnx.Div"
// CHECK: "onnx.Shape"
// CHECK: "onnx.Mul"
func.func @not_folded(%x: tensor<?x8xf32>) -> (tensor<100x100xf32>, tensor<i64>, tensor<3xi64>, tensor<2xi64>) {
  %big = "onnx.Constant"() <{value = dense<[100, 100]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %c = "onnx.ConstantOfShape"(%big) : (tensor<2xi64>) -> tensor<100x100xf32>
  %a = "onnx.Constant"() <{value = dense<[1, 2, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %i = "onnx.Constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %g = "onnx.Gather"(%a, %i) : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %z = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %d = "onnx.Div"(%a, %z) : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %s = "onnx.Shape"(%x) : (tensor<?x8xf32>) -> tensor<2xi64>
  %two = "onnx.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %m = "onnx.Mul"(%s, %two) : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  return %c, %g, %d, %m : tensor<100x100xf32>, tensor<i64>, tensor<3xi64>, tensor<2xi64>
}

// -----

// A folded value that a terminator declares with a less precise type: the
// terminator keeps the op, onnx users go on with the constant.
// CHECK-LABEL: func.func @terminator_type
// CHECK: %[[A:.+]] = "onnx.Add"
// CHECK-NEXT: %[[N:.+]] = "onnx.Constant"() <{value = dense<[-4, -6]> : tensor<2xi64>}>
// CHECK-NEXT: return %[[A]], %[[N]]
func.func @terminator_type() -> (tensor<?xi64>, tensor<2xi64>) {
  %a = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s = "onnx.Add"(%a, %a) : (tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>
  %n = "onnx.Neg"(%s) : (tensor<?xi64>) -> tensor<2xi64>
  %k = "onnx.Identity"(%n) : (tensor<2xi64>) -> tensor<2xi64>
  return %s, %k : tensor<?xi64>, tensor<2xi64>
}

// -----

// Shapes from constants that overflow or are negative are not folded (and
// do not crash the compiler): the ops report their error at run time.
// CHECK-LABEL: func.func @hostile_shapes
// CHECK: "onnx.ConstantOfShape"
// CHECK: "onnx.Expand"
// CHECK: "onnx.Expand"
func.func @hostile_shapes() -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) {
  %huge = "onnx.Constant"() <{value = dense<[4294967296, 4294967296]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %c = "onnx.ConstantOfShape"(%huge) : (tensor<2xi64>) -> tensor<?x?xf32>
  %one = "onnx.Constant"() <{value = dense<1.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %e = "onnx.Expand"(%one, %huge) : (tensor<1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %neg = "onnx.Constant"() <{value = dense<-3> : tensor<1xi64>}> : () -> tensor<1xi64>
  %n = "onnx.Expand"(%one, %neg) : (tensor<1xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %c, %e, %n : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>
}

// -----

// Mod folds with both signs (Swin's window padding, (w - h % w) % w):
// fmod = 0 takes the divisor's sign, fmod = 1 the dividend's; Mod by zero is
// left to the run time.
// CHECK-LABEL: func.func @mod
// CHECK-DAG: "onnx.Constant"() <{value = dense<[1, 2, -2, -1, 0]> : tensor<5xi64>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[1, -1, 1, -1, 0]> : tensor<5xi64>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[1.500000e+00, -1.500000e+00]> : tensor<2xf32>}>
// CHECK: "onnx.Mod"
// CHECK-NOT: "onnx.Mod"
func.func @mod() -> (tensor<5xi64>, tensor<5xi64>, tensor<2xf32>, tensor<5xi64>) {
  %a = "onnx.Constant"() <{value = dense<[7, -7, 7, -7, 9]> : tensor<5xi64>}> : () -> tensor<5xi64>
  %b = "onnx.Constant"() <{value = dense<[3, 3, -3, -3, -1]> : tensor<5xi64>}> : () -> tensor<5xi64>
  %m = "onnx.Mod"(%a, %b) <{fmod = 0 : i64}> : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  %f = "onnx.Mod"(%a, %b) <{fmod = 1 : i64}> : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  %x = "onnx.Constant"() <{value = dense<[5.5, -5.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %g = "onnx.Mod"(%x, %y) <{fmod = 1 : i64}> : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %z = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %k = "onnx.Mod"(%a, %z) <{fmod = 0 : i64}> : (tensor<5xi64>, tensor<1xi64>) -> tensor<5xi64>
  return %m, %f, %g, %k : tensor<5xi64>, tensor<5xi64>, tensor<2xf32>, tensor<5xi64>
}
