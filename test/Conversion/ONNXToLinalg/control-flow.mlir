// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// If -> scf.if on the extracted condition; the regions move over (the
// dialect keeps else_branch first, then_branch second).
// CHECK-LABEL: func.func @if_select
// CHECK-SAME: (%[[C:.+]]: tensor<i1>, %[[A:.+]]: tensor<2xf32>, %[[B:.+]]: tensor<2xf32>)
// CHECK: %[[S:.+]] = tensor.extract %[[C]][] : tensor<i1>
// CHECK: %[[R:.+]] = scf.if %[[S]] -> (tensor<2xf32>) {
// CHECK-NEXT: scf.yield %[[A]] : tensor<2xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[B]] : tensor<2xf32>
// CHECK: return %[[R]]
func.func @if_select(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "onnx.If"(%c) ({
    onnx.Yield %b : tensor<2xf32>
  }, {
    onnx.Yield %a : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Scan -> scf.for over the scan length: slice, body, insert the output.
// CHECK-LABEL: func.func @scan_sum
// CHECK-SAME: (%[[INIT:.+]]: tensor<2xf32>, %[[XS:.+]]: tensor<3x2xf32>)
// CHECK: %[[BUF:.+]] = tensor.empty
// CHECK: %[[R:.+]]:2 = scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[S:.+]] = %[[INIT]], %[[OUT:.+]] = %{{.+}})
// CHECK: %[[X:.+]] = tensor.extract_slice %[[XS]][%[[I]], 0] [1, 2] [1, 1] : tensor<3x2xf32> to tensor<2xf32>
// CHECK: %[[Y:.+]] = linalg.generic {{.*}} ins(%[[S]], %[[X]]
// CHECK: %[[NEXT:.+]] = tensor.insert_slice %[[Y]] into %[[OUT]][%[[I]], 0] [1, 2] [1, 1]
// CHECK: scf.yield %[[Y]], %[[NEXT]]
func.func @scan_sum(%init: tensor<2xf32>, %xs: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  %0:2 = "onnx.Scan"(%init, %xs) <{num_scan_inputs = 1 : i64}> ({
  ^bb0(%s: tensor<2xf32>, %x: tensor<2xf32>):
    %y = "onnx.Add"(%s, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    onnx.Yield %y, %y : tensor<2xf32>, tensor<2xf32>
  }) : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<3x2xf32>
}

// -----

// Loop with a trip count and a carried value -> scf.while over (iteration,
// condition, carried...).
// CHECK-LABEL: func.func @loop_count
// CHECK: %[[M:.+]] = tensor.extract %{{.+}}[] : tensor<i64>
// CHECK: scf.while (%[[IT:.+]] = %{{.+}}, %[[CND:.+]] = %{{.+}}, %[[V:.+]] = %{{.+}}) : (tensor<i64>, tensor<i1>, tensor<2xf32>)
// CHECK: %[[I:.+]] = tensor.extract %[[IT]][] : tensor<i64>
// CHECK: %[[LT:.+]] = arith.cmpi slt, %[[I]], %[[M]] : i64
// CHECK: scf.condition(%{{.+}}) %[[IT]], %[[CND]], %[[V]]
// CHECK: } do {
// CHECK: linalg.generic
// CHECK: arith.addi %{{.+}}, %{{.+}} : i64
// CHECK: scf.yield
func.func @loop_count(%m: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "onnx.Loop"(%m, %c, %v) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %x: tensor<2xf32>):
    %y = "onnx.Add"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    onnx.Yield %cond, %y : tensor<i1>, tensor<2xf32>
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A Loop without a trip count: its scan output (of a dynamic length) is
// collected in a sequence (a pointer state of the scf.while), each element
// boxed and appended, then stacked after the loop (zero iterations give a
// 0 x n tensor).
// CHECK-LABEL: func.func @loop_scan_collected
// CHECK: %[[E:.*]] = call @onnxc_rt_seq_empty
// CHECK: scf.while ({{.*}}%{{.*}} = %[[E]]) : (tensor<i64>, tensor<i1>, tensor<?xf32>, !llvm.ptr)
// CHECK: call @onnxc_rt_tensor_box_f32
// CHECK: call @onnxc_rt_seq_insert
// CHECK: scf.if
// CHECK: memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?xf32>
// CHECK: call @onnxc_rt_tensor_read_f32
func.func @loop_scan_collected(%cond: tensor<i1>, %x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %0:2 = "onnx.Loop"(%cond, %x) <{operandSegmentSizes = array<i32: 0, 1, 1>}> ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<?xf32>):
    %1 = "onnx.Add"(%v, %v) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    onnx.Yield %c, %1, %1 : tensor<i1>, tensor<?xf32>, tensor<?xf32>
  }) : (tensor<i1>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>)
  return %0#0, %0#1 : tensor<?xf32>, tensor<?x?xf32>
}
