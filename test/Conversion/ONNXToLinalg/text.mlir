// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// TfIdfVectorizer: the pool's unigrams and bigrams become two sorted
// constant tables (the bigrams (5 6) and (3 4) sorted: (3 4) first, with
// their columns 5 and 4), looked up by binary search per row, skip distance
// and start; then one generic applies the weights.
// CHECK-LABEL: func.func @tfidf
// CHECK-DAG: arith.constant dense<{{\[}}[2], [3], [5], [7]]> : tensor<4x1xi64>
// CHECK-DAG: arith.constant dense<{{\[}}[3, 4], [5, 6]]> : tensor<2x2xi64>
// CHECK-DAG: arith.constant dense<[5, 4]> : tensor<2xi64>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.if
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.mulf
func.func @tfidf(%x: tensor<2x8xi32>) -> tensor<2x6xf32> {
  %0 = "onnx.TfIdfVectorizer"(%x) {max_gram_length = 2 : i64, max_skip_count = 3 : i64, min_gram_length = 1 : i64, mode = "TFIDF", ngram_counts = [0, 4], ngram_indexes = [0, 1, 2, 3, 4, 5], pool_int64s = [2, 3, 5, 7, 5, 6, 3, 4], weights = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32]} : (tensor<2x8xi32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}
