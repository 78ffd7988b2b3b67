// RUN: onnx-mlir-opt %s --split-input-file --onnx-build-training-step="from-model=true" --verify-diagnostics

// No training algorithm.
// expected-error @+1 {{from-model: the module has no onnxc.update_binding (the model has no training algorithm)}}
func.func @main_graph(%x: tensor<3xf32> {onnx.name = "x"}) -> (tensor<3xf32> {onnx.name = "y"}) {
  return %x : tensor<3xf32>
}

// -----

// The next value has another shape than the state tensor.
module attributes {onnxc.update_binding = [["w", "y"]]} {
// expected-error @+1 {{update_binding: 'y' ('tensor<2xf32>') cannot be the next value of 'w' ('tensor<3xf32>')}}
func.func @main_graph(%x: tensor<2xf32> {onnx.name = "x"}) -> (tensor<2xf32> {onnx.name = "y"}) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<3xf32>, onnx.initializer = "w"} : () -> tensor<3xf32>
  return %x : tensor<2xf32>
}
}

// -----

// The loss output is not a float.
module attributes {onnxc.update_binding = [["w", "w_new"]]} {
// expected-error @+1 {{the algorithm's output 'n', reported as the loss, is not a float tensor of known rank}}
func.func @main_graph(%x: tensor<3xf32> {onnx.name = "x"}) -> (tensor<i64> {onnx.name = "n"}, tensor<3xf32> {onnx.name = "w_new"}) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<3xf32>, onnx.initializer = "w"} : () -> tensor<3xf32>
  %n = "onnx.Constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %y = "onnx.Add"(%x, %w) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %n, %y : tensor<i64>, tensor<3xf32>
}
}
