// RUN: onnx-mlir-opt %s --onnxc-tile-and-vectorize="mc=16 nc=64 kc=32 mr=8 nr=32" --canonicalize | FileCheck %s

// 16x64 * 64x48: two k cache tiles of 32; register tiles 8x32 over n and
// m (n outside), n peeled into a 32-wide main tile and a static 16-wide
// remainder, each with its loop over m. Each register tile is a
// vector.contract whose 8xN accumulator is read before the k loop, carried
// through it in registers and written after it.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c32 iter_args
// CHECK: scf.for %[[M:.*]] = %c0 to %c16 step %c8 iter_args(%[[C:.*]] = %{{.*}}) -> (tensor<16x48xf32>)
// CHECK: %[[ACC:.*]] = vector.transfer_read %[[C]][%[[M]], %c0]{{.*}} : tensor<16x48xf32>, vector<8x32xf32>
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%[[V:.*]] = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: vector.transfer_read %arg0{{.*}} : tensor<16x64xf32>, vector<8x1xf32>
// CHECK: vector.transfer_read %arg1{{.*}} : tensor<64x48xf32>, vector<1x32xf32>
// CHECK: vector.contract {{.*}} %[[V]] : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: vector.transfer_write %[[R]], %[[C]][%[[M]], %c0]
// CHECK: scf.for %[[M2:.*]] = %c0 to %c16 step %c8 iter_args(%[[C2:.*]] = %{{.*}}) -> (tensor<16x48xf32>)
// CHECK: vector.transfer_read %[[C2]][%[[M2]], %c32]{{.*}} vector<8x16xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK-NOT: vector.mask
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[WHOLE:.*]] = arith.cmpi eq, %[[MPAD:.*]], %c0 : index
// CHECK: %[[A:.*]] = scf.if %[[WHOLE]] -> (tensor<?x64xf32>) {
// CHECK:   scf.yield %arg0
// CHECK: } else {
// CHECK:   tensor.pad %arg0 low[0, 0] high[%[[MPAD]], 0]
// CHECK: %[[C:.*]] = scf.if %{{.*}} -> (tensor<?x?xf32>) {
// CHECK:   scf.yield %arg2
// CHECK: } else {
// CHECK:   tensor.pad %arg2 low[0, 0] high[%[[MPAD]], 0]
// CHECK: %[[B:.*]] = scf.if %{{.*}} -> (tensor<64x?xf32>) {
// CHECK:   scf.yield %arg1
// CHECK: } else {
// CHECK:   tensor.pad %arg1 low[0, 0] high[0, %{{.*}}]
// CHECK: scf.for %[[I:.*]] = %c0 to %{{.*}} step %c64 iter_args(%{{.*}} = %[[C]]) -> (tensor<?x?xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c32 iter_args({{.*}}) -> (tensor<64x?xf32>)
// CHECK: tensor.extract_slice {{.*}} [64, 32] [1, 1] : tensor<64x?xf32> to tensor<64x32xf32>
// CHECK: vector.transfer_read %[[A]]{{.*}} : tensor<?x64xf32>, vector<8x1xf32>
// CHECK: vector.transfer_read %[[B]]{{.*}} : tensor<64x?xf32>, vector<1x32xf32>
// CHECK: vector.contract {{.*}} into vector<8x32xf32>
// CHECK: } {onnxc.parallel}
// CHECK: } {onnxc.parallel}
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [%{{.*}}, %{{.*}}] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
// CHECK-NOT: linalg.matmul
// CHECK-NOT: vector.mask
func.func @matmul(%a: tensor<16x64xf32>, %b: tensor<64x48xf32>,
                  %c: tensor<16x48xf32>) -> tensor<16x48xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x48xf32>)
                     outs(%c : tensor<16x48xf32>) -> tensor<16x48xf32>
  return %r : tensor<16x48xf32>
}

// Dynamic m and n: the operands are zero-padded to whole blocks (64 rows,
// 32 columns) unless their size is a whole number of blocks at run time
// (then they are used as they are), and loops walk the blocks, so every tile inside has a static
// shape and is vectorised; the result is the padded one without the
// padding.
func.func @dynamic(%a: tensor<?x64xf32>, %b: tensor<64x?xf32>,
                   %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// 49 columns: a 32-wide register tile, then the remainder of 17 split into
// power-of-two widths, 16 and 1, each with its own k loop (a 17-wide vector
// was loaded and stored element by element).
// CHECK-LABEL: func.func @odd_lanes
// CHECK: scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK: vector.transfer_write %{{.*}}, %arg2[%c0, %c0] {{.*}} : vector<8x32xf32>, tensor<8x49xf32>
// CHECK: scf.for {{.*}} -> (vector<8x16xf32>)
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK: scf.for {{.*}} -> (vector<8x1xf32>)
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x1xf32> into vector<8x1xf32>
// CHECK-NOT: vector<8x17xf32>
func.func @odd_lanes(%a: tensor<8x16xf32>, %b: tensor<16x49xf32>,
                     %c: tensor<8x49xf32>) -> tensor<8x49xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x49xf32>)
                     outs(%c : tensor<8x49xf32>) -> tensor<8x49xf32>
  return %r : tensor<8x49xf32>
}

// A dynamic contraction that starts from a fill: the fill is built at the
// padded size (no scf.if around a pad of it, whose result bufferization
// copied before the blocks wrote into it).
// CHECK-LABEL: func.func @dynamic_fill
// CHECK: %[[MP:.*]] = affine.apply #{{.*}}()[%{{.*}}]
// CHECK: %[[E:.*]] = tensor.empty(%[[MP]], %{{.*}}) : tensor<?x?xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x?xf32>)
// CHECK-NOT: tensor.pad %[[F]]
// CHECK: scf.for %{{.*}} = %c0 to %[[MP]] step %c64 iter_args(%{{.*}} = %[[F]]) -> (tensor<?x?xf32>)
func.func @dynamic_fill(%a: tensor<?x64xf32>, %b: tensor<64x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x64xf32>
  %n = tensor.dim %b, %c1 : tensor<64x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Not f32, or not a contraction: untouched.
// CHECK-LABEL: func.func @integer
// CHECK: linalg.matmul
func.func @integer(%a: tensor<8x8xi32>, %b: tensor<8x8xi32>,
                   %c: tensor<8x8xi32>) -> tensor<8x8xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xi32>, tensor<8x8xi32>)
                     outs(%c : tensor<8x8xi32>) -> tensor<8x8xi32>
  return %r : tensor<8x8xi32>
}

// Elementwise: the dims contiguous in every operand merge (2x2x25 becomes
// 2 x 50: the bias, broadcast along dims 1 and 2, keeps dim 0 apart), and
// each row of up to 64 elements becomes vector ops.
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[}}[0], [1, 2]] : tensor<2x2x25xf32> into tensor<2x50xf32>
// CHECK: scf.for %[[I:.*]] = %c0 to %c2 step %c1
// CHECK:   %[[A:.*]] = vector.transfer_read %[[X]][%[[I]], %c0]{{.*}} : tensor<2x50xf32>, vector<1x50xf32>
// CHECK:   %[[B:.*]] = vector.transfer_read %arg1[%[[I]]]{{.*}} : tensor<2xf32>, vector<1x50xf32>
// CHECK:   %[[S:.*]] = arith.addf %[[A]], %[[B]] : vector<1x50xf32>
// CHECK:   %[[M:.*]] = arith.maximumf %[[S]], %[[B]] : vector<1x50xf32>
// CHECK:   vector.transfer_write %[[M]]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [2, 2, 25]
func.func @elementwise(%x: tensor<2x2x25xf32>, %b: tensor<2xf32>)
    -> tensor<2x2x25xf32> {
  %e = tensor.empty() : tensor<2x2x25xf32>
  %r = linalg.generic {
         indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>,
                          affine_map<(i, j, k) -> (i)>,
                          affine_map<(i, j, k) -> (i, j, k)>],
         iterator_types = ["parallel", "parallel", "parallel"]}
       ins(%x, %b : tensor<2x2x25xf32>, tensor<2xf32>)
       outs(%e : tensor<2x2x25xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %m = arith.maximumf %s, %c : f32
    linalg.yield %m : f32
  } -> tensor<2x2x25xf32>
  return %r : tensor<2x2x25xf32>
}

// A slice that does not cover its source's inner dim keeps the dims apart
// (collapsing it would copy it): rows of 20 of a 4x30 tensor stay 4 rows,
// read in place, while a whole-row slice merges.
// CHECK-LABEL: func.func @partial_rows
// CHECK-NOT: tensor.collapse_shape
// CHECK: scf.for %[[I:.*]] = %c0 to %c4 step %c1
// CHECK:   vector.transfer_read %arg0[%[[I]], %c0]{{.*}} : tensor<4x30xf32>, vector<1x20xf32>
// CHECK-LABEL: func.func @whole_rows
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<2x30xf32> into tensor<60xf32>
func.func @partial_rows(%x: tensor<4x30xf32>) -> tensor<4x20xf32> {
  %s = tensor.extract_slice %x[0, 0] [4, 20] [1, 1] : tensor<4x30xf32> to tensor<4x20xf32>
  %e = tensor.empty() : tensor<4x20xf32>
  %r = linalg.generic {
         indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
         iterator_types = ["parallel", "parallel"]}
       ins(%s : tensor<4x20xf32>) outs(%e : tensor<4x20xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x20xf32>
  return %r : tensor<4x20xf32>
}
func.func @whole_rows(%x: tensor<4x30xf32>) -> tensor<2x30xf32> {
  %s = tensor.extract_slice %x[1, 0] [2, 30] [1, 1] : tensor<4x30xf32> to tensor<2x30xf32>
  %e = tensor.empty() : tensor<2x30xf32>
  %r = linalg.generic {
         indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
         iterator_types = ["parallel", "parallel"]}
       ins(%s : tensor<2x30xf32>) outs(%e : tensor<2x30xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<2x30xf32>
  return %r : tensor<2x30xf32>
}

// The same for an op updating a block that a matmul (a conv's) computed in
// a partial-row slice (a conv epilogue on its output block): the slice is
// found through the destinations, and the rows stay apart.
// CHECK-LABEL: func.func @partial_rows_destination
// CHECK-NOT: tensor.collapse_shape
// CHECK: vector.contract
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK:   arith.mulf {{.*}} : vector<1x20xf32>
func.func @partial_rows_destination(%x: tensor<4x30xf32>, %lhs: tensor<4x8xf32>, %rhs: tensor<8x20xf32>) -> tensor<4x30xf32> {
  %s = tensor.extract_slice %x[0, 0] [4, 20] [1, 1] : tensor<4x30xf32> to tensor<4x20xf32>
  %mm = linalg.matmul ins(%lhs, %rhs : tensor<4x8xf32>, tensor<8x20xf32>)
                      outs(%s : tensor<4x20xf32>) -> tensor<4x20xf32>
  %r = linalg.generic {
         indexing_maps = [affine_map<(i, j) -> (i, j)>],
         iterator_types = ["parallel", "parallel"]}
       outs(%mm : tensor<4x20xf32>) {
  ^bb0(%o: f32):
    %m = arith.mulf %o, %o : f32
    linalg.yield %m : f32
  } -> tensor<4x20xf32>
  %i = tensor.insert_slice %r into %x[0, 0] [4, 20] [1, 1] : tensor<4x20xf32> into tensor<4x30xf32>
  return %i : tensor<4x30xf32>
}

// Booleans stay scalar (LLVM stores i1 vectors bit-packed).
// CHECK-LABEL: func.func @boolean
// CHECK-NOT: vector.
// CHECK: linalg.generic
func.func @boolean(%x: tensor<128xi1>, %y: tensor<128xi1>) -> tensor<128xi1> {
  %e = tensor.empty() : tensor<128xi1>
  %r = linalg.generic {
         indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                          affine_map<(i) -> (i)>],
         iterator_types = ["parallel"]}
       ins(%x, %y : tensor<128xi1>, tensor<128xi1>)
       outs(%e : tensor<128xi1>) {
  ^bb0(%a: i1, %b: i1, %o: i1):
    %s = arith.xori %a, %b : i1
    linalg.yield %s : i1
  } -> tensor<128xi1>
  return %r : tensor<128xi1>
}

// A pad becomes a fill of the padded tensor (vectorised as rows like any
// elementwise op) and an insert_slice of the padded value, whose producer
// can then write into the padded buffer.
// CHECK-LABEL: func.func @pad
// CHECK: %[[F:.*]] = scf.for
// CHECK:   vector.transfer_write %{{.*}} : vector<1x8xf32>, tensor<4x8xf32>
// CHECK: tensor.insert_slice %arg0 into %[[F]][1, 2] [2, 4] [1, 1]
// CHECK-NOT: tensor.pad
func.func @pad(%x: tensor<2x4xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 2] high[1, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<2x4xf32> to tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// A per-channel operand broadcast numpy-style ([C, 1, 1], read at (c, 0, 0))
// is read without its unit dims, so the op is vectorised like any other
// elementwise op: rows of 16 with the channel's value broadcast.
// CHECK-LABEL: func.func @channel_broadcast
// CHECK: tensor.collapse_shape %{{.+}} {{\[\[}}0, 1, 2]] : tensor<3x1x1xf32> into tensor<3xf32>
// CHECK: scf.for
// CHECK: vector.transfer_read %{{.+}} : tensor<1x3x16xf32>, vector<1x1x16xf32>
// CHECK: vector.transfer_read %{{.+}} : tensor<3xf32>, vector<1x1x16xf32>
// CHECK: arith.mulf %{{.+}} : vector<1x1x16xf32>
// CHECK-NOT: linalg.generic
func.func @channel_broadcast(%x: tensor<1x3x4x4xf32>, %s: tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32> {
  %e = tensor.empty() : tensor<1x3x4x4xf32>
  %r = linalg.generic {
         indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                          affine_map<(n, c, h, w) -> (c, 0, 0)>,
                          affine_map<(n, c, h, w) -> (n, c, h, w)>],
         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
       ins(%x, %s : tensor<1x3x4x4xf32>, tensor<3x1x1xf32>)
       outs(%e : tensor<1x3x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x3x4x4xf32>
  return %r : tensor<1x3x4x4xf32>
}

// A reduction over the innermost loop (Softmax's sum of exponentials):
// one row per tile (parallel), the 100 reduced elements in a chunk of 64
// and a peeled chunk of 36, each computed in vectors and reduced into the
// row's scalar by a reassociating vector.reduction.
// CHECK-LABEL: func.func @row_sum_exp
// CHECK: scf.for %[[R:.*]] = %c0 to %c3 step %c1 iter_args(%[[ACC:.*]] = %arg2)
// CHECK: %[[X:.*]] = vector.transfer_read %arg0[%[[R]], %c0]{{.*}} : tensor<3x100xf32>, vector<1x64xf32>
// CHECK: %[[E:.*]] = math.exp %{{.*}} : vector<1x64xf32>
// CHECK: %[[ROW:.*]] = vector.shape_cast %[[E]] : vector<1x64xf32> to vector<64xf32>
// CHECK: %[[S:.*]] = vector.reduction <add>, %[[ROW]], %{{.*}} fastmath<reassoc> : vector<64xf32> into f32
// CHECK: vector.transfer_read %arg0[%[[R]], %c64]{{.*}} : tensor<3x100xf32>, vector<1x36xf32>
// CHECK: %[[T:.*]] = vector.reduction <add>, %{{.*}}, %[[S]] fastmath<reassoc> : vector<36xf32> into f32
// CHECK: %[[B:.*]] = vector.broadcast %[[T]] : f32 to vector<1xf32>
// CHECK: vector.transfer_write %[[B]], %[[ACC]][%[[R]]]
// CHECK: } {onnxc.parallel}
// CHECK-NOT: vector.multi_reduction
func.func @row_sum_exp(%x: tensor<3x100xf32>, %m: tensor<3xf32>, %init: tensor<3xf32>) -> tensor<3xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %m : tensor<3x100xf32>, tensor<3xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    %s = arith.addf %out, %e : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// 20 rows, a little taller than the 16-row cache tile: one cache tile
// (16 + a remainder of 4 would go through a buffer), register tiles of 8
// rows over 16 of them and a static 4-row remainder.
// CHECK-LABEL: func.func @tall
// CHECK-NOT: step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c8 iter_args(%{{.*}} = %arg2) -> (tensor<20x32xf32>)
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: vector.contract {{.*}} : vector<4x1xf32>, vector<1x32xf32> into vector<4x32xf32>
func.func @tall(%a: tensor<20x32xf32>, %b: tensor<32x32xf32>,
                %c: tensor<20x32xf32>) -> tensor<20x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<20x32xf32>, tensor<32x32xf32>)
                     outs(%c : tensor<20x32xf32>) -> tensor<20x32xf32>
  return %r : tensor<20x32xf32>
}
