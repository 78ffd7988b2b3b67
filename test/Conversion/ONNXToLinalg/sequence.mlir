// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// Sequences and optionals become pointers to the runtime's values; each op
// is a call, declared once per module.
// CHECK-DAG: func.func private @onnxc_rt_seq_empty(i32) -> !llvm.ptr
// CHECK-DAG: func.func private @onnxc_rt_seq_insert(!llvm.ptr, i64, !llvm.ptr) -> !llvm.ptr
// CHECK-DAG: func.func private @onnxc_rt_tensor_box_f32(i32, memref<*xf32>) -> !llvm.ptr
// CHECK-DAG: func.func private @onnxc_rt_tensor_read_f32(!llvm.ptr, memref<*xf32>)

// SequenceConstruct: an empty sequence (dtype 1 = float), then each tensor
// boxed (copied through its buffer) and inserted at the back.
// CHECK-LABEL: func.func @construct
// CHECK-SAME: -> !llvm.ptr
// CHECK: %[[DT:.*]] = arith.constant 1 : i32
// CHECK: %[[E:.*]] = call @onnxc_rt_seq_empty(%[[DT]])
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<2x3xf32> to memref<2x3xf32, strided<[?, ?], offset: ?>>
// CHECK: memref.cast %{{.*}} : memref<2x3xf32, strided<[?, ?], offset: ?>> to memref<*xf32>
// CHECK: %[[T0:.*]] = call @onnxc_rt_tensor_box_f32
// CHECK: %[[S1:.*]] = call @onnxc_rt_seq_insert(%[[E]], %{{.*}}, %[[T0]])
// CHECK: %[[T1:.*]] = call @onnxc_rt_tensor_box_f32
// CHECK: %[[S2:.*]] = call @onnxc_rt_seq_insert(%[[S1]], %{{.*}}, %[[T1]])
// CHECK: return %[[S2]] : !llvm.ptr
func.func @construct(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> !onnx.seq<tensor<2x3xf32>> {
  %0 = "onnx.SequenceConstruct"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> !onnx.seq<tensor<2x3xf32>>
  return %0 : !onnx.seq<tensor<2x3xf32>>
}

// SequenceAt: the position wrapped and checked against the length, the
// tensor's rank and static dims checked, then read into a fresh buffer.
// CHECK-LABEL: func.func @at
// CHECK-SAME: (%[[S:.*]]: !llvm.ptr, %[[P:.*]]: tensor<i64>) -> tensor<?x4xf32>
// CHECK: %[[N:.*]] = call @onnxc_rt_seq_length(%[[S]])
// CHECK: arith.addi
// CHECK: scf.if
// CHECK: call @onnxc_rt_fail
// CHECK: %[[I:.*]] = call @onnxc_rt_seq_item(%[[S]], %{{.*}})
// CHECK: call @onnxc_rt_tensor_rank(%[[I]])
// CHECK: call @onnxc_rt_tensor_dim(%[[I]], %{{.*}})
// CHECK: call @onnxc_rt_tensor_dim(%[[I]], %{{.*}})
// CHECK: %[[M:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x4xf32>
// CHECK: call @onnxc_rt_tensor_read_f32(%[[I]], %{{.*}})
// CHECK: bufferization.to_tensor %[[M]] restrict writable
func.func @at(%s: !onnx.seq<tensor<?x4xf32>>, %p: tensor<i64>) -> tensor<?x4xf32> {
  %0 = "onnx.SequenceAt"(%s, %p) : (!onnx.seq<tensor<?x4xf32>>, tensor<i64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// SplitToSequence with keepdims = 0: one boxed rank-reduced slice per
// index along the axis, inserted in a loop that carries the sequence.
// CHECK-LABEL: func.func @split
// CHECK: scf.for {{.*}} iter_args(%[[SEQ:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (!llvm.ptr, index)
// CHECK: tensor.extract_slice %{{.*}} : tensor<3x4xf32> to tensor<4xf32>
// CHECK: call @onnxc_rt_tensor_box_f32
// CHECK: call @onnxc_rt_seq_insert(%[[SEQ]]
func.func @split(%x: tensor<3x4xf32>) -> !onnx.seq<tensor<4xf32>> {
  %0 = "onnx.SplitToSequence"(%x) {axis = 0 : i64, keepdims = 0 : i64} : (tensor<3x4xf32>) -> !onnx.seq<tensor<4xf32>>
  return %0 : !onnx.seq<tensor<4xf32>>
}

// ConcatFromSequence: the sizes along the axis summed (other dims checked
// against the first tensor's), then each tensor read into its subview.
// CHECK-LABEL: func.func @concat
// CHECK: call @onnxc_rt_seq_length
// CHECK: scf.for
// CHECK: call @onnxc_rt_tensor_dim
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<2x?xf32>
// CHECK: scf.for
// CHECK: memref.subview %[[OUT]]
// CHECK: call @onnxc_rt_tensor_read_f32
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
func.func @concat(%s: !onnx.seq<tensor<2x?xf32>>) -> tensor<2x?xf32> {
  %0 = "onnx.ConcatFromSequence"(%s) {axis = 1 : i64} : (!onnx.seq<tensor<2x?xf32>>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// Optionals: none is a null pointer; HasElement compares with null.
// CHECK-LABEL: func.func @optional_none
// CHECK: %[[Z:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: llvm.ptrtoint %[[Z]] : !llvm.ptr to i64
// CHECK: arith.cmpi ne
// CHECK: tensor.from_elements %{{.*}} : tensor<i1>
func.func @optional_none() -> tensor<i1> {
  %0 = "onnx.Optional"() {type_ = tensor<4xf32>} : () -> !onnx.opt<tensor<4xf32>>
  %1 = "onnx.OptionalHasElement"(%0) : (!onnx.opt<tensor<4xf32>>) -> tensor<i1>
  return %1 : tensor<i1>
}

// OptionalGetElement of a tensor: checked non-empty, then read out.
// CHECK-LABEL: func.func @optional_get
// CHECK: llvm.ptrtoint
// CHECK: call @onnxc_rt_fail
// CHECK: call @onnxc_rt_tensor_read_f32
func.func @optional_get(%o: !onnx.opt<tensor<4xf32>>) -> tensor<4xf32> {
  %0 = "onnx.OptionalGetElement"(%o) : (!onnx.opt<tensor<4xf32>>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A Loop carrying a sequence: the pointer is an scf.while state like any
// tensor; the body's insertion appends to it.
// CHECK-LABEL: func.func @loop_carried
// CHECK: scf.while ({{.*}}, %{{.*}} = %{{.*}}) : (tensor<i64>, tensor<i1>, !llvm.ptr)
// CHECK: call @onnxc_rt_seq_insert
// CHECK: scf.yield {{.*}} : tensor<i64>, tensor<i1>, !llvm.ptr
// CHECK-NOT: unrealized_conversion_cast
func.func @loop_carried(%m: tensor<i64>, %cond: tensor<i1>, %s: !onnx.seq<tensor<*xf32>>, %x: tensor<3xf32>) -> !onnx.seq<tensor<*xf32>> {
  %0 = "onnx.Loop"(%m, %cond, %s) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: !onnx.seq<tensor<*xf32>>):
    %1 = "onnx.SequenceInsert"(%v, %x) : (!onnx.seq<tensor<*xf32>>, tensor<3xf32>) -> !onnx.seq<tensor<*xf32>>
    onnx.Yield %c, %1 : tensor<i1>, !onnx.seq<tensor<*xf32>>
  }) : (tensor<i64>, tensor<i1>, !onnx.seq<tensor<*xf32>>) -> !onnx.seq<tensor<*xf32>>
  return %0 : !onnx.seq<tensor<*xf32>>
}

// SequenceMap: an scf.for over the first sequence's length (the second's
// checked equal), its tensors read out for the body, the body's results
// boxed and appended to the output sequences.
// CHECK-LABEL: func.func @sequence_map
// CHECK: call @onnxc_rt_seq_length
// CHECK: call @onnxc_rt_seq_length
// CHECK: call @onnxc_rt_fail
// CHECK: %[[E:.*]] = call @onnxc_rt_seq_empty
// CHECK: scf.for {{.*}} iter_args(%[[OUT:.*]] = %[[E]]) -> (!llvm.ptr)
// CHECK: call @onnxc_rt_seq_item
// CHECK: call @onnxc_rt_tensor_read_f32
// CHECK: call @onnxc_rt_seq_item
// CHECK: call @onnxc_rt_tensor_read_f32
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: call @onnxc_rt_tensor_box_f32
// CHECK: call @onnxc_rt_seq_insert(%[[OUT]]
func.func @sequence_map(%a: !onnx.seq<tensor<?xf32>>, %b: !onnx.seq<tensor<?xf32>>) -> !onnx.seq<tensor<?xf32>> {
  %0 = "onnx.SequenceMap"(%a, %b) ({
  ^bb0(%x: tensor<?xf32>, %y: tensor<?xf32>):
    %1 = "onnx.Add"(%x, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    onnx.Yield %1 : tensor<?xf32>
  }) : (!onnx.seq<tensor<?xf32>>, !onnx.seq<tensor<?xf32>>) -> !onnx.seq<tensor<?xf32>>
  return %0 : !onnx.seq<tensor<?xf32>>
}
