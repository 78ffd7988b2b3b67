// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// Nearest upsampling: one generic over the output; size-1 dims read their
// index directly, resized dims map back (asymmetric: x = o / scale), floor.
// CHECK-LABEL: func.func @resize_nearest
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x1x4x4xf32>)
// CHECK: linalg.index 2
// CHECK: arith.divf
// CHECK: math.floor
// CHECK: tensor.extract %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : tensor<1x1x2x2xf32>
func.func @resize_nearest(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %s = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "onnx.Resize"(%x, %s) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor"}> : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Linear: two taps per resized dim, weighted and summed in f64.
// CHECK-LABEL: func.func @resize_linear
// CHECK: linalg.generic
// CHECK-COUNT-4: tensor.extract %{{.+}} : tensor<1x1x2x2xf32>
// CHECK: arith.truncf {{.*}} : f64 to f32
func.func @resize_linear(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %s = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "onnx.Resize"(%x, %s) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, mode = "linear"}> : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Resize-19 `axes`: only dim 3 is resized (dims 0-2 read their own index);
// antialias downscaling by 0.6 stretches the linear filter to 4 taps
// (base = ceil(x) - 1), their triangle weights renormalised by their sum.
// CHECK-LABEL: func.func @resize_axes_antialias
// CHECK: linalg.generic
// CHECK: %[[I0:.*]] = linalg.index 0
// CHECK: %[[I1:.*]] = linalg.index 1
// CHECK: %[[I2:.*]] = linalg.index 2
// CHECK: math.ceil
// CHECK-COUNT-4: arith.maximumf
// CHECK-COUNT-4: arith.divf
// CHECK-COUNT-4: tensor.extract %{{.+}}[%[[I0]], %[[I1]], %[[I2]], %{{.+}}] : tensor<1x1x4x4xf32>
// CHECK-NOT: tensor.extract
func.func @resize_axes_antialias(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x2xf32> {
  %s = "onnx.Constant"() <{value = dense<[0.6]> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = "onnx.Resize"(%x, %s) <{antialias = 1 : i64, axes = [3], mode = "linear", operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (tensor<1x1x4x4xf32>, tensor<1xf32>) -> tensor<1x1x4x2xf32>
  return %0 : tensor<1x1x4x2xf32>
}

// -----

// keep_aspect_ratio_policy with run-time sizes: the common scale is the
// minimum (not_larger) of sizes[i] / input size over the named dims.
// CHECK-LABEL: func.func @resize_not_larger
// CHECK: linalg.generic
// CHECK: tensor.extract %{{.+}}[%{{.+}}] : tensor<2xi64>
// CHECK: tensor.extract %{{.+}}[%{{.+}}] : tensor<2xi64>
// CHECK: arith.minimumf
func.func @resize_not_larger(%x: tensor<1x1x2x4xf32>, %sizes: tensor<2xi64>) -> tensor<1x1x1x2xf32> {
  %0 = "onnx.Resize"(%x, %sizes) <{axes = [2, 3], keep_aspect_ratio_policy = "not_larger", operandSegmentSizes = array<i32: 1, 0, 0, 1>}> : (tensor<1x1x2x4xf32>, tensor<2xi64>) -> tensor<1x1x1x2xf32>
  return %0 : tensor<1x1x1x2xf32>
}

// -----

// half_pixel_symmetric: half_pixel shifted by center * (1 - out / (in * scale)).
// CHECK-LABEL: func.func @resize_half_pixel_symmetric
// CHECK: linalg.generic
// CHECK: %[[SCALE:.*]] = arith.constant 2.500000e+00 : f64
// CHECK: %[[LOUT:.*]] = arith.mulf %{{.*}}, %[[SCALE]]
// CHECK: %[[OUT:.*]] = arith.constant 5.000000e+00 : f64
// CHECK: %[[ADJ:.*]] = arith.divf %[[OUT]], %[[LOUT]]
// CHECK: %[[CENTER:.*]] = arith.mulf %{{.*}}, %{{.*}}
// CHECK: %[[SHIFT:.*]] = arith.subf %{{.*}}, %[[ADJ]]
// CHECK: arith.mulf %[[CENTER]], %[[SHIFT]]
func.func @resize_half_pixel_symmetric(%x: tensor<1x1x1x2xf32>) -> tensor<1x1x1x5xf32> {
  %s = "onnx.Constant"() <{value = dense<[1.0, 1.0, 1.0, 2.5]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "onnx.Resize"(%x, %s) <{coordinate_transformation_mode = "half_pixel_symmetric", mode = "linear", operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (tensor<1x1x1x2xf32>, tensor<4xf32>) -> tensor<1x1x1x5xf32>
  return %0 : tensor<1x1x1x5xf32>
}

// -----

// Dynamic height and width with constant scales (an FPN's or a UNet's
// nearest x2 upsampling at any resolution): the result's sizes are
// floor(input size * scale), computed before the loops.
// CHECK-LABEL: func.func @resize_dynamic_scales
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[H:.+]] = tensor.dim %{{.+}}, %[[C2]] : tensor<?x8x?x?xf32>
// CHECK-DAG: %[[W:.+]] = tensor.dim %{{.+}}, %[[C3]] : tensor<?x8x?x?xf32>
// CHECK: %[[HS:.+]] = arith.mulf %{{.+}}, %{{.+}} : f64
// CHECK: %[[OH:.+]] = arith.fptosi %[[HS]]
// CHECK: %[[WS:.+]] = arith.mulf %{{.+}}, %{{.+}} : f64
// CHECK: %[[OW:.+]] = arith.fptosi %[[WS]]
// CHECK: tensor.empty(%{{.+}}, %{{.+}}, %{{.+}}) : tensor<?x8x?x?xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<?x8x?x?xf32>)
// CHECK: arith.divf
// CHECK: math.floor
func.func @resize_dynamic_scales(%x: tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32> {
  %s = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "onnx.Resize"(%x, %s) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor"}> : (tensor<?x8x?x?xf32>, tensor<4xf32>) -> tensor<?x8x?x?xf32>
  return %0 : tensor<?x8x?x?xf32>
}

// -----

// Output sizes read at run time (stretch), dynamic input: each resized
// dim's size is read from `sizes`, and its scale is output / input size.
// CHECK-LABEL: func.func @resize_dynamic_sizes
// CHECK: tensor.extract %{{.+}}[%{{.+}}] : tensor<4xi64>
// CHECK: arith.index_cast %{{.+}} : i64 to index
// CHECK: arith.divf %{{.+}}, %{{.+}} : f64
// CHECK: tensor.empty
// CHECK: linalg.generic
func.func @resize_dynamic_sizes(%x: tensor<?x8x?x?xf32>, %sizes: tensor<4xi64>) -> tensor<?x?x?x?xf32> {
  %0 = "onnx.Resize"(%x, %sizes) <{operandSegmentSizes = array<i32: 1, 0, 0, 1>, mode = "linear"}> : (tensor<?x8x?x?xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
