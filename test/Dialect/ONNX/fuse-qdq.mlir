// RUN: onnx-mlir-opt %s --split-input-file --onnx-fuse-qdq | FileCheck %s

// DQ(x) and DQ(w) (per output channel) into a Conv with an int32 bias of
// scale x_scale * w_scale, then Relu and Q with zero point 0 (uint8): one
// QLinearConv of the quantized operands, the Relu gone (quantizing clamps
// to 0 anyway).
// CHECK-LABEL: func.func @conv_relu
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x5x5xui8>, %[[W:.*]]: tensor<3x2x3x3xi8>, %[[B:.*]]: tensor<3xi32>)
// CHECK-DAG: %[[XS:.*]] = "onnx.Constant"() <{value = dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[XZ:.*]] = "onnx.Constant"() <{value = dense<128> : tensor<ui8>
// CHECK-DAG: %[[WS:.*]] = "onnx.Constant"() <{value = dense<[2.500000e-01, 1.250000e-01, 5.000000e-01]> : tensor<3xf32>
// CHECK-DAG: %[[YS:.*]] = "onnx.Constant"() <{value = dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: %[[YZ:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<ui8>
// CHECK-DAG: %[[WZ:.*]] = "onnx.Constant"() <{value = dense<0> : tensor<i8>
// CHECK: %[[Y:.*]] = "onnx.QLinearConv"(%[[X]], %[[XS]], %[[XZ]], %[[W]], %[[WS]], %[[WZ]], %[[YS]], %[[YZ]], %[[B]]) <{{{.*}}pads = [1, 1, 1, 1]{{.*}}}> : ({{.*}}) -> tensor<1x3x5x5xui8>
// CHECK-NOT: onnx.Conv"
// CHECK-NOT: onnx.Relu
// CHECK-NOT: onnx.QuantizeLinear
// CHECK: return %[[Y]]
func.func @conv_relu(%x: tensor<1x2x5x5xui8>, %w: tensor<3x2x3x3xi8>, %b: tensor<3xi32>) -> tensor<1x3x5x5xui8> {
  %xs = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %xz = "onnx.Constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %ws = "onnx.Constant"() {value = dense<[0.25, 0.125, 0.5]> : tensor<3xf32>} : () -> tensor<3xf32>
  %bs = "onnx.Constant"() {value = dense<[0.125, 0.0625, 0.25]> : tensor<3xf32>} : () -> tensor<3xf32>
  %ys = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %yz = "onnx.Constant"() {value = dense<0> : tensor<ui8>} : () -> tensor<ui8>
  %xf = "onnx.DequantizeLinear"(%x, %xs, %xz) : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x5x5xf32>
  %wf = "onnx.DequantizeLinear"(%w, %ws) {axis = 0 : i64} : (tensor<3x2x3x3xi8>, tensor<3xf32>) -> tensor<3x2x3x3xf32>
  %bf = "onnx.DequantizeLinear"(%b, %bs) {axis = 0 : i64} : (tensor<3xi32>, tensor<3xf32>) -> tensor<3xf32>
  %c = "onnx.Conv"(%xf, %wf, %bf) {pads = [1, 1, 1, 1]} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x5x5xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  %y = "onnx.QuantizeLinear"(%r, %ys, %yz) : (tensor<1x3x5x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x5x5xui8>
  return %y : tensor<1x3x5x5xui8>
}

// -----

// MatMul of DQ(a) (int8) and DQ(b) (per column), Q to int8: QLinearMatMul.
// A Relu before a Q whose zero point (0) is not int8's least stays, and
// with it the float pattern.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[Y:.*]] = "onnx.QLinearMatMul"(%arg0, %{{.*}}, %{{.*}}, %arg1, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x4xi8>, tensor<f32>, tensor<i8>, tensor<4x3xi8>, tensor<3xf32>, tensor<3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
// CHECK: %[[M:.*]] = "onnx.MatMul"
// CHECK: %[[R:.*]] = "onnx.Relu"(%[[M]])
// CHECK: "onnx.QuantizeLinear"(%[[R]],
func.func @matmul(%a: tensor<2x4xi8>, %b: tensor<4x3xi8>) -> (tensor<2x3xi8>, tensor<2x3xi8>) {
  %as = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %az = "onnx.Constant"() {value = dense<3> : tensor<i8>} : () -> tensor<i8>
  %bs = "onnx.Constant"() {value = dense<[0.25, 0.5, 1.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %bz = "onnx.Constant"() {value = dense<[0, 1, -1]> : tensor<3xi8>} : () -> tensor<3xi8>
  %ys = "onnx.Constant"() {value = dense<0.75> : tensor<f32>} : () -> tensor<f32>
  %yz = "onnx.Constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %af = "onnx.DequantizeLinear"(%a, %as, %az) : (tensor<2x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4xf32>
  %bf = "onnx.DequantizeLinear"(%b, %bs, %bz) {axis = 1 : i64} : (tensor<4x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<4x3xf32>
  %m = "onnx.MatMul"(%af, %bf) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y = "onnx.QuantizeLinear"(%m, %ys, %yz) : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  %m2 = "onnx.MatMul"(%af, %bf) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %r = "onnx.Relu"(%m2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %y2 = "onnx.QuantizeLinear"(%r, %ys, %yz) : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  return %y, %y2 : tensor<2x3xi8>, tensor<2x3xi8>
}

// -----

// Left alone: a bias whose scale is not x_scale * w_scale (the pattern
// would not mean QLinearConv), a weight quantized in blocks, a Conv whose
// result has another user.
// CHECK-LABEL: func.func @not_fused
// CHECK-NOT: QLinear
// CHECK-COUNT-3: "onnx.Conv"
func.func @not_fused(%x: tensor<1x2x5x5xui8>, %w: tensor<3x2x3x3xi8>, %b: tensor<3xi32>) -> (tensor<1x3x3x3xui8>, tensor<1x3x3x3xui8>, tensor<1x3x3x3xui8>, tensor<1x3x3x3xf32>) {
  %xs = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %ws = "onnx.Constant"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %bs = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %ys = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %wsb = "onnx.Constant"() {value = dense<0.25> : tensor<3x1x3x3xf32>} : () -> tensor<3x1x3x3xf32>
  %xf = "onnx.DequantizeLinear"(%x, %xs) : (tensor<1x2x5x5xui8>, tensor<f32>) -> tensor<1x2x5x5xf32>
  %wf = "onnx.DequantizeLinear"(%w, %ws) : (tensor<3x2x3x3xi8>, tensor<f32>) -> tensor<3x2x3x3xf32>
  %bf = "onnx.DequantizeLinear"(%b, %bs) : (tensor<3xi32>, tensor<f32>) -> tensor<3xf32>
  %c1 = "onnx.Conv"(%xf, %wf, %bf) : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32>
  %y1 = "onnx.QuantizeLinear"(%c1, %ys) : (tensor<1x3x3x3xf32>, tensor<f32>) -> tensor<1x3x3x3xui8>
  %wb = "onnx.DequantizeLinear"(%w, %wsb) {axis = 1 : i64, block_size = 2 : i64} : (tensor<3x2x3x3xi8>, tensor<3x1x3x3xf32>) -> tensor<3x2x3x3xf32>
  %c2 = "onnx.Conv"(%xf, %wb) : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  %y2 = "onnx.QuantizeLinear"(%c2, %ys) : (tensor<1x3x3x3xf32>, tensor<f32>) -> tensor<1x3x3x3xui8>
  %c3 = "onnx.Conv"(%xf, %wf) : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  %y3 = "onnx.QuantizeLinear"(%c3, %ys) : (tensor<1x3x3x3xf32>, tensor<f32>) -> tensor<1x3x3x3xui8>
  return %y1, %y2, %y3, %c3 : tensor<1x3x3x3xui8>, tensor<1x3x3x3xui8>, tensor<1x3x3x3xui8>, tensor<1x3x3x3xf32>
}
