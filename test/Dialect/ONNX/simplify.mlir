// RUN: onnx-mlir-opt %s --split-input-file --onnx-simplify | FileCheck %s

// No-ops: Identity, inference Dropout (no training_mode, mask unused),
// Cast to the same type, Transpose by the identity, Reshape and Expand to
// the input's own static type.
// CHECK-LABEL: func.func @no_ops
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @no_ops(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "onnx.Identity"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1:2 = "onnx.Dropout"(%0) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>)
  %2 = "onnx.Cast"(%1#0) <{to = 1}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "onnx.Transpose"(%2) <{perm = [0, 1]}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %4 = "onnx.Reshape"(%3, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %5 = "onnx.Expand"(%4, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %5 : tensor<2x3xf32>
}

// -----

// Kept: a Dropout in training mode, one whose mask is used, a Cast that
// changes the type.
// CHECK-LABEL: func.func @kept
// CHECK: "onnx.Dropout"
// CHECK: "onnx.Dropout"
// CHECK: "onnx.Cast"
func.func @kept(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xf64>) {
  %t = "onnx.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %0:2 = "onnx.Dropout"(%x, %t) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xi1>)
  %1:2 = "onnx.Dropout"(%0#0) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>)
  %2 = "onnx.Cast"(%1#0) <{to = 11}> : (tensor<4xf32>) -> tensor<4xf64>
  return %1#0, %1#1, %2 : tensor<4xf32>, tensor<4xi1>, tensor<4xf64>
}

// -----

// Transpose chains compose: the attention heads' (0, 2, 1, 3) twice is the
// identity; (0, 2, 1, 3) then (0, 1, 3, 2) is (0, 2, 3, 1).
// CHECK-LABEL: func.func @transposes
// CHECK-SAME: (%[[X:.+]]: tensor<2x8x4x16xf32>)
// CHECK: %[[T:.+]] = "onnx.Transpose"(%[[X]]) <{perm = [0, 2, 3, 1]}> : (tensor<2x8x4x16xf32>) -> tensor<2x4x16x8xf32>
// CHECK: return %[[X]], %[[T]]
func.func @transposes(%x: tensor<2x8x4x16xf32>) -> (tensor<2x8x4x16xf32>, tensor<2x4x16x8xf32>) {
  %0 = "onnx.Transpose"(%x) <{perm = [0, 2, 1, 3]}> : (tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32>
  %1 = "onnx.Transpose"(%0) <{perm = [0, 2, 1, 3]}> : (tensor<2x4x8x16xf32>) -> tensor<2x8x4x16xf32>
  %2 = "onnx.Transpose"(%0) <{perm = [0, 1, 3, 2]}> : (tensor<2x4x8x16xf32>) -> tensor<2x4x16x8xf32>
  return %1, %2 : tensor<2x8x4x16xf32>, tensor<2x4x16x8xf32>
}

// -----

// Reshape chains: Flatten of a Reshape (static result) and Reshape of an
// Unsqueeze read the first op's input; a Reshape whose target copies a dim
// (0) of its input is kept.
// CHECK-LABEL: func.func @reshapes
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[Y:.+]]: tensor<?x12xf32>)
// CHECK-DAG: %[[S6:.+]] = "onnx.Constant"() <{value = dense<[6, 4]> : tensor<2xi64>}>
// CHECK-DAG: %[[SD:.+]] = "onnx.Constant"() <{value = dense<[-1, 4]> : tensor<2xi64>}>
// CHECK-DAG: %[[F:.+]] = "onnx.Reshape"(%[[X]], %[[S6]]) <{allowzero = 0 : i64}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
// CHECK-DAG: %[[D:.+]] = "onnx.Reshape"(%[[Y]], %[[SD]]) <{allowzero = 0 : i64}> : (tensor<?x12xf32>, tensor<2xi64>) -> tensor<?x4xf32>
// CHECK-DAG: %[[K:.+]] = "onnx.Reshape"(%{{.+}}, %{{.+}}) <{allowzero = 0 : i64}> : (tensor<1x?x12xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK: return %[[F]], %[[D]], %[[K]]
func.func @reshapes(%x: tensor<2x3x4xf32>, %y: tensor<?x12xf32>) -> (tensor<6x4xf32>, tensor<?x4xf32>, tensor<?x?x?xf32>) {
  %s = "onnx.Constant"() <{value = dense<[6, 2, 2]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<6x2x2xf32>
  %1 = "onnx.Flatten"(%0) <{axis = 1}> : (tensor<6x2x2xf32>) -> tensor<6x4xf32>
  %ax = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %u = "onnx.Unsqueeze"(%y, %ax) : (tensor<?x12xf32>, tensor<1xi64>) -> tensor<1x?x12xf32>
  %sd = "onnx.Constant"() <{value = dense<[-1, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %2 = "onnx.Reshape"(%u, %sd) : (tensor<1x?x12xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %sz = "onnx.Constant"() <{value = dense<[0, -1, 4]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %3 = "onnx.Reshape"(%u, %sz) : (tensor<1x?x12xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return %1, %2, %3 : tensor<6x4xf32>, tensor<?x4xf32>, tensor<?x?x?xf32>
}

// -----

// Conv then Mul by a per-channel weight and Add of a scalar weight: the
// filter rows and the bias are scaled, then the bias shifted; one Conv.
// CHECK-LABEL: func.func @conv_mul_add
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x8x8xf32>)
// CHECK-DAG: %[[W:.+]] = "onnx.Constant"() <{value = dense<5.000000e-01> : tensor<4x3x3x3xf32>}>
// CHECK-DAG: %[[B:.+]] = "onnx.Constant"() <{value = dense<1.000000e-01> : tensor<4xf32>}>
// CHECK-DAG: %[[S:.+]] = "onnx.Constant"() <{value = dense<{{.*}}> : tensor<1x4x1x1xf32>}>
// CHECK-DAG: %[[K:.+]] = "onnx.Constant"() <{value = dense<2.500000e-01> : tensor<f32>}>
// CHECK: %[[SV:.+]] = "onnx.Reshape"(%[[S]], %{{.+}}) {{.*}} -> tensor<4xf32>
// CHECK: %[[SC:.+]] = "onnx.Reshape"(%[[S]], %{{.+}}) {{.*}} -> tensor<4x1x1x1xf32>
// CHECK: %[[WS:.+]] = "onnx.Mul"(%[[W]], %[[SC]])
// CHECK: %[[BS:.+]] = "onnx.Mul"(%[[B]], %[[SV]])
// CHECK: %[[KV:.+]] = "onnx.Reshape"(%[[K]], %{{.+}}) {{.*}} -> tensor<1xf32>
// CHECK: %[[BK:.+]] = "onnx.Add"(%[[BS]], %[[KV]])
// CHECK: %[[Y:.+]] = "onnx.Conv"(%[[X]], %[[WS]], %[[BK]])
// CHECK-NOT: "onnx.Mul"
// CHECK-NOT: "onnx.Add"
// CHECK: return %[[Y]]
func.func @conv_mul_add(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %b = "onnx.Constant"() <{value = dense<0.1> : tensor<4xf32>}> : () -> tensor<4xf32>
  %s = "onnx.Constant"() <{value = dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]]> : tensor<1x4x1x1xf32>}> : () -> tensor<1x4x1x1xf32>
  %k = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %c = "onnx.Conv"(%x, %w, %b) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1]}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %m = "onnx.Mul"(%s, %c) : (tensor<1x4x1x1xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %y = "onnx.Add"(%m, %k) : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// Not folded: Add of a weight that varies along the image (not one value
// per channel), Mul by a function argument, a Conv result with two users.
// CHECK-LABEL: func.func @conv_not_folded
// CHECK-COUNT-3: "onnx.Conv"
// CHECK: "onnx.Add"
// CHECK: "onnx.Mul"
// CHECK: "onnx.Mul"
func.func @conv_not_folded(%x: tensor<1x3x8x8xf32>, %a: tensor<4x1x1xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %img = "onnx.Constant"() <{value = dense<1.0> : tensor<8x8xf32>}> : () -> tensor<8x8xf32>
  %s = "onnx.Constant"() <{value = dense<2.0> : tensor<4x1x1xf32>}> : () -> tensor<4x1x1xf32>
  %c0 = "onnx.Conv"(%x, %w) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1]}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %c1 = "onnx.Conv"(%x, %w) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1]}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %c2 = "onnx.Conv"(%x, %w) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1]}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %0 = "onnx.Add"(%c0, %img) : (tensor<1x4x8x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8x8xf32>
  %1 = "onnx.Mul"(%c1, %a) : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %2 = "onnx.Mul"(%c2, %s) : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %0, %1, %2, %c2 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// Gemm then Mul by a constant scalar: alpha and beta scaled; Gemm without
// C then Add of a bias row: the row becomes C.
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.+]]: tensor<2x8xf32>, %[[B:.+]]: tensor<8x4xf32>, %[[C:.+]]: tensor<4xf32>)
// CHECK: %[[BIAS:.+]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1x4xf32>}>
// CHECK: %[[G:.+]] = "onnx.Gemm"(%[[A]], %[[B]], %[[C]]) <{alpha = 1.500000e+00 : f32, beta = 3.000000e+00 : f32
// CHECK: %[[H:.+]] = "onnx.Gemm"(%[[A]], %[[B]], %[[BIAS]]) <{alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32
// CHECK: return %[[G]], %[[H]]
func.func @gemm(%a: tensor<2x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %three = "onnx.Constant"() <{value = dense<3.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %bias = "onnx.Constant"() <{value = dense<1.0> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
  %g = "onnx.Gemm"(%a, %b, %c) <{alpha = 0.5 : f32}> : (tensor<2x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %0 = "onnx.Mul"(%g, %three) : (tensor<2x4xf32>, tensor<1xf32>) -> tensor<2x4xf32>
  %h = "onnx.Gemm"(%a, %b) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %1 = "onnx.Add"(%bias, %h) : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// QLinearMatMul: the int32 product of MatMulInteger with the zero points,
// scaled by a_scale * b_scale (cast to f32), requantized by QuantizeLinear
// (per column: axis -1 for the 1-D y_scale).
// CHECK-LABEL: func.func @qlinear_matmul
// CHECK: %[[ACC:.+]] = "onnx.MatMulInteger"(%arg0, %arg3, %arg2, %arg5) {{.*}} : (tensor<2x4xui8>, tensor<4x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<2x3xi32>
// CHECK: %[[ACCF:.+]] = "onnx.Cast"(%[[ACC]]) {{.*}}to = 1 : i64{{.*}} -> tensor<2x3xf32>
// CHECK: %[[SA:.+]] = "onnx.Cast"(%arg1) {{.*}} -> tensor<f32>
// CHECK: %[[SB:.+]] = "onnx.Cast"(%arg4) {{.*}} -> tensor<3xf32>
// CHECK: %[[S:.+]] = "onnx.Mul"(%[[SA]], %[[SB]])
// CHECK: %[[X:.+]] = "onnx.Mul"(%[[ACCF]], %[[S]])
// CHECK: "onnx.QuantizeLinear"(%[[X]], %arg6, %arg7) <{axis = -1 : i64{{.*}}}> : (tensor<2x3xf32>, tensor<3xf16>, tensor<3xui8>) -> tensor<2x3xui8>
// CHECK-NOT: onnx.QLinearMatMul
func.func @qlinear_matmul(%a: tensor<2x4xui8>, %sa: tensor<f16>, %za: tensor<ui8>, %b: tensor<4x3xui8>, %sb: tensor<3xf16>, %zb: tensor<ui8>, %sy: tensor<3xf16>, %zy: tensor<3xui8>) -> tensor<2x3xui8> {
  %0 = "onnx.QLinearMatMul"(%a, %sa, %za, %b, %sb, %zb, %sy, %zy) : (tensor<2x4xui8>, tensor<f16>, tensor<ui8>, tensor<4x3xui8>, tensor<3xf16>, tensor<ui8>, tensor<3xf16>, tensor<3xui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// OptionalHasElement-18: no input is false, a plain tensor true, an
// onnx.Optional of a value true; OptionalGetElement of a tensor is it.
// CHECK-LABEL: func.func @optionals
// CHECK-DAG: %[[F:.+]] = "onnx.Constant"() <{value = dense<false> : tensor<i1>}>
// CHECK-DAG: %[[T:.+]] = "onnx.Constant"() <{value = dense<true> : tensor<i1>}>
// CHECK-NOT: onnx.Optional
// CHECK: return %[[F]], %[[T]], %[[T]], %arg0
func.func @optionals(%x: tensor<4xf32>) -> (tensor<i1>, tensor<i1>, tensor<i1>, tensor<4xf32>) {
  %0 = "onnx.OptionalHasElement"() : () -> tensor<i1>
  %1 = "onnx.OptionalHasElement"(%x) : (tensor<4xf32>) -> tensor<i1>
  %o = "onnx.Optional"(%x) : (tensor<4xf32>) -> !onnx.opt<tensor<4xf32>>
  %2 = "onnx.OptionalHasElement"(%o) : (!onnx.opt<tensor<4xf32>>) -> tensor<i1>
  %3 = "onnx.OptionalGetElement"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<i1>, tensor<i1>, tensor<i1>, tensor<4xf32>
}

// -----

// An If on a constant condition becomes the taken branch: false takes
// else_branch, the first region (regions are in attribute-name order); the
// return gets a tensor.cast to the If's declared type.
// CHECK-LABEL: func.func @constant_if
// CHECK-NOT: onnx.If
// CHECK: %[[NEG:.+]] = "onnx.Neg"(%arg0) : (tensor<2xf32>) -> tensor<?xf32>
// CHECK: %[[CAST:.+]] = tensor.cast %[[NEG]] : tensor<?xf32> to tensor<2xf32>
// CHECK: return %[[CAST]]
func.func @constant_if(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = "onnx.Constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
  %0 = "onnx.If"(%c) ({
    %n = "onnx.Neg"(%x) : (tensor<2xf32>) -> tensor<?xf32>
    onnx.Yield %n : tensor<?xf32>
  }, {
    onnx.Yield %x : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// An If whose branches yield a [1] and a scalar (AffineGrid's function
// body) has no rank; its uses read it through broadcasting against a rank-1
// operand and as CastLike's target, which leading unit dims do not change:
// the scalar branch yields it unsqueezed to [1].
// (The greedy driver hoists the axes constant out of the branch.)
// CHECK-LABEL: func.func @if_branch_ranks
// CHECK: %[[AXES:.+]] = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}>
// CHECK: "onnx.If"
// CHECK: onnx.Yield %arg1 : tensor<1xf32>
// CHECK: %[[WIDE:.+]] = "onnx.Unsqueeze"(%arg2, %[[AXES]]) : (tensor<f32>, tensor<1xi64>) -> tensor<1xf32>
// CHECK: onnx.Yield %[[WIDE]] : tensor<1xf32>
func.func @if_branch_ranks(%c: tensor<i1>, %a: tensor<1xf32>, %s: tensor<f32>, %v: tensor<?xf32>, %i: tensor<?xi64>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = "onnx.If"(%c) ({
    onnx.Yield %a : tensor<1xf32>
  }, {
    onnx.Yield %s : tensor<f32>
  }) : (tensor<i1>) -> tensor<*xf32>
  %1 = "onnx.Mul"(%v, %0) : (tensor<?xf32>, tensor<*xf32>) -> tensor<?xf32>
  %2 = "onnx.CastLike"(%i, %0) : (tensor<?xi64>, tensor<*xf32>) -> tensor<?xf32>
  return %1, %2 : tensor<?xf32>, tensor<?xf32>
}

// -----

// A use that sees the rank (Shape) keeps the If as it is.
// CHECK-LABEL: func.func @if_branch_ranks_shape
// CHECK-NOT: onnx.Unsqueeze
func.func @if_branch_ranks_shape(%c: tensor<i1>, %a: tensor<1xf32>, %s: tensor<f32>) -> tensor<?xi64> {
  %0 = "onnx.If"(%c) ({
    onnx.Yield %a : tensor<1xf32>
  }, {
    onnx.Yield %s : tensor<f32>
  }) : (tensor<i1>) -> tensor<*xf32>
  %1 = "onnx.Shape"(%0) : (tensor<*xf32>) -> tensor<?xi64>
  return %1 : tensor<?xi64>
}

// -----

// The branches yield a [2] and a [2, 3] and Shape reads the rank: the rest
// of the function (Shape, Shape) moves into both branches, each with its
// own rank, and the return takes the If's new result.
// CHECK-LABEL: func.func @if_sink_continuation
// CHECK: %[[IF:.+]] = "onnx.If"(%arg0) ({
// CHECK: %[[S1:.+]] = "onnx.Shape"(%arg2) {{.*}} : (tensor<2x3xf32>) -> tensor<?xi64>
// CHECK: %[[R1:.+]] = "onnx.Shape"(%[[S1]])
// CHECK: onnx.Yield %[[R1]]
// CHECK: }, {
// CHECK: %[[S2:.+]] = "onnx.Shape"(%arg1) {{.*}} : (tensor<2xf32>) -> tensor<?xi64>
// CHECK: %[[R2:.+]] = "onnx.Shape"(%[[S2]])
// CHECK: onnx.Yield %[[R2]]
// CHECK: }) : (tensor<i1>) -> tensor<1xi64>
// CHECK-NEXT: return %[[IF]] : tensor<1xi64>
func.func @if_sink_continuation(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2x3xf32>) -> tensor<1xi64> {
  %0 = "onnx.If"(%c) ({
    onnx.Yield %b : tensor<2x3xf32>
  }, {
    onnx.Yield %a : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<*xf32>
  %1 = "onnx.Shape"(%0) : (tensor<*xf32>) -> tensor<?xi64>
  %2 = "onnx.Shape"(%1) : (tensor<?xi64>) -> tensor<1xi64>
  return %2 : tensor<1xi64>
}
