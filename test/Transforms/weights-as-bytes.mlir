// RUN: onnx-mlir-opt %s --onnxc-weights-as-bytes --split-input-file | FileCheck %s
// RUN: onnx-mlir-opt %s --onnxc-weights-as-bytes --split-input-file --finalize-memref-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir --split-input-file | FileCheck %s --check-prefix=LLVM

// A 2x3 f32 weight becomes 24 bytes in the same (little-endian) order; the
// reader views them as memref<2x3xf32> again.
// CHECK: memref.global "private" constant @w : memref<24xi8> = dense<[0, 0, -128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, -128, 64, 0, 0, -96, 64, 0, 0, -64, 64]> {alignment = 64 : i64}
// CHECK-LABEL: func.func @read
// CHECK: %[[G:.+]] = memref.get_global @w : memref<24xi8>
// CHECK: %[[V:.+]] = memref.view %[[G]][%{{.+}}][] : memref<24xi8> to memref<2x3xf32>
// CHECK: memref.load %[[V]]
// LLVM: @w = private constant [24 x i8] c"\00\00\80?\00\00\00@\00\00@@\00\00\80@\00\00\A0@\00\00\C0@", align 64
memref.global "private" constant @w : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]>
func.func @read(%i: index, %j: index) -> f32 {
  %m = memref.get_global @w : memref<2x3xf32>
  %v = memref.load %m[%i, %j] : memref<2x3xf32>
  return %v : f32
}

// -----

// A dense_resource blob keeps its bytes (the handle is shared, not copied).
// CHECK: memref.global "private" constant @r : memref<8xi8> = dense_resource<blob1> {alignment = 64 : i64}
// CHECK: memref.view %{{.+}}[%{{.+}}][] : memref<8xi8> to memref<2xf32>
// LLVM: @r = private constant [8 x i8] c"\00\00\80?\00\00\00@", align 64
memref.global "private" constant @r : memref<2xf32> = dense_resource<blob1>
func.func @read_resource(%i: index) -> f32 {
  %m = memref.get_global @r : memref<2xf32>
  %v = memref.load %m[%i] : memref<2xf32>
  return %v : f32
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// Left alone: splats (one value; the emitter repeats it), globals without an
// initial value (written by __onnxc_init), i1 elements (packed bits).
// CHECK: memref.global "private" constant @s : memref<4x4xf32> = dense<1.000000e+00>
// CHECK: memref.global "private" @u : memref<4x4xf32> {alignment = 64 : i64}
// CHECK: memref.global "private" constant @b : memref<3xi1> = dense<[true, false, true]>
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: memref.view
memref.global "private" constant @s : memref<4x4xf32> = dense<1.0>
memref.global "private" @u : memref<4x4xf32> {alignment = 64 : i64}
memref.global "private" constant @b : memref<3xi1> = dense<[true, false, true]>
func.func @untouched() -> (memref<4x4xf32>, memref<4x4xf32>, memref<3xi1>) {
  %s = memref.get_global @s : memref<4x4xf32>
  %u = memref.get_global @u : memref<4x4xf32>
  %b = memref.get_global @b : memref<3xi1>
  return %s, %u, %b : memref<4x4xf32>, memref<4x4xf32>, memref<3xi1>
}
