// RUN: onnx-mlir-opt %s --onnxc-order-globals | FileCheck %s

// Bufferization's constants, as one run may leave them: created in another
// order than the functions read them, with the counters of that order. They
// come out in the order of their first get_global (@init's, then @main's),
// after the globals that are not bufferization's (@weights), renamed in
// that order; the one nothing reads goes last.

// CHECK:      memref.global "private" constant @weights : memref<4xf32> = dense<1.000000e+00>
// CHECK-NEXT: memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<3.000000e+00>
// CHECK-NEXT: memref.global "private" constant @__constant_4xf32_1 : memref<4xf32> = dense<2.000000e+00>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<5.000000e+00>
// CHECK-NEXT: memref.global "private" constant @__constant_8xf32 : memref<8xf32> = dense<7.000000e+00>
// CHECK-LABEL: func.func @init
// CHECK: memref.get_global @__constant_4xf32 : memref<4xf32>
// CHECK-LABEL: func.func @main
// CHECK: memref.get_global @__constant_4xf32_1 : memref<4xf32>
// CHECK: memref.get_global @__constant_2xf32 : memref<2xf32>
// CHECK: memref.get_global @__constant_4xf32 : memref<4xf32>
module {
  memref.global "private" constant @__constant_2xf32_3 : memref<2xf32> = dense<5.0>
  memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<2.0>
  memref.global "private" constant @weights : memref<4xf32> = dense<1.0>
  memref.global "private" constant @__constant_8xf32 : memref<8xf32> = dense<7.0>
  memref.global "private" constant @__constant_4xf32_1 : memref<4xf32> = dense<3.0>
  func.func @init() -> memref<4xf32> {
    %a = memref.get_global @__constant_4xf32_1 : memref<4xf32>
    return %a : memref<4xf32>
  }
  func.func @main() -> (memref<4xf32>, memref<2xf32>, memref<4xf32>, memref<4xf32>) {
    %a = memref.get_global @__constant_4xf32 : memref<4xf32>
    %b = memref.get_global @__constant_2xf32_3 : memref<2xf32>
    %c = memref.get_global @__constant_4xf32_1 : memref<4xf32>
    %w = memref.get_global @weights : memref<4xf32>
    return %a, %b, %c, %w : memref<4xf32>, memref<2xf32>, memref<4xf32>, memref<4xf32>
  }
}
