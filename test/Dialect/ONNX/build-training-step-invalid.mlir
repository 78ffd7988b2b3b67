// RUN: onnx-mlir-opt %s --split-input-file --onnx-build-training-step --verify-diagnostics
// RUN: not onnx-mlir-opt %s --onnx-build-training-step="loss=hinge" 2>&1 | FileCheck %s --check-prefix=LOSS
// LOSS: unknown loss 'hinge' (cross-entropy, mse or output)

// Nothing to train: the weight is not an initializer.
// expected-error @+1 {{no trainable parameter: no float initializer (not frozen) that the loss depends on}}
func.func @main_graph(%x: tensor<4x3xf32> {onnx.name = "x"}) -> (tensor<4x2xf32> {onnx.name = "y"}) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
  %y = "onnx.MatMul"(%x, %w) : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
