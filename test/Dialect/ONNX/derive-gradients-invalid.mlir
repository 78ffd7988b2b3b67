// RUN: onnx-mlir-opt %s --split-input-file --onnx-derive-gradients --verify-diagnostics

// An op without a gradient rule on the way from x to y fails the pass
// there, naming the op.
func.func @no_rule(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot derive a gradient through onnx.Round: onnxc has no gradient rule for the operator}}
  %r = "onnx.Round"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{cannot derive Gradient of 'r'}}
  %g = "onnx.preview.training.Gradient"(%x, %x, %r) {xs = ["x"], y = "r"} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// b's dim 0 is dynamic and the other operand's is not 1: whether it is
// broadcast is only known at run time.
func.func @dynamic_broadcast(%a: tensor<3x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{cannot derive a gradient through onnx.Add: an operand may be broadcast along dynamic dim 0}}
  %y = "onnx.Add"(%a, %b) : (tensor<3x4xf32>, tensor<?x4xf32>) -> tensor<3x4xf32>
  // expected-error @+1 {{cannot derive Gradient of 'y'}}
  %g = "onnx.preview.training.Gradient"(%b, %b, %y) {xs = ["b"], y = "y"} : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  return %g : tensor<?x4xf32>
}

// -----

// A Gradient op without the values its attributes name (not built by the
// onnxc importer).
func.func @no_named_values(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{Gradient: expected its inputs, then the values xs and zs name, then the value y names as operands}}
  %g = "onnx.preview.training.Gradient"(%x) {xs = ["x"], y = "y"} : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// tf_crop_and_resize fills with the extrapolation value outside the crop:
// not linear in the input.
func.func @resize_crop(%x: tensor<1x1x2x4xf32>, %roi: tensor<8xf32>) -> tensor<1x1x2x4xf32> {
  %s = "onnx.Constant"() {value = dense<[1.0, 1.0, 1.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  // expected-error @+1 {{cannot derive a gradient through onnx.Resize: tf_crop_and_resize (its extrapolation value is not linear in the input) is not differentiated}}
  %y = "onnx.Resize"(%x, %roi, %s) {mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize", operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x1x2x4xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<1x1x2x8xf32>
  // expected-error @+1 {{cannot derive Gradient of 'y'}}
  %g = "onnx.preview.training.Gradient"(%x, %x, %y) {xs = ["x"], y = "y"} : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x8xf32>) -> tensor<1x1x2x4xf32>
  return %g : tensor<1x1x2x4xf32>
}
