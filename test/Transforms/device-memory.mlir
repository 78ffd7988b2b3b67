// RUN: onnx-mlir-opt %s --split-input-file --onnxc-device-memory | FileCheck %s

// Only kernels touch %k (inside a gpu.launch, through a subview) and the
// marked arena %a (through views): both come from onnxc_rt_device_buffer,
// viewed in their types. %h, which the host reads, and the returned %out
// stay memref.allocs. The deallocs are unchanged.
// CHECK-LABEL: func.func @launch
// CHECK-SAME: onnxc.device_inputs = array<i1: true>
// CHECK: %[[AB:.+]] = arith.constant 8192 : index
// CHECK: %[[ARENA:.+]] = call @onnxc_rt_device_buffer(%[[AB]]) : (index) -> memref<?xi8>
// CHECK: %[[A:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<?xi8> to memref<8192xi8>
// CHECK: %[[KB:.+]] = arith.constant 4096 : index
// CHECK: %[[KBUF:.+]] = call @onnxc_rt_device_buffer(%[[KB]]) : (index) -> memref<?xi8>
// CHECK: %[[K:.+]] = memref.view %[[KBUF]][%{{.+}}][] : memref<?xi8> to memref<1024xf32>
// CHECK: %[[H:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<1024xf32>
// CHECK: gpu.launch
// CHECK: memref.subview %[[K]]
// CHECK: memref.dealloc %[[K]]
// CHECK: memref.dealloc %[[H]]
// CHECK: memref.dealloc %[[A]]
// CHECK: return %[[OUT]]
// CHECK: func.func private @onnxc_rt_device_buffer(index) -> memref<?xi8> attributes {llvm.emit_c_interface}
func.func @launch(%x: memref<1024xf32>) -> memref<1024xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() {alignment = 64 : i64, onnxc.device_memory} : memref<8192xi8>
  %av = memref.view %a[%c0][] : memref<8192xi8> to memref<1024xf32>
  %k = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  %h = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  %out = memref.alloc() : memref<1024xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %kv = memref.subview %k[0] [512] [1] : memref<1024xf32> to memref<512xf32, strided<[1]>>
    %v = memref.load %x[%tx] : memref<1024xf32>
    memref.store %v, %kv[%tx] : memref<512xf32, strided<[1]>>
    memref.store %v, %av[%tx] : memref<1024xf32>
    %w = memref.load %k[%tx] : memref<1024xf32>
    memref.store %w, %h[%tx] : memref<1024xf32>
    memref.store %w, %out[%tx] : memref<1024xf32>
    gpu.terminator
  }
  %r = memref.load %h[%c0] : memref<1024xf32>
  memref.store %r, %out[%c0] : memref<1024xf32>
  memref.dealloc %k : memref<1024xf32>
  memref.dealloc %h : memref<1024xf32>
  memref.dealloc %a : memref<8192xi8>
  return %out : memref<1024xf32>
}

// -----

// After kernel outlining: a buffer of dynamic size passed only to
// gpu.launch_func (and to memref.dim) is device memory of n x 4 x 2 bytes
// (f16); one passed to a host call is not, nor is a buffer of index
// elements.
// CHECK-LABEL: func.func @outlined
// CHECK-SAME: onnxc.device_inputs = array<i1: false>
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK: %[[BYTES:.+]] = arith.muli %[[C8]], %arg0 : index
// CHECK: %[[BUF:.+]] = call @onnxc_rt_device_buffer(%[[BYTES]])
// CHECK: %[[D:.+]] = memref.view %[[BUF]][%{{.+}}][%arg0] : memref<?xi8> to memref<?x4xf16>
// CHECK: %[[C:.+]] = memref.alloc(%arg0) : memref<?xf32>
// CHECK: %[[I:.+]] = memref.alloc() : memref<4xindex>
// CHECK: gpu.launch_func @kernels::@k {{.*}} args(%[[D]] : memref<?x4xf16>, %[[C]] : memref<?xf32>)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%d: memref<?x4xf16>, %c: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func private @consume(memref<?xf32>)
  func.func @outlined(%n: index) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d = memref.alloc(%n) : memref<?x4xf16>
    %c = memref.alloc(%n) : memref<?xf32>
    %i = memref.alloc() : memref<4xindex>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%d : memref<?x4xf16>, %c : memref<?xf32>)
    func.call @consume(%c) : (memref<?xf32>) -> ()
    %size = memref.dim %d, %c0 : memref<?x4xf16>
    memref.dealloc %d : memref<?x4xf16>
    memref.dealloc %c : memref<?xf32>
    memref.dealloc %i : memref<4xindex>
    return %size : index
  }
}
