// RUN: onnx-mlir-opt %s --split-input-file --onnx-shape-inference | FileCheck %s

// The ai.onnx.ml ops, for which libonnx 1.12 gives no shape: project rules
// (inferML in SchemaInference.cpp) with the shapes the lowering produces.

// CHECK-LABEL: func.func @array_feature_extractor
// CHECK: "onnx.ml.ArrayFeatureExtractor"{{.*}} -> tensor<?x3xf32>
// CHECK: "onnx.ml.ArrayFeatureExtractor"{{.*}} -> tensor<1x2x!onnx.string>
func.func @array_feature_extractor(%x: tensor<?x5xf32>, %s: tensor<4x!onnx.string>, %i: tensor<3xi64>, %j: tensor<2xi64>) -> (tensor<*xf32>, tensor<*x!onnx.string>) {
  %0 = "onnx.ml.ArrayFeatureExtractor"(%x, %i) : (tensor<?x5xf32>, tensor<3xi64>) -> tensor<*xf32>
  %1 = "onnx.ml.ArrayFeatureExtractor"(%s, %j) : (tensor<4x!onnx.string>, tensor<2xi64>) -> tensor<*x!onnx.string>
  return %0, %1 : tensor<*xf32>, tensor<*x!onnx.string>
}

// -----

// CHECK-LABEL: func.func @one_hot_encoder
// CHECK: "onnx.ml.OneHotEncoder"{{.*}} -> tensor<?x1x3xf32>
func.func @one_hot_encoder(%x: tensor<?x1xi64>) -> tensor<*xf32> {
  %0 = "onnx.ml.OneHotEncoder"(%x) {cats_int64s = [1, 2, 3]} : (tensor<?x1xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @elementwise
// CHECK: "onnx.ml.Scaler"{{.*}} -> tensor<?x4xf32>
// CHECK: "onnx.ml.Normalizer"{{.*}} -> tensor<?x4xf32>
// CHECK: "onnx.ml.Imputer"{{.*}} -> tensor<?x4xf64>
// CHECK: "onnx.ml.Binarizer"{{.*}} -> tensor<?x4xf64>
func.func @elementwise(%x: tensor<?x4xf64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf64>, tensor<*xf64>) {
  %0 = "onnx.ml.Scaler"(%x) {offset = [1.0 : f32], scale = [2.0 : f32]} : (tensor<?x4xf64>) -> tensor<*xf32>
  %1 = "onnx.ml.Normalizer"(%x) {norm = "L2"} : (tensor<?x4xf64>) -> tensor<*xf32>
  %2 = "onnx.ml.Imputer"(%x) {imputed_value_floats = [0.0 : f32], replaced_value_float = 1.0 : f32} : (tensor<?x4xf64>) -> tensor<*xf64>
  %3 = "onnx.ml.Binarizer"(%x) : (tensor<?x4xf64>) -> tensor<*xf64>
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xf64>, tensor<*xf64>
}

// -----

// CHECK-LABEL: func.func @feature_vectorizer
// CHECK: "onnx.ml.FeatureVectorizer"{{.*}} -> tensor<8x5xf32>
func.func @feature_vectorizer(%a: tensor<8x2xf32>, %b: tensor<8x3xf32>) -> tensor<*xf32> {
  %0 = "onnx.ml.FeatureVectorizer"(%a, %b) {inputdimensions = [2, 3]} : (tensor<8x2xf32>, tensor<8x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @regressors
// CHECK: "onnx.ml.LinearRegressor"{{.*}} -> tensor<?x2xf32>
// CHECK: "onnx.ml.SVMRegressor"{{.*}} -> tensor<1x1xf32>
func.func @regressors(%x: tensor<?x3xf32>, %r: tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.ml.LinearRegressor"(%x) {coefficients = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32], targets = 2 : i64} : (tensor<?x3xf32>) -> tensor<*xf32>
  %1 = "onnx.ml.SVMRegressor"(%r) {coefficients = [1.0 : f32, 2.0 : f32, 3.0 : f32], rho = [0.5 : f32]} : (tensor<3xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// LinearClassifier: a score row per intercept; one with two labels gives
// [N, 2], one with other labels [N, 1].
// CHECK-LABEL: func.func @linear_classifier
// CHECK: "onnx.ml.LinearClassifier"{{.*}} -> (tensor<?xi64>, tensor<?x3xf32>)
// CHECK: "onnx.ml.LinearClassifier"{{.*}} -> (tensor<?x!onnx.string>, tensor<?x2xf32>)
// CHECK: "onnx.ml.LinearClassifier"{{.*}} -> (tensor<1xi64>, tensor<1x1xf32>)
func.func @linear_classifier(%x: tensor<?x2xf32>, %r: tensor<2xf32>) -> (tensor<*xi64>, tensor<*xf32>, tensor<*x!onnx.string>, tensor<*xf32>, tensor<*xi64>, tensor<*xf32>) {
  %0:2 = "onnx.ml.LinearClassifier"(%x) {classlabels_ints = [0, 1, 2], coefficients = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32], intercepts = [0.0 : f32, 0.0 : f32, 0.0 : f32]} : (tensor<?x2xf32>) -> (tensor<*xi64>, tensor<*xf32>)
  %1:2 = "onnx.ml.LinearClassifier"(%x) {classlabels_strings = ["a", "b"], coefficients = [1.0 : f32, 2.0 : f32]} : (tensor<?x2xf32>) -> (tensor<*x!onnx.string>, tensor<*xf32>)
  %2:2 = "onnx.ml.LinearClassifier"(%r) {classlabels_ints = [1], coefficients = [1.0 : f32, 2.0 : f32], intercepts = [0.5 : f32]} : (tensor<2xf32>) -> (tensor<*xi64>, tensor<*xf32>)
  return %0#0, %0#1, %1#0, %1#1, %2#0, %2#1 : tensor<*xi64>, tensor<*xf32>, tensor<*x!onnx.string>, tensor<*xf32>, tensor<*xi64>, tensor<*xf32>
}

// -----

// SVMClassifier: a score per class (liblinear, Platt, two classes), else
// one per pair of classes.
// CHECK-LABEL: func.func @svm_classifier
// CHECK: "onnx.ml.SVMClassifier"{{.*}} -> (tensor<?xi64>, tensor<?x3xf32>)
// CHECK: "onnx.ml.SVMClassifier"{{.*}} -> (tensor<?x!onnx.string>, tensor<?x6xf32>)
func.func @svm_classifier(%x: tensor<?x1xf32>) -> (tensor<*xi64>, tensor<*xf32>, tensor<*x!onnx.string>, tensor<*xf32>) {
  %0:2 = "onnx.ml.SVMClassifier"(%x) {classlabels_ints = [0, 1, 2], coefficients = [1.0 : f32, 2.0 : f32, 3.0 : f32], rho = [0.0 : f32]} : (tensor<?x1xf32>) -> (tensor<*xi64>, tensor<*xf32>)
  %1:2 = "onnx.ml.SVMClassifier"(%x) {classlabels_strings = ["a", "b", "c", "d"], coefficients = [1.0 : f32, 1.0 : f32, 1.0 : f32, 1.0 : f32, 1.0 : f32, 1.0 : f32, 1.0 : f32, 1.0 : f32, 1.0 : f32, 1.0 : f32, 1.0 : f32, 1.0 : f32], kernel_type = "RBF", rho = [0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32], support_vectors = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32], vectors_per_class = [1, 1, 1, 1]} : (tensor<?x1xf32>) -> (tensor<*x!onnx.string>, tensor<*xf32>)
  return %0#0, %0#1, %1#0, %1#1 : tensor<*xi64>, tensor<*xf32>, tensor<*x!onnx.string>, tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @lookups
// CHECK: "onnx.ml.LabelEncoder"{{.*}} -> tensor<?x2x!onnx.string>
// CHECK: "onnx.ml.CategoryMapper"{{.*}} -> tensor<?x2xi64>
// LabelEncoder-4: the element type of values_tensor.
// CHECK: "onnx.ml.LabelEncoder"{{.*}} -> tensor<?x2xi16>
func.func @lookups(%x: tensor<?x2xi64>) -> (tensor<*x!onnx.string>, tensor<*xi64>, tensor<*xi16>) {
  %0 = "onnx.ml.LabelEncoder"(%x) {keys_int64s = [1, 2], values_strings = ["a", "b"]} : (tensor<?x2xi64>) -> tensor<*x!onnx.string>
  %1 = "onnx.ml.CategoryMapper"(%0) {cats_int64s = [1, 2], cats_strings = ["a", "b"]} : (tensor<*x!onnx.string>) -> tensor<*xi64>
  %2 = "onnx.ml.LabelEncoder"(%x) {keys_int64s = [1, 2], values_tensor = dense<[3, 4]> : tensor<2xi16>} : (tensor<?x2xi64>) -> tensor<*xi16>
  return %0, %1, %2 : tensor<*x!onnx.string>, tensor<*xi64>, tensor<*xi16>
}

// -----

// CHECK-LABEL: func.func @maps
// CHECK: "onnx.ml.DictVectorizer"{{.*}} -> tensor<1x3xf64>
// CHECK: "onnx.ml.CastMap"{{.*}} -> tensor<1x5xf32>
// CHECK: "onnx.ml.CastMap"{{.*}} -> tensor<1x?x!onnx.string>
func.func @maps(%m: !onnx.map<!onnx.string, f64>, %n: !onnx.map<i64, f32>) -> (tensor<*xf64>, tensor<*xf32>, tensor<*x!onnx.string>) {
  %0 = "onnx.ml.DictVectorizer"(%m) {string_vocabulary = ["a", "b", "c"]} : (!onnx.map<!onnx.string, f64>) -> tensor<*xf64>
  %1 = "onnx.ml.CastMap"(%n) {map_form = "SPARSE", max_map = 5 : i64} : (!onnx.map<i64, f32>) -> tensor<*xf32>
  %2 = "onnx.ml.CastMap"(%n) {cast_to = "TO_STRING"} : (!onnx.map<i64, f32>) -> tensor<*x!onnx.string>
  return %0, %1, %2 : tensor<*xf64>, tensor<*xf32>, tensor<*x!onnx.string>
}

// -----

// An unranked input leaves OneHotEncoder's result unranked; a declared
// shape is kept.
// CHECK-LABEL: func.func @unknown_or_declared
// CHECK: "onnx.ml.OneHotEncoder"{{.*}} -> tensor<*xf32>
// CHECK: "onnx.ml.Scaler"{{.*}} -> tensor<4x3xf32>
func.func @unknown_or_declared(%x: tensor<*xi64>, %y: tensor<?x3xf32>) -> (tensor<*xf32>, tensor<4x3xf32>) {
  %0 = "onnx.ml.OneHotEncoder"(%x) {cats_int64s = [1, 2]} : (tensor<*xi64>) -> tensor<*xf32>
  %1 = "onnx.ml.Scaler"(%y) {scale = [2.0 : f32]} : (tensor<?x3xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<*xf32>, tensor<4x3xf32>
}

// -----

// ZipMap: a sequence of maps from the labels to f32 (the op's only type).
// CHECK-LABEL: func.func @zip_map
// CHECK: "onnx.ml.ZipMap"{{.*}} -> !onnx.seq<!onnx.map<!onnx.string, f32>>
func.func @zip_map(%x: tensor<?x2xf32>) -> !onnx.seq<!onnx.map<!onnx.string, f32>> {
  %0 = "onnx.ml.ZipMap"(%x) {classlabels_strings = ["a", "b"]} : (tensor<?x2xf32>) -> !onnx.seq<!onnx.map<!onnx.string, f32>>
  return %0 : !onnx.seq<!onnx.map<!onnx.string, f32>>
}
