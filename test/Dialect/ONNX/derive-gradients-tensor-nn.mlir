// RUN: onnx-mlir-opt %s --split-input-file --onnx-derive-gradients | FileCheck %s

// onnx-derive-gradients, one case per rule of the tensor, reduction,
// pooling and normalisation ops not covered by derive-gradients.mlir (the
// math and activations: derive-gradients-math.mlir). The seed (the gradient
// of y) is a constant of ones, captured as G.

// Cast f32 -> f64: dX = dY cast back to x's type.
// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf64>}>
// CHECK: %[[GX:.*]] = "onnx.CastLike"(%[[G]], %[[X]]) {{.*}} : (tensor<2x3xf64>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[GX]] :
func.func @cast(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Cast"(%x) {to = 11 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf64>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf64>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// CastLike f32 like f64: dX = dY cast back to x's type (not to the
// type-giving operand's).
// CHECK-LABEL: func.func @cast_like
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[T:.*]]: tensor<f64>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf64>}>
// CHECK: %[[GX:.*]] = "onnx.CastLike"(%[[G]], %[[X]]) {{.*}} : (tensor<2x3xf64>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[GX]] :
func.func @cast_like(%x: tensor<2x3xf32>, %t: tensor<f64>) -> tensor<2x3xf32> {
  %y = "onnx.CastLike"(%x, %t) : (tensor<2x3xf32>, tensor<f64>) -> tensor<2x3xf64>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf64>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Concat along 1: dY split back into the inputs' sizes (3, 1) along 1.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x1xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x4xf32>}>
// CHECK: %[[SZ:.*]] = "onnx.Constant"() <{value = dense<[3, 1]> : tensor<2xi64>}>
// CHECK: %[[S:.*]]:2 = "onnx.Split"(%[[G]], %[[SZ]]) <{axis = 1 : i64}> : (tensor<2x4xf32>, tensor<2xi64>) -> (tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK: return %[[S]]#0, %[[S]]#1 :
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>) {
  %y = "onnx.Concat"(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %g:2 = "onnx.preview.training.Gradient"(%a, %b, %a, %b, %y) {xs = ["a", "b"], y = "y"} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>)
  return %g#0, %g#1 : tensor<2x3xf32>, tensor<2x1xf32>
}

// -----

// Split along 1, y the second part: dX is the parts' gradients concatenated
// along 1, zeros for the first part (no gradient flows to it).
// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x4xf32>}>
// CHECK: %[[Z:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<2x2xf32>}>
// CHECK: %[[GX:.*]] = "onnx.Concat"(%[[Z]], %[[G]]) <{axis = 1 : i64}> : (tensor<2x2xf32>, tensor<2x4xf32>) -> tensor<2x6xf32>
// CHECK: return %[[GX]] :
func.func @split(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %s = "onnx.Constant"() {value = dense<[2, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %y:2 = "onnx.Split"(%x, %s) {axis = 1 : i64} : (tensor<2x6xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x4xf32>)
  %g = "onnx.preview.training.Gradient"(%x, %x, %y#1) {xs = ["x"], y = "y"} : (tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x4xf32>) -> tensor<2x6xf32>
  return %g : tensor<2x6xf32>
}

// -----

// Pad by 1 row before, 2 columns after: dX is dY sliced back, from
// [1, 0] to [end, -2].
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<3x5xf32>}>
// CHECK: %[[ST:.*]] = "onnx.Constant"() <{value = dense<[1, 0]> : tensor<2xi64>}>
// CHECK: %[[EN:.*]] = "onnx.Constant"() <{value = dense<[9223372036854775807, -2]> : tensor<2xi64>}>
// CHECK: %[[GX:.*]] = "onnx.Slice"(%[[G]], %[[ST]], %[[EN]]) {{.*}} -> tensor<2x3xf32>
// CHECK: return %[[GX]] :
func.func @pad(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %p = "onnx.Constant"() {value = dense<[1, 0, 0, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %y = "onnx.Pad"(%x, %p) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<3x5xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Gather along 0 with 2x2 indices (one negative): the indices, flattened
// and made non-negative (i < 0 ? i + 4 : i), broadcast over the columns;
// dY with the index dims merged (4x3) is scatter-added into zeros of x's
// shape there.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>)
// CHECK: %[[I:.*]] = "onnx.Constant"() <{value = dense<{{\[\[}}0, -1], [2, 0]]> : tensor<2x2xi64>}>
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x2x3xf32>}>
// CHECK: %[[FI:.*]] = "onnx.Reshape"(%[[I]], %{{.*}}) {{.*}} -> tensor<4xi64>
// CHECK: %[[SH:.*]] = "onnx.Shape"(%[[X]])
// CHECK: %[[DIM:.*]] = "onnx.Gather"(%[[SH]], %{{.*}})
// CHECK: %[[NEG:.*]] = "onnx.Less"(%[[FI]], %{{.*}})
// CHECK: %[[WRAP:.*]] = "onnx.Add"(%[[FI]], %[[DIM]])
// CHECK: %[[POS:.*]] = "onnx.Where"(%[[NEG]], %[[WRAP]], %[[FI]])
// CHECK: %[[FG:.*]] = "onnx.Reshape"(%[[G]], %{{.*}}) {{.*}} -> tensor<4x3xf32>
// CHECK: %[[COL:.*]] = "onnx.Reshape"(%[[POS]], %{{.*}}) {{.*}} -> tensor<4x1xi64>
// CHECK: %[[IDX:.*]] = "onnx.Expand"(%[[COL]], %{{.*}}) {{.*}} -> tensor<4x3xi64>
// CHECK: %[[Z:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<4x3xf32>}>
// CHECK: %[[GX:.*]] = "onnx.ScatterElements"(%[[Z]], %[[IDX]], %[[FG]]) <{axis = 0 : i64, reduction = "add"}>
// CHECK: return %[[GX]] :
func.func @gather(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %i = "onnx.Constant"() {value = dense<[[0, -1], [2, 0]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
  %y = "onnx.Gather"(%x, %i) {axis = 0 : i64} : (tensor<4x3xf32>, tensor<2x2xi64>) -> tensor<2x2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x2x3xf32>) -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}

// -----

// GatherElements along 1: dY scatter-added into zeros at the same indices.
// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<2x2xi64>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x2xf32>}>
// CHECK: %[[Z:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[GX:.*]] = "onnx.ScatterElements"(%[[Z]], %[[I]], %[[G]]) <{axis = 1 : i64, reduction = "add"}> : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
// CHECK: return %[[GX]] :
func.func @gather_elements(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x3xf32> {
  %y = "onnx.GatherElements"(%x, %i) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Expand 3x1 -> 2x3x4: dY summed over the new dim 0 and the broadcast dim
// 2, reshaped to 3x1.
// CHECK-LABEL: func.func @expand
// CHECK-SAME: (%[[X:.*]]: tensor<3x1xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3x4xf32>}>
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<[0, 2]> : tensor<2xi64>}>
// CHECK: %[[S:.*]] = "onnx.ReduceSum"(%[[G]], %[[AX]]) <{keepdims = 1 : i64{{.*}}-> tensor<1x3x1xf32>
// CHECK: %[[GX:.*]] = "onnx.Reshape"(%[[S]], %{{.*}}) {{.*}} -> tensor<3x1xf32>
// CHECK: return %[[GX]] :
func.func @expand(%x: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %s = "onnx.Constant"() {value = dense<[2, 3, 4]> : tensor<3xi64>} : () -> tensor<3xi64>
  %y = "onnx.Expand"(%x, %s) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<3x1xf32>, tensor<3x1xf32>, tensor<2x3x4xf32>) -> tensor<3x1xf32>
  return %g : tensor<3x1xf32>
}

// -----

// Flatten: dX = dY reshaped to x's shape.
// CHECK-LABEL: func.func @flatten
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x12xf32>}>
// CHECK: %[[SH:.*]] = "onnx.Constant"() <{value = dense<[2, 3, 4]> : tensor<3xi64>}>
// CHECK: %[[GX:.*]] = "onnx.Reshape"(%[[G]], %[[SH]]) {{.*}} -> tensor<2x3x4xf32>
// CHECK: return %[[GX]] :
func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = "onnx.Flatten"(%x) {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x12xf32>) -> tensor<2x3x4xf32>
  return %g : tensor<2x3x4xf32>
}

// -----

// Squeeze: dX = dY reshaped to x's shape.
// CHECK-LABEL: func.func @squeeze
// CHECK-SAME: (%[[X:.*]]: tensor<2x1x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[SH:.*]] = "onnx.Constant"() <{value = dense<[2, 1, 3]> : tensor<3xi64>}>
// CHECK: %[[GX:.*]] = "onnx.Reshape"(%[[G]], %[[SH]]) {{.*}} -> tensor<2x1x3xf32>
// CHECK: return %[[GX]] :
func.func @squeeze(%x: tensor<2x1x3xf32>) -> tensor<2x1x3xf32> {
  %a = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %y = "onnx.Squeeze"(%x, %a) : (tensor<2x1x3xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x1x3xf32>, tensor<2x1x3xf32>, tensor<2x3xf32>) -> tensor<2x1x3xf32>
  return %g : tensor<2x1x3xf32>
}

// -----

// Unsqueeze: dX = dY reshaped to x's shape.
// CHECK-LABEL: func.func @unsqueeze
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1x2x3xf32>}>
// CHECK: %[[SH:.*]] = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}>
// CHECK: %[[GX:.*]] = "onnx.Reshape"(%[[G]], %[[SH]]) {{.*}} -> tensor<2x3xf32>
// CHECK: return %[[GX]] :
func.func @unsqueeze(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %y = "onnx.Unsqueeze"(%x, %a) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<1x2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// Dropout in inference (no training_mode): the identity, dX = dY.
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK-NEXT: return %[[G]] :
func.func @dropout(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx.Dropout"(%x) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// ReduceMean (keepdims 0): dY unsqueezed and expanded back over x, divided
// by the count size(x) / size(y).
// CHECK-LABEL: func.func @reduce_mean
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.ReduceMean"(%[[X]], %{{.*}})
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2xf32>}>
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}>
// CHECK: %[[U:.*]] = "onnx.Unsqueeze"(%[[G]], %[[AX]]) {{.*}} -> tensor<2x1xf32>
// CHECK: %[[E:.*]] = "onnx.Expand"(%[[U]], %{{.*}}) {{.*}} -> tensor<2x3xf32>
// CHECK: %[[NX:.*]] = "onnx.Size"(%[[X]])
// CHECK: %[[FX:.*]] = "onnx.CastLike"(%[[NX]], %[[X]])
// CHECK: %[[NY:.*]] = "onnx.Size"(%[[Y]])
// CHECK: %[[FY:.*]] = "onnx.CastLike"(%[[NY]], %[[X]])
// CHECK: %[[CNT:.*]] = "onnx.Div"(%[[FX]], %[[FY]])
// CHECK: %[[GX:.*]] = "onnx.Div"(%[[E]], %[[CNT]])
// CHECK: return %[[GX]] :
func.func @reduce_mean(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %y = "onnx.ReduceMean"(%x, %a) {keepdims = 0 : i64} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// ReduceMax (keepdims 1): dX = expand(dY) * [x == expand(y)], shared evenly
// between ties (divided by the number of maxima per row).
// CHECK-LABEL: func.func @reduce_max
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.ReduceMax"(%[[X]], %{{.*}})
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x1xf32>}>
// CHECK: %[[EG:.*]] = "onnx.Expand"(%[[G]], %{{.*}}) {{.*}} -> tensor<2x3xf32>
// CHECK: %[[EY:.*]] = "onnx.Expand"(%[[Y]], %{{.*}}) {{.*}} -> tensor<2x3xf32>
// CHECK: %[[EQ:.*]] = "onnx.Equal"(%[[X]], %[[EY]])
// CHECK: %[[HIT:.*]] = "onnx.CastLike"(%[[EQ]], %[[X]])
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}>
// CHECK: %[[CNT:.*]] = "onnx.ReduceSum"(%[[HIT]], %[[AX]]) <{keepdims = 1 : i64{{.*}}-> tensor<2x1xf32>
// CHECK: %[[M:.*]] = "onnx.Mul"(%[[EG]], %[[HIT]])
// CHECK: %[[GX:.*]] = "onnx.Div"(%[[M]], %[[CNT]])
// CHECK: return %[[GX]] :
func.func @reduce_max(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %y = "onnx.ReduceMax"(%x, %a) {keepdims = 1 : i64} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// ReduceMin (keepdims 0): as ReduceMax, dY and y unsqueezed first.
// CHECK-LABEL: func.func @reduce_min
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.ReduceMin"(%[[X]], %{{.*}})
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2xf32>}>
// CHECK: %[[UG:.*]] = "onnx.Unsqueeze"(%[[G]], %{{.*}}) {{.*}} -> tensor<2x1xf32>
// CHECK: %[[EG:.*]] = "onnx.Expand"(%[[UG]], %{{.*}}) {{.*}} -> tensor<2x3xf32>
// CHECK: %[[UY:.*]] = "onnx.Unsqueeze"(%[[Y]], %{{.*}}) {{.*}} -> tensor<2x1xf32>
// CHECK: %[[EY:.*]] = "onnx.Expand"(%[[UY]], %{{.*}}) {{.*}} -> tensor<2x3xf32>
// CHECK: %[[EQ:.*]] = "onnx.Equal"(%[[X]], %[[EY]])
// CHECK: %[[HIT:.*]] = "onnx.CastLike"(%[[EQ]], %[[X]])
// CHECK: %[[CNT:.*]] = "onnx.ReduceSum"(%[[HIT]], %{{.*}}) <{keepdims = 1 : i64{{.*}}-> tensor<2x1xf32>
// CHECK: %[[M:.*]] = "onnx.Mul"(%[[EG]], %[[HIT]])
// CHECK: %[[GX:.*]] = "onnx.Div"(%[[M]], %[[CNT]])
// CHECK: return %[[GX]] :
func.func @reduce_min(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %y = "onnx.ReduceMin"(%x, %a) {keepdims = 0 : i64} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// ReduceSumSquare (keepdims 1): dX = expand(dY) * 2x.
// CHECK-LABEL: func.func @reduce_sum_square
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x1xf32>}>
// CHECK: %[[EG:.*]] = "onnx.Expand"(%[[G]], %{{.*}}) {{.*}} -> tensor<2x3xf32>
// CHECK: %[[TWO:.*]] = "onnx.Constant"() <{value = dense<2.000000e+00> : tensor<f32>}>
// CHECK: %[[X2:.*]] = "onnx.Mul"(%[[X]], %[[TWO]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[EG]], %[[X2]])
// CHECK: return %[[GX]] :
func.func @reduce_sum_square(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %y = "onnx.ReduceSumSquare"(%x, %a) {keepdims = 1 : i64} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// ReduceLogSumExp (keepdims 0): dX = expand(dY) * exp(x - expand(y)).
// CHECK-LABEL: func.func @reduce_log_sum_exp
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "onnx.ReduceLogSumExp"(%[[X]], %{{.*}})
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2xf32>}>
// CHECK: %[[UG:.*]] = "onnx.Unsqueeze"(%[[G]], %{{.*}}) {{.*}} -> tensor<2x1xf32>
// CHECK: %[[EG:.*]] = "onnx.Expand"(%[[UG]], %{{.*}}) {{.*}} -> tensor<2x3xf32>
// CHECK: %[[UY:.*]] = "onnx.Unsqueeze"(%[[Y]], %{{.*}}) {{.*}} -> tensor<2x1xf32>
// CHECK: %[[EY:.*]] = "onnx.Expand"(%[[UY]], %{{.*}}) {{.*}} -> tensor<2x3xf32>
// CHECK: %[[D:.*]] = "onnx.Sub"(%[[X]], %[[EY]])
// CHECK: %[[E:.*]] = "onnx.Exp"(%[[D]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[EG]], %[[E]])
// CHECK: return %[[GX]] :
func.func @reduce_log_sum_exp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %y = "onnx.ReduceLogSumExp"(%x, %a) {keepdims = 0 : i64} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// MaxPool 2x2 stride 2: the same MaxPool with its argmax Indices (flat
// into x); dY is scatter-added into flat zeros there and reshaped to x.
// CHECK-LABEL: func.func @max_pool
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x4x4xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1x1x2x2xf32>}>
// CHECK: %{{.*}}, %[[IND:.*]] = "onnx.MaxPool"(%[[X]]) <{{{.*}}kernel_shape = [2, 2]{{.*}}strides = [2, 2]}> : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
// CHECK: %[[Z:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<1x1x4x4xf32>}>
// CHECK: %[[FZ:.*]] = "onnx.Reshape"(%[[Z]], %{{.*}}) {{.*}} -> tensor<16xf32>
// CHECK: %[[FI:.*]] = "onnx.Reshape"(%[[IND]], %{{.*}}) {{.*}} -> tensor<4xi64>
// CHECK: %[[FG:.*]] = "onnx.Reshape"(%[[G]], %{{.*}}) {{.*}} -> tensor<4xf32>
// CHECK: %[[SC:.*]] = "onnx.ScatterElements"(%[[FZ]], %[[FI]], %[[FG]]) <{axis = 0 : i64, reduction = "add"}>
// CHECK: %[[GX:.*]] = "onnx.Reshape"(%[[SC]], %{{.*}}) {{.*}} -> tensor<1x1x4x4xf32>
// CHECK: return %[[GX]] :
func.func @max_pool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %y = "onnx.MaxPool"(%x) {kernel_shape = [2, 2], strides = [2, 2]} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %g : tensor<1x1x4x4xf32>
}

// -----

// AveragePool 2x2 stride 2, no pads: dY / 4 spread back over each window by
// a depthwise (group 2) ConvTranspose with a 2x1x2x2 kernel of ones.
// CHECK-LABEL: func.func @average_pool
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1x2x2x2xf32>}>
// CHECK: %[[Q:.*]] = "onnx.Constant"() <{value = dense<2.500000e-01> : tensor<f32>}>
// CHECK: %[[D:.*]] = "onnx.Mul"(%[[G]], %[[Q]])
// CHECK: %[[K:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x1x2x2xf32>}>
// CHECK: %[[GX:.*]] = "onnx.ConvTranspose"(%[[D]], %[[K]]) <{{{.*}}group = 2 : i64, output_padding = [0, 0], pads = [0, 0, 0, 0], strides = [2, 2]}> : (tensor<1x2x2x2xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x4x4xf32>
// CHECK: return %[[GX]] :
func.func @average_pool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %y = "onnx.AveragePool"(%x) {kernel_shape = [2, 2], strides = [2, 2]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %g : tensor<1x2x4x4xf32>
}

// -----

// AveragePool 3x3, pads 1, count_include_pad 0: each output's divisor is
// the number of its window's positions inside x (a Conv of ones by ones
// with the same window); dY / count spread back by the ConvTranspose.
// CHECK-LABEL: func.func @average_pool_pads
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1x2x4x4xf32>}>
// CHECK: %[[ONES:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1x1x4x4xf32>}>
// CHECK: %[[KO:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1x1x3x3xf32>}>
// CHECK: %[[CNT:.*]] = "onnx.Conv"(%[[ONES]], %[[KO]]) <{{{.*}}pads = [1, 1, 1, 1], strides = [1, 1]}>
// CHECK: %[[D:.*]] = "onnx.Div"(%[[G]], %[[CNT]])
// CHECK: %[[K:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x1x3x3xf32>}>
// CHECK: %[[GX:.*]] = "onnx.ConvTranspose"(%[[D]], %[[K]]) <{{{.*}}group = 2 : i64, output_padding = [0, 0], pads = [1, 1, 1, 1], strides = [1, 1]}> : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32>
// CHECK: return %[[GX]] :
func.func @average_pool_pads(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %y = "onnx.AveragePool"(%x) {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %g : tensor<1x2x4x4xf32>
}

// -----

// GlobalAveragePool: dX = expand(dY / (size(x) / size(y))) to x's shape.
// CHECK-LABEL: func.func @global_average_pool
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x3x4xf32>)
// CHECK: %[[Y:.*]] = "onnx.GlobalAveragePool"(%[[X]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1x2x1x1xf32>}>
// CHECK: %[[NX:.*]] = "onnx.Size"(%[[X]])
// CHECK: %[[FX:.*]] = "onnx.CastLike"(%[[NX]], %[[X]])
// CHECK: %[[NY:.*]] = "onnx.Size"(%[[Y]])
// CHECK: %[[FY:.*]] = "onnx.CastLike"(%[[NY]], %[[X]])
// CHECK: %[[CNT:.*]] = "onnx.Div"(%[[FX]], %[[FY]])
// CHECK: %[[D:.*]] = "onnx.Div"(%[[G]], %[[CNT]])
// CHECK: %[[SH:.*]] = "onnx.Constant"() <{value = dense<[1, 2, 3, 4]> : tensor<4xi64>}>
// CHECK: %[[GX:.*]] = "onnx.Expand"(%[[D]], %[[SH]]) {{.*}} -> tensor<1x2x3x4xf32>
// CHECK: return %[[GX]] :
func.func @global_average_pool(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %y = "onnx.GlobalAveragePool"(%x) : (tensor<1x2x3x4xf32>) -> tensor<1x2x1x1xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x4xf32>
  return %g : tensor<1x2x3x4xf32>
}

// -----

// GlobalMaxPool: dX = [x == y] * dY / (number of maxima per channel).
// CHECK-LABEL: func.func @global_max_pool
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x3x4xf32>)
// CHECK: %[[Y:.*]] = "onnx.GlobalMaxPool"(%[[X]])
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1x2x1x1xf32>}>
// CHECK: %[[EQ:.*]] = "onnx.Equal"(%[[X]], %[[Y]])
// CHECK: %[[HIT:.*]] = "onnx.CastLike"(%[[EQ]], %[[X]])
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}>
// CHECK: %[[CNT:.*]] = "onnx.ReduceSum"(%[[HIT]], %[[AX]]) <{keepdims = 1 : i64{{.*}}-> tensor<1x2x1x1xf32>
// CHECK: %[[M:.*]] = "onnx.Mul"(%[[HIT]], %[[G]])
// CHECK: %[[GX:.*]] = "onnx.Div"(%[[M]], %[[CNT]])
// CHECK: return %[[GX]] :
func.func @global_max_pool(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %y = "onnx.GlobalMaxPool"(%x) : (tensor<1x2x3x4xf32>) -> tensor<1x2x1x1xf32>
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x4xf32>
  return %g : tensor<1x2x3x4xf32>
}

// -----

// BatchNormalization in inference mode (training_mode 0), with
// invstd = 1 / sqrt(var + eps) and per-channel vectors as 3x1:
// dX = dY * scale * invstd, dScale = sum(dY (x - mean)) * invstd,
// dB = sum(dY), dMean = -sum(dY) * scale * invstd,
// dVar = sum(dY (x - mean)) * -1/2 * scale * invstd^3.
// CHECK-LABEL: func.func @batch_norm_inference
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[S:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %[[M:.*]]: tensor<3xf32>, %[[V:.*]]: tensor<3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3x4xf32>}>
// CHECK: %[[SC:.*]] = "onnx.Unsqueeze"(%[[S]], %{{.*}}) {{.*}} -> tensor<3x1xf32>
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<[0, 2]> : tensor<2xi64>}>
// CHECK: %[[SG:.*]] = "onnx.ReduceSum"(%[[G]], %[[AX]]) <{keepdims = 1 : i64{{.*}}-> tensor<1x3x1xf32>
// CHECK: %[[MC:.*]] = "onnx.Unsqueeze"(%[[M]], %{{.*}}) {{.*}} -> tensor<3x1xf32>
// CHECK: %[[VC:.*]] = "onnx.Unsqueeze"(%[[V]], %{{.*}}) {{.*}} -> tensor<3x1xf32>
// CHECK: %[[EPS:.*]] = "onnx.Constant"() <{value = dense<1.000000e-03> : tensor<f32>}>
// CHECK: %[[VE:.*]] = "onnx.Add"(%[[VC]], %[[EPS]])
// CHECK: %[[SD:.*]] = "onnx.Sqrt"(%[[VE]])
// CHECK: %[[IS:.*]] = "onnx.Reciprocal"(%[[SD]])
// CHECK: %[[XC:.*]] = "onnx.Sub"(%[[X]], %[[MC]])
// CHECK: %[[GXC:.*]] = "onnx.Mul"(%[[G]], %[[XC]])
// CHECK: %[[SGXC:.*]] = "onnx.ReduceSum"(%[[GXC]], %{{.*}}) <{keepdims = 0 : i64{{.*}}-> tensor<3xf32>
// CHECK: %[[A:.*]] = "onnx.Mul"(%[[SC]], %[[IS]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[G]], %[[A]])
// CHECK: %[[VE2:.*]] = "onnx.Add"(%[[V]], %{{.*}})
// CHECK: %[[SD2:.*]] = "onnx.Sqrt"(%[[VE2]])
// CHECK: %[[ISV:.*]] = "onnx.Reciprocal"(%[[SD2]])
// CHECK: %[[GS:.*]] = "onnx.Mul"(%[[SGXC]], %[[ISV]])
// CHECK: %[[GB:.*]] = "onnx.Reshape"(%[[SG]], %{{.*}}) {{.*}} -> tensor<3xf32>
// CHECK: %[[SG2:.*]] = "onnx.Reshape"(%[[SG]], %{{.*}}) {{.*}} -> tensor<3xf32>
// CHECK: %[[SI:.*]] = "onnx.Mul"(%[[S]], %[[ISV]])
// CHECK: %[[P:.*]] = "onnx.Mul"(%[[SG2]], %[[SI]])
// CHECK: %[[GM:.*]] = "onnx.Neg"(%[[P]])
// CHECK: %[[I2:.*]] = "onnx.Mul"(%[[ISV]], %[[ISV]])
// CHECK: %[[I3:.*]] = "onnx.Mul"(%[[ISV]], %[[I2]])
// CHECK: %[[MH:.*]] = "onnx.Constant"() <{value = dense<-5.000000e-01> : tensor<f32>}>
// CHECK: %[[H:.*]] = "onnx.Mul"(%[[SGXC]], %[[MH]])
// CHECK: %[[SI3:.*]] = "onnx.Mul"(%[[S]], %[[I3]])
// CHECK: %[[GV:.*]] = "onnx.Mul"(%[[H]], %[[SI3]])
// CHECK: return %[[GX]], %[[GS]], %[[GB]], %[[GM]], %[[GV]] :
func.func @batch_norm_inference(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y = "onnx.BatchNormalization"(%x, %s, %b, %m, %v) {epsilon = 1.0e-3 : f32, training_mode = 0 : i64, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  %g:5 = "onnx.preview.training.Gradient"(%x, %s, %b, %m, %v, %x, %s, %b, %m, %v, %y) {xs = ["x", "s", "b", "m", "v"], y = "y"} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4 : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// LayerNormalization over the last axis: with xhat = (x - mean) * invstd
// and gh = dY * scale, dX = invstd * (gh - mean(gh) - xhat * mean(gh xhat));
// dScale = sum over rows of dY * xhat, dB = sum over rows of dY.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[S:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NOT: onnx.preview.training.Gradient
// CHECK: %[[G:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}>
// CHECK: %[[GH:.*]] = "onnx.Mul"(%[[G]], %[[S]])
// CHECK: %[[MX:.*]] = "onnx.ReduceMean"(%[[X]], %{{.*}}) <{keepdims = 1 : i64{{.*}}-> tensor<2x1xf32>
// CHECK: %[[XC:.*]] = "onnx.Sub"(%[[X]], %[[MX]])
// CHECK: %[[XC2:.*]] = "onnx.Mul"(%[[XC]], %[[XC]])
// CHECK: %[[VAR:.*]] = "onnx.ReduceMean"(%[[XC2]], %{{.*}}) <{keepdims = 1 : i64{{.*}}-> tensor<2x1xf32>
// CHECK: %[[EPS:.*]] = "onnx.Constant"() <{value = dense<1.000000e-03> : tensor<f32>}>
// CHECK: %[[VE:.*]] = "onnx.Add"(%[[VAR]], %[[EPS]])
// CHECK: %[[SD:.*]] = "onnx.Sqrt"(%[[VE]])
// CHECK: %[[IS:.*]] = "onnx.Reciprocal"(%[[SD]])
// CHECK: %[[XH:.*]] = "onnx.Mul"(%[[XC]], %[[IS]])
// CHECK: %[[MGH:.*]] = "onnx.ReduceMean"(%[[GH]], %{{.*}})
// CHECK: %[[T1:.*]] = "onnx.Sub"(%[[GH]], %[[MGH]])
// CHECK: %[[GHXH:.*]] = "onnx.Mul"(%[[GH]], %[[XH]])
// CHECK: %[[MGHXH:.*]] = "onnx.ReduceMean"(%[[GHXH]], %{{.*}})
// CHECK: %[[T2:.*]] = "onnx.Mul"(%[[XH]], %[[MGHXH]])
// CHECK: %[[T3:.*]] = "onnx.Sub"(%[[T1]], %[[T2]])
// CHECK: %[[GX:.*]] = "onnx.Mul"(%[[IS]], %[[T3]])
// CHECK: %[[GXH:.*]] = "onnx.Mul"(%[[G]], %[[XH]])
// CHECK: %[[AX:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}>
// CHECK: %[[RS:.*]] = "onnx.ReduceSum"(%[[GXH]], %[[AX]]) {{.*}} -> tensor<1x3xf32>
// CHECK: %[[GS:.*]] = "onnx.Reshape"(%[[RS]], %{{.*}}) {{.*}} -> tensor<3xf32>
// CHECK: %[[RB:.*]] = "onnx.ReduceSum"(%[[G]], %{{.*}}) {{.*}} -> tensor<1x3xf32>
// CHECK: %[[GB:.*]] = "onnx.Reshape"(%[[RB]], %{{.*}}) {{.*}} -> tensor<3xf32>
// CHECK: return %[[GX]], %[[GS]], %[[GB]] :
func.func @layer_norm(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y = "onnx.LayerNormalization"(%x, %s, %b) {axis = -1 : i64, epsilon = 1.0e-3 : f32, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %g:3 = "onnx.preview.training.Gradient"(%x, %s, %b, %x, %s, %b, %y) {xs = ["x", "s", "b"], y = "y"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %g#0, %g#1, %g#2 : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
}
