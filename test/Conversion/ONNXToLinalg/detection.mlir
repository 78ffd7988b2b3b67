// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// NonMaxSuppression: a rank per box in score order (one generic with a
// reduction over the other boxes), then per (batch, class) the visiting
// order and a greedy scan that compares each candidate with the boxes kept
// so far; the rows written are sliced out of a B*C*min(N, max) x 3 tensor.
// CHECK-LABEL: func.func @nms
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.insert
// CHECK: scf.for
// CHECK: arith.cmpf ogt
// CHECK: scf.if
// CHECK: scf.for
// CHECK: arith.divf
// CHECK: tensor.extract_slice {{.*}} : tensor<?x3xi64> to tensor<?x3xi64>
func.func @nms(%boxes: tensor<1x6x4xf32>, %scores: tensor<1x1x6xf32>, %max: tensor<1xi64>, %iou: tensor<1xf32>, %score: tensor<1xf32>) -> tensor<?x3xi64> {
  %0 = "onnx.NonMaxSuppression"(%boxes, %scores, %max, %iou, %score) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// Without max_output_boxes_per_class nothing is kept: the bound is 0 rows.
// CHECK-LABEL: func.func @nms_no_max
// CHECK: tensor.empty(%c0{{(_[0-9]+)?}}) : tensor<?x3xi64>
func.func @nms_no_max(%boxes: tensor<1x6x4xf32>, %scores: tensor<1x1x6xf32>) -> tensor<?x3xi64> {
  %0 = "onnx.NonMaxSuppression"(%boxes, %scores) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// RoiAlign (avg, half_pixel): batch_indices checked against N at run time;
// one generic over [R, C, oh, ow] whose body loops over the bin's sampling
// grid (ceil(bin size) per side when sampling_ratio is 0) and reads four
// bilinear taps per sample.
// CHECK-LABEL: func.func @roi_align
// CHECK: func.call @onnxc_rt_fail
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<3x2x2x2xf32>)
// CHECK: math.ceil
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-4: tensor.extract %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : tensor<1x2x8x8xf32>
// CHECK: arith.divf
func.func @roi_align(%x: tensor<1x2x8x8xf32>, %rois: tensor<3x4xf32>, %idx: tensor<3xi64>) -> tensor<3x2x2x2xf32> {
  %0 = "onnx.RoiAlign"(%x, %rois, %idx) {output_height = 2 : i64, output_width = 2 : i64} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x2x2xf32>
  return %0 : tensor<3x2x2x2xf32>
}
