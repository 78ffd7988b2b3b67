// RUN: onnx-mlir-opt %s --onnxc-fuse-elementwise | FileCheck %s

#id = affine_map<(i, j) -> (i, j)>

// An elementwise producer fuses into an elementwise consumer: one generic
// computes exp then add.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
       ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
       ins(%a, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %o: f32):
    %v = arith.addf %in, %in2 : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// A producer feeding a contraction (a reduction loop) stays apart: fused,
// its erf would run once per k, and the matmul would stop being a
// contraction.
// CHECK-LABEL: func.func @into_matmul
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: math.erf
// CHECK: linalg.generic {{.*}} ins(%[[G]], %arg1
// CHECK-NOT: math.erf
func.func @into_matmul(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>,
                       %acc: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
       ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.erf %in : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %m = linalg.generic {
         indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                          affine_map<(i, j, k) -> (k, j)>,
                          affine_map<(i, j, k) -> (i, j)>],
         iterator_types = ["parallel", "parallel", "reduction"]}
       ins(%a, %w : tensor<4x8xf32>, tensor<8x16xf32>)
       outs(%acc : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %t = arith.mulf %p, %q : f32
    %s = arith.addf %o, %t : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}

// A producer read at every loop of a reduction that is not a contraction
// (LayerNormalization's (x - mean)^2 into the variance's sum) joins it: its
// body runs once per element, as before, and no 4x8 tensor is written.
// CHECK-LABEL: func.func @into_row_sum
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<4xf32>) outs(%arg2 : tensor<4xf32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return %[[R]]
func.func @into_row_sum(%x: tensor<4x8xf32>, %mean: tensor<4xf32>,
                        %acc: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %d = linalg.generic {indexing_maps = [#id, affine_map<(i, j) -> (i)>, #id],
                       iterator_types = ["parallel", "parallel"]}
       ins(%x, %mean : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %c = arith.subf %in, %m : f32
    %sq = arith.mulf %c, %c : f32
    linalg.yield %sq : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
       ins(%d : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = arith.addf %o, %in : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}
