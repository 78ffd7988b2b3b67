// RUN: onnx-mlir-opt %s --onnxc-gpu-reductions --canonicalize --cse | FileCheck %s

// A row sum of 256 rows of 768 (LayerNorm's mean): one block of 256
// threads per row; thread t adds elements t, t + 256, t + 512 of its row to
// a partial from 0.0, the block adds the partials pairwise in workgroup
// memory (8 steps), thread 0 adds the total to the output's initial value.
// CHECK-LABEL: func.func @row_sum
// CHECK: gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%[[P:.*]] : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %[[T]] to %c768 step %c256 iter_args(%[[ACC:.*]] = %cst) -> (f32) {
// CHECK:   %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[K]]]
// CHECK:   %[[NEW:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK:   scf.yield %[[NEW]]
// CHECK: memref.store %[[SUM]], %[[P]][%[[T]]]
// CHECK: gpu.barrier
// CHECK: %[[ACTIVE:.*]] = arith.cmpi ult, %[[T]], %c128
// CHECK: scf.if %[[ACTIVE]] {
// CHECK:   memref.load %[[P]][%[[T]]]
// CHECK:   %[[U:.*]] = arith.addi %[[T]], %c128
// CHECK:   memref.load %[[P]][%[[U]]]
// CHECK:   arith.addf
// CHECK:   memref.store
// CHECK-COUNT-8: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK:   %[[TOTAL:.*]] = memref.load %[[P]][%c0]
// CHECK:   %[[OLD:.*]] = memref.load %arg1[%[[ROW]]]
// CHECK:   %[[R:.*]] = arith.addf %[[OLD]], %[[TOTAL]] : f32
// CHECK:   memref.store %[[R]], %arg1[%[[ROW]]]
// CHECK-NOT: linalg.generic
func.func @row_sum(%x: memref<256x768xf32>, %y: memref<256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<256x768xf32>) outs(%y : memref<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// The maximum over H x W = 7 x 7 of each of 2 x 64 channels, the element
// computed from the input first (x * 2): 128 blocks of 64 threads; the
// thread's index splits into (h, w); the partial starts at -inf.
// CHECK-LABEL: func.func @channel_max
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64, {{.*}} workgroup(%{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>)
// CHECK-DAG: %[[C:.*]] = arith.remui %[[B]], %c64
// CHECK-DAG: %[[N:.*]] = arith.divui %[[B]], %c64
// CHECK: scf.for %[[K:.*]] = %[[T]] to %c49 step %c64 iter_args(%{{.*}} = %cst{{.*}}) -> (f32)
// CHECK:   %[[W:.*]] = arith.remui %[[K]], %c7
// CHECK:   %[[H:.*]] = arith.divui %[[K]], %c7
// CHECK:   %[[X:.*]] = memref.load %arg0[%[[N]], %[[C]], %[[H]], %[[W]]]
// CHECK:   %[[X2:.*]] = arith.mulf %[[X]], %{{.*}}
// CHECK:   arith.maximumf %[[X2]], %{{.*}}
// CHECK-COUNT-6: gpu.barrier
// CHECK: arith.maximumf
func.func @channel_max(%x: memref<2x64x7x7xf32>, %y: memref<2x64xf32>) {
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : memref<2x64x7x7xf32>) outs(%y : memref<2x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %two : f32
    %1 = arith.maximumf %0, %out : f32
    linalg.yield %1 : f32
  }
  return
}

// Left to the one-thread-per-output mapping: a short reduction (9), many
// outputs (2 x 256 x 256), a body that is no single combiner (out used
// twice), dynamic sizes.
// CHECK-LABEL: func.func @not_blocks
// CHECK-NOT: gpu.launch
// CHECK-COUNT-4: linalg.generic
func.func @not_blocks(%a: memref<64x9xf32>, %b: memref<64xf32>, %c: memref<512x256x40xf32>, %d: memref<512x256xf32>, %e: memref<?x?xf32>, %f: memref<?xf32>, %g: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<64x9xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%c : memref<512x256x40xf32>) outs(%d : memref<512x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%g : memref<64x64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %out, %out : f32
    %1 = arith.addf %0, %in : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%e : memref<?x?xf32>) outs(%f : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// An index check's minimum and maximum (one generic, two outputs, each
// from the indices and its own output only): split into one reduction per
// output, each a block of threads (minsi from INT64_MAX, maxsi from
// INT64_MIN), so that the indices stay on the device. A generic whose
// outputs feed each other is left alone.
// CHECK-LABEL: func.func @index_range
// CHECK: gpu.launch
// CHECK: arith.extsi
// CHECK: arith.minsi
// CHECK: memref.store %{{.*}}, %arg1[]
// CHECK: gpu.launch
// CHECK: arith.extsi
// CHECK: arith.maxsi
// CHECK: memref.store %{{.*}}, %arg2[]
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @coupled
// CHECK: linalg.generic
// CHECK-NOT: gpu.launch
#all = affine_map<(d0, d1) -> (d0, d1)>
#none = affine_map<(d0, d1) -> ()>
func.func @index_range(%i: memref<2x128xi32>, %lo: memref<i64>, %hi: memref<i64>) {
  linalg.generic {indexing_maps = [#all, #none, #none],
                  iterator_types = ["reduction", "reduction"]}
      ins(%i : memref<2x128xi32>) outs(%lo, %hi : memref<i64>, memref<i64>) {
  ^bb0(%x: i32, %a: i64, %b: i64):
    %v = arith.extsi %x : i32 to i64
    %min = arith.minsi %a, %v : i64
    %max = arith.maxsi %b, %v : i64
    linalg.yield %min, %max : i64, i64
  }
  return
}
func.func @coupled(%i: memref<2x128xi64>, %lo: memref<i64>, %hi: memref<i64>) {
  linalg.generic {indexing_maps = [#all, #none, #none],
                  iterator_types = ["reduction", "reduction"]}
      ins(%i : memref<2x128xi64>) outs(%lo, %hi : memref<i64>, memref<i64>) {
  ^bb0(%x: i64, %a: i64, %b: i64):
    %min = arith.minsi %a, %x : i64
    %max = arith.maxsi %b, %min : i64
    linalg.yield %min, %max : i64, i64
  }
  return
}

// A mean: the fill before the sum and the division after it run in the
// reduction's kernel: thread 0 adds the block's total to the fill's 0.0
// and stores the total over 768 into the division's output; the sum's
// buffer goes.
// CHECK-LABEL: func.func @fused_mean
// CHECK-NOT: linalg.
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch blocks(%[[ROW:[a-z0-9]+]], %{{.*}}, %{{.*}}) in
// CHECK: scf.if
// CHECK:   %[[T:.*]] = memref.load %{{.*}}[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK:   %[[S:.*]] = arith.addf %[[T]], %cst
// CHECK:   %[[M:.*]] = arith.divf %[[S]], %cst_0
// CHECK:   memref.store %[[M]], %arg1[%[[ROW]]]
// CHECK-NOT: linalg.
func.func @fused_mean(%x: memref<256x768xf32>, %mean: memref<256xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 768.0 : f32
  %sum = memref.alloc() : memref<256xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<256xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<256x768xf32>) outs(%sum : memref<256xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%sum : memref<256xf32>) outs(%mean : memref<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.divf %in, %n : f32
    linalg.yield %m : f32
  }
  memref.dealloc %sum : memref<256xf32>
  return
}
