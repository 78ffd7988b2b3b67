// RUN: onnx-mlir-opt %s --split-input-file --verify-diagnostics --onnx-box-unranked-outputs | FileCheck %s

// An If whose branches yield a 2x3 and a 6 is an output: each branch boxes
// its tensor, the If and the function return the box.
// CHECK-LABEL: func.func @if_output
// CHECK-SAME: -> !onnx.opt<tensor<*xf32>>
// CHECK: %[[IF:.*]] = "onnx.If"
// CHECK: %[[R:.*]] = "onnx.Reshape"
// CHECK: %[[B1:.*]] = "onnx.Optional"(%[[R]]) : (tensor<2x3xf32>) -> !onnx.opt<tensor<*xf32>>
// CHECK: onnx.Yield %[[B1]]
// CHECK: %[[B2:.*]] = "onnx.Optional"(%arg1) : (tensor<6xf32>) -> !onnx.opt<tensor<*xf32>>
// CHECK: onnx.Yield %[[B2]]
// CHECK: -> !onnx.opt<tensor<*xf32>>
// CHECK: return %[[IF]] : !onnx.opt<tensor<*xf32>>
func.func @if_output(%c: tensor<i1>, %x: tensor<6xf32>) -> tensor<*xf32> {
  %s = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = "onnx.If"(%c) ({
    %r = "onnx.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
    onnx.Yield %r : tensor<2x3xf32>
  }, {
    onnx.Yield %x : tensor<6xf32>
  }) : (tensor<i1>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Nested Ifs: the inner If's branches box their tensors; the ranked
// second result and the ranked output are left as they are.
// CHECK-LABEL: func.func @nested
// CHECK-SAME: -> (!onnx.opt<tensor<*xf32>>, tensor<6xf32>)
// CHECK: "onnx.Optional"(%{{.*}}) : (tensor<2x3xf32>) -> !onnx.opt<tensor<*xf32>>
// CHECK: "onnx.Optional"(%{{.*}}) : (tensor<6xf32>) -> !onnx.opt<tensor<*xf32>>
// CHECK: }) : (tensor<i1>) -> !onnx.opt<tensor<*xf32>>
// CHECK: "onnx.Optional"(%{{.*}}) : (tensor<1x6xf32>) -> !onnx.opt<tensor<*xf32>>
// CHECK: }) : (tensor<i1>) -> (!onnx.opt<tensor<*xf32>>, tensor<6xf32>)
func.func @nested(%c: tensor<i1>, %d: tensor<i1>, %x: tensor<6xf32>) -> (tensor<*xf32>, tensor<6xf32>) {
  %s = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %t = "onnx.Constant"() {value = dense<[1, 6]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0:2 = "onnx.If"(%c) ({
    %1 = "onnx.If"(%d) ({
      %r = "onnx.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
      onnx.Yield %r : tensor<2x3xf32>
    }, {
      onnx.Yield %x : tensor<6xf32>
    }) : (tensor<i1>) -> tensor<*xf32>
    onnx.Yield %1, %x : tensor<*xf32>, tensor<6xf32>
  }, {
    %q = "onnx.Reshape"(%x, %t) : (tensor<6xf32>, tensor<2xi64>) -> tensor<1x6xf32>
    onnx.Yield %q, %x : tensor<1x6xf32>, tensor<6xf32>
  }) : (tensor<i1>) -> (tensor<*xf32>, tensor<6xf32>)
  return %0#0, %0#1 : tensor<*xf32>, tensor<6xf32>
}

// -----

// A result marked by onnxc (the signature gave it rank -1) whose rank the
// graph passes learnt is boxed all the same; an unmarked ranked one is not.
// CHECK-LABEL: func.func @marked
// CHECK-SAME: -> (!onnx.opt<tensor<*xf32>> {onnxc.box_output}, tensor<6xf32>)
// CHECK: %[[B:.*]] = "onnx.Optional"(%arg0) : (tensor<6xf32>) -> !onnx.opt<tensor<*xf32>>
// CHECK: return %[[B]], %arg0
func.func @marked(%x: tensor<6xf32>) -> (tensor<6xf32> {onnxc.box_output}, tensor<6xf32>) {
  return %x, %x : tensor<6xf32>, tensor<6xf32>
}

// -----

// The graph passes folded the If (onnxc --input-shape fixed the size it
// tested): the unranked result is a cast of a ranked tensor, which is boxed.
// CHECK-LABEL: func.func @folded_if
// CHECK-SAME: -> (!onnx.opt<tensor<*xf32>> {onnxc.box_output})
// CHECK: %[[S:.*]] = "onnx.Squeeze"
// CHECK: %[[B:.*]] = "onnx.Optional"(%[[S]]) : (tensor<2x3xf32>) -> !onnx.opt<tensor<*xf32>>
// CHECK: return %[[B]]
func.func @folded_if(%x: tensor<2x1x3xf32>) -> (tensor<*xf32> {onnxc.box_output}) {
  %a = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %s = "onnx.Squeeze"(%x, %a) : (tensor<2x1x3xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  %c = tensor.cast %s : tensor<2x3xf32> to tensor<*xf32>
  return %c : tensor<*xf32>
}

// -----

// Unknown rank from elsewhere than If branches: an error naming the node.
func.func @not_if(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{an output of the model has a rank known only at run time, from this node on; onnxc returns such an output only when the branches of an If decide its rank}}
  %0 = "onnx.Relu"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// An If result of unknown rank that is an output and also used elsewhere.
func.func @shared(%c: tensor<i1>, %x: tensor<6xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %s = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+1 {{result 0 of this If has a rank that depends on the branch taken; it is an output of the model and has other uses, which onnxc cannot compile yet}}
  %0 = "onnx.If"(%c) ({
    %r = "onnx.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
    onnx.Yield %r : tensor<2x3xf32>
  }, {
    onnx.Yield %x : tensor<6xf32>
  }) : (tensor<i1>) -> tensor<*xf32>
  %1 = "onnx.Relu"(%0) : (tensor<*xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}
