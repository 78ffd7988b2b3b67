// RUN: onnx-mlir-opt %s --onnxc-approximate-math | FileCheck %s

// f32 exp, erf and tanh, scalar or vector, become arithmetic (no math op is
// left for convert-math-to-libm); f64 and other math ops are left alone.
// CHECK-LABEL: func.func @approximated
// CHECK-NOT: math.exp
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK: arith.mulf
// CHECK: return
func.func @approximated(%x: vector<16xf32>, %y: f32) -> (vector<16xf32>, vector<16xf32>, f32) {
  %e = math.exp %x : vector<16xf32>
  %g = math.erf %x : vector<16xf32>
  %t = math.tanh %y : f32
  return %e, %g, %t : vector<16xf32>, vector<16xf32>, f32
}

// CHECK-LABEL: func.func @kept
// CHECK: math.exp %{{.+}} : f64
// CHECK: math.log %{{.+}} : f32
func.func @kept(%x: f64, %y: f32) -> (f64, f32) {
  %e = math.exp %x : f64
  %l = math.log %y : f32
  return %e, %l : f64, f32
}

// The approximations' FMAs and floors are LLVM intrinsics, not libm calls.
// CHECK-LABEL: func.func @intrinsics
// CHECK: llvm.intr.fma
// CHECK: llvm.intr.floor
// CHECK-NOT: math.fma
// CHECK-NOT: math.floor
func.func @intrinsics(%x: vector<16xf32>) -> vector<16xf32> {
  %e = math.exp %x : vector<16xf32>
  return %e : vector<16xf32>
}
