// RUN: onnx-mlir-opt %s --split-input-file --onnx-shape-inference | FileCheck %s

// Broadcasting: a dynamic dim broadcast against 1 stays dynamic; the
// function's result type follows the refined value.
// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: -> tensor<?x3x4xf32>
// CHECK: %[[R:.+]] = "onnx.Add"(%{{.*}}, %{{.*}}) : (tensor<?x1x4xf32>, tensor<3x1xf32>) -> tensor<?x3x4xf32>
// CHECK: return %[[R]] : tensor<?x3x4xf32>
func.func @add_broadcast(%a: tensor<?x1x4xf32>, %b: tensor<3x1xf32>) -> tensor<*xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<?x1x4xf32>, tensor<3x1xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// A dynamic dim broadcast against a static one takes the static size.
// CHECK-LABEL: func.func @add_broadcast_static
// CHECK: "onnx.Add"{{.*}} -> tensor<4x4xf32>
func.func @add_broadcast_static(%a: tensor<?x4xf32>, %b: tensor<4x4xf32>) -> tensor<*xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Unknown dims stay `?`, known ones are filled in.
// CHECK-LABEL: func.func @add_partially_dynamic
// CHECK: "onnx.Add"{{.*}} -> tensor<?x4xf32>
func.func @add_partially_dynamic(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x?xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// An unranked operand leaves the rank unknown.
// CHECK-LABEL: func.func @add_unranked
// CHECK: "onnx.Add"{{.*}} : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
func.func @add_unranked(%a: tensor<*xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_batched
// CHECK: "onnx.MatMul"{{.*}} -> tensor<?x2x5xf32>
func.func @matmul_batched(%a: tensor<?x2x3xf32>, %b: tensor<3x5xf32>) -> tensor<*xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<?x2x3xf32>, tensor<3x5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @conv_strided_padded
// CHECK: "onnx.Conv"{{.*}} -> tensor<?x8x16x16xf32>
func.func @conv_strided_padded(%x: tensor<?x3x32x32xf32>, %w: tensor<8x3x3x3xf32>, %bias: tensor<8xf32>) -> tensor<*xf32> {
  %0 = "onnx.Conv"(%x, %w, %bias) <{pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<?x3x32x32xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// A constant shape operand is handed to the inference as data.
// CHECK-LABEL: func.func @reshape_constant_shape
// CHECK: %[[S:.+]] = "onnx.Constant"
// CHECK: "onnx.Reshape"(%{{.*}}, %[[S]]) {{.*}} -> tensor<4x6xf32>
func.func @reshape_constant_shape(%x: tensor<2x3x4xf32>) -> tensor<*xf32> {
  %s = "onnx.Constant"() <{value = dense<[4, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Without data for the shape, the rank is still the shape operand's static
// length (ONNX 1.12 does not derive it; the project's fixup does), and a
// type that is already more precise than the inference is kept.
// CHECK-LABEL: func.func @reshape_dynamic_shape
// CHECK: "onnx.Reshape"{{.*}} -> tensor<?x?xf32>
// CHECK: "onnx.Reshape"{{.*}} -> tensor<3x8xf32>
func.func @reshape_dynamic_shape(%x: tensor<2x3x4xf32>, %s: tensor<2xi64>) -> (tensor<*xf32>, tensor<3x8xf32>) {
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  %1 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3x8xf32>
  return %0, %1 : tensor<*xf32>, tensor<3x8xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_perm
// CHECK: "onnx.Transpose"{{.*}} -> tensor<4x?x3xf32>
func.func @transpose_perm(%x: tensor<?x3x4xf32>) -> tensor<*xf32> {
  %0 = "onnx.Transpose"(%x) <{perm = [2, 0, 1]}> : (tensor<?x3x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Results feed the next op: Relu's refined type lets Transpose (default
// perm: reversed) infer its shape.
// CHECK-LABEL: func.func @chain
// CHECK: %[[R:.+]] = "onnx.Relu"{{.*}} -> tensor<?x4xf32>
// CHECK: "onnx.Transpose"(%[[R]]) : (tensor<?x4xf32>) -> tensor<4x?xf32>
func.func @chain(%a: tensor<?x4xf32>) -> tensor<*xf32> {
  %0 = "onnx.Relu"(%a) : (tensor<?x4xf32>) -> tensor<*xf32>
  %1 = "onnx.Transpose"(%0) : (tensor<*xf32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @concat_variadic
// CHECK: "onnx.Concat"{{.*}} -> tensor<?x8xf32>
func.func @concat_variadic(%a: tensor<?x3xf32>, %b: tensor<?x5xf32>) -> tensor<*xf32> {
  %0 = "onnx.Concat"(%a, %b) <{axis = 1 : i64}> : (tensor<?x3xf32>, tensor<?x5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @gather_axis0
// CHECK: "onnx.Gather"{{.*}} -> tensor<2x3x?xf32>
func.func @gather_axis0(%d: tensor<10x?xf32>, %i: tensor<2x3xi64>) -> tensor<*xf32> {
  %0 = "onnx.Gather"(%d, %i) <{axis = 0 : i64}> : (tensor<10x?xf32>, tensor<2x3xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @slice_constant
// CHECK: "onnx.Slice"{{.*}} -> tensor<4x4xf32>
func.func @slice_constant(%x: tensor<10x20xf32>) -> tensor<*xf32> {
  %starts = "onnx.Constant"() <{value = dense<[1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ends = "onnx.Constant"() <{value = dense<[9, 20]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %axes = "onnx.Constant"() <{value = dense<[0, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %steps = "onnx.Constant"() <{value = dense<[2, 5]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Slice"(%x, %starts, %ends, %axes, %steps) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>}> : (tensor<10x20xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Absent optional operands (axes, steps) keep their ONNX positions.
// CHECK-LABEL: func.func @slice_without_axes
// CHECK: "onnx.Slice"{{.*}} -> tensor<4x20xf32>
func.func @slice_without_axes(%x: tensor<10x20xf32>) -> tensor<*xf32> {
  %starts = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ends = "onnx.Constant"() <{value = dense<5> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "onnx.Slice"(%x, %starts, %ends) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<10x20xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Starts known only at run time: ONNX 1.12 gives no shape, but the rank is
// the data's.
// CHECK-LABEL: func.func @slice_dynamic_starts
// CHECK: "onnx.Slice"{{.*}} -> tensor<?x?xf32>
func.func @slice_dynamic_starts(%x: tensor<10x20xf32>, %starts: tensor<1xi64>) -> tensor<*xf32> {
  %ends = "onnx.Constant"() <{value = dense<5> : tensor<1xi64>}> : () -> tensor<1xi64>
  %0 = "onnx.Slice"(%x, %starts, %ends) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<10x20xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @shape_of_dynamic
// CHECK: "onnx.Shape"{{.*}} -> tensor<2xi64>
// CHECK: "onnx.ConstantOfShape"{{.*}} -> tensor<3xi64>
func.func @shape_of_dynamic(%a: tensor<?x4xf32>) -> (tensor<*xi64>, tensor<*xi64>) {
  %0 = "onnx.Shape"(%a) : (tensor<?x4xf32>) -> tensor<*xi64>
  %s = "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
  %1 = "onnx.ConstantOfShape"(%s) <{value = dense<1> : tensor<1xi64>}> : (tensor<1xi64>) -> tensor<*xi64>
  return %0, %1 : tensor<*xi64>, tensor<*xi64>
}

// -----

// Regions are inferred before the op that owns them; If merges its
// branches.
// CHECK-LABEL: func.func @if_regions
// CHECK-SAME: -> tensor<2x3xf32>
// CHECK: "onnx.If"
// CHECK:   "onnx.Neg"{{.*}} -> tensor<2x3xf32>
// CHECK:   onnx.Yield %{{.*}} : tensor<2x3xf32>
// CHECK: }, {
// CHECK:   "onnx.Relu"{{.*}} -> tensor<2x3xf32>
// CHECK:   onnx.Yield %{{.*}} : tensor<2x3xf32>
// CHECK: }) : (tensor<i1>) -> tensor<2x3xf32>
func.func @if_regions(%c: tensor<i1>, %x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = "onnx.If"(%c) ({
    %1 = "onnx.Neg"(%x) : (tensor<2x3xf32>) -> tensor<*xf32>
    onnx.Yield %1 : tensor<*xf32>
  }, {
    %2 = "onnx.Relu"(%x) : (tensor<2x3xf32>) -> tensor<*xf32>
    onnx.Yield %2 : tensor<*xf32>
  }) : (tensor<i1>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Branches of different sizes: the dim where they disagree is dynamic.
// CHECK-LABEL: func.func @if_branches_disagree
// CHECK: }) : (tensor<i1>) -> tensor<?x3xf32>
func.func @if_branches_disagree(%c: tensor<i1>, %x: tensor<2x3xf32>, %y: tensor<5x3xf32>) -> tensor<*xf32> {
  %0 = "onnx.If"(%c) ({
    onnx.Yield %x : tensor<2x3xf32>
  }, {
    onnx.Yield %y : tensor<5x3xf32>
  }) : (tensor<i1>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Loop: the scan output gains a leading dynamic (trip count) dim. The
// loop-carried value may change shape across iterations (ONNX leaves it
// unranked); here the initial value and every yield are 2xf32, so the
// result is too.
// CHECK-LABEL: func.func @loop_body
// CHECK: "onnx.Add"{{.*}} -> tensor<2xf32>
// CHECK: }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>)
func.func @loop_body(%m: tensor<i64>, %cond: tensor<i1>, %x: tensor<2xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0:2 = "onnx.Loop"(%m, %cond, %x) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>):
    %1 = "onnx.Add"(%v, %v) : (tensor<2xf32>, tensor<2xf32>) -> tensor<*xf32>
    onnx.Yield %c, %1, %1 : tensor<i1>, tensor<*xf32>, tensor<*xf32>
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// A sequence carried through a Loop holds what every iteration inserted:
// declared of scalars but grown with vectors, its tensors' type becomes the
// join (unranked), in the body's argument, the result and the function's.
// CHECK-LABEL: func.func @loop_sequence
// CHECK-SAME: -> !onnx.seq<tensor<*xf32>>
// CHECK: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: !onnx.seq<tensor<*xf32>>):
// CHECK: }) : (tensor<i64>, tensor<i1>, !onnx.seq<tensor<f32>>) -> !onnx.seq<tensor<*xf32>>
func.func @loop_sequence(%m: tensor<i64>, %cond: tensor<i1>, %s: !onnx.seq<tensor<f32>>, %x: tensor<3xf32>) -> !onnx.seq<tensor<f32>> {
  %0 = "onnx.Loop"(%m, %cond, %s) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: !onnx.seq<tensor<f32>>):
    %1 = "onnx.SequenceInsert"(%v, %x) : (!onnx.seq<tensor<f32>>, tensor<3xf32>) -> !onnx.seq<tensor<3xf32>>
    onnx.Yield %c, %1 : tensor<i1>, !onnx.seq<tensor<3xf32>>
  }) : (tensor<i64>, tensor<i1>, !onnx.seq<tensor<f32>>) -> !onnx.seq<tensor<f32>>
  return %0 : !onnx.seq<tensor<f32>>
}

// -----

// A tensor carried through a Loop that grows by one row per iteration (the
// masks torchvision's Mask R-CNN pastes): the body declares it with the
// empty initial value's shape, 0x4. The yield (1x4 from that) disagrees,
// so dim 0 becomes dynamic in the argument and the result, and the Concat
// and what follows the Loop are inferred again from there.
// CHECK-LABEL: func.func @loop_growing_tensor
// CHECK-SAME: -> tensor<?x4xf32>
// CHECK: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<?x4xf32>):
// CHECK: "onnx.Concat"{{.*}} -> tensor<?x4xf32>
// CHECK: }) : (tensor<i64>, tensor<i1>, tensor<0x4xf32>) -> tensor<?x4xf32>
// CHECK: "onnx.Relu"{{.*}} -> tensor<?x4xf32>
func.func @loop_growing_tensor(%m: tensor<i64>, %cond: tensor<i1>, %row: tensor<1x4xf32>) -> tensor<*xf32> {
  %empty = "onnx.Constant"() <{value = dense<> : tensor<0x4xf32>}> : () -> tensor<0x4xf32>
  %0 = "onnx.Loop"(%m, %cond, %empty) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %acc: tensor<0x4xf32>):
    %1 = "onnx.Concat"(%acc, %row) <{axis = 0 : i64}> : (tensor<0x4xf32>, tensor<1x4xf32>) -> tensor<*xf32>
    onnx.Yield %c, %1 : tensor<i1>, tensor<*xf32>
  }) : (tensor<i64>, tensor<i1>, tensor<0x4xf32>) -> tensor<*xf32>
  %2 = "onnx.Relu"(%0) : (tensor<*xf32>) -> tensor<*xf32>
  return %2 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @scan_body
// CHECK: }) : (tensor<2xf32>, tensor<5x2xf32>) -> (tensor<2xf32>, tensor<5x2xf32>)
func.func @scan_body(%init: tensor<2xf32>, %xs: tensor<5x2xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0:2 = "onnx.Scan"(%init, %xs) <{num_scan_inputs = 1 : i64}> ({
  ^bb0(%s: tensor<2xf32>, %x: tensor<2xf32>):
    %1 = "onnx.Add"(%s, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<*xf32>
    onnx.Yield %1, %1 : tensor<*xf32>, tensor<*xf32>
  }) : (tensor<2xf32>, tensor<5x2xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %0#0, %0#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// Sequence element types are refined too.
// CHECK-LABEL: func.func @sequence_construct
// CHECK-SAME: -> !onnx.seq<tensor<?xf32>>
// CHECK: "onnx.SequenceConstruct"{{.*}} -> !onnx.seq<tensor<?xf32>>
func.func @sequence_construct(%a: tensor<2xf32>, %b: tensor<3xf32>) -> !onnx.seq<tensor<*xf32>> {
  %0 = "onnx.SequenceConstruct"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> !onnx.seq<tensor<*xf32>>
  return %0 : !onnx.seq<tensor<*xf32>>
}

// -----

// Attributes reach the inference under their ONNX names: Optional's `type`
// is the op's `type_`.
// CHECK-LABEL: func.func @optional_type_attribute
// CHECK-SAME: -> !onnx.opt<tensor<2xf32>>
// CHECK: "onnx.Optional"() <{type_ = tensor<2xf32>}> : () -> !onnx.opt<tensor<2xf32>>
func.func @optional_type_attribute() -> !onnx.opt<tensor<*xf32>> {
  %0 = "onnx.Optional"() <{type_ = tensor<2xf32>}> : () -> !onnx.opt<tensor<*xf32>>
  return %0 : !onnx.opt<tensor<*xf32>>
}

// -----

// Ranks ONNX fixes where libonnx gives no shape: Squeeze's/Unsqueeze's are
// the data's minus/plus the static number of axes (Expand's libonnx infers:
// the shape operand's length, the data's dims broadcast).
// CHECK-LABEL: func.func @ranks_from_operand_lengths
// CHECK: "onnx.Expand"{{.*}} -> tensor<?x2x3xf32>
// CHECK: "onnx.Squeeze"{{.*}} -> tensor<?xf32>
// CHECK: "onnx.Unsqueeze"{{.*}} -> tensor<?x?x?x?xf32>
func.func @ranks_from_operand_lengths(%x: tensor<2x3xf32>, %s: tensor<3xi64>, %a: tensor<1xi64>, %b: tensor<2xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.Expand"(%x, %s) : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<*xf32>
  %1 = "onnx.Squeeze"(%x, %a) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<*xf32>
  %2 = "onnx.Unsqueeze"(%x, %b) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Squeeze without axes removes the unit dims; a dynamic dim is taken not to
// be 1 (the lowering checks it at run time).
// CHECK-LABEL: func.func @squeeze_no_axes_dynamic
// CHECK: "onnx.Squeeze"(%{{.*}}) : (tensor<?x1x3x1xf32>) -> tensor<?x3xf32>
func.func @squeeze_no_axes_dynamic(%x: tensor<?x1x3x1xf32>) -> tensor<*xf32> {
  %0 = "onnx.Squeeze"(%x) : (tensor<?x1x3x1xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// GreaterOrEqual/LessOrEqual (function ops in libonnx 1.12, no inference
// function of their own): Greater's rule, broadcast to bool.
// CHECK-LABEL: func.func @or_equal_comparisons
// CHECK: "onnx.GreaterOrEqual"{{.*}} -> tensor<3x4xi1>
// CHECK: "onnx.LessOrEqual"{{.*}} -> tensor<3x4xi1>
func.func @or_equal_comparisons(%a: tensor<3x1xi64>, %b: tensor<1x4xi64>) -> (tensor<*xi1>, tensor<*xi1>) {
  %0 = "onnx.GreaterOrEqual"(%a, %b) : (tensor<3x1xi64>, tensor<1x4xi64>) -> tensor<*xi1>
  %1 = "onnx.LessOrEqual"(%a, %b) : (tensor<3x1xi64>, tensor<1x4xi64>) -> tensor<*xi1>
  return %0, %1 : tensor<*xi1>, tensor<*xi1>
}

// -----

// Col2Im-18 and AffineGrid-20 (no libonnx 1.12 schema): the rank from the
// static length of image_shape / size, the dims from their values when
// constant, Col2Im's channels from the block size.
// CHECK-LABEL: func.func @col2im_affine_grid
// CHECK: "onnx.Col2Im"{{.*}} -> tensor<1x2x5x6xf32>
// CHECK: "onnx.Col2Im"{{.*}} -> tensor<1x?x?x?x?xf32>
// CHECK: "onnx.AffineGrid"{{.*}} -> tensor<2x4x5x2xf32>
// CHECK: "onnx.AffineGrid"{{.*}} -> tensor<2x?x?x?x3xf32>
func.func @col2im_affine_grid(%x: tensor<1x8x20xf32>, %rt: tensor<3xi64>, %theta: tensor<2x2x3xf32>, %theta3: tensor<2x3x4xf32>, %size5: tensor<5xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %img = "onnx.Constant"() {value = dense<[5, 6]> : tensor<2xi64>} : () -> tensor<2xi64>
  %blk = "onnx.Constant"() {value = dense<[2, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %size = "onnx.Constant"() {value = dense<[2, 1, 4, 5]> : tensor<4xi64>} : () -> tensor<4xi64>
  %0 = "onnx.Col2Im"(%x, %img, %blk) : (tensor<1x8x20xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
  %1 = "onnx.Col2Im"(%x, %rt, %rt) : (tensor<1x8x20xf32>, tensor<3xi64>, tensor<3xi64>) -> tensor<*xf32>
  %2 = "onnx.AffineGrid"(%theta, %size) : (tensor<2x2x3xf32>, tensor<4xi64>) -> tensor<*xf32>
  %3 = "onnx.AffineGrid"(%theta3, %size5) : (tensor<2x3x4xf32>, tensor<5xi64>) -> tensor<*xf32>
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Split-18 by num_outputs along a negative axis: ceil(7 / 2) then the rest
// (the attribute is read as signed).
// CHECK-LABEL: func.func @split_negative_axis
// CHECK: "onnx.Split"(%{{.*}}) {{.*}} -> (tensor<2x4xf32>, tensor<2x3xf32>)
func.func @split_negative_axis(%x: tensor<2x7xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %a:2 = "onnx.Split"(%x) {axis = -1 : i64, num_outputs = 2 : i64} : (tensor<2x7xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return %a#0, %a#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// onnxc's own rank rules (RankRules.cpp) type an operator libonnx 1.12 does
// not know (Swish-24): an elementwise op has its operand's shape.
// CHECK-LABEL: func.func @rank_rule_unknown_to_libonnx
// CHECK: "onnx.Swish"(%{{.*}}) {{.*}}: (tensor<?x8xf32>) -> tensor<?x8xf32>
func.func @rank_rule_unknown_to_libonnx(%x: tensor<?x8xf32>) -> tensor<*xf32> {
  %0 = "onnx.Swish"(%x) : (tensor<?x8xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// A node leaves out its trailing optional outputs: BatchNormalization with
// one output (inference) is one output to ONNX's inference function, not
// three (paddle2onnx's OCR models, whose BN input shapes are only known
// after onnxc's own inference, lost every rank from there on).
// CHECK-LABEL: func.func @batchnorm_one_output
// CHECK: "onnx.BatchNormalization"{{.*}} -> tensor<?x480x?x?xf32>
func.func @batchnorm_one_output(%x: tensor<?x480x?x?xf32>, %s: tensor<480xf32>) -> tensor<*xf32> {
  %0 = "onnx.BatchNormalization"(%x, %s, %s, %s, %s) <{epsilon = 9.99999974E-6 : f32, momentum = 0.899999976 : f32, resultSegmentSizes = array<i32: 1, 0, 0>, training_mode = 0 : i64}> : (tensor<?x480x?x?xf32>, tensor<480xf32>, tensor<480xf32>, tensor<480xf32>, tensor<480xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// A declared rank the operator cannot give (an op cloned into the If
// branch the exporter did not trace keeps the traced branch's value_info; a
// fuzzed BERT's Tanh reads a rank-3 tensor but declares rank 2): the
// operator's rank wins, and what follows is inferred from there. Static
// dims keep what the model declares (libonnx 1.12's pooling rules are older
// than ONNX 1.23's ceil mode); the lowering checks them.
// CHECK-LABEL: func.func @declared_contradicted
// CHECK-SAME: -> (tensor<1x16x128xf32>, tensor<1x3xf32>)
// CHECK: "onnx.Tanh"{{.*}} -> tensor<1x16x128xf32>
// CHECK: "onnx.Relu"{{.*}} -> tensor<1x16x128xf32>
// CHECK: "onnx.Gemm"{{.*}} -> tensor<1x3xf32>
func.func @declared_contradicted(%x: tensor<1x16x128xf32>, %a: tensor<1x8xf32>, %b: tensor<8x4xf32>) -> (tensor<1x128xf32>, tensor<1x3xf32>) {
  %0 = "onnx.Tanh"(%x) : (tensor<1x16x128xf32>) -> tensor<1x128xf32>
  %1 = "onnx.Relu"(%0) : (tensor<1x128xf32>) -> tensor<1x128xf32>
  %2 = "onnx.Gemm"(%a, %b) : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x3xf32>
  return %1, %2 : tensor<1x128xf32>, tensor<1x3xf32>
}
