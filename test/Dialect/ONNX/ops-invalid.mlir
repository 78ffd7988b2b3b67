// RUN: onnx-mlir-opt %s --split-input-file --verify-diagnostics

// Operands sharing the type variable T must have the same element type.
func.func @add_type_variable_mismatch(%a: tensor<2xf32>, %b: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+1 {{'onnx.Add' op type variable 'T' is bound to 'f32' by 'A' but to 'i64' by 'B'}}
  %0 = "onnx.Add"(%a, %b) : (tensor<2xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// The result shares T with the operands too.
func.func @add_result_type_variable_mismatch(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf16> {
  // expected-error @+1 {{type variable 'T' is bound to 'f32' by 'A' but to 'f16' by 'C'}}
  %0 = "onnx.Add"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

// With `min` absent, the operand after `input` is `max`, still bound to T.
func.func @clip_optional_type_variable_mismatch(%a: tensor<4xf32>, %max: tensor<f64>) -> tensor<4xf32> {
  // expected-error @+1 {{type variable 'T' is bound to 'f32' by 'input' but to 'f64' by 'max'}}
  %0 = "onnx.Clip"(%a, %max) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<4xf32>, tensor<f64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Add does not take booleans.
func.func @add_wrong_element_type(%a: tensor<2xi1>, %b: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{'onnx.Add' op operand #0 must be tensor of 8-bit unsigned integer or}}
  %0 = "onnx.Add"(%a, %b) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// ONNX integers are signless or unsigned, never explicitly signed.
func.func @signed_integer(%a: tensor<2xsi32>, %b: tensor<2xsi32>) -> tensor<2xsi32> {
  // expected-error @+1 {{'onnx.Add' op operand #0 must be tensor of}}
  %0 = "onnx.Add"(%a, %b) : (tensor<2xsi32>, tensor<2xsi32>) -> tensor<2xsi32>
  return %0 : tensor<2xsi32>
}

// -----

func.func @sequence_where_tensor_expected(%s: !onnx.seq<tensor<2xf32>>) -> tensor<2xf32> {
  // expected-error @+1 {{'onnx.Relu' op operand #0 must be tensor of}}
  %0 = "onnx.Relu"(%s) : (!onnx.seq<tensor<2xf32>>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// DictVectorizer takes maps with string or int64 keys only.
func.func @map_key_type(%m: !onnx.map<f32, f32>) -> tensor<2xf32> {
  // expected-error @+1 {{'onnx.ml.DictVectorizer' op operand #0 must be map}}
  %0 = "onnx.ml.DictVectorizer"(%m) : (!onnx.map<f32, f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @constant_without_value() -> tensor<2xf32> {
  // expected-error @+1 {{'onnx.Constant' op needs exactly one of the value attributes, has 0}}
  %0 = "onnx.Constant"() : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @constant_with_two_values() -> tensor<2xf32> {
  // expected-error @+1 {{'onnx.Constant' op needs exactly one of the value attributes, has 2}}
  %0 = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>, value_float = 1.0 : f32}> : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @constant_value_type_mismatch() -> tensor<3xf32> {
  // expected-error @+1 {{'onnx.Constant' op value of type 'tensor<2xf32>' does not match the result type 'tensor<3xf32>'}}
  %0 = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @missing_required_attribute(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'onnx.Cast' op requires attribute 'to'}}
  %0 = "onnx.Cast"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @string_for_int_attribute(%a: tensor<2xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{Invalid attribute `to` in property conversion: "int64"}}
  %0 = "onnx.Cast"(%a) <{to = "int64"}> : (tensor<2xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @floats_for_ints_attribute(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'onnx.Transpose' op attribute 'perm' failed to satisfy constraint: 64-bit integer array attribute}}
  %0 = "onnx.Transpose"(%a) <{perm = [1.0, 0.0]}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// With two optional operands the segment sizes are needed to know which
// ONNX input an operand is.
func.func @missing_operand_segments(%a: tensor<4xf32>, %b: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'onnx.Clip' op operand count (2) does not match with the total size (0) specified in attribute 'operandSegmentSizes'}}
  %0 = "onnx.Clip"(%a, %b) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @wrong_operand_segments(%a: tensor<4xf32>, %b: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'onnx.Clip' op operand count (2) does not match with the total size (3) specified in attribute 'operandSegmentSizes'}}
  %0 = "onnx.Clip"(%a, %b) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @if_one_region(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'onnx.If' op expected 2 regions}}
  %0 = "onnx.If"(%c) ({
    onnx.Yield %x : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @region_without_terminator(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'onnx.If' op region #0 ('else_branch') failed to verify constraint: region with 1 blocks}}
  %0 = "onnx.If"(%c) ({
  }, {
    onnx.Yield %x : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
