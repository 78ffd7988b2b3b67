// RUN: onnx-mlir-opt %s --onnxc-gpu-copies | FileCheck %s

// A copy into a pad's interior becomes linalg.copy (then a parallel loop,
// then a kernel); a rank-0 copy stays.
// CHECK-LABEL: func.func @copies
// CHECK: %[[SUB:.*]] = memref.subview %arg1[0, 1, 1] [2, 3, 4] [1, 1, 1]
// CHECK: linalg.copy ins(%arg0 : memref<2x3x4xf32>) outs(%[[SUB]] : memref<2x3x4xf32, strided<[30, 6, 1], offset: 7>>)
// CHECK: memref.copy %arg2, %arg3 : memref<f32> to memref<f32>
// CHECK-NOT: memref.copy
func.func @copies(%a: memref<2x3x4xf32>, %b: memref<2x5x6xf32>, %s: memref<f32>, %t: memref<f32>) {
  %sub = memref.subview %b[0, 1, 1] [2, 3, 4] [1, 1, 1] : memref<2x5x6xf32> to memref<2x3x4xf32, strided<[30, 6, 1], offset: 7>>
  memref.copy %a, %sub : memref<2x3x4xf32> to memref<2x3x4xf32, strided<[30, 6, 1], offset: 7>>
  memref.copy %s, %t : memref<f32> to memref<f32>
  return
}
