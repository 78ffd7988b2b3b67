// RUN: onnx-mlir-opt %s --onnxc-outline-parallel-loops="min-work=0" | FileCheck %s
// RUN: onnx-mlir-opt %s --onnxc-outline-parallel-loops="min-work=3000" | FileCheck %s --check-prefix=SMALL
// RUN: onnx-mlir-opt %s --onnxc-outline-parallel-loops="min-work=0" --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts --onnxc-dispatch-parallel-calls | FileCheck %s --check-prefix=LLVM
// RUN: onnx-mlir-opt %s --onnxc-outline-parallel-loops="min-work=0" --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts --onnxc-dispatch-parallel-calls | FileCheck %s --check-prefix=LLVM0
// RUN: onnx-mlir-opt %s --onnxc-outline-parallel-loops="min-work=0" | FileCheck %s --check-prefix=MERGE
// LLVM0-DAG: #[[U:.*]] = #llvm.loop_unroll<disable = true>
// LLVM0-DAG: #[[V:.*]] = #llvm.loop_vectorize<disable = true>
// LLVM0: #loop_annotation = #llvm.loop_annotation<vectorize = #[[V]], unroll = #[[U]]>

// The outermost marked loop becomes a function over [begin, end) of its
// iterations (iv = lb + i * step); the loop becomes a call over [0, trips).
// The inner marked loop stays inside it; constants are rebuilt there.
// CHECK-LABEL: func.func private @__onnxc_parallel_0(%arg0: index, %arg1: index, %arg2: memref<64x32xf32>, %arg3: memref<64x32xf32>)
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: scf.for %[[I:.*]] = %arg0 to %arg1 step %c1
// CHECK:   %[[M:.*]] = arith.muli %[[I]], %[[C2]]
// CHECK:   %[[IV:.*]] = arith.addi %[[C4]], %[[M]]
// CHECK:   scf.for
// CHECK:     memref.load %arg2[%[[IV]], %{{.*}}]
// CHECK-NOT: onnxc.parallel
// CHECK-LABEL: func.func @tiles
// CHECK: %[[SPAN:.*]] = arith.subi %c64, %c4
// CHECK: %[[TRIPS:.*]] = arith.ceildivsi %[[SPAN]], %c2
// CHECK: %[[N:.*]] = arith.maxsi %[[TRIPS]], %c0
// CHECK: call @__onnxc_parallel_0(%{{[a-z0-9_]+}}, %[[N]], %arg0, %arg1)
// CHECK-NOT: onnxc.parallel

// With a higher minimum of work (the first loop nest executes about
// 30 x (1 + 32 x 3) operations), the loops stay serial.
// SMALL-LABEL: func.func @tiles
// SMALL: scf.for
// SMALL:   scf.for
// SMALL-NOT: call @__onnxc_parallel
// SMALL: return

// The dispatch: the captured descriptors go into a stack struct, and the
// runtime runs the task on chunks of [0, trips). The slot, its store and
// the task's load of it agree on 16-byte alignment (a load at the struct's
// own alignment, 256 bytes with a captured vector<36xf32>, became aligned
// vector moves into a 16-byte aligned slot: SSD300 crashed with SIGSEGV).
// LLVM: llvm.func @onnxc_rt_parallel_for(!llvm.ptr, !llvm.ptr, i64)
// LLVM: llvm.func internal @__onnxc_parallel_0_task(%[[CTX:.*]]: !llvm.ptr, %[[B:.*]]: i64, %[[E:.*]]: i64)
// LLVM:   llvm.load %[[CTX]] {alignment = 16 : i64} : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, i64, i64, i64, i64, ptr, ptr, i64, i64, i64, i64, i64)>
// LLVM:   llvm.call @__onnxc_parallel_0(%[[B]], %[[E]],
// LLVM-LABEL: llvm.func @tiles
// LLVM: %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, i64, i64, i64, i64, ptr, ptr, i64, i64, i64, i64, i64)> {alignment = 16 : i64}
// LLVM: llvm.store %{{.*}}, %[[SLOT]] {alignment = 16 : i64}
// LLVM: %[[TASK:.*]] = llvm.mlir.addressof @__onnxc_parallel_0_task
// LLVM: llvm.call @onnxc_rt_parallel_for(%[[TASK]], %[[SLOT]], %{{.*}})
// LLVM-NOT: llvm.call @__onnxc_parallel_0(
func.func @tiles(%a: memref<64x32xf32>, %b: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c4 to %c64 step %c2 {
    scf.for %j = %c0 to %c32 step %c1 {
      %v = memref.load %a[%i, %j] : memref<64x32xf32>
      memref.store %v, %b[%i, %j] : memref<64x32xf32>
    } {onnxc.parallel}
  } {onnxc.parallel}
  return
}

// A body that allocates (or calls) stays on the calling thread, and so
// does a loop of one iteration; the inner marked loop of the first is free
// of allocations and is outlined instead.
// CHECK-LABEL: func.func @serial
// CHECK: scf.for
// CHECK:   memref.alloc
// CHECK:   call @__onnxc_parallel_{{[0-9]+}}(
// CHECK: scf.for %{{.*}} = %c0 to %c1 step %c1 {
// CHECK-NEXT: memref.load
func.func @serial(%a: memref<64x32xf32>, %b: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %t = memref.alloc() : memref<32xf32>
    scf.for %j = %c0 to %c32 step %c1 {
      %v = memref.load %a[%i, %j] : memref<64x32xf32>
      memref.store %v, %t[%j] : memref<32xf32>
    } {onnxc.parallel}
    memref.dealloc %t : memref<32xf32>
  } {onnxc.parallel}
  scf.for %i = %c0 to %c1 step %c1 {
    %v = memref.load %a[%i, %c0] : memref<64x32xf32>
    memref.store %v, %b[%i, %c0] : memref<64x32xf32>
  } {onnxc.parallel}
  return
}

// A large copy at the top level of a function (a concat's part here, a
// quarter of its 193600 elements counting as work) becomes a loop over
// pieces of its leading dims (1 x 64: 64 pieces of 55 x 55), outlined like
// any marked loop. A copy inside a loop stays; so does one below min-work
// (with min-work=3000, the 64 x 64 copy counting 1024).
// CHECK-LABEL: func.func private @__onnxc_parallel_2(%arg0: index, %arg1: index, %arg2: memref<1x64x55x55xf32, strided<[204288, 3192, 57, 1]>>, %arg3: memref<1x64x55x55xf32, strided<[387200, 3025, 55, 1], offset: 193600>>)
// CHECK: scf.for %[[I:.*]] = %arg0 to %arg1
// CHECK:   %[[P:.*]] = arith.addi %c0, %{{.*}}
// CHECK:   %[[D0:.*]] = arith.divui %[[P]], %c64
// CHECK:   %[[C:.*]] = arith.remui %[[P]], %c64
// CHECK:   %[[FROM:.*]] = memref.subview %arg2[%[[D0]], %[[C]], 0, 0] [1, 1, 55, 55] [1, 1, 1, 1]
// CHECK:   %[[TO:.*]] = memref.subview %arg3[%[[D0]], %[[C]], 0, 0] [1, 1, 55, 55] [1, 1, 1, 1]
// CHECK:   memref.copy %[[FROM]], %[[TO]]
// CHECK-LABEL: func.func private @__onnxc_parallel_3(%arg0: index, %arg1: index, %arg2: memref<64x64xf32>, %arg3: memref<64x64xf32>)
// CHECK:   memref.subview %arg2[%{{.*}}, 0] [1, 64] [1, 1]
// CHECK-LABEL: func.func @copies
// CHECK: call @__onnxc_parallel_2(%c0{{.*}}, %{{.*}}, %arg0, %arg1)
// CHECK: scf.for
// CHECK-NEXT: memref.copy %arg2, %arg3 : memref<64x64xf32> to memref<64x64xf32>
// CHECK: call @__onnxc_parallel_3(%c0{{.*}}, %{{.*}}, %arg2, %arg3)
// SMALL-LABEL: func.func @copies
// SMALL: call @__onnxc_parallel_{{[0-9]+}}(
// SMALL: scf.for
// SMALL-NEXT: memref.copy %arg2, %arg3
// SMALL: }
// SMALL-NEXT: memref.copy %arg2, %arg3
func.func @copies(%a: memref<1x64x55x55xf32, strided<[204288, 3192, 57, 1]>>,
                  %b: memref<1x64x55x55xf32, strided<[387200, 3025, 55, 1], offset: 193600>>,
                  %c: memref<64x64xf32>, %d: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  memref.copy %a, %b : memref<1x64x55x55xf32, strided<[204288, 3192, 57, 1]>> to memref<1x64x55x55xf32, strided<[387200, 3025, 55, 1], offset: 193600>>
  scf.for %i = %c0 to %c2 step %c1 {
    memref.copy %c, %d : memref<64x64xf32> to memref<64x64xf32>
  }
  memref.copy %c, %d : memref<64x64xf32> to memref<64x64xf32>
  return
}

// A loop nest that only stores a value defined outside it (a pad's border
// column) is annotated so that LLVM neither vectorises its strided stores
// into scatters nor unrolls it; onnxc-dispatch-parallel-calls makes the
// annotation the back edges' own loop_annotation, which reaches LLVM IR.
// CHECK-LABEL: func.func @fill
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     memref.store
// CHECK:   } {llvm.loop_annotation = #[[ANN:.*]]}
// CHECK: } {llvm.loop_annotation = #[[ANN]]}
// CHECK: scf.for
// CHECK:   memref.load
// CHECK-NOT: llvm.loop_annotation
// CHECK: return
// (The annotation, #llvm.loop_annotation<vectorize = <disable = true>,
// unroll = <disable = true>>, is printed as an alias at the top: LLVM0.)
// LLVM-LABEL: llvm.func @fill
// LLVM: llvm.br ^{{.*}} {loop_annotation = #loop_annotation}
// LLVM: llvm.br ^{{.*}} {loop_annotation = #loop_annotation}
// LLVM-NOT: llvm.loop_annotation
func.func @fill(%a: memref<1x8x56x58xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c56 = arith.constant 56 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %c = %c0 to %c8 step %c1 {
    scf.for %h = %c0 to %c56 step %c1 {
      memref.store %zero, %a[%c0, %c, %h, %c0] : memref<1x8x56x58xf32>
    }
  }
  // Not a fill: it stores what it loads.
  scf.for %i = %c1 to %c64 step %c1 {
    %v = memref.load %b[%c0] : memref<64xf32>
    memref.store %v, %b[%i] : memref<64xf32>
  }
  return
}

// A copy whose leading dim alone is dynamic (a dynamic BERT's ? x 768
// activations) becomes a loop over its rows when, with an assumed 128 rows,
// it counts as min-work (768 / 4 x 128 >= 3000), outlined like any marked
// loop; one with rows of 4 elements stays a copy.
// SMALL-LABEL: func.func private @__onnxc_parallel_{{[0-9]+}}(%arg0: index, %arg1: index, %arg2: memref<?x768xf32>, %arg3: memref<?x768xf32>)
// SMALL: scf.for %[[R:.*]] = %arg0 to %arg1
// SMALL:   %[[FROM:.*]] = memref.subview %arg2[%{{.*}}, 0] [1, 768] [1, 1]
// SMALL:   %[[TO:.*]] = memref.subview %arg3[%{{.*}}, 0] [1, 768] [1, 1]
// SMALL:   memref.copy %[[FROM]], %[[TO]]
// SMALL-LABEL: func.func @dynamic_copies
// SMALL: memref.dim %arg0, %c0
// SMALL: call @__onnxc_parallel_{{[0-9]+}}(%c0{{.*}}, %{{.*}}, %arg0, %arg1)
// SMALL-NEXT: memref.copy %arg2, %arg3 : memref<?x4xf32> to memref<?x4xf32>
func.func @dynamic_copies(%a: memref<?x768xf32>, %b: memref<?x768xf32>,
                          %c: memref<?x4xf32>, %d: memref<?x4xf32>) {
  memref.copy %a, %b : memref<?x768xf32> to memref<?x768xf32>
  memref.copy %c, %d : memref<?x4xf32> to memref<?x4xf32>
  return
}

// A vector operation counts the 512-bit registers it fills: 100 rows of a
// vector<64xf32> load, max and store count 100 x (4 + 4 + 4) = 1200 plus the
// loop, below 3000; the same rows of vector<256xf32> count 4800, above it.
// SMALL-LABEL: func.func @wide_vectors
// SMALL: scf.for %{{.*}} = %c0 to %c100 step %c1 {
// SMALL:   vector.load {{.*}} vector<64xf32>
// SMALL: call @__onnxc_parallel_{{[0-9]+}}(
func.func @wide_vectors(%a: memref<100x256xf32>, %b: memref<100x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant dense<0.0> : vector<64xf32>
  %zero4 = arith.constant dense<0.0> : vector<256xf32>
  scf.for %i = %c0 to %c100 step %c1 {
    %v = vector.load %a[%i, %c0] : memref<100x256xf32>, vector<64xf32>
    %m = arith.maximumf %v, %zero : vector<64xf32>
    vector.store %m, %b[%i, %c0] : memref<100x256xf32>, vector<64xf32>
  } {onnxc.parallel}
  scf.for %i = %c0 to %c100 step %c1 {
    %v = vector.load %a[%i, %c0] : memref<100x256xf32>, vector<256xf32>
    %m = arith.maximumf %v, %zero4 : vector<256xf32>
    vector.store %m, %b[%i, %c0] : memref<100x256xf32>, vector<256xf32>
  } {onnxc.parallel}
  return
}

// Loops with the same body on other buffers of the same types (a network's
// repeated blocks) share one outlined function; the loop that adds another
// constant gets its own.
// MERGE-COUNT-2: func.func private @__onnxc_parallel_{{[0-9]+}}(%arg0: index, %arg1: index, %arg2: memref<16x8xf32>, %arg3: memref<16x8xf32>)
// MERGE-NOT: func.func private @__onnxc_parallel_{{[0-9]+}}(%arg0: index, %arg1: index, %arg2: memref<16x8xf32>
// MERGE-LABEL: func.func @repeated
// MERGE: call @[[F:__onnxc_parallel_[0-9]+]](%{{.*}}, %{{.*}}, %arg0, %arg1)
// MERGE: call @[[F]](%{{.*}}, %{{.*}}, %arg2, %arg3)
// MERGE: call @[[G:__onnxc_parallel_[0-9]+]](%{{.*}}, %{{.*}}, %arg0, %arg3)
// MERGE-NOT: call @[[F]](
func.func @repeated(%a: memref<16x8xf32>, %b: memref<16x8xf32>, %c: memref<16x8xf32>, %d: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %a[%i, %j] : memref<16x8xf32>
      %w = arith.addf %v, %one : f32
      memref.store %w, %b[%i, %j] : memref<16x8xf32>
    }
  } {onnxc.parallel}
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %c[%i, %j] : memref<16x8xf32>
      %w = arith.addf %v, %one : f32
      memref.store %w, %d[%i, %j] : memref<16x8xf32>
    }
  } {onnxc.parallel}
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %a[%i, %j] : memref<16x8xf32>
      %w = arith.addf %v, %two : f32
      memref.store %w, %d[%i, %j] : memref<16x8xf32>
    }
  } {onnxc.parallel}
  return
}
