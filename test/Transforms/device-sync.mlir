// RUN: onnx-mlir-opt %s --onnxc-device-sync | FileCheck %s

// The host waits for pending kernels before it reads or writes memory or
// calls out (a run-time check, memrefCopy), not before the runtime's
// launch, device-global and allocation functions.
// CHECK-LABEL: llvm.func @host
// CHECK: llvm.call @_mlir_memref_to_llvm_aligned_alloc
// CHECK-NOT: onnxc_rt_device_sync
// CHECK: llvm.call @onnxc_rt_device_global
// CHECK-NEXT: llvm.call @onnxc_rt_device_sync() : () -> ()
// CHECK-NEXT: llvm.load
// CHECK-NEXT: llvm.call @onnxc_rt_device_sync() : () -> ()
// CHECK-NEXT: llvm.store
// CHECK-NEXT: llvm.call @onnxc_rt_device_sync() : () -> ()
// CHECK-NEXT: "llvm.intr.memcpy"
// CHECK-NEXT: llvm.mlir.constant
// CHECK-NEXT: llvm.call @onnxc_rt_device_sync() : () -> ()
// CHECK-NEXT: llvm.call @onnxc_rt_fail
// CHECK-NEXT: llvm.call @_mlir_memref_to_llvm_free
// CHECK-NEXT: llvm.return
llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
llvm.func @onnxc_rt_device_global(!llvm.ptr, i64) -> !llvm.ptr
llvm.func @onnxc_rt_fail(i32, i64, i64, i64, i64)
llvm.mlir.global private @w(dense<1.0> : tensor<4xf32>) {addr_space = 0 : i32} : !llvm.array<4 x f32>
llvm.func @host(%n: i64) {
  %c64 = llvm.mlir.constant(64 : i64) : i64
  %p = llvm.call @_mlir_memref_to_llvm_aligned_alloc(%c64, %n) : (i64, i64) -> !llvm.ptr
  %g0 = llvm.mlir.addressof @w : !llvm.ptr
  %g = llvm.call @onnxc_rt_device_global(%g0, %c64) : (!llvm.ptr, i64) -> !llvm.ptr
  %v = llvm.load %g : !llvm.ptr -> f32
  llvm.store %v, %p : f32, !llvm.ptr
  "llvm.intr.memcpy"(%p, %g, %n) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
  %z = llvm.mlir.constant(0 : i32) : i32
  llvm.call @onnxc_rt_fail(%z, %n, %n, %n, %n) : (i32, i64, i64, i64, i64) -> ()
  llvm.call @_mlir_memref_to_llvm_free(%p) : (!llvm.ptr) -> ()
  llvm.return
}

// The host stack is not the kernels': loads and stores through an alloca
// (a descriptor returned through a C interface, here by
// onnxc_rt_device_buffer's wrapper) need no wait, nor does the call of the
// device allocator.
// CHECK-LABEL: llvm.func @stack
// CHECK-NOT: onnxc_rt_device_sync
// CHECK: llvm.return
llvm.func @_mlir_ciface_onnxc_rt_device_buffer(!llvm.ptr, i64)
llvm.func @onnxc_rt_device_buffer(!llvm.ptr, i64)
llvm.func @stack(%n: i64) -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> {
  %one = llvm.mlir.constant(1 : index) : i64
  %slot = llvm.alloca %one x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> : (i64) -> !llvm.ptr
  llvm.call @_mlir_ciface_onnxc_rt_device_buffer(%slot, %n) : (!llvm.ptr, i64) -> ()
  llvm.call @onnxc_rt_device_buffer(%slot, %n) : (!llvm.ptr, i64) -> ()
  %size = llvm.getelementptr %slot[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  llvm.store %n, %size : i64, !llvm.ptr
  %d = llvm.load %slot : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  llvm.return %d : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
}
// CHECK: llvm.func @onnxc_rt_device_sync()
