// RUN: onnx-mlir-opt --split-input-file --convert-onnx-to-linalg %s | FileCheck %s

// ZipMap: the class labels boxed once (a constant), one runtime call makes
// the sequence of maps from the rows of X.
// CHECK-LABEL: func.func @zipmap
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>) -> !llvm.ptr
// CHECK: %[[K:.*]] = arith.constant dense<[0, 1, 5]> : tensor<3xi64>
// CHECK: %[[KB:.*]] = call @onnxc_rt_tensor_box_i64(%{{.*}}, %{{.*}})
// CHECK: bufferization.to_buffer %[[X]] read_only
// CHECK: %[[S:.*]] = call @onnxc_rt_zipmap(%[[KB]], %{{.*}}) : (!llvm.ptr, memref<*xf32>) -> !llvm.ptr
// CHECK: return %[[S]]
func.func @zipmap(%x: tensor<?x3xf32>) -> !onnx.seq<!onnx.map<i64, f32>> {
  %0 = "onnx.ml.ZipMap"(%x) {classlabels_int64s = [0, 1, 5]} : (tensor<?x3xf32>) -> !onnx.seq<!onnx.map<i64, f32>>
  return %0 : !onnx.seq<!onnx.map<i64, f32>>
}

// -----

// DictVectorizer with a string vocabulary: the vocabulary a boxed string
// constant, the result a [1, 3] buffer the runtime fills.
// CHECK-LABEL: func.func @dict_vectorizer
// CHECK: llvm.mlir.addressof @__onnxc_strings_0
// CHECK: call @onnxc_rt_string_fill
// CHECK: %[[V:.*]] = call @onnxc_rt_tensor_box_i64
// CHECK: %[[B:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x3xf32>
// CHECK: call @onnxc_rt_dict_vectorize_f32(%{{.*}}, %[[V]], %{{.*}}) : (!llvm.ptr, !llvm.ptr, memref<*xf32>) -> ()
// CHECK: bufferization.to_tensor %[[B]] restrict writable
func.func @dict_vectorizer(%m: !onnx.map<!onnx.string, f32>) -> tensor<1x3xf32> {
  %0 = "onnx.ml.DictVectorizer"(%m) {string_vocabulary = ["a", "b", "c"]} : (!onnx.map<!onnx.string, f32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}
