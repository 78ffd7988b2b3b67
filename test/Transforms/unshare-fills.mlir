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
