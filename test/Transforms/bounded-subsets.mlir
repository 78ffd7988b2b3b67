// RUN: onnx-mlir-opt %s --split-input-file --one-shot-bufferize="test-analysis-only bufferize-function-boundaries" | FileCheck %s

// onnxc's SubsetOpInterface models of the tensor slice ops (BoundedSubsets.cpp):
// one-shot bufferization's questions about slices get ValueBounds' answers
// only for offsets and sizes computed by a few ops, so the analysis of a
// deep dynamic-shape network stays fast.

// Shallow computations: two equal sizes computed twice are proven equal,
// the update of the extracted subset happens in place.
// CHECK-LABEL: func.func @shallow_equal
// CHECK: tensor.extract_slice {{.*}}__inplace_operands_attr__ = ["true", "none", "none"]
// CHECK: tensor.insert_slice {{.*}}__inplace_operands_attr__ = ["true", "true", "none", "none"]
func.func @shallow_equal(%t: tensor<?xf32> {bufferization.writable = true}, %n: index) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %a = arith.addi %n, %c1 : index
  %b = arith.addi %n, %c1 : index
  %e = tensor.extract_slice %t[%c1] [%a] [1] : tensor<?xf32> to tensor<?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = tensor.insert_slice %f into %t[%c1] [%b] [1] : tensor<?xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A size computed by a long chain: the same value on both sides is still
// the same subset (in place) ...
// CHECK-LABEL: func.func @deep_same_value
// CHECK: tensor.extract_slice {{.*}}__inplace_operands_attr__ = ["true", "none"]
// CHECK: tensor.insert_slice {{.*}}__inplace_operands_attr__ = ["true", "true", "none"]
func.func @deep_same_value(%t: tensor<?xf32> {bufferization.writable = true}, %s0: index) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %s1 = arith.addi %s0, %c1 : index
  %s2 = arith.addi %s1, %c1 : index
  %s3 = arith.addi %s2, %c1 : index
  %s4 = arith.addi %s3, %c1 : index
  %s5 = arith.addi %s4, %c1 : index
  %s6 = arith.addi %s5, %c1 : index
  %s7 = arith.addi %s6, %c1 : index
  %s8 = arith.addi %s7, %c1 : index
  %s9 = arith.addi %s8, %c1 : index
  %s10 = arith.addi %s9, %c1 : index
  %s11 = arith.addi %s10, %c1 : index
  %s12 = arith.addi %s11, %c1 : index
  %s13 = arith.addi %s12, %c1 : index
  %s14 = arith.addi %s13, %c1 : index
  %s15 = arith.addi %s14, %c1 : index
  %s16 = arith.addi %s15, %c1 : index
  %s17 = arith.addi %s16, %c1 : index
  %s18 = arith.addi %s17, %c1 : index
  %s19 = arith.addi %s18, %c1 : index
  %s20 = arith.addi %s19, %c1 : index
  %s21 = arith.addi %s20, %c1 : index
  %s22 = arith.addi %s21, %c1 : index
  %s23 = arith.addi %s22, %c1 : index
  %s24 = arith.addi %s23, %c1 : index
  %s25 = arith.addi %s24, %c1 : index
  %s26 = arith.addi %s25, %c1 : index
  %e = tensor.extract_slice %t[0] [%s26] [1] : tensor<?xf32> to tensor<?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = tensor.insert_slice %f into %t[0] [%s26] [1] : tensor<?xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// ... but two copies of that chain are not compared through ValueBounds:
// not proven the same subset, the fill works on a copy of the slice.
// CHECK-LABEL: func.func @deep_equal_copies
// CHECK: tensor.extract_slice {{.*}}__inplace_operands_attr__ = ["false", "none"]
func.func @deep_equal_copies(%t: tensor<?xf32> {bufferization.writable = true}, %s0: index) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %t0 = arith.addi %s0, %c1 : index
  %s1 = arith.addi %s0, %c1 : index
  %s2 = arith.addi %s1, %c1 : index
  %s3 = arith.addi %s2, %c1 : index
  %s4 = arith.addi %s3, %c1 : index
  %s5 = arith.addi %s4, %c1 : index
  %s6 = arith.addi %s5, %c1 : index
  %s7 = arith.addi %s6, %c1 : index
  %s8 = arith.addi %s7, %c1 : index
  %s9 = arith.addi %s8, %c1 : index
  %s10 = arith.addi %s9, %c1 : index
  %s11 = arith.addi %s10, %c1 : index
  %s12 = arith.addi %s11, %c1 : index
  %s13 = arith.addi %s12, %c1 : index
  %s14 = arith.addi %s13, %c1 : index
  %s15 = arith.addi %s14, %c1 : index
  %s16 = arith.addi %s15, %c1 : index
  %s17 = arith.addi %s16, %c1 : index
  %s18 = arith.addi %s17, %c1 : index
  %s19 = arith.addi %s18, %c1 : index
  %s20 = arith.addi %s19, %c1 : index
  %s21 = arith.addi %s20, %c1 : index
  %s22 = arith.addi %s21, %c1 : index
  %s23 = arith.addi %s22, %c1 : index
  %s24 = arith.addi %s23, %c1 : index
  %s25 = arith.addi %s24, %c1 : index
  %s26 = arith.addi %s25, %c1 : index
  %t1 = arith.addi %s0, %c1 : index
  %t2 = arith.addi %t1, %c1 : index
  %t3 = arith.addi %t2, %c1 : index
  %t4 = arith.addi %t3, %c1 : index
  %t5 = arith.addi %t4, %c1 : index
  %t6 = arith.addi %t5, %c1 : index
  %t7 = arith.addi %t6, %c1 : index
  %t8 = arith.addi %t7, %c1 : index
  %t9 = arith.addi %t8, %c1 : index
  %t10 = arith.addi %t9, %c1 : index
  %t11 = arith.addi %t10, %c1 : index
  %t12 = arith.addi %t11, %c1 : index
  %t13 = arith.addi %t12, %c1 : index
  %t14 = arith.addi %t13, %c1 : index
  %t15 = arith.addi %t14, %c1 : index
  %t16 = arith.addi %t15, %c1 : index
  %t17 = arith.addi %t16, %c1 : index
  %t18 = arith.addi %t17, %c1 : index
  %t19 = arith.addi %t18, %c1 : index
  %t20 = arith.addi %t19, %c1 : index
  %t21 = arith.addi %t20, %c1 : index
  %t22 = arith.addi %t21, %c1 : index
  %t23 = arith.addi %t22, %c1 : index
  %t24 = arith.addi %t23, %c1 : index
  %t25 = arith.addi %t24, %c1 : index
  %t26 = arith.addi %t25, %c1 : index
  %e = tensor.extract_slice %t[0] [%s26] [1] : tensor<?xf32> to tensor<?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = tensor.insert_slice %f into %t[0] [%t26] [1] : tensor<?xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}
