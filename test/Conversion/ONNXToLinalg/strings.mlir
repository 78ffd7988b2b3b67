// RUN: onnx-mlir-opt --split-input-file --verify-diagnostics --convert-onnx-to-linalg %s | FileCheck %s

// A string tensor is a tensor of pointers (i64). A constant's strings sit
// packed in a read-only global whose pointers the runtime writes into a
// buffer; Equal compares the characters per element.
// CHECK-DAG: llvm.mlir.global internal constant @__onnxc_strings_0("ab\00cd\00\00")
// CHECK-LABEL: func.func @constant_equal
// CHECK-SAME: (%[[X:.*]]: tensor<2xi64>) -> tensor<2xi1>
// CHECK: %[[G:.*]] = llvm.mlir.addressof @__onnxc_strings_0 : !llvm.ptr
// CHECK: %[[B:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2xi64>
// CHECK: call @onnxc_rt_string_fill(%[[G]], %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, memref<*xi64>) -> ()
// CHECK: bufferization.to_tensor %[[B]] restrict writable
// CHECK: linalg.generic
// CHECK: call @onnxc_rt_string_equal(%{{.*}}, %{{.*}}) : (i64, i64) -> i32
// CHECK: arith.cmpi ne
func.func @constant_equal(%x: tensor<2x!onnx.string>) -> tensor<2xi1> {
  %c = "onnx.Constant"() {value = dense<["ab", "cd"]> : tensor<2x!onnx.string>} : () -> tensor<2x!onnx.string>
  %0 = "onnx.Equal"(%x, %c) : (tensor<2x!onnx.string>, tensor<2x!onnx.string>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// Cast to and from strings: a runtime call per element (numpy's str() of
// a float; strtof of a string).
// CHECK-LABEL: func.func @casts
// CHECK: linalg.generic
// CHECK: call @onnxc_rt_f32_to_string(%{{.*}}) : (f32) -> i64
// CHECK: linalg.generic
// CHECK: call @onnxc_rt_string_to_f32(%{{.*}}) : (i64) -> f32
func.func @casts(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "onnx.Cast"(%x) {to = 8 : i64} : (tensor<3xf32>) -> tensor<3x!onnx.string>
  %1 = "onnx.Cast"(%0) {to = 1 : i64} : (tensor<3x!onnx.string>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// StringNormalizer: the stopwords packed in a global, the whole tensor to
// the runtime, whose result (of a length known only then) is read back.
// CHECK-DAG: llvm.mlir.global internal constant @__onnxc_strings_0("monday\00\00")
// CHECK-LABEL: func.func @normalize
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<1x4xi64> to memref<1x4xi64, strided<[?, ?], offset: ?>>
// CHECK: %[[V:.*]] = call @onnxc_rt_string_normalize(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, !llvm.ptr, memref<*xi64>) -> !llvm.ptr
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<1x?xi64>
// CHECK: call @onnxc_rt_tensor_read_i64(%[[V]]
func.func @normalize(%x: tensor<1x4x!onnx.string>) -> tensor<1x?x!onnx.string> {
  %0 = "onnx.StringNormalizer"(%x) {case_change_action = "UPPER", stopwords = ["monday"]} : (tensor<1x4x!onnx.string>) -> tensor<1x?x!onnx.string>
  return %0 : tensor<1x?x!onnx.string>
}

// -----

// Ops that would compute on the pointers are refused, naming the op.
func.func @refused(%x: tensor<4x!onnx.string>) -> tensor<?x!onnx.string> {
  // expected-error @+1 {{'onnx.Unique' on string tensors is not supported by the CPU backend}}
  %0:4 = "onnx.Unique"(%x) {resultSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<4x!onnx.string>) -> (tensor<?x!onnx.string>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>)
  return %0#0 : tensor<?x!onnx.string>
}
