// RUN: onnx-mlir-opt %s --split-input-file --onnxc-plan-buffers | FileCheck %s
// RUN: onnx-mlir-opt %s --split-input-file --onnxc-plan-buffers="separate-device-buffers" | FileCheck %s --check-prefix=DEVICE

// Three static buffers in a chain: %a dies once %b is computed, so %c takes
// %a's place; %b sits after it. The returned buffer and the dynamic one are
// left alone.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {onnxc.arena_bytes = 8192 : i64, onnxc.buffer_bytes = 12288 : i64, onnxc.dynamic_allocs = 1 : i64, onnxc.output_allocs = 1 : i64, onnxc.planned_buffers = 3 : i64}
// CHECK: %[[ARENA:.+]] = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
// CHECK: %[[A:.+]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<8192xi8> to memref<1024xf32>
// CHECK: %[[B:.+]] = memref.view %[[ARENA]][%c4096{{.*}}][] : memref<8192xi8> to memref<1024xf32>
// CHECK: %[[C:.+]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<8192xi8> to memref<1024xf32>
// CHECK: %[[D:.+]] = memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<1024xf32>
// CHECK-NOT: memref.dealloc %[[A]]
// CHECK: memref.dealloc %[[D]]
// CHECK: memref.dealloc %[[ARENA]]
// CHECK-NEXT: return %[[OUT]]
func.func @chain(%x: memref<1024xf32>, %n: index) -> memref<1024xf32> {
  %a = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.copy %x, %a : memref<1024xf32> to memref<1024xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.copy %a, %b : memref<1024xf32> to memref<1024xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.copy %b, %c : memref<1024xf32> to memref<1024xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  %out = memref.alloc() : memref<1024xf32>
  memref.copy %c, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %a : memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  memref.dealloc %c : memref<1024xf32>
  memref.dealloc %d : memref<?xf32>
  return %out : memref<1024xf32>
}

// -----

// A use through a view inside a loop keeps the buffer alive until the
// loop: %t (read by the loop through a subview) and %u overlap, so %u
// does not reuse %t.
// CHECK-LABEL: func.func @through_views
// CHECK-SAME: onnxc.arena_bytes = 8192 : i64
// CHECK: memref.view %{{.+}}[%c0{{.*}}][] : memref<8192xi8> to memref<4x256xf32>
// CHECK: memref.view %{{.+}}[%c4096{{.*}}][] : memref<8192xi8> to memref<1024xf32>
func.func @through_views(%x: memref<4x256xf32>, %y: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() {alignment = 64 : i64} : memref<4x256xf32>
  memref.copy %x, %t : memref<4x256xf32> to memref<4x256xf32>
  %u = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.copy %y, %u : memref<1024xf32> to memref<1024xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %row = memref.subview %t[%i, 0] [1, 256] [1, 1] : memref<4x256xf32> to memref<256xf32, strided<[1], offset: ?>>
    %dst = memref.subview %u[0] [256] [1] : memref<1024xf32> to memref<256xf32, strided<[1]>>
    memref.copy %row, %dst : memref<256xf32, strided<[1], offset: ?>> to memref<256xf32, strided<[1]>>
  }
  memref.copy %u, %y : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %t : memref<4x256xf32>
  memref.dealloc %u : memref<1024xf32>
  return
}

// -----

// separate-device-buffers (the CUDA target): %k is only touched inside
// kernels (through a view, and freed), so it goes to a second arena marked
// onnxc.device_memory; %h is read by the host (memref.load), so it stays
// in the arena the host may read. The plain run plans them as one.
// DEVICE-LABEL: func.func @device_split
// DEVICE-SAME: onnxc.arena_bytes = 8192 : i64
// DEVICE-SAME: onnxc.device_arena_bytes = 4096 : i64
// DEVICE-DAG: %[[DEV:.+]] = memref.alloc() {alignment = 64 : i64, onnxc.device_memory} : memref<4096xi8>
// DEVICE-DAG: %[[HOST:.+]] = memref.alloc() {alignment = 64 : i64} : memref<4096xi8>
// DEVICE-DAG: memref.view %[[DEV]][%c0{{.*}}][] : memref<4096xi8> to memref<1024xf32>
// DEVICE-DAG: memref.view %[[HOST]][%c0{{.*}}][] : memref<4096xi8> to memref<1024xf32>
// CHECK-LABEL: func.func @device_split
// CHECK-SAME: onnxc.arena_bytes = 8192 : i64
// CHECK-NOT: onnxc.device_memory
func.func @device_split(%x: memref<1024xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  %h = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %kv = memref.subview %k[0] [512] [1] : memref<1024xf32> to memref<512xf32, strided<[1]>>
    %v = memref.load %x[%tx] : memref<1024xf32>
    memref.store %v, %kv[%tx] : memref<512xf32, strided<[1]>>
    %w = memref.load %k[%tx] : memref<1024xf32>
    memref.store %w, %h[%tx] : memref<1024xf32>
    gpu.terminator
  }
  %r = memref.load %h[%c0] : memref<1024xf32>
  memref.dealloc %k : memref<1024xf32>
  memref.dealloc %h : memref<1024xf32>
  return %r : f32
}
