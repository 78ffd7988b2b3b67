// RUN: onnx-mlir-opt %s --split-input-file | FileCheck %s
// The printed form parses back to the same IR.
// RUN: onnx-mlir-opt %s --split-input-file | onnx-mlir-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:.+]]: tensor<?x3xf32>, %[[B:.+]]: tensor<3xf32>)
// CHECK: %[[C:.+]] = "onnx.Add"(%[[A]], %[[B]]) : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: return %[[C]]
func.func @add_broadcast(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Results may be unranked before shape inference.
// CHECK-LABEL: func.func @unranked_result
// CHECK: "onnx.MatMul"(%{{.*}}, %{{.*}}) : (tensor<*xf32>, tensor<4x5xf32>) -> tensor<*xf32>
func.func @unranked_result(%a: tensor<*xf32>, %b: tensor<4x5xf32>) -> tensor<*xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<*xf32>, tensor<4x5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @constants
// CHECK: "onnx.Constant"() <{value = dense<[1, 2, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
// CHECK: "onnx.Constant"() <{value = dense<["a", "bc"]> : tensor<2x!onnx.string>}> : () -> tensor<2x!onnx.string>
// CHECK: "onnx.Constant"() <{value = dense_resource<blob> : tensor<2xf32>}> : () -> tensor<2xf32>
// CHECK: "onnx.Constant"() <{value_ints = [4, 5]}> : () -> tensor<2xi64>
func.func @constants() -> (tensor<3xi64>, tensor<2x!onnx.string>, tensor<2xf32>, tensor<2xi64>) {
  %0 = "onnx.Constant"() <{value = dense<[1, 2, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %1 = "onnx.Constant"() <{value = dense<["a", "bc"]> : tensor<2x!onnx.string>}> : () -> tensor<2x!onnx.string>
  %2 = "onnx.Constant"() <{value = dense_resource<blob> : tensor<2xf32>}> : () -> tensor<2xf32>
  %3 = "onnx.Constant"() <{value_ints = [4, 5]}> : () -> tensor<2xi64>
  return %0, %1, %2, %3 : tensor<3xi64>, tensor<2x!onnx.string>, tensor<2xf32>, tensor<2xi64>
}
// CHECK: dialect_resources
// CHECK: blob: "0x040000000000803F00000040"
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// Two optional operands: operandSegmentSizes says which ONNX inputs are
// present (here `min` is absent, `max` present).
// CHECK-LABEL: func.func @optional_operands
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>, %[[MAX:.+]]: tensor<f32>)
// CHECK: "onnx.Clip"(%[[X]], %[[MAX]]) <{operandSegmentSizes = array<i32: 1, 0, 1>}>
// CHECK: "onnx.Clip"(%[[X]]) <{operandSegmentSizes = array<i32: 1, 0, 0>}>
func.func @optional_operands(%x: tensor<4xf32>, %max: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "onnx.Clip"(%x, %max) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "onnx.Clip"(%x) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Optional results: LSTM producing only Y_h. Attributes with a schema
// default are materialized.
// CHECK-LABEL: func.func @optional_results
// CHECK: %[[YH:.+]] = "onnx.LSTM"(%{{.*}}, %{{.*}}, %{{.*}}) <{direction = "forward", hidden_size = 4 : i64, input_forget = 0 : i64, layout = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 0, 1, 0>}> : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> tensor<1x2x4xf32>
// CHECK: return %[[YH]]
func.func @optional_results(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>) -> tensor<1x2x4xf32> {
  %0 = "onnx.LSTM"(%x, %w, %r) <{hidden_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 0, 1, 0>}> : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> tensor<1x2x4xf32>
  return %0 : tensor<1x2x4xf32>
}

// -----

// Variadic results and attributes with defaults.
// CHECK-LABEL: func.func @variadic
// CHECK: %[[S:.+]]:2 = "onnx.Split"(%{{.*}}, %{{.*}}) <{axis = 1 : i64}> : (tensor<2x6xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x4xf32>)
// CHECK: "onnx.Concat"(%[[S]]#1, %[[S]]#0) <{axis = 1 : i64}>
func.func @variadic(%x: tensor<2x6xf32>, %split: tensor<2xi64>) -> tensor<2x6xf32> {
  %0:2 = "onnx.Split"(%x, %split) <{axis = 1 : i64}> : (tensor<2x6xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x4xf32>)
  %1 = "onnx.Concat"(%0#1, %0#0) <{axis = 1 : i64}> : (tensor<2x4xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %1 : tensor<2x6xf32>
}

// -----

// Subgraphs are regions ending in onnx.Yield; If's regions are in schema
// attribute order (else_branch, then_branch).
// CHECK-LABEL: func.func @if_regions
// CHECK: "onnx.If"(%{{.*}}) ({
// CHECK:   %[[E:.+]] = "onnx.Neg"
// CHECK:   onnx.Yield %[[E]] : tensor<2xf32>
// CHECK: }, {
// CHECK:   onnx.Yield %{{.*}} : tensor<2xf32>
// CHECK: }) : (tensor<i1>) -> tensor<2xf32>
func.func @if_regions(%cond: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "onnx.If"(%cond) ({
    %1 = "onnx.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    onnx.Yield %1 : tensor<2xf32>
  }, {
    onnx.Yield %x : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Loop: the body's block arguments are the iteration number, the condition
// and the loop-carried values. M and cond are optional ONNX inputs.
// CHECK-LABEL: func.func @loop_region
// CHECK: "onnx.Loop"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 0, 1>}> ({
// CHECK: ^bb0(%[[I:.+]]: tensor<i64>, %[[C:.+]]: tensor<i1>, %[[V:.+]]: tensor<2xf32>):
// CHECK:   %[[N:.+]] = "onnx.Add"(%[[V]], %[[V]])
// CHECK:   onnx.Yield %[[C]], %[[N]] : tensor<i1>, tensor<2xf32>
// CHECK: }) : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
func.func @loop_region(%m: tensor<i64>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "onnx.Loop"(%m, %x) <{operandSegmentSizes = array<i32: 1, 0, 1>}> ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>):
    %1 = "onnx.Add"(%v, %v) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    onnx.Yield %c, %1 : tensor<i1>, tensor<2xf32>
  }) : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @sequences
// CHECK: %[[S:.+]] = "onnx.SequenceConstruct"(%{{.*}}, %{{.*}}) : (tensor<2xf32>, tensor<3xf32>) -> !onnx.seq<tensor<?xf32>>
// CHECK: %[[T:.+]] = "onnx.SequenceInsert"(%[[S]], %{{.*}}) : (!onnx.seq<tensor<?xf32>>, tensor<2xf32>) -> !onnx.seq<tensor<?xf32>>
// CHECK: "onnx.SequenceAt"(%[[T]], %{{.*}}) : (!onnx.seq<tensor<?xf32>>, tensor<i64>) -> tensor<?xf32>
func.func @sequences(%a: tensor<2xf32>, %b: tensor<3xf32>, %i: tensor<i64>) -> tensor<?xf32> {
  %0 = "onnx.SequenceConstruct"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> !onnx.seq<tensor<?xf32>>
  %1 = "onnx.SequenceInsert"(%0, %a) : (!onnx.seq<tensor<?xf32>>, tensor<2xf32>) -> !onnx.seq<tensor<?xf32>>
  %2 = "onnx.SequenceAt"(%1, %i) : (!onnx.seq<tensor<?xf32>>, tensor<i64>) -> tensor<?xf32>
  return %2 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @optionals
// CHECK-SAME: !onnx.opt<!onnx.seq<tensor<*xi64>>>
// CHECK: %[[O:.+]] = "onnx.Optional"(%{{.*}}) : (tensor<2xf32>) -> !onnx.opt<tensor<2xf32>>
// CHECK: "onnx.OptionalHasElement"(%[[O]]) : (!onnx.opt<tensor<2xf32>>) -> tensor<i1>
// CHECK: "onnx.OptionalGetElement"(%{{.*}}) : (!onnx.opt<!onnx.seq<tensor<*xi64>>>) -> !onnx.seq<tensor<*xi64>>
// CHECK: "onnx.Optional"() <{type_ = tensor<*xf32>}> : () -> !onnx.opt<tensor<*xf32>>
func.func @optionals(%x: tensor<2xf32>, %s: !onnx.opt<!onnx.seq<tensor<*xi64>>>) -> (tensor<i1>, !onnx.seq<tensor<*xi64>>, !onnx.opt<tensor<*xf32>>) {
  %0 = "onnx.Optional"(%x) : (tensor<2xf32>) -> !onnx.opt<tensor<2xf32>>
  %1 = "onnx.OptionalHasElement"(%0) : (!onnx.opt<tensor<2xf32>>) -> tensor<i1>
  %2 = "onnx.OptionalGetElement"(%s) : (!onnx.opt<!onnx.seq<tensor<*xi64>>>) -> !onnx.seq<tensor<*xi64>>
  %3 = "onnx.Optional"() <{type_ = tensor<*xf32>}> : () -> !onnx.opt<tensor<*xf32>>
  return %1, %2, %3 : tensor<i1>, !onnx.seq<tensor<*xi64>>, !onnx.opt<tensor<*xf32>>
}

// -----

// ai.onnx.ml ops: maps, string tensors.
// CHECK-LABEL: func.func @ml_ops
// CHECK: "onnx.ml.ZipMap"(%{{.*}}) <{classlabels_int64s = [7, 9]}> : (tensor<3x2xf32>) -> !onnx.seq<!onnx.map<i64, f32>>
// CHECK: "onnx.ml.DictVectorizer"(%{{.*}}) <{string_vocabulary = ["a", "b"]}> : (!onnx.map<!onnx.string, f64>) -> tensor<1x2xf64>
// CHECK: "onnx.ml.LabelEncoder"(%{{.*}}) <{default_float = -0.000000e+00 : f32, default_int64 = -1 : i64, default_string = "_Unused", keys_strings = ["x", "y"], values_int64s = [1, 2]}> : (tensor<4x!onnx.string>) -> tensor<4xi64>
func.func @ml_ops(%p: tensor<3x2xf32>, %m: !onnx.map<!onnx.string, f64>, %s: tensor<4x!onnx.string>) -> (!onnx.seq<!onnx.map<i64, f32>>, tensor<1x2xf64>, tensor<4xi64>) {
  %0 = "onnx.ml.ZipMap"(%p) <{classlabels_int64s = [7, 9]}> : (tensor<3x2xf32>) -> !onnx.seq<!onnx.map<i64, f32>>
  %1 = "onnx.ml.DictVectorizer"(%m) <{string_vocabulary = ["a", "b"]}> : (!onnx.map<!onnx.string, f64>) -> tensor<1x2xf64>
  %2 = "onnx.ml.LabelEncoder"(%s) <{keys_strings = ["x", "y"], values_int64s = [1, 2]}> : (tensor<4x!onnx.string>) -> tensor<4xi64>
  return %0, %1, %2 : !onnx.seq<!onnx.map<i64, f32>>, tensor<1x2xf64>, tensor<4xi64>
}

// -----

// ai.onnx.preview.training ops.
// CHECK-LABEL: func.func @training
// CHECK: %{{.+}}:3 = "onnx.preview.training.Adam"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{alpha = 8.000000e-01 : f32, beta = 9.990000e-01 : f32, {{.*}}}> : (tensor<f32>, tensor<i64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
func.func @training(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<3xf32>, %g: tensor<3xf32>, %v: tensor<3xf32>, %h: tensor<3xf32>) -> tensor<3xf32> {
  %0:3 = "onnx.preview.training.Adam"(%r, %t, %x, %g, %v, %h) <{alpha = 8.000000e-01 : f32}> : (tensor<f32>, tensor<i64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @attributes
// CHECK: "onnx.Cast"(%{{.*}}) <{round_mode = "up", saturate = 1 : i64, to = 7 : i64}> : (tensor<2xf32>) -> tensor<2xi64>
// CHECK: "onnx.Conv"(%{{.*}}, %{{.*}}) <{auto_pad = "NOTSET", group = 1 : i64, kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
func.func @attributes(%x: tensor<2xf32>, %i: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<2xi64>, tensor<1x4x4x4xf32>) {
  %0 = "onnx.Cast"(%x) <{to = 7 : i64}> : (tensor<2xf32>) -> tensor<2xi64>
  %1 = "onnx.Conv"(%i, %w) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0, %1 : tensor<2xi64>, tensor<1x4x4x4xf32>
}
