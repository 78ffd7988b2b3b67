// RUN: onnx-mlir-opt %s --onnxc-gpu-tiled-matmul --canonicalize --cse | FileCheck %s
// RUN: onnx-mlir-opt %s --onnxc-gpu-tiled-matmul=tile=128 --canonicalize --cse | FileCheck %s --check-prefix=FORCED
// RUN: onnx-mlir-opt %s --onnxc-gpu-tiled-matmul=tf32=true --canonicalize --cse | FileCheck %s --check-prefix=TF32
// RUN: onnx-mlir-opt %s --onnxc-gpu-tiled-matmul=half-mma=true --canonicalize --cse | FileCheck %s --check-prefix=HALF

// Blocks of 16 x 16 threads over 64 x 64 tiles of C (grid N/64 x M/64),
// two 16 x 64 workgroup tiles, K in steps of 16 with 16 accumulators per
// thread; operands read as zero outside the matrices; C += the sums where
// inside.
// CHECK-LABEL: func.func @mm
// CHECK-DAG: %[[M:.*]] = memref.dim %arg2, %c0
// CHECK-DAG: %[[N:.*]] = memref.dim %arg2, %c1
// CHECK-DAG: %[[K:.*]] = memref.dim %arg0, %c1
// CHECK-DAG: %[[GX:.*]] = arith.ceildivui %[[N]], %c64
// CHECK-DAG: %[[GY:.*]] = arith.ceildivui %[[M]], %c64
// CHECK: scf.if
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GX]], %{{.*}} = %[[GY]], %{{.*}} = %c1) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c16, %{{.*}} = %c1) workgroup(%[[AS:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK-DAG: %[[TY4:.*]] = arith.muli %[[TY]], %c4
// CHECK-DAG: %[[TX4:.*]] = arith.muli %[[TX]], %c4
// Each step, a thread reads 4 elements of A and 4 of B (zero outside the
// matrices), then stores them into the workgroup tiles.
// CHECK: %[[SUMS:.*]]:16 = scf.for %[[K0:.*]] = %c0 to %[[K]] step %c16 iter_args(
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK:   memref.load %arg0
// CHECK: } else {
// CHECK:   scf.yield %cst : f32
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK:   memref.load %arg1
// CHECK-COUNT-6: scf.if %{{.*}} -> (f32) {
// CHECK-NOT: scf.if
// CHECK-COUNT-4: memref.store %{{.*}}, %[[AS]]
// CHECK-NOT: memref.store %{{.*}}, %[[AS]]
// CHECK: gpu.barrier
// Each step: a thread's 4 rows (4 ty + r) of A and 4 columns (4 tx + c) of
// B as one aligned 16-byte load each.
// CHECK: %[[AQ:.*]] = vector.load %[[AS]][%c0, %[[TY4]]] {alignment = 16 : i64} : memref<16x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: %[[BQ:.*]] = vector.load %[[BS]][%c0, %[[TX4]]] {alignment = 16 : i64}
// CHECK: vector.extract %[[AQ]][0]
// CHECK: vector.extract %[[BQ]][0]
// CHECK-COUNT-256: math.fma
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK-COUNT-16: memref.store %{{.*}}, %arg2
// CHECK: gpu.terminator
// CHECK-NOT: linalg.matmul
// tf32: warp w = tid / 32 of the 8 computes rows 32 (w / 4) + [0, 32) and
// columns 16 (w % 4) + [0, 16) of the 64 x 64 tile as 2 x 2 mma.sync
// m16n8k8 per 8 of K; lane l reads A's fragment at rows g, g + 8 and
// columns q, q + 4 (g = l / 4, q = l % 4), B's at rows q, q + 4 and
// column g, from workgroup tiles padded to 72 columns. The accumulators are
// 4 vector<2x2xf32>, the prefetched elements 8 f32.
// TF32-LABEL: func.func @mm
// TF32: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c16, %{{.*}} = %c1) workgroup(%[[AS:.*]] : memref<16x72xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<16x72xf32, #gpu.address_space<workgroup>>)
// TF32: %[[WARP:.*]] = arith.divui %{{.*}}, %c32
// TF32: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// TF32: %[[WROW:.*]] = arith.divui %[[WARP]], %c4
// TF32: arith.muli %[[WROW]], %c32
// TF32: %[[WCOL:.*]] = arith.remui %[[WARP]], %c4
// TF32: arith.muli %[[WCOL]], %c16
// TF32: %[[G:.*]] = arith.divui %[[LANE]], %c4
// TF32: %[[Q:.*]] = arith.remui %[[LANE]], %c4
// TF32: scf.for {{.*}} step %c16 iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, f32, f32, f32, f32, f32, f32, f32, f32)
// TF32: gpu.barrier
// TF32-COUNT-4: memref.load %[[AS]]
// TF32: vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4x1xf32>
// TF32-COUNT-4: memref.load %[[AS]]
// TF32-COUNT-2: memref.load %[[BS]]
// TF32: vector.from_elements %{{.*}}, %{{.*}} : vector<2x1xf32>
// TF32-COUNT-8: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
// TF32-NOT: nvgpu.mma.sync
// TF32: gpu.barrier
// TF32-COUNT-16: memref.store %{{.*}}, %arg2
// FORCED-LABEL: func.func @mm
// FORCED: gpu.launch {{.*}} workgroup(%{{.*}} : memref<8x132xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<8x128xf32, #gpu.address_space<workgroup>>)
// FORCED: scf.for {{.*}} step %c8
func.func @mm(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// The batch is the grid's z; each access is indexed by the block's z.
// CHECK-LABEL: func.func @bmm
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %[[BZ:.*]]) in (%{{.*}} = %c2, %{{.*}} = %c1, %{{.*}} = %c3)
// CHECK: memref.load %arg0[%[[BZ]], %{{.*}}, %{{.*}}] : memref<3x8x5xf32>
// CHECK: memref.store %{{.*}}, %arg2[%[[BZ]], %{{.*}}, %{{.*}}] : memref<3x8x70xf32>
func.func @bmm(%a: memref<3x8x5xf32>, %b: memref<3x5x70xf32>, %c: memref<3x8x70xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x8x5xf32>, memref<3x5x70xf32>) outs(%c : memref<3x8x70xf32>)
  return
}

// A strided convolution as an implicit GEMM per image: M = 8 filters,
// N = 3 x 3 pixels, K = 4 x 2 x 2; B reads input[n, c, oh * 2 + kh, ow * 2 + kw].
// CHECK-LABEL: func.func @conv
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %[[N:.*]]) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c2)
// CHECK: memref.load %arg1[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<8x4x2x2xf32>
// CHECK: %[[OH:.*]] = arith.divui %{{.*}}, %c3
// CHECK: %[[OW:.*]] = arith.remui %{{.*}}, %c3
// CHECK: %[[H:.*]] = arith.muli %[[OH]], %c2
// CHECK: %[[Y:.*]] = arith.addi %[[H]], %{{.*}}
// CHECK: memref.load %arg0[%[[N]], %{{.*}}, %[[Y]], %{{.*}}] : memref<2x4x7x7xf32>
// CHECK-COUNT-256: math.fma
// CHECK: memref.store %{{.*}}, %arg2[%[[N]], %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x8x3x3xf32>
func.func @conv(%i: memref<2x4x7x7xf32>, %w: memref<8x4x2x2xf32>, %o: memref<2x8x3x3xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%i, %w : memref<2x4x7x7xf32>, memref<8x4x2x2xf32>) outs(%o : memref<2x8x3x3xf32>)
  return
}

// One 64 x 64 tile but K = 8192: the kernel splits K into 16 slices of 512
// (block z), each writing its sums to a partial buffer; a parallel loop then
// adds the slices to C in order.
// CHECK-LABEL: func.func @split_k
// CHECK: %[[P:.*]] = memref.alloc() : memref<16x64x64xf32>
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %[[Z:.*]]) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c16)
// CHECK: %[[S:.*]] = arith.remui %[[Z]], %c16
// CHECK: %[[B:.*]] = arith.muli %[[S]], %c512
// CHECK: %[[E0:.*]] = arith.addi %[[B]], %c512
// CHECK: %[[E:.*]] = arith.minui %[[E0]], %c8192
// CHECK: scf.for %{{.*}} = %[[B]] to %[[E]] step %c16
// CHECK: memref.store %{{.*}}, %[[P]][%[[Z]], %{{.*}}, %{{.*}}]
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0, %c0) to (%c64, %c64)
// CHECK:   memref.load %arg2[%[[I]], %[[J]]]
// CHECK-COUNT-16: memref.load %[[P]]
// CHECK:   memref.store %{{.*}}, %arg2[%[[I]], %[[J]]]
// CHECK: memref.dealloc %[[P]]
func.func @split_k(%a: memref<64x8192xf32>, %b: memref<8192x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x8192xf32>, memref<8192x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// Other element types keep the generic mapping.
// CHECK-LABEL: func.func @f16
// CHECK-NOT: gpu.launch
// CHECK: linalg.matmul
func.func @f16(%a: memref<4x4xf16>, %b: memref<4x4xf16>, %c: memref<4x4xf16>) {
  linalg.matmul ins(%a, %b : memref<4x4xf16>, memref<4x4xf16>) outs(%c : memref<4x4xf16>)
  return
}

// A product whose static sizes give at least 132 tiles of 128 x 128 (here
// 16 x 16 of them): the large kernel. 16 x 16 threads, each 8 x 8 elements
// (64 accumulators) and the next step's 4 elements of A and 4 of B
// (prefetched into registers: loaded before the loop for the first step and
// inside it, after the barrier, for the next); K in steps of 8; A's
// workgroup tile padded to 132 columns. Each step of k: four 16-byte loads
// (rows 4 ty and 64 + 4 ty of A's tile, columns 4 tx and 64 + 4 tx of B's)
// and 64 FMAs.
// CHECK-LABEL: func.func @large
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c16, %{{.*}} = %c1) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c16, %{{.*}} = %c1) workgroup(%[[AS:.*]] : memref<8x132xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<8x128xf32, #gpu.address_space<workgroup>>)
// CHECK-DAG: %[[TY4:.*]] = arith.muli %[[TY]], %c4
// CHECK-DAG: %[[TX4:.*]] = arith.muli %[[TX]], %c4
// CHECK-COUNT-8: scf.if %{{.*}} -> (f32) {
// CHECK: %{{.*}}:72 = scf.for %[[K0:.*]] = %c0 to %c2048 step %c8 iter_args(
// CHECK-COUNT-4: memref.store %{{.*}}, %[[AS]]
// CHECK: gpu.barrier
// CHECK: %[[NEXT:.*]] = arith.addi %[[K0]], %c8
// CHECK-COUNT-8: scf.if %{{.*}} -> (f32) {
// CHECK: vector.load %[[AS]][%c0, %[[TY4]]] {alignment = 16 : i64}
// CHECK: vector.load %[[BS]][%c0, %[[TX4]]] {alignment = 16 : i64}
// CHECK: %[[TY64:.*]] = arith.addi %[[TY4]], %c64
// CHECK: vector.load %[[AS]][%c0, %[[TY64]]] {alignment = 16 : i64}
// CHECK: %[[TX64:.*]] = arith.addi %[[TX4]], %c64
// CHECK: vector.load %[[BS]][%c0, %[[TX64]]] {alignment = 16 : i64}
// CHECK-COUNT-512: math.fma
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK-COUNT-64: memref.store %{{.*}}, %arg2
// CHECK: gpu.terminator
// tf32 on a large product: 128 x 128 tiles, warps of 64 x 32 (4 x 4
// mma.sync per 8 of K: 32 per step of 16), tiles padded to 136 columns.
// TF32-LABEL: func.func @large
// TF32: gpu.launch blocks({{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c16, %{{.*}} = %c1) {{.*}} workgroup(%{{.*}} : memref<16x136xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x136xf32, #gpu.address_space<workgroup>>)
// TF32: scf.for {{.*}} step %c16 iter_args
// TF32-COUNT-32: nvgpu.mma.sync
// TF32-NOT: nvgpu.mma.sync
// TF32: gpu.barrier
// TF32-COUNT-64: memref.store %{{.*}}, %arg2
// FORCED-LABEL: func.func @large
// FORCED: memref<8x132xf32, #gpu.address_space<workgroup>>
func.func @large(%a: memref<2048x2048xf32>, %b: memref<2048x2048xf32>, %c: memref<2048x2048xf32>) {
  linalg.matmul ins(%a, %b : memref<2048x2048xf32>, memref<2048x2048xf32>) outs(%c : memref<2048x2048xf32>)
  return
}

// Fusion: the fill before the product gives C's initial value (no load of
// C), the elementwise op after it (bias and Relu, in place) is evaluated
// where the kernel stores its sums; neither runs on its own.
// CHECK-LABEL: func.func @fused_bias_relu
// CHECK-NOT: linalg.
// CHECK: gpu.launch
// CHECK-NOT: memref.load %[[C:alloc.*]][
// CHECK: memref.load %arg2[%{{.*}}] : memref<96xf32>
// CHECK: %[[R:.*]] = arith.maximumf
// CHECK: memref.store %[[R]], %alloc[
// CHECK-NOT: linalg.
// CHECK: return %alloc
func.func @fused_bias_relu(%a: memref<128x64xf32>, %b: memref<64x96xf32>, %bias: memref<96xf32>) -> memref<128x96xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<128x96xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<128x96xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf32>, memref<64x96xf32>) outs(%c : memref<128x96xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %bias : memref<128x96xf32>, memref<96xf32>) outs(%c : memref<128x96xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    %r = arith.maximumf %s, %cst : f32
    linalg.yield %r : f32
  }
  return %c : memref<128x96xf32>
}

// A convolution whose bias is broadcast into C first and whose Relu writes
// another buffer: the kernel reads the bias at each element's channel and
// stores Relu's value into the output; C is gone.
// CHECK-LABEL: func.func @fused_conv
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.
// CHECK: gpu.launch
// CHECK: memref.load %arg2[%{{.*}}] : memref<8xf32>
// CHECK: %[[R:.*]] = arith.maximumf
// CHECK: memref.store %[[R]], %arg3[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x8x3x3xf32>
// CHECK-NOT: memref.dealloc
// CHECK-NOT: linalg.
func.func @fused_conv(%i: memref<2x4x7x7xf32>, %w: memref<8x4x2x2xf32>, %bias: memref<8xf32>, %o: memref<2x8x3x3xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<2x8x3x3xf32>
  linalg.broadcast ins(%bias : memref<8xf32>) outs(%c : memref<2x8x3x3xf32>) dimensions = [0, 2, 3]
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%i, %w : memref<2x4x7x7xf32>, memref<8x4x2x2xf32>) outs(%c : memref<2x8x3x3xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : memref<2x8x3x3xf32>) outs(%o : memref<2x8x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %cst : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<2x8x3x3xf32>
  return
}

// Split K: the slices' sums plus the fill's zero go through the epilogue in
// the second kernel (a parallel loop), which stores into the output.
// CHECK-LABEL: func.func @split_k_fused
// CHECK: gpu.launch
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0, %c0) to (%c64, %c64)
// CHECK-NOT: memref.load %alloc
// CHECK-COUNT-16: memref.load %[[P:.*]][
// CHECK: %[[T:.*]] = math.tanh
// CHECK: memref.store %[[T]], %arg2[%[[I]], %[[J]]]
// CHECK-NOT: linalg.
func.func @split_k_fused(%a: memref<64x8192xf32>, %b: memref<8192x64xf32>, %o: memref<64x64xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x8192xf32>, memref<8192x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<64x64xf32>) outs(%o : memref<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  }
  memref.dealloc %c : memref<64x64xf32>
  return
}

// Not fused: C is read again after the elementwise op (it must hold the
// product), and an elementwise op that writes the product's operand A
// (other blocks still read it). The fills are fused either way.
// CHECK-LABEL: func.func @not_fused
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK: linalg.generic
// CHECK: linalg.copy
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK: linalg.generic
func.func @not_fused(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %o: memref<64x64xf32>, %o2: memref<64x64xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<64x64xf32>) outs(%o : memref<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  }
  linalg.copy ins(%c : memref<64x64xf32>) outs(%o2 : memref<64x64xf32>)
  %c2 = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%cst : f32) outs(%c2 : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c2 : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c2 : memref<64x64xf32>) outs(%a : memref<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  }
  memref.dealloc %c : memref<64x64xf32>
  memref.dealloc %c2 : memref<64x64xf32>
  return
}

// f16 operands, f32 sums (as the MatMul lowering writes them), the cast
// back to f16 fused (its output's allocation moves before the kernel).
// Without half-mma: f32 workgroup tiles, the operands widened as they are
// loaded. With it: f16 tiles (rows of 72), m16n8k16 mma.sync on f16
// fragments; lane (g, q) reads A's (k 2q + e + 8 (r / 2), row g + 8 (r % 2)).
// CHECK-LABEL: func.func @f16_sums_f32
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<128x96xf16>
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NOT: nvgpu.mma.sync
// CHECK: %[[H:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %[[H]], %[[OUT]][
// CHECK-NOT: linalg.
// CHECK: return %[[OUT]]
// HALF-LABEL: func.func @f16_sums_f32
// HALF: gpu.launch {{.*}} threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in {{.*}} workgroup(%[[AS:.*]] : memref<16x72xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x72xf16, #gpu.address_space<workgroup>>)
// HALF-NOT: arith.extf
// HALF: scf.for
// HALF-COUNT-8: memref.load %[[AS]]
// HALF: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// HALF: arith.truncf %{{.*}} : f32 to f16
func.func @f16_sums_f32(%a: memref<128x64xf16>, %b: memref<64x96xf16>) -> memref<128x96xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<128x96xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<128x96xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x96xf16>) outs(%c : memref<128x96xf32>)
  %o = memref.alloc() : memref<128x96xf16>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<128x96xf32>) outs(%o : memref<128x96xf16>) {
  ^bb0(%in: f32, %out: f16):
    %h = arith.truncf %in : f32 to f16
    linalg.yield %h : f16
  }
  memref.dealloc %c : memref<128x96xf32>
  return %o : memref<128x96xf16>
}

// bf16 operands with half-mma: widened to f32 (exactly) on the tf32 kernel.
// HALF-LABEL: func.func @bf16_sums_f32
// HALF: gpu.launch {{.*}} workgroup(%{{.*}} : memref<16x72xf32, #gpu.address_space<workgroup>>
// HALF: arith.extf %{{.*}} : bf16 to f32
// HALF: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
func.func @bf16_sums_f32(%a: memref<32x64xbf16>, %b: memref<64x32xbf16>, %c: memref<32x32xf32>) {
  linalg.matmul ins(%a, %b : memref<32x64xbf16>, memref<64x32xbf16>) outs(%c : memref<32x32xf32>)
  return
}

// A padded input (a buffer filled with 0.5, the source copied into its
// interior): the kernel reads the source at the window's position less the
// offsets (1, 2), checked against its sizes as unsigned, and 0.5 outside;
// the fill, the copy and the padded buffer are gone.
// CHECK-LABEL: func.func @padded_conv
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: gpu.launch
// CHECK: %[[H:.*]] = arith.subi %{{.*}}, %c1
// CHECK: %[[HOK:.*]] = arith.cmpi ult, %[[H]], %c5
// CHECK: %[[W:.*]] = arith.subi %{{.*}}, %c2
// CHECK: %[[WOK:.*]] = arith.cmpi ult, %[[W]], %c6
// CHECK: %[[OK:.*]] = arith.andi %[[HOK]], %[[WOK]]
// CHECK: scf.if %[[OK]] -> (f32) {
// CHECK:   memref.load %arg0[%{{.*}}, %{{.*}}, %[[H]], %[[W]]] : memref<1x3x5x6xf32>
// CHECK: } else {
// CHECK:   scf.yield %cst
// CHECK-NOT: memref.dealloc
func.func @padded_conv(%x: memref<1x3x5x6xf32>, %w: memref<4x3x3x3xf32>, %o: memref<1x4x5x8xf32>) {
  %cst = arith.constant 5.000000e-01 : f32
  %p = memref.alloc() : memref<1x3x7x10xf32>
  linalg.fill ins(%cst : f32) outs(%p : memref<1x3x7x10xf32>)
  %s = memref.subview %p[0, 0, 1, 2] [1, 3, 5, 6] [1, 1, 1, 1] : memref<1x3x7x10xf32> to memref<1x3x5x6xf32, strided<[210, 70, 10, 1], offset: 12>>
  memref.copy %x, %s : memref<1x3x5x6xf32> to memref<1x3x5x6xf32, strided<[210, 70, 10, 1], offset: 12>>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : memref<1x3x7x10xf32>, memref<4x3x3x3xf32>) outs(%o : memref<1x4x5x8xf32>)
  memref.dealloc %p : memref<1x3x7x10xf32>
  return
}

// Where the source is written between the copy and the convolution, the
// kernel reads the padded buffer's interior (the subview) where the copy
// wrote it, and 0 outside: the fill alone goes.
// CHECK-LABEL: func.func @padded_conv_source_written
// CHECK: %[[S:.*]] = memref.subview %[[P:.*]][0, 0, 1, 2] [1, 3, 5, 6] [1, 1, 1, 1]
// CHECK-NOT: linalg.fill ins(%{{.*}} outs(%[[P]]
// CHECK: memref.copy %arg0, %[[S]]
// CHECK: linalg.fill ins(%{{.*}} outs(%arg0
// CHECK: gpu.launch
// CHECK: memref.load %[[S]]
func.func @padded_conv_source_written(%x: memref<1x3x5x6xf32>, %w: memref<4x3x3x3xf32>, %o: memref<1x4x5x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %p = memref.alloc() : memref<1x3x7x10xf32>
  linalg.fill ins(%cst : f32) outs(%p : memref<1x3x7x10xf32>)
  %s = memref.subview %p[0, 0, 1, 2] [1, 3, 5, 6] [1, 1, 1, 1] : memref<1x3x7x10xf32> to memref<1x3x5x6xf32, strided<[210, 70, 10, 1], offset: 12>>
  memref.copy %x, %s : memref<1x3x5x6xf32> to memref<1x3x5x6xf32, strided<[210, 70, 10, 1], offset: 12>>
  linalg.fill ins(%cst : f32) outs(%x : memref<1x3x5x6xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : memref<1x3x7x10xf32>, memref<4x3x3x3xf32>) outs(%o : memref<1x4x5x8xf32>)
  memref.dealloc %p : memref<1x3x7x10xf32>
  return
}

// An epilogue that reads a reshape of C (a 3-D MatMul's 2-D product
// expanded back): element (i, j) of C is element (i / 7, i % 7, j) of the
// view, where the kernel evaluates the bias and Tanh and stores.
// CHECK-LABEL: func.func @fused_reshaped
// CHECK-NOT: linalg.
// CHECK-NOT: memref.expand_shape
// CHECK: gpu.launch
// CHECK: %[[A:.*]] = arith.divui %[[I:.*]], %c7
// CHECK: %[[B:.*]] = arith.remui %[[I]], %c7
// CHECK: %[[T:.*]] = math.tanh
// CHECK: memref.store %[[T]], %arg3[%[[A]], %[[B]], %{{.*}}] : memref<2x7x40xf32>
func.func @fused_reshaped(%a: memref<14x24xf32>, %b: memref<24x40xf32>, %bias: memref<40xf32>, %o: memref<2x7x40xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<14x40xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<14x40xf32>)
  linalg.matmul ins(%a, %b : memref<14x24xf32>, memref<24x40xf32>) outs(%c : memref<14x40xf32>)
  %v = memref.expand_shape %c [[0, 1], [2]] output_shape [2, 7, 40] : memref<14x40xf32> into memref<2x7x40xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v, %bias : memref<2x7x40xf32>, memref<40xf32>) outs(%o : memref<2x7x40xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  }
  memref.dealloc %c : memref<14x40xf32>
  return
}

// A grouped convolution (2 groups of 16 output channels): one implicit GEMM
// per image and group (grid z: 2 x 2); batch z is image z / 2, group z % 2.
// CHECK-LABEL: func.func @grouped_conv
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %[[Z:.*]]) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c4)
// CHECK: %[[G:.*]] = arith.remui %[[Z]], %c2
// CHECK: memref.load %arg1[%[[G]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x16x3x3x3xf32>
// CHECK: %[[N:.*]] = arith.divui %[[Z]], %c2
// CHECK: %[[G2:.*]] = arith.remui %[[Z]], %c2
// CHECK: memref.load %arg0[%[[N]], %[[G2]], %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x2x3x9x9xf32>
// CHECK: memref.store %{{.*}}, %arg2[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x2x16x7x7xf32>
func.func @grouped_conv(%i: memref<2x2x3x9x9xf32>, %w: memref<2x16x3x3x3xf32>, %o: memref<2x2x16x7x7xf32>) {
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : memref<2x2x3x9x9xf32>, memref<2x16x3x3x3xf32>) outs(%o : memref<2x2x16x7x7xf32>)
  return
}

// Groups of fewer than 16 output channels keep the generic mapping.
// CHECK-LABEL: func.func @grouped_conv_narrow
// CHECK-NOT: gpu.launch
// CHECK: linalg.conv_2d_ngchw_gfchw
func.func @grouped_conv_narrow(%i: memref<1x4x3x9x9xf32>, %w: memref<4x8x3x3x3xf32>, %o: memref<1x4x8x7x7xf32>) {
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : memref<1x4x3x9x9xf32>, memref<4x8x3x3x3xf32>) outs(%o : memref<1x4x8x7x7xf32>)
  return
}
