// RUN: onnx-mlir-opt %s --split-input-file --onnx-build-training-step | FileCheck %s
// RUN: onnx-mlir-opt %s --split-input-file --onnx-build-training-step="optimizer=momentum momentum=0.5 learning-rate=0.1 freeze=b" | FileCheck %s --check-prefix=MOM

// SGD on a linear model: the initializers w and b become arguments after
// the input and the labels; the loss is -mean(log softmax(y)[labels]); the
// step returns the loss and w - lr dw, b - lr db; the initial values go
// into module attributes.
// CHECK: module attributes {onnxc.train_first_state = 2 : i64, onnxc.train_state = [dense<5.000000e-01> : tensor<3x2xf32>, dense<0.000000e+00> : tensor<2xf32>]}
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32> {onnx.name = "x"}, %[[L:.*]]: tensor<4xi64> {onnx.name = "labels"}, %[[W:.*]]: tensor<3x2xf32> {onnx.name = "w"}, %[[B:.*]]: tensor<2xf32> {onnx.name = "b"})
// CHECK-SAME: -> (tensor<f32> {onnx.name = "loss"}, tensor<3x2xf32> {onnx.name = "w"}, tensor<2xf32> {onnx.name = "b"})
// CHECK-NOT: onnx.initializer
// CHECK: %[[Y:.*]] = "onnx.Gemm"(%[[X]], %[[W]], %[[B]])
// CHECK: %[[LP:.*]] = "onnx.LogSoftmax"(%[[Y]]) <{axis = 1 : i64}>
// CHECK: %[[PICK:.*]] = "onnx.GatherElements"(%[[LP]], %{{.*}}) <{axis = 1 : i64}>
// CHECK: %[[MEAN:.*]] = "onnx.ReduceMean"(%[[PICK]]) <{keepdims = 0 : i64
// CHECK: %[[LOSS:.*]] = "onnx.Neg"(%[[MEAN]])
// CHECK: %[[GW:.*]] = "onnx.Gemm"(%[[X]], %{{.*}}) <{{{.*}}transA = 1 : i64{{.*}}}> : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
// CHECK: %[[LR:.*]] = "onnx.Constant"() <{value = dense<0.00999999977> : tensor<f32>}>
// CHECK: %[[SW:.*]] = "onnx.Mul"(%[[GW]], %[[LR]])
// CHECK: %[[NW:.*]] = "onnx.Sub"(%[[W]], %[[SW]])
// CHECK: %[[NB:.*]] = "onnx.Sub"(%[[B]], %{{.*}})
// CHECK: return %[[LOSS]], %[[NW]], %[[NB]]

// Momentum with b frozen: b stays a constant; w's momentum buffer (zeros)
// and the step count are state, updated by the Momentum op (T = the count
// of earlier steps), the count by one.
// MOM: module attributes {onnxc.train_first_state = 2 : i64, onnxc.train_state = [dense<5.000000e-01> : tensor<3x2xf32>, dense<0> : tensor<i64>, dense<0.000000e+00> : tensor<3x2xf32>]}
// MOM: -> (tensor<f32> {onnx.name = "loss"}, tensor<3x2xf32> {onnx.name = "w"}, tensor<i64> {onnx.name = "optimizer.step"}, tensor<3x2xf32> {onnx.name = "w.momentum"})
// MOM: %[[B:.*]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<2xf32>}> : () -> tensor<2xf32>
// MOM: "onnx.Gemm"(%{{.*}}, %{{.*}}, %[[B]])
// MOM: %[[T:.*]] = "onnx.Add"(%arg3, %{{.*}}) : (tensor<i64>, tensor<i64>) -> tensor<i64>
// MOM: %[[M:.*]]:2 = "onnx.preview.training.Momentum"(%{{.*}}, %arg3, %arg2, %{{.*}}, %arg4) <{alpha = 5.000000e-01 : f32, beta = 1.000000e+00 : f32, mode = "standard", norm_coefficient = 0.000000e+00 : f32}>
// MOM: return %{{.*}}, %[[M]]#0, %[[T]], %[[M]]#1
func.func @main_graph(%x: tensor<4x3xf32> {onnx.name = "x"}) -> (tensor<4x2xf32> {onnx.name = "y"}) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<3x2xf32>, onnx.initializer = "w"} : () -> tensor<3x2xf32>
  %b = "onnx.Constant"() {value = dense<0.0> : tensor<2xf32>, onnx.initializer = "b"} : () -> tensor<2xf32>
  %y = "onnx.Gemm"(%x, %w, %b) : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Dropout draws a new mask every step: keep = u >= ratio, u from a
// splitmix64 hash (uint64 ops) of the element index and the dropout.step
// counter, the first state tensor, which counts up by one.
// CHECK: module attributes {onnxc.train_first_state = 2 : i64, onnxc.train_state = [dense<0> : tensor<i64>, dense<5.000000e-01> : tensor<3x2xf32>]}
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: %[[STEP:[a-z0-9]+]]: tensor<i64> {onnx.name = "dropout.step"}, %{{[a-z0-9]+}}: tensor<3x2xf32> {onnx.name = "w"}
// CHECK-SAME: -> (tensor<f32> {onnx.name = "loss"}, tensor<i64> {onnx.name = "dropout.step"}, tensor<3x2xf32> {onnx.name = "w"})
// CHECK-NOT: onnx.Dropout
// CHECK: "onnx.Range"
// CHECK: "onnx.Cast"(%[[STEP]]) <{{{.*}}to = 13 : i64}> : (tensor<i64>) -> tensor<ui64>
// CHECK-COUNT-3: "onnx.BitwiseXor"
// CHECK: %[[KEEP:.*]] = "onnx.GreaterOrEqual"
// CHECK: %[[NEXT:.*]] = "onnx.Add"(%[[STEP]], %{{.*}}) : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: return %{{.*}}, %[[NEXT]], %{{.*}}
func.func @main_graph(%x: tensor<4x3xf32> {onnx.name = "x"}) -> (tensor<4x2xf32> {onnx.name = "y"}) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<3x2xf32>, onnx.initializer = "w"} : () -> tensor<3x2xf32>
  %r = "onnx.Constant"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %h = "onnx.MatMul"(%x, %w) : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %d = "onnx.Dropout"(%h, %r) {operandSegmentSizes = array<i32: 1, 1, 0>, resultSegmentSizes = array<i32: 1, 0>} : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  return %d : tensor<4x2xf32>
}

