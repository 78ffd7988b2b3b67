// RUN: onnx-mlir-opt --split-input-file --verify-diagnostics --convert-onnx-to-linalg %s | FileCheck %s

// Binarizer: x > threshold; an integer compares with floor(threshold).
// CHECK-LABEL: func.func @binarizer
// CHECK: linalg.generic
// CHECK: %[[T:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %{{.*}}, %[[T]] : f32
// CHECK: arith.select %[[GT]]
// CHECK: linalg.generic
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
func.func @binarizer(%x: tensor<?x4xf32>, %i: tensor<3xi64>) -> (tensor<?x4xf32>, tensor<3xi64>) {
  %0 = "onnx.ml.Binarizer"(%x) {threshold = 1.5 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = "onnx.ml.Binarizer"(%i) {threshold = 1.5 : f32} : (tensor<3xi64>) -> tensor<3xi64>
  return %0, %1 : tensor<?x4xf32>, tensor<3xi64>
}

// -----

// Scaler on f64 computes in f64: per-feature offset, one scale; a dynamic
// feature count is checked against the offset's length at run time.
// CHECK-DAG: #[[FEATURE:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[FIRST:.*]] = affine_map<(d0, d1) -> (0)>
// CHECK-LABEL: func.func @scaler
// CHECK: arith.cmpi ne, %{{.*}}, %c3
// CHECK: call @onnxc_rt_fail
// CHECK: %[[OFF:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf64>
// CHECK: %[[SC:.*]] = arith.constant dense<5.000000e-01> : tensor<1xf64>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[FEATURE]], #[[FIRST]], #{{.*}}]{{.*}} ins(%{{.*}}, %[[OFF]], %[[SC]] :
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: tensor.cast %{{.*}} : tensor<?x?xf32> to tensor<?x3xf32>
func.func @scaler(%x: tensor<?x?xf64>) -> tensor<?x3xf32> {
  %0 = "onnx.ml.Scaler"(%x) {offset = [1.0 : f32, 2.0 : f32, 3.0 : f32], scale = [0.5 : f32]} : (tensor<?x?xf64>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Normalizer L2: the row's sum of squares, then sign(x) sqrt(x^2 / sum),
// x itself where the sum is 0.
// CHECK-LABEL: func.func @normalizer
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: math.sqrt
// CHECK: arith.negf
// CHECK: %[[NZ:.*]] = arith.cmpf une
// CHECK: arith.select %[[NZ]]
func.func @normalizer(%x: tensor<?x4xi32>) -> tensor<?x4xf32> {
  %0 = "onnx.ml.Normalizer"(%x) {norm = "L2"} : (tensor<?x4xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Imputer replacing NaN: an unordered self-comparison.
// CHECK-LABEL: func.func @imputer
// CHECK: %[[V:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[V]] :
// CHECK: ^bb0(%[[X:.*]]: f32, %[[IMP:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: arith.select %[[NAN]], %[[IMP]], %[[X]] : f32
func.func @imputer(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = "onnx.ml.Imputer"(%x) {imputed_value_floats = [1.0 : f32, 2.0 : f32, 3.0 : f32], replaced_value_float = 0x7FC00000 : f32} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// ArrayFeatureExtractor on strings (pointers): the indices checked to lie in
// [-4, 4), then a gather along the last axis, negative indices from the
// end.
// CHECK-LABEL: func.func @array_feature_extractor
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xi64>, %[[I:.*]]: tensor<2xi64>) -> tensor<?x2xi64>
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: call @onnxc_rt_fail
// CHECK: linalg.generic {{.*}} ins(%[[I]] : tensor<2xi64>) outs(%{{.*}} : tensor<?x2xi64>)
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: arith.addi %{{.*}}, %c4
// CHECK: %[[J:.*]] = arith.select
// CHECK: tensor.extract %[[X]][%[[ROW]], %[[J]]] : tensor<?x4xi64>
func.func @array_feature_extractor(%x: tensor<?x4x!onnx.string>, %i: tensor<2xi64>) -> tensor<?x2x!onnx.string> {
  %0 = "onnx.ml.ArrayFeatureExtractor"(%x, %i) : (tensor<?x4x!onnx.string>, tensor<2xi64>) -> tensor<?x2x!onnx.string>
  return %0 : tensor<?x2x!onnx.string>
}

// -----

// FeatureVectorizer: each input in f32, cut or zero-padded to its width,
// inserted at its columns; a 1-D input is one row, checked against the
// first input's rows.
// CHECK-LABEL: func.func @feature_vectorizer
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, %{{.*}}] : tensor<?xi64> into tensor<1x?xi64>
// CHECK: %[[OUT:.*]] = tensor.empty(%{{.*}}) : tensor<?x4xf32>
// CHECK: arith.sitofp
// CHECK: tensor.pad
// CHECK: %[[A:.*]] = tensor.insert_slice %{{.*}} into %[[OUT]][0, 0] [%{{.*}}, 3] [1, 1] : tensor<?x3xf32> into tensor<?x4xf32>
// CHECK: call @onnxc_rt_fail
// CHECK: arith.sitofp
// CHECK: arith.minsi
// CHECK: tensor.pad
// CHECK: tensor.insert_slice %{{.*}} into %[[A]][0, 3] [%{{.*}}, 1] [1, 1] : tensor<?x1xf32> into tensor<?x4xf32>
func.func @feature_vectorizer(%a: tensor<?x2xi64>, %b: tensor<?xi64>) -> tensor<?x4xf32> {
  %0 = "onnx.ml.FeatureVectorizer"(%a, %b) {inputdimensions = [3, 1]} : (tensor<?x2xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// OneHotEncoder on strings: the categories sorted in globals (strings and
// their offsets), each element's category index from the runtime's binary
// search (-1: none), counted at run time because zeros = 0, then the
// one-hot rows.
// CHECK-DAG: llvm.mlir.global internal constant @[[OFFS:__onnxc_ml_[0-9]+]](dense<[0, 2, 4]> : tensor<3xi64>) {{.*}} : !llvm.array<3 x i64>
// CHECK-DAG: llvm.mlir.global internal constant @[[KEYS:__onnxc_ml_[0-9]+]]("a\00b\00c\00")
// CHECK-LABEL: func.func @one_hot_strings
// CHECK: %[[CAT:.*]] = arith.constant dense<[1, 0, 2]> : tensor<3xi64>
// CHECK: linalg.generic
// CHECK: %[[K:.*]] = llvm.mlir.addressof @[[KEYS]] : !llvm.ptr
// CHECK: %[[O:.*]] = llvm.mlir.addressof @[[OFFS]] : !llvm.ptr
// CHECK: %[[POS:.*]] = func.call @onnxc_rt_ml_find_string(%[[K]], %[[O]], %c3_i64, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64) -> i64
// CHECK: tensor.extract %[[CAT]]
// CHECK: arith.select %{{.*}}, %{{.*}}, %c-1_i64 : i64
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK: call @onnxc_rt_fail
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x3xf32>)
// CHECK: arith.cmpi eq
func.func @one_hot_strings(%x: tensor<?x!onnx.string>) -> tensor<?x3xf32> {
  %0 = "onnx.ml.OneHotEncoder"(%x) {cats_strings = ["b", "a", "c"], zeros = 0 : i64} : (tensor<?x!onnx.string>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// LabelEncoder string -> int64: the values in key order, the default last.
// CHECK-LABEL: func.func @label_encoder
// CHECK: %[[TABLE:.*]] = arith.constant dense<[0, 1, 2, 42]> : tensor<4xi64>
// CHECK: linalg.generic
// CHECK: %[[POS:.*]] = func.call @onnxc_rt_ml_find_string
// CHECK: %[[NONE:.*]] = arith.cmpi slt, %[[POS]], %c0_i64 : i64
// CHECK: %[[AT:.*]] = arith.select %[[NONE]], %c3_i64{{.*}}, %[[POS]] : i64
// CHECK: %[[I:.*]] = arith.index_cast %[[AT]] : i64 to index
// CHECK: tensor.extract %[[TABLE]][%[[I]]] : tensor<4xi64>
func.func @label_encoder(%x: tensor<5x!onnx.string>) -> tensor<5xi64> {
  %0 = "onnx.ml.LabelEncoder"(%x) {default_int64 = 42 : i64, keys_strings = ["b", "a", "c"], values_int64s = [1, 0, 2]} : (tensor<5x!onnx.string>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}

// -----

// LabelEncoder float -> string: float keys by their bits (0.5, 2.0; a NaN
// input as the quiet NaN's), the values a string table (default "_Unused"
// last).
// CHECK-DAG: llvm.mlir.global internal constant @[[STRS:__onnxc_strings_[0-9]+]]("half\00two\00_Unused\00\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[KEYS:__onnxc_ml_[0-9]+]](dense<[1056964608, 1073741824]> : tensor<2xi64>)
// CHECK-LABEL: func.func @label_encoder_to_strings
// CHECK: call @onnxc_rt_string_fill
// CHECK: %[[TABLE:.*]] = bufferization.to_tensor %{{.*}} : memref<3xi64> to tensor<3xi64>
// CHECK: linalg.generic
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[WIDE:.*]] = arith.extui %[[BITS]] : i32 to i64
// CHECK: %[[NAN:.*]] = arith.cmpf uno
// CHECK: %[[KEY:.*]] = arith.select %[[NAN]], %c2143289344_i64, %[[WIDE]] : i64
// CHECK: func.call @onnxc_rt_ml_find_i64(%{{.*}}, %c2_i64, %[[KEY]]) : (!llvm.ptr, i64, i64) -> i64
// CHECK: tensor.extract %[[TABLE]]
func.func @label_encoder_to_strings(%x: tensor<?xf32>) -> tensor<?x!onnx.string> {
  %0 = "onnx.ml.LabelEncoder"(%x) {keys_floats = [2.0 : f32, 0.5 : f32], values_strings = ["two", "half"]} : (tensor<?xf32>) -> tensor<?x!onnx.string>
  return %0 : tensor<?x!onnx.string>
}

// -----

// LabelEncoder-4's tensor attributes: string keys to int32 values, the
// default from default_tensor; a repeated key ("a") keeps its last value.
// CHECK-LABEL: func.func @label_encoder_tensors
// CHECK: %[[TABLE:.*]] = arith.constant dense<[7, 1, 2, 42]> : tensor<4xi32>
// CHECK: func.call @onnxc_rt_ml_find_string
// CHECK: tensor.extract %[[TABLE]][%{{.*}}] : tensor<4xi32>
func.func @label_encoder_tensors(%x: tensor<5x!onnx.string>) -> tensor<5xi32> {
  %0 = "onnx.ml.LabelEncoder"(%x) {default_tensor = dense<42> : tensor<1xi32>, keys_tensor = dense<["a", "b", "c", "a"]> : tensor<4x!onnx.string>, values_tensor = dense<[0, 1, 2, 7]> : tensor<4xi32>} : (tensor<5x!onnx.string>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

// double keys by their 64 bits, every NaN (key or input) as the quiet NaN's
// bits, so that a NaN key matches any NaN; int16 values, the default -1.
// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}(dense<[4607182418800017408, 9221120237041090560]> : tensor<2xi64>)
// CHECK-LABEL: func.func @label_encoder_doubles
// CHECK: arith.constant dense<[5, 9, -1]> : tensor<3xi16>
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f64 to i64
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %{{.*}}, %{{.*}} : f64
// CHECK: %[[KEY:.*]] = arith.select %[[NAN]], %c9221120237041090560_i64, %[[BITS]] : i64
// CHECK: func.call @onnxc_rt_ml_find_i64(%{{.*}}, %c2_i64, %[[KEY]])
func.func @label_encoder_doubles(%x: tensor<?xf64>) -> tensor<?xi16> {
  %0 = "onnx.ml.LabelEncoder"(%x) {keys_tensor = dense<[0x7FF8000000000001, 1.0]> : tensor<2xf64>, values_tensor = dense<[9, 5]> : tensor<2xi16>} : (tensor<?xf64>) -> tensor<?xi16>
  return %0 : tensor<?xi16>
}

// -----

// int32 input against int64 keys (keys_int64s): each element sign-extended.
// CHECK-LABEL: func.func @label_encoder_int32
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: func.call @onnxc_rt_ml_find_i64
func.func @label_encoder_int32(%x: tensor<3xi32>) -> tensor<3xf32> {
  %0 = "onnx.ml.LabelEncoder"(%x) {keys_int64s = [-1, 4], values_floats = [0.5 : f32, 1.5 : f32]} : (tensor<3xi32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CategoryMapper int64 -> string; a repeated key keeps its last value.
// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("three\00five\00none\00\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}(dense<[3, 5]> : tensor<2xi64>)
// CHECK-LABEL: func.func @category_mapper
// CHECK: func.call @onnxc_rt_ml_find_i64
func.func @category_mapper(%x: tensor<?xi64>) -> tensor<?x!onnx.string> {
  %0 = "onnx.ml.CategoryMapper"(%x) {cats_int64s = [5, 3, 5], cats_strings = ["cinq", "three", "five"], default_string = "none"} : (tensor<?xi64>) -> tensor<?x!onnx.string>
  return %0 : tensor<?x!onnx.string>
}

// -----

// LinearRegressor: a matmul with the transposed coefficients into the
// broadcast intercepts, then SOFTMAX over each row.
// CHECK-LABEL: func.func @linear_regressor
// CHECK: %[[B:.*]] = arith.constant dense<[5.000000e-01, -5.000000e-01]> : tensor<2xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<2xf32>) outs(%{{.*}} : tensor<?x2xf32>)
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK: %[[S:.*]] = linalg.matmul ins(%{{.*}}, %[[W]] : tensor<?x3xf32>, tensor<3x2xf32>) outs(%[[INIT]] : tensor<?x2xf32>)
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
func.func @linear_regressor(%x: tensor<?x3xf32>) -> tensor<?x2xf32> {
  %0 = "onnx.ml.LinearRegressor"(%x) {coefficients = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32], intercepts = [0.5 : f32, -0.5 : f32], post_transform = "SOFTMAX", targets = 2 : i64} : (tensor<?x3xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// LinearClassifier with string labels: the first highest score's class (an
// order-independent reduction), its label from a string table; LOGISTIC
// scores.
// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("a\00b\00c\00\00")
// CHECK-LABEL: func.func @linear_classifier
// CHECK: linalg.matmul
// CHECK: %{{.*}}:2 = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, i64
// CHECK: math.exp
// CHECK: call @onnxc_rt_string_fill
// CHECK: linalg.generic
// CHECK: tensor.extract
// CHECK: return %{{.*}}, %{{.*}} : tensor<?xi64>, tensor<?x3xf32>
func.func @linear_classifier(%x: tensor<?x2xf32>) -> (tensor<?x!onnx.string>, tensor<?x3xf32>) {
  %y, %z = "onnx.ml.LinearClassifier"(%x) {classlabels_strings = ["a", "b", "c"], coefficients = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32], intercepts = [0.0 : f32, 1.0 : f32, 2.0 : f32], post_transform = "LOGISTIC"} : (tensor<?x2xf32>) -> (tensor<?x!onnx.string>, tensor<?x3xf32>)
  return %y, %z : tensor<?x!onnx.string>, tensor<?x3xf32>
}

// -----

// LinearClassifier with one row of coefficients and two labels
// (onnxruntime's binary form), f64 input cast to f32: the second label where
// the score s > 0, scores [1 - s, s].
// CHECK-LABEL: func.func @linear_classifier_binary
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: linalg.matmul {{.*}} -> tensor<?x1xf32>
// CHECK: tensor.collapse_shape
// CHECK: arith.cmpf ogt
// CHECK: arith.extui
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x2xf32>)
// CHECK: arith.subf %cst{{.*}}, %in
// CHECK: linalg.index 1
// CHECK: %[[L:.*]] = arith.constant dense<[3, 7]> : tensor<2xi64>
// CHECK: tensor.extract %[[L]]
func.func @linear_classifier_binary(%x: tensor<?x2xf64>) -> (tensor<?xi64>, tensor<?x2xf32>) {
  %y, %z = "onnx.ml.LinearClassifier"(%x) {classlabels_ints = [3, 7], coefficients = [1.0 : f32, -2.0 : f32], intercepts = [0.25 : f32], post_transform = "NONE"} : (tensor<?x2xf64>) -> (tensor<?xi64>, tensor<?x2xf32>)
  return %y, %z : tensor<?xi64>, tensor<?x2xf32>
}

// -----

// SVMRegressor with an RBF kernel: |x - sv|^2 reduced over the features,
// exp(-gamma d), then the support vectors' coefficients (a matmul) + rho.
// CHECK-LABEL: func.func @svm_regressor
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x2xf32>, tensor<2x2xf32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: %[[G:.*]] = arith.constant -5.000000e-01 : f32
// CHECK: arith.mulf %[[G]]
// CHECK: math.exp
// CHECK: %[[RHO:.*]] = arith.constant 1.000000e-01 : f32
// CHECK: linalg.fill ins(%[[RHO]] : f32)
// CHECK: linalg.matmul {{.*}} -> tensor<?x1xf32>
func.func @svm_regressor(%x: tensor<?x2xf32>) -> tensor<?x1xf32> {
  %0 = "onnx.ml.SVMRegressor"(%x) {coefficients = [1.0 : f32, -1.0 : f32], kernel_params = [0.5 : f32, 0.0 : f32, 3.0 : f32], kernel_type = "RBF", n_supports = 2 : i64, rho = [0.1 : f32], support_vectors = [0.0 : f32, 1.0 : f32, 1.0 : f32, 0.0 : f32]} : (tensor<?x2xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// SVMClassifier, POLY kernel of degree 2, 3 classes with Platt scaling: the
// pairs' scores (a matmul over the support vectors + rho), their votes, the
// most voted class; pairwise probabilities, libsvm's coupling matrix Q and
// at most 100 rounds of its iteration per row.
// CHECK-LABEL: func.func @svm_classifier_proba
// CHECK: %[[D:.*]] = linalg.matmul {{.*}} -> tensor<?x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[D]] : tensor<?x3xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: %[[S:.*]] = linalg.matmul {{.*}} -> tensor<?x3xf32>
// CHECK: %[[VOTES:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[S]], %{{.*}}, %{{.*}} : tensor<?x3xf32>, tensor<3xi64>, tensor<3xi64>) outs(%{{.*}} : tensor<?x3xi64>)
// CHECK: linalg.generic {{.*}} ins(%[[VOTES]] : tensor<?x3xi64>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[S]], %{{.*}}, %{{.*}} : tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: math.exp
// CHECK: arith.maxnumf
// CHECK: arith.minnumf
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x3xf32>)
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x3x3xf32>)
// CHECK: scf.for {{.*}} -> (tensor<?x3xf32>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %c100 {{.*}} -> (tensor<3xf32>, i1)
// CHECK: scf.if
// CHECK: tensor.extract %[[Q]]
// CHECK: tensor.insert_slice
func.func @svm_classifier_proba(%x: tensor<?x2xf32>) -> (tensor<?xi64>, tensor<?x3xf32>) {
  %y, %z = "onnx.ml.SVMClassifier"(%x) {classlabels_ints = [0, 1, 2], coefficients = [1.0 : f32, -1.0 : f32, 0.5 : f32, 0.5 : f32, -0.5 : f32, 1.0 : f32], kernel_params = [0.5 : f32, 1.0 : f32, 2.0 : f32], kernel_type = "POLY", prob_a = [-1.0 : f32, -2.0 : f32, -3.0 : f32], prob_b = [0.1 : f32, 0.2 : f32, 0.3 : f32], rho = [0.1 : f32, 0.2 : f32, 0.3 : f32], support_vectors = [0.0 : f32, 1.0 : f32, 1.0 : f32, 0.0 : f32, 1.0 : f32, 1.0 : f32], vectors_per_class = [1, 1, 1]} : (tensor<?x2xf32>) -> (tensor<?xi64>, tensor<?x3xf32>)
  return %y, %z : tensor<?xi64>, tensor<?x3xf32>
}

// -----

// SVMClassifier, two classes without probabilities: NONE gives [-s, s].
// CHECK-LABEL: func.func @svm_classifier_binary
// CHECK: linalg.matmul {{.*}} -> tensor<?x2xf32>
// CHECK: linalg.matmul {{.*}} -> tensor<?x1xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x2xf32>)
// CHECK: arith.negf
// CHECK: linalg.index 1
func.func @svm_classifier_binary(%x: tensor<?x2xf32>) -> (tensor<?xi64>, tensor<?x2xf32>) {
  %y, %z = "onnx.ml.SVMClassifier"(%x) {classlabels_ints = [4, 9], coefficients = [1.0 : f32, -1.0 : f32], kernel_type = "LINEAR", rho = [0.1 : f32], support_vectors = [0.0 : f32, 1.0 : f32, 1.0 : f32, 0.0 : f32], vectors_per_class = [1, 1]} : (tensor<?x2xf32>) -> (tensor<?xi64>, tensor<?x2xf32>)
  return %y, %z : tensor<?xi64>, tensor<?x2xf32>
}

// -----

// Models the lowering refuses, naming the problem.
func.func @keys_and_values(%x: tensor<5x!onnx.string>) -> tensor<5xi64> {
  // expected-error @+1 {{'onnx.ml.LabelEncoder' op has 3 keys but 2 values}}
  %0 = "onnx.ml.LabelEncoder"(%x) {keys_strings = ["b", "a", "c"], values_int64s = [1, 0]} : (tensor<5x!onnx.string>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}

// -----

func.func @keys_tensor_kind(%x: tensor<5x!onnx.string>) -> tensor<5xi64> {
  // expected-error @+1 {{'onnx.ml.LabelEncoder' op has keys_tensor of 'i64', but its input holds strings}}
  %0 = "onnx.ml.LabelEncoder"(%x) {keys_tensor = dense<[1, 2]> : tensor<2xi64>, values_int64s = [1, 0]} : (tensor<5x!onnx.string>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}

// -----

func.func @features(%x: tensor<?x4xf32>) -> tensor<?x1xf32> {
  // expected-error @+1 {{'onnx.ml.LinearRegressor' op the input has 4 features, but the coefficients are for 3}}
  %0 = "onnx.ml.LinearRegressor"(%x) {coefficients = [1.0 : f32, 2.0 : f32, 3.0 : f32], targets = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}
