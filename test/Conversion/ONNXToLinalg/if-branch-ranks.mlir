// RUN: not onnx-mlir-opt --convert-onnx-to-linalg %s 2>&1 | FileCheck %s

// ONNX lets If's branches yield values of different ranks; scf.if cannot
// hold both, so the If is refused by name instead of failing a tensor.cast
// verifier later.
// CHECK: error: 'onnx.If' is not supported by the CPU backend
// CHECK-NOT: tensor.cast
func.func @if_ranks(%c: tensor<i1>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "onnx.If"(%c) ({
    onnx.Yield %x : tensor<2x3xf32>
  }, {
    %s = "onnx.Constant"() <{value = dense<[6]> : tensor<1xi64>}> : () -> tensor<1xi64>
    %r = "onnx.Reshape"(%x, %s) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
    onnx.Yield %r : tensor<6xf32>
  }) : (tensor<i1>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
