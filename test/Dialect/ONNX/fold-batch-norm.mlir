// RUN: onnx-mlir-opt %s --split-input-file --onnx-fold-batch-norm | FileCheck %s

// A Conv without bias: the filter is scaled per output channel by
// a = scale / sqrt(var + eps), the bias is B - mean * a.
// CHECK-LABEL: func.func @conv_bn
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x8x8xf32>)
// CHECK-DAG: %[[SHAPE:.+]] = "onnx.Constant"() <{value = dense<[4, 1, 1, 1]> : tensor<4xi64>}>
// CHECK-DAG: %[[W:.+]] = "onnx.Constant"() <{value = dense<5.000000e-01> : tensor<4x3x3x3xf32>}>
// CHECK-DAG: %[[SCALE:.+]] = "onnx.Constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// CHECK-DAG: %[[B:.+]] = "onnx.Constant"() <{value = dense<1.000000e-01>
// CHECK-DAG: %[[MEAN:.+]] = "onnx.Constant"() <{value = dense<2.000000e-01>
// CHECK-DAG: %[[VAR:.+]] = "onnx.Constant"() <{value = dense<4.000000e+00>
// CHECK-DAG: %[[EPS:.+]] = "onnx.Constant"() <{value = dense<9.99999974E-6> : tensor<f32>}>
// CHECK: %[[V:.+]] = "onnx.Add"(%[[VAR]], %[[EPS]])
// CHECK: %[[S:.+]] = "onnx.Sqrt"(%[[V]])
// CHECK: %[[A:.+]] = "onnx.Div"(%[[SCALE]], %[[S]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[AC:.+]] = "onnx.Reshape"(%[[A]], %[[SHAPE]]) {{.*}}: (tensor<4xf32>, tensor<4xi64>) -> tensor<4x1x1x1xf32>
// CHECK: %[[WS:.+]] = "onnx.Mul"(%[[W]], %[[AC]]) : (tensor<4x3x3x3xf32>, tensor<4x1x1x1xf32>) -> tensor<4x3x3x3xf32>
// CHECK: %[[NM:.+]] = "onnx.Neg"(%[[MEAN]])
// CHECK: %[[MA:.+]] = "onnx.Mul"(%[[NM]], %[[A]])
// CHECK: %[[BIAS:.+]] = "onnx.Add"(%[[MA]], %[[B]])
// CHECK: %[[Y:.+]] = "onnx.Conv"(%[[X]], %[[WS]], %[[BIAS]]) <{{{.*}}kernel_shape = [3, 3], pads = [1, 1, 1, 1]}>
// CHECK-NOT: onnx.BatchNormalization
// CHECK: return %[[Y]]
func.func @conv_bn(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %scale = "onnx.Constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %b = "onnx.Constant"() <{value = dense<0.1> : tensor<4xf32>}> : () -> tensor<4xf32>
  %mean = "onnx.Constant"() <{value = dense<0.2> : tensor<4xf32>}> : () -> tensor<4xf32>
  %var = "onnx.Constant"() <{value = dense<4.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %c = "onnx.Conv"(%x, %w) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1]}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %y = "onnx.BatchNormalization"(%c, %scale, %b, %mean, %var) <{epsilon = 1.0e-5 : f32, resultSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// With a bias: (bias - mean) * a + B. Weights made by ops on constants
// (ConstantOfShape, as the ONNX light models have them) are weights too;
// a grouped conv folds the same way (filter dim 0 is the output channel).
// CHECK-LABEL: func.func @conv_bias_bn
// CHECK: %[[W:.+]] = "onnx.ConstantOfShape"
// CHECK: %[[A:.+]] = "onnx.Div"
// CHECK: %[[AC:.+]] = "onnx.Reshape"(%[[A]], %{{.+}}) {{.*}}: (tensor<4xf32>, tensor<4xi64>) -> tensor<4x1x1x1xf32>
// CHECK: %[[WS:.+]] = "onnx.Mul"(%[[W]], %[[AC]])
// CHECK: %[[SH:.+]] = "onnx.Sub"(%[[BIAS0:.+]], %[[MEAN:.+]]) :
// CHECK: %[[MA:.+]] = "onnx.Mul"(%[[SH]], %[[A]])
// CHECK: %[[BIAS:.+]] = "onnx.Add"(%[[MA]], %{{.+}})
// CHECK: "onnx.Conv"(%{{.+}}, %[[WS]], %[[BIAS]]) <{{{.*}}group = 4 : i64}>
// CHECK-NOT: onnx.BatchNormalization
func.func @conv_bias_bn(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %shape = "onnx.Constant"() <{value = dense<[4, 1, 3, 3]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %w = "onnx.ConstantOfShape"(%shape) <{value = dense<0.5> : tensor<1xf32>}> : (tensor<4xi64>) -> tensor<4x1x3x3xf32>
  %bias = "onnx.Constant"() <{value = dense<0.3> : tensor<4xf32>}> : () -> tensor<4xf32>
  %p = "onnx.Constant"() <{value = dense<1.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %c = "onnx.Conv"(%x, %w, %bias) <{group = 4 : i64}> : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %y = "onnx.BatchNormalization"(%c, %p, %p, %p, %p) <{resultSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// Left alone: statistics that are inputs of the function, a conv result
// that something else reads too, and training mode.
// CHECK-LABEL: func.func @not_folded
// CHECK-COUNT-3: "onnx.BatchNormalization"
// CHECK-NOT: "onnx.Reshape"
func.func @not_folded(%x: tensor<1x3x8x8xf32>, %stat: tensor<4xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %p = "onnx.Constant"() <{value = dense<1.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %c0 = "onnx.Conv"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %y0 = "onnx.BatchNormalization"(%c0, %p, %p, %stat, %p) <{resultSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %c1 = "onnx.Conv"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %y1 = "onnx.BatchNormalization"(%c1, %p, %p, %p, %p) <{resultSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %c2 = "onnx.Conv"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %y2, %rm, %rv = "onnx.BatchNormalization"(%c2, %p, %p, %p, %p) <{training_mode = 1 : i64, resultSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y0, %y1, %c1, %y2 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

// After a Gemm with transB and a bias: B's rows (the output columns) are
// scaled, C becomes (beta C - mean) * a + B_bn, beta 1.
// CHECK-LABEL: func.func @gemm_bn
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>)
// CHECK: %[[S:.+]] = "onnx.Sqrt"
// CHECK: %[[SC:.+]] = "onnx.Div"(%{{.+}}, %[[S]])
// CHECK: %[[COL:.+]] = "onnx.Reshape"(%[[SC]], %{{.+}}) {{.*}} -> tensor<4x1xf32>
// CHECK: %[[B:.+]] = "onnx.Mul"(%{{.+}}, %[[COL]]) : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
// CHECK: %[[BC:.+]] = "onnx.Mul"(%{{.+}}, %{{.+}}) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[SH:.+]] = "onnx.Sub"(%[[BC]], %{{.+}})
// CHECK: %[[MS:.+]] = "onnx.Mul"(%[[SH]], %[[SC]])
// CHECK: %[[BIAS:.+]] = "onnx.Add"(%[[MS]], %{{.+}})
// CHECK: %[[Y:.+]] = "onnx.Gemm"(%[[A]], %[[B]], %[[BIAS]]) <{alpha = 2.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64}>
// CHECK-NOT: onnx.BatchNormalization
// CHECK: return %[[Y]]
func.func @gemm_bn(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %b = "onnx.Constant"() <{value = dense<0.5> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
  %c = "onnx.Constant"() <{value = dense<0.3> : tensor<4xf32>}> : () -> tensor<4xf32>
  %scale = "onnx.Constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %bb = "onnx.Constant"() <{value = dense<0.1> : tensor<4xf32>}> : () -> tensor<4xf32>
  %mean = "onnx.Constant"() <{value = dense<0.2> : tensor<4xf32>}> : () -> tensor<4xf32>
  %var = "onnx.Constant"() <{value = dense<4.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %g = "onnx.Gemm"(%a, %b, %c) <{alpha = 2.0 : f32, beta = 0.5 : f32, transB = 1}> : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %y = "onnx.BatchNormalization"(%g, %scale, %bb, %mean, %var) <{epsilon = 1.0e-5 : f32, resultSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// After a 2-D MatMul by a weight: a Gemm with B's columns scaled and the
// bias B_bn - mean * a. A MatMul by an input is left alone.
// CHECK-LABEL: func.func @matmul_bn
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[X:.+]]: tensor<3x4xf32>)
// CHECK: %[[B:.+]] = "onnx.Mul"(%{{.+}}, %{{.+}}) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK: %[[NM:.+]] = "onnx.Neg"
// CHECK: %[[Y:.+]] = "onnx.Gemm"(%[[A]], %[[B]], %{{.+}}) <{alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 0 : i64}>
// CHECK: %[[M:.+]] = "onnx.MatMul"(%[[A]], %[[X]])
// CHECK: "onnx.BatchNormalization"(%[[M]]
func.func @matmul_bn(%a: tensor<2x3xf32>, %x: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %b = "onnx.Constant"() <{value = dense<0.5> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
  %scale = "onnx.Constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %bb = "onnx.Constant"() <{value = dense<0.1> : tensor<4xf32>}> : () -> tensor<4xf32>
  %mean = "onnx.Constant"() <{value = dense<0.2> : tensor<4xf32>}> : () -> tensor<4xf32>
  %var = "onnx.Constant"() <{value = dense<4.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %y = "onnx.BatchNormalization"(%m, %scale, %bb, %mean, %var) <{epsilon = 1.0e-5 : f32, resultSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %m2 = "onnx.MatMul"(%a, %x) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %y2 = "onnx.BatchNormalization"(%m2, %scale, %bb, %mean, %var) <{epsilon = 1.0e-5 : f32, resultSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y, %y2 : tensor<2x4xf32>, tensor<2x4xf32>
}
