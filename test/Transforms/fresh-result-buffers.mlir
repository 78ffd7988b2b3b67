// RUN: onnx-mlir-opt %s --onnxc-fresh-result-buffers | FileCheck %s

// A fresh allocation, or a reshape of one, is returned as it is.
// CHECK-LABEL: func.func @reshaped
// CHECK-NOT: memref.copy
// CHECK: return %{{.*}} : memref<4x8xf32>
func.func @reshaped() -> memref<4x8xf32> {
  %a = memref.alloc() : memref<32xf32>
  %r = memref.expand_shape %a [[0, 1]] output_shape [4, 8]
         : memref<32xf32> into memref<4x8xf32>
  return %r : memref<4x8xf32>
}

// A constant global, an argument and a buffer returned a second time are
// copied into fresh allocations; the first return of the buffer is not.
// CHECK-LABEL: func.func @copied
// CHECK-COUNT-3: memref.copy
// CHECK-NOT: memref.copy
// CHECK: return
func.func @copied(%arg: memref<4xf32>)
    -> (memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>) {
  %g = memref.get_global @weights : memref<4xf32>
  %a = memref.alloc() : memref<4xf32>
  return %g, %arg, %a, %a
      : memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>
}
memref.global "private" constant @weights : memref<4xf32> = dense<1.0>
