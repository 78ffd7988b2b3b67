// RUN: onnx-mlir-opt %s --onnxc-unshare-fills | FileCheck %s

// CSE merges the zero fills of equal shapes into one value; two matmuls
// that accumulate into it would each write a copy of its buffer. Each
// writer gets its own fill of its own empty tensor instead, placed right
// before it (or before the op of the fill's block that holds it); the
// original stays for the reader (the else branch's yield).
// CHECK-LABEL: func.func @shared_zero
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x8xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x8xf32>)
// CHECK: %[[E0:.*]] = tensor.empty(%{{.*}}) : tensor<?x8xf32>
// CHECK: %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<?x8xf32>)
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<?x4xf32>, tensor<4x8xf32>) outs(%[[F0]] : tensor<?x8xf32>)
// CHECK: %[[E1:.*]] = tensor.empty(%{{.*}}) : tensor<?x8xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<?x8xf32>)
// CHECK: scf.if
// CHECK:   linalg.matmul ins(%arg0, %arg2 : tensor<?x4xf32>, tensor<4x8xf32>) outs(%[[F1]] : tensor<?x8xf32>)
// CHECK: } else {
// CHECK:   scf.yield %[[F]]
func.func @shared_zero(%a: tensor<?x4xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xf32>, %p: i1) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%m) : tensor<?x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %r0 = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  %r1 = scf.if %p -> (tensor<?x8xf32>) {
    %x = linalg.matmul ins(%a, %c : tensor<?x4xf32>, tensor<4x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
    scf.yield %x : tensor<?x8xf32>
  } else {
    scf.yield %f : tensor<?x8xf32>
  }
  return %r0, %r1 : tensor<?x8xf32>, tensor<?x8xf32>
}

// Two matmuls, no reader: the first keeps the original fill.
// CHECK-LABEL: func.func @two_writers
// CHECK: %[[F0:.*]] = linalg.fill
// CHECK: linalg.matmul {{.*}} outs(%[[F0]] :
// CHECK: %[[F1:.*]] = linalg.fill
// CHECK: linalg.matmul {{.*}} outs(%[[F1]] :
// CHECK-NOT: linalg.fill
func.func @two_writers(%a: tensor<4x4xf32>, %b: tensor<4x8xf32>, %c: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r0 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r1 = linalg.matmul ins(%r0, %c : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r0, %r1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// One user: unchanged.
// CHECK-LABEL: func.func @single_use
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT: linalg.fill
func.func @single_use(%a: tensor<4x4xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// A bias broadcast shared by two convs (CSE merges the broadcasts of one
// bias constant): each conv gets its own broadcast of its own empty tensor.
// CHECK-LABEL: func.func @shared_bias
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<1x8x5x5xf32>
// CHECK: %[[B0:.*]] = linalg.broadcast ins(%arg2 : tensor<8xf32>) outs(%[[E0]] : tensor<1x8x5x5xf32>) dimensions = [0, 2, 3]
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} outs(%[[B0]] :
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<1x8x5x5xf32>
// CHECK: %[[B1:.*]] = linalg.broadcast ins(%arg2 : tensor<8xf32>) outs(%[[E1]] : tensor<1x8x5x5xf32>) dimensions = [0, 2, 3]
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} outs(%[[B1]] :
// CHECK-NOT: linalg.broadcast
func.func @shared_bias(%x: tensor<1x4x5x5xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> (tensor<1x8x5x5xf32>, tensor<1x8x5x5xf32>) {
  %e = tensor.empty() : tensor<1x8x5x5xf32>
  %init = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<1x8x5x5xf32>) dimensions = [0, 2, 3]
  %r0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x4x5x5xf32>, tensor<8x4x1x1xf32>) outs(%init : tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
  %r1 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x4x5x5xf32>, tensor<8x4x1x1xf32>) outs(%init : tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
  return %r0, %r1 : tensor<1x8x5x5xf32>, tensor<1x8x5x5xf32>
}
