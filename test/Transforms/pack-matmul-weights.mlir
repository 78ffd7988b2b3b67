// RUN: onnx-mlir-opt %s --split-input-file --onnxc-pack-matmul-weights=panel-width=4 | FileCheck %s

// A weight of 8 x 12 (three panels of 4 columns): repacked into 3 x 8 x 4;
// the matmul becomes one linalg.contract over (i, p, j, k) into the
// accumulator viewed as 5 x 3 x 4. With fewer rows than a cache tile (48)
// the reduction dim comes last: each panel is read as one stream. The
// contraction carries the lowering configuration (the reference target's,
// with the panel width as its register tile's width).
// CHECK-DAG: #[[MA:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-DAG: #[[MB:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>
// CHECK-DAG: #[[MC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @packed
// CHECK: %[[W:.*]] = arith.constant dense<1.000000e+00> : tensor<8x12xf32>
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[E:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0], [1, 2]] output_shape [8, 3, 4] : tensor<8x12xf32> into tensor<8x3x4xf32>
// CHECK: %[[P:.*]] = linalg.transpose ins(%[[E]] : tensor<8x3x4xf32>) outs(%{{.*}} : tensor<3x8x4xf32>) permutation = [1, 0, 2]
// CHECK: %[[C3:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0], [1, 2]] output_shape [5, 3, 4] : tensor<5x12xf32> into tensor<5x3x4xf32>
// CHECK: %[[R:.*]] = linalg.contract indexing_maps = [#[[MA]], #[[MB]], #[[MC]]] {onnxc.lowering_config = {{{.*}}register_tile = array<i64: 12, 4>{{.*}}}} ins(%arg0, %[[P]] : tensor<5x8xf32>, tensor<3x8x4xf32>) outs(%[[C3]] : tensor<5x3x4xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[R]] {{\[\[}}0], [1, 2]] : tensor<5x3x4xf32> into tensor<5x12xf32>
// CHECK: return %[[C]]
func.func @packed(%a: tensor<5x8xf32>) -> tensor<5x12xf32> {
  %w = arith.constant dense<1.0> : tensor<8x12xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x12xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<5x12xf32>) -> tensor<5x12xf32>
  %r = linalg.matmul ins(%a, %w : tensor<5x8xf32>, tensor<8x12xf32>) outs(%c : tensor<5x12xf32>) -> tensor<5x12xf32>
  return %r : tensor<5x12xf32>
}

// -----

// N = 6 is padded to two panels: the weight gets two zero columns, the fill
// is rebuilt 8 columns wide, and the result drops the extra columns. M is
// dynamic: A and the accumulator are padded once to whole blocks of 64
// rows, and a loop (the threads' loop: a single group of panels) runs one
// static 64-row contraction per block.
// CHECK-LABEL: func.func @padded
// CHECK: tensor.pad %{{.*}} low[0, 0] high[0, 2]
// CHECK: %[[P:.*]] = linalg.transpose ins(%{{.*}} : tensor<8x2x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>)
// CHECK: %[[M:.*]] = tensor.dim
// CHECK: %[[MP:.*]] = affine.apply #{{.*}}()[%[[M]]]
// CHECK: %[[A:.*]] = tensor.pad %arg0 low[0, 0] high[%{{.*}}, 0]
// CHECK: %[[E:.*]] = tensor.empty(%[[MP]]) : tensor<?x8xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x8xf32>)
// CHECK: %[[F3:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0], [1, 2]] output_shape [%[[MP]], 2, 4]
// CHECK: %[[R3:.*]] = scf.for %[[ROW:.*]] = %{{.*}} to %[[MP]] step %c64 iter_args(%[[ACC:.*]] = %[[F3]]) -> (tensor<?x2x4xf32>)
// CHECK:   %[[AS:.*]] = tensor.extract_slice %[[A]][%[[ROW]], 0] [64, 8] [1, 1]
// CHECK:   %[[CS:.*]] = tensor.extract_slice %[[ACC]][%[[ROW]], %{{.*}}, 0] [64, 2, 4] [1, 1, 1]
// CHECK:   %[[T:.*]] = linalg.contract {{.*}} ins(%[[AS]], %{{.*}} : tensor<64x8xf32>, tensor<2x8x4xf32>) outs(%[[CS]] : tensor<64x2x4xf32>)
// CHECK:   %[[I:.*]] = tensor.insert_slice %[[T]] into %[[ACC]][%[[ROW]], %{{.*}}, 0] [64, 2, 4] [1, 1, 1]
// CHECK:   scf.yield %[[I]]
// CHECK: } {onnxc.parallel}
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[R3]]
// CHECK: tensor.extract_slice %[[R]][0, 0] [%[[M]], 6] [1, 1] : tensor<?x8xf32> to tensor<?x6xf32>
func.func @padded(%a: tensor<?x8xf32>) -> tensor<?x6xf32> {
  %w = arith.constant dense<1.0> : tensor<8x6xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%m) : tensor<?x6xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<?x6xf32>) -> tensor<?x6xf32>
  %r = linalg.matmul ins(%a, %w : tensor<?x8xf32>, tensor<8x6xf32>) outs(%c : tensor<?x6xf32>) -> tensor<?x6xf32>
  return %r : tensor<?x6xf32>
}

// -----

// Not packed: a B computed at run time, and a weight narrower than a panel.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT: linalg.contract
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<5x8xf32>, tensor<8x12xf32>)
// CHECK: linalg.matmul ins(%arg0, %{{.*}} : tensor<5x8xf32>, tensor<8x3xf32>)
func.func @unchanged(%a: tensor<5x8xf32>, %b: tensor<8x12xf32>) -> (tensor<5x12xf32>, tensor<5x3xf32>) {
  %w = arith.constant dense<1.0> : tensor<8x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x12xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<5x12xf32>) -> tensor<5x12xf32>
  %r = linalg.matmul ins(%a, %b : tensor<5x8xf32>, tensor<8x12xf32>) outs(%c : tensor<5x12xf32>) -> tensor<5x12xf32>
  %e2 = tensor.empty() : tensor<5x3xf32>
  %c2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<5x3xf32>) -> tensor<5x3xf32>
  %r2 = linalg.matmul ins(%a, %w : tensor<5x8xf32>, tensor<8x3xf32>) outs(%c2 : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r, %r2 : tensor<5x12xf32>, tensor<5x3xf32>
}

// -----

// A dynamic M with N a whole number of panels: the loop is versioned on M
// being a multiple of the 64-row block at run time. Then A and the
// accumulator are used as they are (no padded copies); else they are
// padded as above.
// CHECK-LABEL: func.func @versioned
// CHECK: %[[F:.*]] = linalg.fill {{.*}} -> tensor<?x8xf32>
// CHECK: %[[M:.*]] = tensor.dim %[[F]], %{{.*}} : tensor<?x8xf32>
// CHECK: %[[REM:.*]] = arith.remui %[[M]], %c64
// CHECK: %[[WHOLE:.*]] = arith.cmpi eq, %[[REM]], %{{.*}} : index
// CHECK: %[[R:.*]] = scf.if %[[WHOLE]] -> (tensor<?x8xf32>) {
// CHECK:   scf.for %{{.*}} = %{{.*}} to %[[M]] step %{{.*}} iter_args(%{{.*}}) -> (tensor<?x2x4xf32>) {
// CHECK:     tensor.extract_slice %arg0[%{{.*}}, 0] [64, 8] [1, 1] : tensor<?x8xf32> to tensor<64x8xf32>
// CHECK:     linalg.contract
// CHECK:   } {onnxc.parallel}
// CHECK: } else {
// CHECK:   tensor.pad %arg0
// CHECK:   } {onnxc.parallel}
// CHECK:   tensor.extract_slice
// CHECK: }
// CHECK: return %[[R]]
func.func @versioned(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%m) : tensor<?x8xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %r = linalg.matmul ins(%a, %w : tensor<?x8xf32>, tensor<8x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// A weight 132 columns wide is 33 panels of 4: 8 or more panels go in an
// even number of groups of at most 32, here 2 of 17 (the weight and the
// accumulator padded to 34 panels), in a loop (the threads' loop), each
// group a contraction over its slice of the packed weight and of the
// accumulator.
// CHECK-LABEL: func.func @grouped
// CHECK: tensor.pad %{{.*}} low[0, 0] high[0, 4]
// CHECK: } : tensor<8x132xf32> to tensor<8x136xf32>
// CHECK: %[[P:.*]] = linalg.transpose {{.*}} outs(%{{.*}} : tensor<34x8x4xf32>)
// CHECK: %[[C3:.*]] = tensor.expand_shape {{.*}} output_shape [5, 34, 4]
// CHECK: %[[C34:.*]] = arith.constant 34 : index
// CHECK: %[[C17:.*]] = arith.constant 17 : index
// CHECK: %[[G:.*]] = scf.for %[[FIRST:.*]] = %{{.*}} to %[[C34]] step %[[C17]] iter_args(%[[ACC:.*]] = %[[C3]]) -> (tensor<5x34x4xf32>)
// CHECK:   %[[BP:.*]] = tensor.extract_slice %[[P]][%[[FIRST]], 0, 0] [17, 8, 4] [1, 1, 1]
// CHECK:   %[[CG:.*]] = tensor.extract_slice %[[ACC]][0, %[[FIRST]], 0] [5, 17, 4] [1, 1, 1]
// CHECK:   %[[T:.*]] = linalg.contract {{.*}} ins(%arg0, %[[BP]] : tensor<5x8xf32>, tensor<17x8x4xf32>) outs(%[[CG]] : tensor<5x17x4xf32>)
// CHECK:   %[[I:.*]] = tensor.insert_slice %[[T]] into %[[ACC]][0, %[[FIRST]], 0] [5, 17, 4] [1, 1, 1]
// CHECK:   scf.yield %[[I]]
// CHECK: } {onnxc.parallel}
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[G]]
// CHECK: tensor.extract_slice %[[R]][0, 0] [5, 132] [1, 1] : tensor<5x136xf32> to tensor<5x132xf32>
func.func @grouped(%a: tensor<5x8xf32>) -> tensor<5x132xf32> {
  %w = arith.constant dense<1.0> : tensor<8x132xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x132xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<5x132xf32>) -> tensor<5x132xf32>
  %r = linalg.matmul ins(%a, %w : tensor<5x8xf32>, tensor<8x132xf32>) outs(%c : tensor<5x132xf32>) -> tensor<5x132xf32>
  return %r : tensor<5x132xf32>
}

// -----

// A dynamic M with K = 600 and 8 panels: two groups of 4 panels (the
// threads' loop); in each, the whole 256-column chunks of A in a loop, then
// the 88 columns left, and inside each chunk a loop over the 64-row blocks
// (not the threads' loop), so that the blocks share the group's chunk of
// the packed weight in cache.
// CHECK-LABEL: func.func @chunked
// CHECK: %[[P:.*]] = linalg.transpose {{.*}} outs(%{{.*}} : tensor<8x600x4xf32>)
// CHECK: scf.if
// CHECK: %[[G:.*]] = scf.for %[[FIRST:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[GACC:.*]] = %{{.*}}) -> (tensor<?x8x4xf32>)
// CHECK:   %[[K:.*]] = scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[KACC:.*]] = %[[GACC]])
// CHECK:     %[[R:.*]] = scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[RACC:.*]] = %[[KACC]])
// CHECK:       %[[AS:.*]] = tensor.extract_slice %arg0[%[[ROW]], %[[K0]]] [64, 256] [1, 1]
// CHECK:       %[[BP:.*]] = tensor.extract_slice %[[P]][%[[FIRST]], %[[K0]], 0] [4, 256, 4] [1, 1, 1]
// CHECK:       %[[CS:.*]] = tensor.extract_slice %[[RACC]][%[[ROW]], %[[FIRST]], 0] [64, 4, 4] [1, 1, 1]
// CHECK:       linalg.contract {{.*}} ins(%[[AS]], %[[BP]] : tensor<64x256xf32>, tensor<4x256x4xf32>) outs(%[[CS]] : tensor<64x4x4xf32>)
// CHECK:     }
// CHECK-NOT: onnxc.parallel
// CHECK:   }
// CHECK:   scf.for %[[ROW2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[K]])
// CHECK:     tensor.extract_slice %arg0[%[[ROW2]], 512] [64, 88] [1, 1]
// CHECK:     linalg.contract {{.*}} : tensor<64x88xf32>, tensor<4x88x4xf32>) outs(%{{.*}} : tensor<64x4x4xf32>)
// CHECK:   }
// CHECK: } {onnxc.parallel}
func.func @chunked(%a: tensor<?x600xf32>) -> tensor<?x32xf32> {
  %w = arith.constant dense<1.0> : tensor<600x32xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x600xf32>
  %e = tensor.empty(%m) : tensor<?x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %r = linalg.matmul ins(%a, %w : tensor<?x600xf32>, tensor<600x32xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// 48 rows or more: the reduction dim first, (k, i, p, j), so that
// onnxc-tile-and-vectorize's cache tiles walk k chunks, then row blocks,
// then panels.
// CHECK-DAG: #[[TA:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0)>
// CHECK-DAG: #[[TB:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d0, d3)>
// CHECK-DAG: #[[TC:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-LABEL: func.func @tall
// CHECK: linalg.contract indexing_maps = [#[[TA]], #[[TB]], #[[TC]]] {{.*}}ins(%arg0, %{{.*}} : tensor<48x8xf32>, tensor<3x8x4xf32>) outs(%{{.*}} : tensor<48x3x4xf32>)
func.func @tall(%a: tensor<48x8xf32>) -> tensor<48x12xf32> {
  %w = arith.constant dense<1.0> : tensor<8x12xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x12xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<48x12xf32>) -> tensor<48x12xf32>
  %r = linalg.matmul ins(%a, %w : tensor<48x8xf32>, tensor<8x12xf32>) outs(%c : tensor<48x12xf32>) -> tensor<48x12xf32>
  return %r : tensor<48x12xf32>
}
