// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// A forward LSTM: the inputs' projection X x W^T for all 5 steps first, one
// [10, 16] contraction (W read as stored: over its last dim); then one
// scf.for over the steps carrying H, the step outputs and C; per step the
// step's rows of the projection, H x R^T, and one elementwise generic for
// the gates (sigmoid as exp, tanh) giving the next H, the step's output row
// and the next C. Y and Y_h gain their direction dim at the end.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @lstm
// CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<2x4xf32>
// CHECK: %[[STEPS:.*]] = linalg.fill {{.*}} -> tensor<5x2x4xf32>
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<5x2x3xf32> into tensor<10x3xf32>
// CHECK: %[[XW:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[ROWS]], %{{.*}} : tensor<10x3xf32>, tensor<16x3xf32>)
// CHECK: %[[XW3:.*]] = tensor.expand_shape %[[XW]] {{\[\[}}0, 1], [2]] output_shape [5, 2, 16]
// CHECK: %[[LOOP:.*]]:3 = scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[H:.*]] = %[[ZERO]], %[[Y:.*]] = %[[STEPS]], %[[CELL:.*]] = %[[ZERO]])
// CHECK:   %[[XT:.*]] = tensor.extract_slice %[[XW3]][%[[T]], 0, 0] [1, 2, 16] [1, 1, 1] : tensor<5x2x16xf32> to tensor<2x16xf32>
// CHECK:   %[[HR:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[H]], %{{.*}} : tensor<2x4xf32>, tensor<16x4xf32>)
// CHECK:   tensor.extract_slice %[[XT]][0, 0] [2, 4]
// CHECK:   tensor.extract_slice %[[HR]][0, 0] [2, 4]
// CHECK:   %[[G:.*]]:3 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[H]], {{.*}}, %[[CELL]] :
// CHECK:     math.exp
// CHECK:     math.tanh
// CHECK:   %[[ROW:.*]] = tensor.insert_slice %[[G]]#1 into %[[Y]][%[[T]], 0, 0] [1, 2, 4]
// CHECK:   scf.yield %[[G]]#0, %[[ROW]], %[[G]]#2
// CHECK: tensor.insert_slice %[[LOOP]]#1 into %{{.*}}[0, 0, 0, 0] [5, 1, 2, 4]
// CHECK: tensor.insert_slice %[[LOOP]]#0 into %{{.*}}[0, 0, 0] [1, 2, 4]
func.func @lstm(%x: tensor<5x2x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>) {
  %y, %yh = "onnx.LSTM"(%x, %w, %r) <{direction = "forward", hidden_size = 4 : i64, input_forget = 0 : i64, layout = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return %y, %yh : tensor<5x1x2x4xf32>, tensor<1x2x4xf32>
}
