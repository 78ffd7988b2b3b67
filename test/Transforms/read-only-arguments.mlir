// RUN: onnx-mlir-opt %s --onnxc-read-only-arguments | FileCheck %s --check-prefix=ATTR
// RUN: onnx-mlir-opt %s --pass-pipeline='builtin.module(onnxc-onnx-to-linalg,one-shot-bufferize{bufferize-function-boundaries})' | FileCheck %s --check-prefix=INPLACE
// RUN: onnx-mlir-opt %s --pass-pipeline='builtin.module(onnxc-onnx-to-linalg,onnxc-read-only-arguments,one-shot-bufferize{bufferize-function-boundaries})' | FileCheck %s --check-prefix=COPY

// Tensor arguments of public functions become read-only; private functions
// and non-tensor arguments are left alone.
// ATTR-LABEL: func.func @insert
// ATTR-SAME: (%{{.+}}: tensor<4xf32> {bufferization.writable = false}, %{{.+}}: f32)
// ATTR-LABEL: func.func private @helper
// ATTR-SAME: (%{{[^:]+}}: tensor<4xf32>) -> tensor<4xf32>
func.func @insert(%t: tensor<4xf32>, %v: f32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %0 = tensor.insert %v into %t[%c0] : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @helper(%t: tensor<4xf32>) -> tensor<4xf32> {
  return %t : tensor<4xf32>
}

// Without the pass, bufferization writes into the caller's buffer; with it,
// into a copy.
// INPLACE-LABEL: func.func @insert
// INPLACE-SAME: (%[[T:.+]]: memref<4xf32
// INPLACE-NOT: memref.alloc
// INPLACE: memref.store %{{.+}}, %[[T]][
// COPY-LABEL: func.func @insert
// COPY-SAME: (%[[T:.+]]: memref<4xf32
// COPY: %[[A:.+]] = memref.alloc
// COPY: memref.copy %[[T]], %[[A]]
// COPY: memref.store %{{.+}}, %[[A]][
// COPY-NOT: memref.store %{{.+}}, %[[T]][

// ScatterND (whose loop carries its data input) updated the caller's
// buffer; now it updates a copy.
// INPLACE-LABEL: func.func @scatter_nd
// INPLACE-SAME: (%[[D:[^:]+]]: memref<4x2xf32
// INPLACE-NOT: memref.copy %[[D]]
// INPLACE: scf.for {{.+}} iter_args(%{{[^ ]+}} = %[[D]])
// COPY-LABEL: func.func @scatter_nd
// COPY-SAME: (%[[D:[^:]+]]: memref<4x2xf32
// COPY: %[[A:.+]] = memref.alloc() {{.*}}: memref<4x2xf32>
// COPY: memref.copy %[[D]], %[[A]]
// COPY: scf.for {{.+}} iter_args(%{{[^ ]+}} = %[[A]])
func.func @scatter_nd(%d: tensor<4x2xf32>, %i: tensor<2x1xi64>, %u: tensor<2x2xf32>) -> tensor<4x2xf32> {
  %0 = "onnx.ScatterND"(%d, %i, %u) {reduction = "none"} : (tensor<4x2xf32>, tensor<2x1xi64>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
