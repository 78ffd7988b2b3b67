// RUN: onnx-mlir-opt %s --onnxc-parallel-linalg-loops --canonicalize | FileCheck %s

// An elementwise op on dynamic shapes (left untiled by
// onnxc-tile-and-vectorize) becomes its loop nest, the outermost loop
// marked parallel for onnxc-outline-parallel-loops.
// CHECK-LABEL: func.func @dynamic_elementwise
// CHECK: %[[ROWS:.*]] = memref.dim %arg0, %c0
// CHECK: scf.for %[[I:.*]] = %c0 to %[[ROWS]] step %c1 {
// CHECK:   scf.for %[[J:.*]] = %c0 to %c768 step %c1 {
// CHECK:     %[[X:.*]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK:     %[[Y:.*]] = arith.maximumf %[[X]], %{{.*}}
// CHECK:     memref.store %[[Y]], %arg1[%[[I]], %[[J]]]
// CHECK:   }
// CHECK-NOT: onnxc.parallel
// CHECK: } {onnxc.parallel}
// CHECK-NOT: linalg.generic
func.func @dynamic_elementwise(%a: memref<?x768xf32>, %b: memref<?x768xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<?x768xf32>) outs(%b : memref<?x768xf32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// Leading unit or small dims are not the threads' loop: the first dim
// with at least 4 iterations is (a blocked 1 x 2 x 8 x 16 Clip).
// CHECK-LABEL: func.func @unit_batch
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK:   scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK:     scf.for %{{.*}} = %c0 to %c16 step %c1 {
// CHECK:     }
// CHECK-NOT: onnxc.parallel
// CHECK:   } {onnxc.parallel}
// CHECK: }
// CHECK-NOT: onnxc.parallel
func.func @unit_batch(%a: memref<1x2x8x16xf32>, %b: memref<1x2x8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : memref<1x2x8x16xf32>) outs(%b : memref<1x2x8x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// Left alone: a reduction (its loops are not all parallel), and an op
// inside a loop already marked parallel (a tile).
// CHECK-LABEL: func.func @left_alone
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: scf.for
// CHECK:   linalg.fill
// CHECK: } {onnxc.parallel}
func.func @left_alone(%a: memref<?x768xf32>, %b: memref<?xf32>, %c: memref<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x768xf32>) outs(%b : memref<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %row = memref.subview %c[%i, 0] [1, 32] [1, 1] : memref<4x32xf32> to memref<32xf32, strided<[1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%row : memref<32xf32, strided<[1], offset: ?>>)
  } {onnxc.parallel}
  return
}
