// RUN: onnx-mlir-opt %s --split-input-file --onnxc-pack-matmul-weights=panel-width=4 | FileCheck %s

// A weight of 8 x 12 (three panels of 4 columns): repacked into 3 x 8 x 4,
// then one matmul per panel into the accumulator's columns [4p, 4p+4).
// CHECK-LABEL: func.func @packed
// CHECK: %[[W:.*]] = arith.constant dense<1.000000e+00> : tensor<8x12xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0], [1, 2]] output_shape [8, 3, 4] : tensor<8x12xf32> into tensor<8x3x4xf32>
// CHECK: %[[P:.*]] = linalg.transpose ins(%[[E]] : tensor<8x3x4xf32>) outs(%{{.*}} : tensor<3x8x4xf32>) permutation = [1, 0, 2]
// CHECK: %[[R:.*]] = scf.for %[[COL:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<5x12xf32>)
// CHECK:   %[[PANEL:.*]] = arith.divui %[[COL]]
// CHECK:   %[[B:.*]] = tensor.extract_slice %[[P]][%[[PANEL]], 0, 0] [1, 8, 4] [1, 1, 1] : tensor<3x8x4xf32> to tensor<8x4xf32>
// CHECK:   %[[C:.*]] = tensor.extract_slice %[[ACC]][0, %[[COL]]] [5, 4] [1, 1] : tensor<5x12xf32> to tensor<5x4xf32>
// CHECK:   %[[M:.*]] = linalg.matmul ins(%arg0, %[[B]] : tensor<5x8xf32>, tensor<8x4xf32>) outs(%[[C]] : tensor<5x4xf32>)
// CHECK:   %[[I:.*]] = tensor.insert_slice %[[M]] into %[[ACC]][0, %[[COL]]] [5, 4] [1, 1]
// CHECK:   scf.yield %[[I]]
// CHECK: } {onnxc.parallel}
// CHECK: return %[[R]]
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
// rows, and each panel runs one static 64 x 8 x 4 matmul per block.
// CHECK-LABEL: func.func @padded
// CHECK: tensor.pad %{{.*}} low[0, 0] high[0, 2]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<8x2x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>)
// CHECK: %[[M:.*]] = tensor.dim
// CHECK: %[[MP:.*]] = affine.apply #{{.*}}()[%[[M]]]
// CHECK: %[[A:.*]] = tensor.pad %arg0 low[0, 0] high[%{{.*}}, 0]
// CHECK: %[[E:.*]] = tensor.empty(%[[MP]]) : tensor<?x8xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x8xf32>)
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[F]]) -> (tensor<?x8xf32>)
// CHECK:   scf.for %[[ROW:.*]] = %{{.*}} to %[[MP]] step %c64
// CHECK:     %[[AS:.*]] = tensor.extract_slice %[[A]][%[[ROW]], 0] [64, 8] [1, 1]
// CHECK:     linalg.matmul ins(%[[AS]], %{{.*}} : tensor<64x8xf32>, tensor<8x4xf32>) outs(%{{.*}} : tensor<64x4xf32>)
// CHECK: } {onnxc.parallel}
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
// CHECK-NOT: scf.for
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
// CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[F]]) -> (tensor<?x8xf32>) {
// CHECK:     scf.for %[[ROW:.*]] = %{{.*}} to %[[M]] step %{{.*}} iter_args
// CHECK:       tensor.extract_slice %arg0[%[[ROW]], 0] [64, 8] [1, 1] : tensor<?x8xf32> to tensor<64x8xf32>
// CHECK:       linalg.matmul
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
