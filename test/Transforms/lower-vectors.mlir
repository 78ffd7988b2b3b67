// RUN: onnx-mlir-opt %s --onnxc-lower-vectors | FileCheck %s

// An 8x1 by 1x32 contraction (one k step of a register tile) becomes one
// broadcast and one 32-wide FMA per row.
// CHECK-LABEL: func.func @contract
// CHECK: %[[B:.*]] = vector.extract %arg1[0] : vector<32xf32> from vector<1x32xf32>
// CHECK: %[[A0:.*]] = vector.extract %arg0[0, 0] : f32 from vector<8x1xf32>
// CHECK: %[[S0:.*]] = vector.broadcast %[[A0]] : f32 to vector<32xf32>
// CHECK: %[[C0:.*]] = vector.extract %arg2[0] : vector<32xf32> from vector<8x32xf32>
// CHECK: vector.fma %[[S0]], %[[B]], %[[C0]] : vector<32xf32>
// CHECK-COUNT-7: vector.fma %{{.*}}, %[[B]], %{{.*}} : vector<32xf32>
// CHECK-NOT: vector.contract
// CHECK-NOT: vector.outerproduct
func.func @contract(%a: vector<8x1xf32>, %b: vector<1x32xf32>,
                    %acc: vector<8x32xf32>) -> vector<8x32xf32> {
  %r = vector.contract {
         indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                          affine_map<(m, n, k) -> (k, n)>,
                          affine_map<(m, n, k) -> (m, n)>],
         iterator_types = ["parallel", "parallel", "reduction"],
         kind = #vector.kind<add>} %a, %b, %acc
       : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
  return %r : vector<8x32xf32>
}

// A 1-D mask becomes a comparison with a constant step vector.
// CHECK-LABEL: func.func @mask
// CHECK: %[[STEP:.*]] = arith.constant dense<[0, 1, 2, {{.*}}, 31]> : vector<32xi32>
// CHECK: %[[N:.*]] = arith.index_cast %arg0 : index to i32
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[N]] : i32 to vector<32xi32>
// CHECK: %[[MASK:.*]] = arith.cmpi sgt, %[[SPLAT]], %[[STEP]] : vector<32xi32>
// CHECK: vector.maskedload %arg1[%c0], %[[MASK]]
// CHECK-NOT: vector.create_mask
func.func @mask(%n: index, %m: memref<64xf32>) -> vector<32xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant dense<0.0> : vector<32xf32>
  %mask = vector.create_mask %n : vector<32xi1>
  %v = vector.maskedload %m[%c0], %mask, %pad
         : memref<64xf32>, vector<32xi1>, vector<32xf32> into vector<32xf32>
  return %v : vector<32xf32>
}

// A read along a dim of stride 2 is one contiguous load of the span from
// its first element to its last (at offset + i * 16 + j * 2 of the buffer)
// and a shuffle of the elements 0, 2, 4, ..., not eight scalar loads.
// CHECK-LABEL: func.func @strided_read
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %arg0
// CHECK: %[[ROW:.*]] = arith.muli %arg1, %[[C16]]
// CHECK: %[[AT:.*]] = arith.addi %[[OFF]], %[[ROW]]
// CHECK: %[[COL:.*]] = arith.muli %arg2, %[[C2]]
// CHECK: %[[LIN:.*]] = arith.addi %[[AT]], %[[COL]]
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [%[[LIN]]], sizes: [15], strides: [1]
// CHECK: %[[WIDE:.*]] = vector.load %[[FLAT]][%{{.*}}] : memref<15xf32, strided<[1], offset: ?>>, vector<15xf32>
// CHECK: vector.shuffle %[[WIDE]], %[[WIDE]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<15xf32>, vector<15xf32>
// CHECK-NOT: vector.transfer_read
func.func @strided_read(%m: memref<4x8xf32, strided<[16, 2], offset: ?>>,
                        %i: index, %j: index) -> vector<8xf32> {
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %j], %pad {in_bounds = [true]}
      : memref<4x8xf32, strided<[16, 2], offset: ?>>, vector<8xf32>
  return %v : vector<8xf32>
}

// Larger strides stay gathers of the elements at 0, s, 2s, ...
// CHECK-LABEL: func.func @strided_read_wide
// CHECK: %[[IDX:.*]] = arith.constant dense<[0, 5, 10, 15]> : vector<4xi32>
// CHECK: vector.gather %{{.*}}[%{{.*}}] [%[[IDX]]], %{{.*}}, %{{.*}} : memref<16xf32, strided<[1], offset: ?>>, vector<4xi32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
func.func @strided_read_wide(%m: memref<4x4xf32, strided<[40, 5], offset: ?>>,
                             %i: index) -> vector<4xf32> {
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %v = vector.transfer_read %m[%i, %c0], %pad {in_bounds = [true]}
      : memref<4x4xf32, strided<[40, 5], offset: ?>>, vector<4xf32>
  return %v : vector<4xf32>
}

// Unit-stride reads stay transfers (loads).
// CHECK-LABEL: func.func @contiguous_read
// CHECK-NOT: vector.gather
// CHECK: vector.load
func.func @contiguous_read(%m: memref<4x8xf32>, %i: index) -> vector<8xf32> {
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %v = vector.transfer_read %m[%i, %c0], %pad {in_bounds = [true]}
      : memref<4x8xf32>, vector<8xf32>
  return %v : vector<8xf32>
}

// The same loop, unrolled 4 times (fewer loop instructions per FMA; the
// default), once only when the pass runs again: one step of 4, four
// prefetches and 32 FMAs per step.
// RUN: onnx-mlir-opt %s --onnxc-lower-vectors --onnxc-lower-vectors | FileCheck %s --check-prefix=UNROLL
// UNROLL-LABEL: func.func @prefetch
// UNROLL-DAG: %[[C4:.*]] = arith.constant 4 : index
// UNROLL: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C4]] iter_args
// UNROLL-COUNT-4: memref.prefetch
// UNROLL-NOT: memref.prefetch
// UNROLL: scf.yield
// UNROLL-NOT: scf.for
// UNROLL: return
// UNROLL-LABEL: func.func @unroll_count
// UNROLL-COUNT-32: vector.fma
// UNROLL-NOT: vector.fma
// UNROLL: scf.yield
// A packed matmul's tile (onnxc-pack-matmul-weights: k, i, panel, j; the
// accumulator 8 x 1 x 32) is unrolled as well.
// UNROLL-LABEL: func.func @unroll_packed
// UNROLL: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C4]] iter_args
// UNROLL-COUNT-32: vector.fma
// UNROLL-NOT: vector.fma
// UNROLL: scf.yield

// A register tile's k loop reading its 8 x 1 A column from a memref also
// prefetches one row of it per step, in turn (row i + k mod 8), 64 elements
// ahead; run again, the pass adds no second prefetch.
// RUN: onnx-mlir-opt %s --onnxc-lower-vectors="unroll-k=1" --onnxc-lower-vectors="unroll-k=1" | FileCheck %s --check-prefix=PREFETCH
// PREFETCH-LABEL: func.func @prefetch
// PREFETCH-DAG: %[[C8:.*]] = arith.constant 8 : index
// PREFETCH-DAG: %[[C64:.*]] = arith.constant 64 : index
// PREFETCH: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// PREFETCH: %[[AHEAD:.*]] = arith.addi %[[K]], %[[C64]] : index
// PREFETCH: %[[TURN:.*]] = arith.remui %[[K]], %[[C8]] : index
// PREFETCH: %[[ROW:.*]] = arith.addi %arg2, %[[TURN]] : index
// PREFETCH: memref.prefetch %arg0[%[[ROW]], %[[AHEAD]]], read, locality<3>, data : memref<64x256xf32>
// PREFETCH-NOT: memref.prefetch
// PREFETCH: vector.fma
// PREFETCH: scf.yield
func.func @prefetch(%a: memref<64x256xf32>, %b: memref<256x32xf32>, %i: index,
                    %acc: vector<8x32xf32>) -> vector<8x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%c = %acc) -> (vector<8x32xf32>) {
    %va = vector.transfer_read %a[%i, %k], %pad {in_bounds = [true, true]} : memref<64x256xf32>, vector<8x1xf32>
    %vb = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<256x32xf32>, vector<1x32xf32>
    %n = vector.contract {
           indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                            affine_map<(m, n, k) -> (k, n)>,
                            affine_map<(m, n, k) -> (m, n)>],
           iterator_types = ["parallel", "parallel", "reduction"],
           kind = #vector.kind<add>} %va, %vb, %c
         : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %n : vector<8x32xf32>
  }
  return %r : vector<8x32xf32>
}

// The FMAs of one unrolled step (A read transposed: no prefetches).
func.func @unroll_count(%a: memref<64x256xf32>, %b: memref<256x32xf32>, %i: index,
                        %acc: vector<8x32xf32>) -> vector<8x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%c = %acc) -> (vector<8x32xf32>) {
    %va = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<256x32xf32>, vector<1x32xf32>
    %vt = vector.transfer_read %a[%i, %k], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x256xf32>, vector<1x8xf32>
    %n = vector.contract {
           indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                            affine_map<(m, n, k) -> (k, n)>,
                            affine_map<(m, n, k) -> (m, n)>],
           iterator_types = ["parallel", "parallel", "reduction"],
           kind = #vector.kind<add>} %vt, %va, %c
         : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %n : vector<8x32xf32>
  }
  return %r : vector<8x32xf32>
}

// The tile of a packed matmul, as onnxc-tile-and-vectorize leaves it.
func.func @unroll_packed(%a: memref<64x256xf32>, %b: memref<4x256x32xf32>,
                         %i: index, %p: index,
                         %acc: vector<8x1x32xf32>) -> vector<8x1x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%c = %acc) -> (vector<8x1x32xf32>) {
    %va = vector.transfer_read %a[%i, %k], %pad {in_bounds = [true, true]} : memref<64x256xf32>, vector<8x1xf32>
    %vb = vector.transfer_read %b[%p, %k, %c0], %pad {in_bounds = [true, true, true]} : memref<4x256x32xf32>, vector<1x1x32xf32>
    %n = vector.contract {
           indexing_maps = [affine_map<(k, m, p, n) -> (m, k)>,
                            affine_map<(k, m, p, n) -> (p, k, n)>,
                            affine_map<(k, m, p, n) -> (m, p, n)>],
           iterator_types = ["reduction", "parallel", "parallel", "parallel"],
           kind = #vector.kind<add>} %va, %vb, %c
         : vector<8x1xf32>, vector<1x1x32xf32> into vector<8x1x32xf32>
    scf.yield %n : vector<8x1x32xf32>
  }
  return %r : vector<8x1x32xf32>
}

// A register tile whose accumulator (4 x 1 x 32: 4 rows of two 64-byte
// lines) is read before its k loop, in a loop over tiles of 4 rows: the k
// loop also prefetches, for writing, line k mod 8 of the next tile's
// accumulator (the tile loop's next rows; the last tile its own), once.
// RUN: onnx-mlir-opt %s --onnxc-lower-vectors="unroll-k=1 prefetch-distance=0" --onnxc-lower-vectors="unroll-k=1 prefetch-distance=0" | FileCheck %s --check-prefix=ACC
// ACC-LABEL: func.func @prefetch_accumulator
// ACC-DAG: %[[C4:.*]] = arith.constant 4 : index
// ACC-DAG: %[[C8:.*]] = arith.constant 8 : index
// ACC-DAG: %[[C2:.*]] = arith.constant 2 : index
// ACC-DAG: %[[C16:.*]] = arith.constant 16 : index
// ACC: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C4]]
// ACC: %[[STEP:.*]] = arith.addi %[[I]], %[[C4]] : index
// ACC: %[[NEXT:.*]] = arith.minui %[[STEP]], %[[C8]] : index
// ACC: %[[ROW0:.*]] = arith.addi %arg3, %[[NEXT]] : index
// ACC: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// ACC: %[[TURN:.*]] = arith.remui %[[K]], %[[C8]] : index
// ACC: %[[R:.*]] = arith.divui %[[TURN]], %[[C2]] : index
// ACC: %[[ROW:.*]] = arith.addi %[[ROW0]], %[[R]] : index
// ACC: %[[PART:.*]] = arith.remui %[[TURN]], %[[C2]] : index
// ACC: %[[COL:.*]] = arith.muli %[[PART]], %[[C16]] : index
// ACC: memref.prefetch %arg2[%[[ROW]], %arg4, %[[COL]]], write, locality<3>, data : memref<64x4x32xf32>
// ACC-NOT: memref.prefetch
// ACC: vector.fma
// ACC: scf.yield
func.func @prefetch_accumulator(%a: memref<64x256xf32>, %b: memref<256x32xf32>,
                                %c: memref<64x4x32xf32>, %i0: index, %p: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c12 step %c4 {
    %row = arith.addi %i0, %i : index
    %acc = vector.transfer_read %c[%row, %p, %c0], %pad {in_bounds = [true, true, true]} : memref<64x4x32xf32>, vector<4x1x32xf32>
    %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%t = %acc) -> (vector<4x1x32xf32>) {
      %va = vector.transfer_read %a[%row, %k], %pad {in_bounds = [true, true]} : memref<64x256xf32>, vector<4x1xf32>
      %vb = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<256x32xf32>, vector<1x32xf32>
      %vb3 = vector.shape_cast %vb : vector<1x32xf32> to vector<1x1x32xf32>
      %n = vector.contract {
             indexing_maps = [affine_map<(k, m, p, n) -> (m, k)>,
                              affine_map<(k, m, p, n) -> (k, p, n)>,
                              affine_map<(k, m, p, n) -> (m, p, n)>],
             iterator_types = ["reduction", "parallel", "parallel", "parallel"],
             kind = #vector.kind<add>} %va, %vb3, %t
           : vector<4x1xf32>, vector<1x1x32xf32> into vector<4x1x32xf32>
      scf.yield %n : vector<4x1x32xf32>
    }
    vector.transfer_write %r, %c[%row, %p, %c0] {in_bounds = [true, true, true]} : vector<4x1x32xf32>, memref<64x4x32xf32>
  }
  return
}

// A 0-D read of one element of a strided view (a squeeze-and-excitation
// block's per-channel scale, broadcast over a row) is a scalar load and a
// broadcast: no 0-D transfer reaches convert-vector-to-llvm, which has no
// lowering for one.
// CHECK-LABEL: func.func @scalar_read_strided
// CHECK-NOT: vector.transfer_read
// CHECK: %[[S:.+]] = memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<1x32xf32, strided<[1024, 32]>>
// CHECK: vector.broadcast %[[S]] : f32 to vector<56xf32>
func.func @scalar_read_strided(%m: memref<1x32xf32, strided<[1024, 32]>>, %c: index) -> vector<56xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %s = vector.transfer_read %m[%c0, %c], %pad : memref<1x32xf32, strided<[1024, 32]>>, vector<f32>
  %b = vector.broadcast %s : vector<f32> to vector<56xf32>
  return %b : vector<56xf32>
}
