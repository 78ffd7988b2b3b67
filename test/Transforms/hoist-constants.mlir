// RUN: onnx-mlir-opt %s --onnxc-hoist-constants --split-input-file | FileCheck %s

// The filter transpose and the fill (ConstantOfShape) read only constants:
// they move into __onnxc_init, which stores the results the entry function
// uses into globals; the entry function reads the globals. The matmul,
// which reads the argument, stays, and so does the fill of its
// accumulator (written in place, it would be a copy of a global).
// CHECK: memref.global "private" @__onnxc_constant_0 : memref<4x8xf32> {alignment = 64 : i64}
// CHECK: memref.global "private" @__onnxc_constant_1 : memref<8x4xf32> {alignment = 64 : i64}
// CHECK-LABEL: func.func private @__onnxc_init()
// CHECK:   %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<8x4xf32>
// CHECK:   %[[T:.*]] = linalg.transpose ins(%[[W]] : tensor<8x4xf32>)
// CHECK:   %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK:   %[[G0:.*]] = memref.get_global @__onnxc_constant_0 : memref<4x8xf32>
// CHECK:   bufferization.materialize_in_destination %[[T]] in restrict writable %[[G0]]
// CHECK:   %[[G1:.*]] = memref.get_global @__onnxc_constant_1 : memref<8x4xf32>
// CHECK:   bufferization.materialize_in_destination %[[F]] in restrict writable %[[G1]]
// CHECK:   return
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[R0:.*]] = memref.get_global @__onnxc_constant_0
// CHECK-DAG: %[[T0:.*]] = bufferization.to_tensor %[[R0]] restrict
// CHECK-DAG: %[[R1:.*]] = memref.get_global @__onnxc_constant_1
// CHECK-DAG: %[[T1:.*]] = bufferization.to_tensor %[[R1]] restrict
// CHECK-NOT: linalg.transpose
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x8xf32>)
// CHECK: linalg.matmul ins(%arg0, %[[T0]] : tensor<2x4xf32>, tensor<4x8xf32>) outs(%[[ACC]] : tensor<2x8xf32>)
// CHECK: linalg.add ins(%{{.*}}, %[[T1]]
func.func @main(%x: tensor<2x4xf32>, %y: tensor<8x4xf32>) -> (tensor<2x8xf32>, tensor<8x4xf32>) attributes {llvm.emit_c_interface} {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0],
                             [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0],
                             [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0],
                             [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]> : tensor<8x4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %wt = linalg.transpose ins(%w : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = linalg.matmul ins(%x, %wt : tensor<2x4xf32>, tensor<4x8xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  %two = arith.constant 2.0 : f32
  %e3 = tensor.empty() : tensor<8x4xf32>
  %c = linalg.fill ins(%two : f32) outs(%e3 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %s = linalg.add ins(%y, %c : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e3 : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r, %s : tensor<2x8xf32>, tensor<8x4xf32>
}

// -----

// A bias computed from constants (BatchNormalization's shift: b - m * s)
// and broadcast into a matmul's accumulator: the broadcast, written in
// place, stays in the entry function; the shift it reads is computed once
// by __onnxc_init and kept in a global, not on every run.
// CHECK: memref.global "private" @__onnxc_constant_0 : memref<8xf32>
// CHECK-LABEL: func.func private @__onnxc_init()
// CHECK:   %[[S:.*]] = linalg.generic
// CHECK:     arith.mulf
// CHECK:     arith.subf
// CHECK-NOT: linalg.broadcast
// CHECK:   bufferization.materialize_in_destination %[[S]] in restrict writable
// CHECK-LABEL: func.func @main
// CHECK: %[[G:.*]] = memref.get_global @__onnxc_constant_0 : memref<8xf32>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[G]] restrict
// CHECK-NOT: arith.subf
// CHECK: %[[ACC:.*]] = linalg.broadcast ins(%[[T]] : tensor<8xf32>)
// CHECK: linalg.matmul ins(%arg0, %{{.*}} : tensor<2x4xf32>, tensor<4x8xf32>) outs(%[[ACC]] : tensor<2x8xf32>)
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x8xf32> attributes {llvm.emit_c_interface} {
  %w = arith.constant dense<1.5> : tensor<4x8xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %m = arith.constant dense<[0.5, 0.5, 0.5, 0.5, 2.0, 2.0, 2.0, 2.0]> : tensor<8xf32>
  %sc = arith.constant dense<3.0> : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %shift = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b, %m, %sc : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%bi: f32, %mi: f32, %si: f32, %out: f32):
    %p = arith.mulf %mi, %si : f32
    %d = arith.subf %bi, %p : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<2x8xf32>
  %acc = linalg.broadcast ins(%shift : tensor<8xf32>) outs(%e2 : tensor<2x8xf32>) dimensions = [0]
  %r = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x8xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}
