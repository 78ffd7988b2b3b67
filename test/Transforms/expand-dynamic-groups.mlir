// RUN: onnx-mlir-opt %s --split-input-file --onnxc-expand-dynamic-groups | FileCheck %s
// RUN: onnx-mlir-opt %s --split-input-file --onnxc-expand-dynamic-groups --expand-strided-metadata | FileCheck %s --check-prefix=META

// One dim split into two dynamic ones (the [batch * seq, 4 * hidden]
// projection of an LSTM viewed per step): a reinterpret_cast whose sizes
// are the output_shape and whose strides nest inside the source's.
// CHECK-LABEL: func.func @two_dynamic
// CHECK-SAME: (%[[M:.+]]: memref<?x192xf32, strided<[192, 1]>>, %[[A:.+]]: index, %[[B:.+]]: index)
// CHECK-NOT: memref.expand_shape
// CHECK: %[[C192:.+]] = arith.constant 192 : index
// CHECK: %[[BASE:.+]], %{{.+}}, %{{.+}}:2, %{{.+}}:2 = memref.extract_strided_metadata %[[M]]
// CHECK: %[[OUTER:.+]] = arith.muli %[[B]], %[[C192]] : index
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[A]], %[[B]], 192], strides: [%[[OUTER]], 192, 1]
// CHECK-SAME: : memref<f32> to memref<?x?x192xf32, strided<[?, 192, 1]>>
// expand-strided-metadata then folds the view (before, it crashed on it):
// META-LABEL: func.func @two_dynamic
// META-NOT: memref.expand_shape
// META: arith.muli
func.func @two_dynamic(%m: memref<?x192xf32, strided<[192, 1]>>, %a: index, %b: index) -> memref<?x?x192xf32, strided<[?, 192, 1]>> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%a, %b, 192] : memref<?x192xf32, strided<[192, 1]>> into memref<?x?x192xf32, strided<[?, 192, 1]>>
  return %e : memref<?x?x192xf32, strided<[?, 192, 1]>>
}

// -----

// Three dynamic dims from one, at a dynamic offset.
// CHECK-LABEL: func.func @three_dynamic_offset
// CHECK: %[[BASE:.+]], %[[OFF:.+]], %{{.+}}, %[[STRIDE:.+]] = memref.extract_strided_metadata
// CHECK: %[[S1:.+]] = arith.muli %[[STRIDE]], %arg3
// CHECK: %[[S0:.+]] = arith.muli %[[S1]], %arg2
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [%arg1, %arg2, %arg3], strides: [%[[S0]], %[[S1]], %[[STRIDE]]]
func.func @three_dynamic_offset(%m: memref<?xf32, strided<[?], offset: ?>>, %a: index, %b: index, %c: index) -> memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>> {
  %e = memref.expand_shape %m [[0, 1, 2]] output_shape [%a, %b, %c] : memref<?xf32, strided<[?], offset: ?>> into memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
  return %e : memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
}

// -----

// At most one dynamic dim per group: left to expand-strided-metadata.
// CHECK-LABEL: func.func @one_dynamic
// CHECK: memref.expand_shape
func.func @one_dynamic(%m: memref<?x192xf32>, %a: index) -> memref<?x4x192xf32> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%a, 4, 192] : memref<?x192xf32> into memref<?x4x192xf32>
  return %e : memref<?x4x192xf32>
}
