// RUN: onnx-mlir-opt %s --split-input-file --onnxc-lower-ukernels --cse | FileCheck %s

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 + d6, d3 + d7, d8)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>
#id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>

// The bias broadcast and the Relu join the call: the kernel starts from the
// bias (init 1), clamps to [0, inf] (1) and writes the Relu's destination (the
// interior of a padded buffer), in the Relu's place after the border fill.
// CHECK: func.func private @onnxc_uk_conv2d_nchwc_f32(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, f32, f32) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @bias_relu
// CHECK-NOT: linalg.broadcast
// CHECK: linalg.fill
// CHECK: %[[SUB:.*]] = memref.subview %arg3[0, 0, 1, 1, 0]
// CHECK-DAG: %[[X:.*]] = memref.cast %arg0
// CHECK-DAG: %[[W:.*]] = memref.cast %arg1
// CHECK-DAG: %[[B:.*]] = memref.cast %arg2
// CHECK-DAG: %[[Y:.*]] = memref.cast %[[SUB]]
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[HI:.*]] = arith.constant 0x7F800000 : f32
// CHECK: call @onnxc_uk_conv2d_nchwc_f32(%[[X]], %[[W]], %[[B]], %[[Y]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %cst, %[[HI]])
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @bias_relu(%x: memref<1x2x10x10x16xf32>, %w: memref<2x2x3x3x16x16xf32>, %b: memref<2x16xf32>, %y: memref<1x2x10x10x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x2x8x8x16xf32>
  linalg.broadcast ins(%b : memref<2x16xf32>) outs(%acc : memref<1x2x8x8x16xf32>) dimensions = [0, 2, 3]
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x2x10x10x16xf32>, memref<2x2x3x3x16x16xf32>) outs(%acc : memref<1x2x8x8x16xf32>) attrs = {dilations = array<i64: 1, 1>, onnxc.ukernel = "conv2d_nchwc", strides = array<i64: 1, 1>} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<1x2x10x10x16xf32>)
  %inner = memref.subview %y[0, 0, 1, 1, 0] [1, 2, 8, 8, 16] [1, 1, 1, 1, 1] : memref<1x2x10x10x16xf32> to memref<1x2x8x8x16xf32, strided<[3200, 1600, 160, 16, 1], offset: 176>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x8x8x16xf32>) outs(%inner : memref<1x2x8x8x16xf32, strided<[3200, 1600, 160, 16, 1], offset: 176>>) attrs = {hi = 0x7F800000 : f32, lo = 0.000000e+00 : f32, onnxc.ukernel_epilogue = "clamp"} {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %acc : memref<1x2x8x8x16xf32>
  return
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 * 2 + d6, d3 * 2 + d7, d8)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>
#id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>

// A zero fill joins the call (init 2); the Relu's input is read again after
// it, so the Relu stays and the kernel writes its own buffer (relu 0).
// CHECK-LABEL: func.func @fill_reread
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: call @onnxc_uk_conv2d_nchwc_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[TWO]], %[[TWO]], %[[ONE]], %[[ONE]], %[[TWO]], %[[ZERO]], %{{.*}}, %{{.*}})
// CHECK: linalg.generic {{.*}}onnxc.ukernel_epilogue = "clamp"
// CHECK: memref.copy
func.func @fill_reread(%x: memref<1x2x9x9x16xf32>, %w: memref<2x2x1x1x16x16xf32>, %y: memref<1x2x5x5x16xf32>, %z: memref<1x2x5x5x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x2x5x5x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x2x5x5x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x2x9x9x16xf32>, memref<2x2x1x1x16x16xf32>) outs(%acc : memref<1x2x5x5x16xf32>) attrs = {dilations = array<i64: 1, 1>, onnxc.ukernel = "conv2d_nchwc", strides = array<i64: 2, 2>} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x5x5x16xf32>) outs(%y : memref<1x2x5x5x16xf32>) attrs = {hi = 0x7F800000 : f32, lo = 0.000000e+00 : f32, onnxc.ukernel_epilogue = "clamp"} {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  }
  memref.copy %acc, %z : memref<1x2x5x5x16xf32> to memref<1x2x5x5x16xf32>
  return
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 * 2 + d6, d3 * 2 + d7, d8)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>
#id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>

// The conv's buffer is reused after the Relu for an elementwise op's result
// (its vectorised loops store every element and read none): the Relu joins
// the call. Where the loops store half of it, the rest would still be read
// as the conv's result: the Relu stays.
// CHECK-LABEL: func.func @reused_by_loops
// CHECK: %[[Y:.*]] = memref.cast %arg2
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: call @onnxc_uk_conv2d_nchwc_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[Y]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.generic
// CHECK: scf.for
// CHECK-LABEL: func.func @half_overwritten
// CHECK: call @onnxc_uk_conv2d_nchwc_f32
// CHECK: linalg.generic {{.*}}onnxc.ukernel_epilogue = "clamp"
func.func @reused_by_loops(%x: memref<1x2x9x9x16xf32>, %w: memref<2x2x1x1x16x16xf32>, %y: memref<1x2x5x5x16xf32>, %v: vector<1x1x1x1x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %acc = memref.alloc() : memref<1x2x5x5x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x2x5x5x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x2x9x9x16xf32>, memref<2x2x1x1x16x16xf32>) outs(%acc : memref<1x2x5x5x16xf32>) attrs = {dilations = array<i64: 1, 1>, onnxc.ukernel = "conv2d_nchwc", strides = array<i64: 2, 2>} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x5x5x16xf32>) outs(%y : memref<1x2x5x5x16xf32>) attrs = {hi = 0x7F800000 : f32, lo = 0.000000e+00 : f32, onnxc.ukernel_epilogue = "clamp"} {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  }
  scf.for %b = %c0 to %c2 step %c1 {
    scf.for %h = %c0 to %c5 step %c1 {
      scf.for %ww = %c0 to %c5 step %c1 {
        vector.transfer_write %v, %acc[%c0, %b, %h, %ww, %c0] {in_bounds = [true, true, true, true, true]} : vector<1x1x1x1x16xf32>, memref<1x2x5x5x16xf32>
      }
    }
  }
  return
}
func.func @half_overwritten(%x: memref<1x2x9x9x16xf32>, %w: memref<2x2x1x1x16x16xf32>, %y: memref<1x2x5x5x16xf32>, %v: vector<1x1x1x1x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %acc = memref.alloc() : memref<1x2x5x5x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x2x5x5x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x2x9x9x16xf32>, memref<2x2x1x1x16x16xf32>) outs(%acc : memref<1x2x5x5x16xf32>) attrs = {dilations = array<i64: 1, 1>, onnxc.ukernel = "conv2d_nchwc", strides = array<i64: 2, 2>} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x5x5x16xf32>) outs(%y : memref<1x2x5x5x16xf32>) attrs = {hi = 0x7F800000 : f32, lo = 0.000000e+00 : f32, onnxc.ukernel_epilogue = "clamp"} {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  }
  scf.for %h = %c0 to %c5 step %c1 {
    scf.for %ww = %c0 to %c5 step %c1 {
      vector.transfer_write %v, %acc[%c0, %c0, %h, %ww, %c0] {in_bounds = [true, true, true, true, true]} : vector<1x1x1x1x16xf32>, memref<1x2x5x5x16xf32>
    }
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 * 2 + d6, d3 * 2 + d7, d8)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>
#id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>

// A Relu in place (bufferization reused the conv's buffer; the result is
// read after it) joins the call too: the kernel clamps (1) into that buffer.
// CHECK-LABEL: func.func @relu_in_place
// CHECK: %[[ACC:.*]] = memref.alloc()
// CHECK: %[[Y:.*]] = memref.cast %[[ACC]] :
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: call @onnxc_uk_conv2d_nchwc_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[Y]], %[[TWO]], %[[TWO]], %[[ONE]], %[[ONE]], %[[TWO]], %[[ONE]], %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.generic
// CHECK: memref.copy %[[ACC]], %arg2
func.func @relu_in_place(%x: memref<1x2x9x9x16xf32>, %w: memref<2x2x1x1x16x16xf32>, %z: memref<1x2x5x5x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x2x5x5x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x2x5x5x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x2x9x9x16xf32>, memref<2x2x1x1x16x16xf32>) outs(%acc : memref<1x2x5x5x16xf32>) attrs = {dilations = array<i64: 1, 1>, onnxc.ukernel = "conv2d_nchwc", strides = array<i64: 2, 2>} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x5x5x16xf32>) outs(%acc : memref<1x2x5x5x16xf32>) attrs = {hi = 0x7F800000 : f32, lo = 0.000000e+00 : f32, onnxc.ukernel_epilogue = "clamp"} {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  }
  memref.copy %acc, %z : memref<1x2x5x5x16xf32> to memref<1x2x5x5x16xf32>
  return
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 + d6, d3 + d7, d8)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>
#id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>

// The Relu's destination is the buffer the conv reads (bufferization gave
// two chained 1x1 convs' Relus one buffer, as SSD300's fc6/fc7 get when
// their shared bias broadcasts are CSE'd): the kernel must not write it
// while reading it, so it writes the conv's own buffer (clamp 0) and the
// Relu stays.
// CHECK-LABEL: func.func @relu_into_input
// CHECK: %[[ACC:.*]] = memref.alloc()
// CHECK: %[[A:.*]] = memref.cast %[[ACC]] :
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: call @onnxc_uk_conv2d_nchwc_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[A]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[TWO]], %[[ZERO]], %{{.*}}, %{{.*}})
// CHECK: linalg.generic {{.*}}ins(%[[ACC]] : {{.*}}outs(%arg0 : {{.*}}onnxc.ukernel_epilogue = "clamp"
func.func @relu_into_input(%x: memref<1x2x5x5x16xf32>, %w: memref<2x2x1x1x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x2x5x5x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x2x5x5x16xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x2x5x5x16xf32>, memref<2x2x1x1x16x16xf32>) outs(%acc : memref<1x2x5x5x16xf32>) attrs = {dilations = array<i64: 1, 1>, onnxc.ukernel = "conv2d_nchwc", strides = array<i64: 1, 1>} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x5x5x16xf32>) outs(%x : memref<1x2x5x5x16xf32>) attrs = {hi = 0x7F800000 : f32, lo = 0.000000e+00 : f32, onnxc.ukernel_epilogue = "clamp"} {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %acc : memref<1x2x5x5x16xf32>
  return
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 + d6, d3 + d7, d8)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8, d4)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>

// Any other start: the kernel accumulates into its output as it is (init 0).
// CHECK-LABEL: func.func @accumulate
// CHECK: memref.copy %arg2, %arg3
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: call @onnxc_uk_conv2d_nchwc_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ZERO]], %[[ZERO]], %{{.*}}, %{{.*}})
func.func @accumulate(%x: memref<1x1x4x4x16xf32>, %w: memref<1x1x1x1x16x16xf32>, %init: memref<1x1x4x4x16xf32>, %y: memref<1x1x4x4x16xf32>) {
  memref.copy %init, %y : memref<1x1x4x4x16xf32> to memref<1x1x4x4x16xf32>
  linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x4x4x16xf32>, memref<1x1x1x1x16x16xf32>) outs(%y : memref<1x1x4x4x16xf32>) attrs = {dilations = array<i64: 1, 1>, onnxc.ukernel = "conv2d_nchwc", strides = array<i64: 1, 1>} {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// The layout changes: calls of the transpose kernel, 1 for NCHW -> NCHWc,
// 0 back; the blocked side may be a padded buffer's interior.
// CHECK: func.func private @onnxc_uk_transpose_nchwc_f32(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @layouts
// CHECK: %[[SUB:.*]] = memref.subview %arg1
// CHECK: %[[A:.*]] = memref.cast %arg0
// CHECK: %[[B:.*]] = memref.cast %[[SUB]]
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: call @onnxc_uk_transpose_nchwc_f32(%[[A]], %[[B]], %[[ONE]])
// CHECK: %[[C:.*]] = memref.cast %arg1
// CHECK: %[[D:.*]] = memref.cast %arg2
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: call @onnxc_uk_transpose_nchwc_f32(%[[C]], %[[D]], %[[ZERO]])
// CHECK-NOT: linalg.transpose
func.func @layouts(%x: memref<1x2x16x4x4xf32>, %p: memref<1x2x6x6x16xf32>, %y: memref<1x2x16x6x6xf32>) {
  %inner = memref.subview %p[0, 0, 1, 1, 0] [1, 2, 4, 4, 16] [1, 1, 1, 1, 1] : memref<1x2x6x6x16xf32> to memref<1x2x4x4x16xf32, strided<[1152, 576, 96, 16, 1], offset: 112>>
  linalg.transpose ins(%x : memref<1x2x16x4x4xf32>) outs(%inner : memref<1x2x4x4x16xf32, strided<[1152, 576, 96, 16, 1], offset: 112>>) permutation = [0, 1, 3, 4, 2] {onnxc.ukernel = "pack_nchwc"}
  linalg.transpose ins(%p : memref<1x2x6x6x16xf32>) outs(%y : memref<1x2x16x6x6xf32>) permutation = [0, 1, 4, 2, 3] {onnxc.ukernel = "unpack_nchwc"}
  return
}

// -----

// The layout kernel moves f32s: a marked layout change of i32 data (the
// accumulators a QDQ-quantized MobileNetV3's block dequantizes) stays a
// linalg.transpose (before, a memref.cast of the i32 buffer to the
// kernel's f32 descriptor failed to verify).
// CHECK-LABEL: func.func @pack_i32
// CHECK-NOT: call @onnxc_uk_transpose_nchwc_f32
// CHECK: linalg.transpose ins(%{{.+}} : memref<1x1x16x2x2xi32>)
func.func @pack_i32(%x: memref<1x1x16x2x2xi32>, %y: memref<1x1x2x2x16xi32>) {
  linalg.transpose ins(%x : memref<1x1x16x2x2xi32>) outs(%y : memref<1x1x2x2x16xi32>) permutation = [0, 1, 3, 4, 2] {onnxc.ukernel = "pack_nchwc"}
  return
}
