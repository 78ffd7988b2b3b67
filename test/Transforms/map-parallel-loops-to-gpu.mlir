// RUN: onnx-mlir-opt %s --onnxc-map-parallel-loops-to-gpu="block-size=128" --canonicalize | FileCheck %s

// Two dims with a lower bound and a step: 6 x 5 = 30 iterations, one block
// of 128 threads; thread t < 30 runs (i, j) = (t / 5, 1 + (t % 5) * 2).
// CHECK-LABEL: func.func @two_dims
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C30:.*]] = arith.constant 30 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C1]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C128]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]])
// CHECK:   %[[IN:.*]] = arith.cmpi ult, %[[T]], %[[C30]]
// CHECK:   scf.if %[[IN]] {
// CHECK:     %[[R:.*]] = arith.remui %[[T]], %[[C5]]
// CHECK:     %[[I:.*]] = arith.divui %[[T]], %[[C5]]
// CHECK:     %[[S:.*]] = arith.muli %[[R]], %[[C2]]
// CHECK:     %[[J:.*]] = arith.addi %[[S]], %[[C1]]
// CHECK:     memref.load %arg0[%[[I]], %[[J]]]
// CHECK:     memref.store %{{.*}}, %arg1[%[[I]], %[[J]]]
// CHECK:   }
// CHECK:   gpu.terminator
// CHECK-NOT: scf.parallel

// A dynamic count: blocks = ceil(max(n, 0) / 128), no launch when it is 0;
// the linear index is block * 128 + thread.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[N:.*]] = arith.maxsi %arg1, %c0
// CHECK: %[[B:.*]] = arith.ceildivui %[[N]], %c128
// CHECK: %[[ANY:.*]] = arith.cmpi ugt, %[[N]], %c0
// CHECK: scf.if %[[ANY]] {
// CHECK:   gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[B]], %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in
// CHECK:     %[[M:.*]] = arith.muli %[[BX]], %c128
// CHECK:     %[[L:.*]] = arith.addi %[[M]], %[[TX]]
// CHECK:     arith.cmpi ult, %[[L]], %[[N]]
// CHECK:     memref.store %{{.*}}, %arg0[%[[L]]]

// A body that calls the runtime (a run-time check) stays on the host.
// CHECK-LABEL: func.func @stays_on_host
// CHECK-NOT: gpu.launch
// CHECK: scf.parallel
// CHECK:   func.call @check

// An inner parallel loop runs inside the outer one's thread.
// CHECK-LABEL: func.func @nested
// CHECK: gpu.launch
// CHECK:   arith.cmpi ult, %{{.*}}, %c4
// CHECK:   scf.parallel (%[[J:.*]]) = (%c0) to (%c8)
// CHECK:     memref.store %{{.*}}, %arg0[%{{.*}}, %[[J]]]

func.func @two_dims(%a: memref<6x10xf32>, %b: memref<6x10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  scf.parallel (%i, %j) = (%c0, %c1) to (%c6, %c10) step (%c1, %c2) {
    %x = memref.load %a[%i, %j] : memref<6x10xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %b[%i, %j] : memref<6x10xf32>
    scf.reduce
  }
  return
}

func.func @dynamic(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %a[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

func.func private @check(i1)
func.func @stays_on_host(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a[%i] : memref<8xf32>
    %z = arith.constant 0.0 : f32
    %ok = arith.cmpf oge, %x, %z : f32
    func.call @check(%ok) : (i1) -> ()
    scf.reduce
  }
  return
}

func.func @nested(%a: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
      memref.store %f, %a[%i, %j] : memref<4x8xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}
