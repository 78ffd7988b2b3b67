// RUN: onnx-mlir-opt %s --onnxc-device-globals | FileCheck %s

// Host code reaches each global through the runtime's device copy: the
// address becomes onnxc_rt_device_global(address, bytes), for every use.
llvm.mlir.global private constant @weight(dense<1.0> : tensor<4x8xf32>) {addr_space = 0 : i32} : !llvm.array<4 x array<8 x f32>>
llvm.mlir.global internal @hoisted() {addr_space = 0 : i32} : !llvm.array<100 x i8>

// CHECK-LABEL: llvm.func @host
// CHECK: %[[W:.*]] = llvm.mlir.addressof @weight : !llvm.ptr
// CHECK: %[[WB:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK: %[[WD:.*]] = llvm.call @onnxc_rt_device_global(%[[W]], %[[WB]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: %[[H:.*]] = llvm.mlir.addressof @hoisted : !llvm.ptr
// CHECK: %[[HB:.*]] = llvm.mlir.constant(100 : i64) : i64
// CHECK: %[[HD:.*]] = llvm.call @onnxc_rt_device_global(%[[H]], %[[HB]])
// CHECK: llvm.getelementptr %[[WD]][1]
// CHECK: llvm.return %[[HD]]
llvm.func @host() -> !llvm.ptr {
  %w = llvm.mlir.addressof @weight : !llvm.ptr
  %h = llvm.mlir.addressof @hoisted : !llvm.ptr
  %p = llvm.getelementptr %w[1] : (!llvm.ptr) -> !llvm.ptr, f32
  llvm.store %p, %h : !llvm.ptr, !llvm.ptr
  llvm.return %h : !llvm.ptr
}
// CHECK: llvm.func @onnxc_rt_device_global(!llvm.ptr, i64) -> !llvm.ptr
