// RUN: onnx-mlir-opt %s --pass-pipeline='builtin.module(gpu.module(onnxc-align-workgroup-buffers))' | FileCheck %s
// RUN: onnx-mlir-opt %s --pass-pipeline='builtin.module(gpu.module(onnxc-align-workgroup-buffers,convert-gpu-to-nvvm))' | FileCheck %s --check-prefix=NVVM

// Every workgroup buffer of a kernel gets 16-byte alignment, which its
// shared-memory global keeps.
// CHECK: workgroup(%{{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// NVVM-COUNT-2: llvm.mlir.global internal @__wg_k_{{[0-9]}}() {addr_space = 3 : i32, alignment = 16 : i64}
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<4xf32>) workgroup(%w : memref<16x64xf32, #gpu.address_space<workgroup>>, %v : memref<8xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %w[%c0, %c0] : memref<16x64xf32, #gpu.address_space<workgroup>>
      %y = memref.load %v[%c0] : memref<8xf32, #gpu.address_space<workgroup>>
      %z = arith.addf %x, %y : f32
      memref.store %z, %a[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
