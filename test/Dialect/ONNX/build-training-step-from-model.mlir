// RUN: onnx-mlir-opt %s --onnx-build-training-step="from-model=true" | FileCheck %s --check-prefix=FROM

// from-model: a model combined with its own training algorithm (the
// importer's TrainingGraph::Algorithm). The bound initializers w and it
// become state arguments in binding order, their next values the outputs
// update_binding names; the first unbound output (l) is the loss; the
// unbound initializer lr stays a constant. Nothing else is added.
// FROM: module attributes {onnxc.train_first_state = 1 : i64, onnxc.train_state = [dense<5.000000e-01> : tensor<3xf32>, dense<0> : tensor<i64>]}
// FROM-LABEL: func.func @main_graph
// FROM-SAME: (%[[X:.*]]: tensor<3xf32> {onnx.name = "x"}, %[[W:.*]]: tensor<3xf32> {onnx.name = "w"}, %[[IT:.*]]: tensor<i64> {onnx.name = "it"})
// FROM-SAME: -> (tensor<f32> {onnx.name = "loss"}, tensor<3xf32> {onnx.name = "w"}, tensor<i64> {onnx.name = "it"})
// FROM-NOT: onnx.initializer
// FROM: %[[LR:.*]] = "onnx.Constant"() <{value = dense<1.000000e-01> : tensor<f32>}>
// FROM: %[[Y:.*]] = "onnx.Mul"(%[[X]], %[[W]])
// FROM: %[[L:.*]] = "onnx.ReduceSum"(%[[Y]]
// FROM: %[[NW:.*]] = "onnx.Sub"(%[[W]], %{{.*}})
// FROM: %[[NIT:.*]] = "onnx.Add"(%[[IT]], %{{.*}})
// FROM-NOT: Momentum
// FROM: return %[[L]], %[[NW]], %[[NIT]]
module attributes {onnxc.update_binding = [["w", "w_new"], ["it", "it_new"]]} {
func.func @main_graph(%x: tensor<3xf32> {onnx.name = "x"}) -> (tensor<f32> {onnx.name = "l"}, tensor<3xf32> {onnx.name = "w_new"}, tensor<i64> {onnx.name = "it_new"}) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<3xf32>, onnx.initializer = "w"} : () -> tensor<3xf32>
  %lr = "onnx.Constant"() {value = dense<0.1> : tensor<f32>, onnx.initializer = "lr"} : () -> tensor<f32>
  %it = "onnx.Constant"() {value = dense<0> : tensor<i64>, onnx.initializer = "it"} : () -> tensor<i64>
  %one = "onnx.Constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %y = "onnx.Mul"(%x, %w) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l = "onnx.ReduceSum"(%y) {keepdims = 0 : i64} : (tensor<3xf32>) -> tensor<f32>
  %s = "onnx.Mul"(%x, %lr) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %nw = "onnx.Sub"(%w, %s) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %nit = "onnx.Add"(%it, %one) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  return %l, %nw, %nit : tensor<f32>, tensor<3xf32>, tensor<i64>
}
}
