// RUN: onnx-mlir-opt --convert-onnx-to-linalg %s | FileCheck %s

// One tree of two BRANCH_LEQ nodes (tree 0: node 0 splits on feature 2 at
// 0.5, node 1 on feature 0 at -1; leaves 2, 3, 4). The tables: features,
// splits, the children's codes (interior nodes by index, leaf l as -1 - l),
// the leaves' votes. X's width is checked against feature 2 once; then one
// generic over [N, 1] walks the tree per row: an scf.while descends while
// the code is >= 0, comparing in f32 (all nodes BRANCH_LEQ: no mode table),
// and the leaf's weight is added in f64, plus base_values.
// CHECK-LABEL: func.func @regressor_one_tree
// CHECK-DAG: arith.constant dense<[2, 0]> : tensor<2xi32>
// CHECK-DAG: arith.constant dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: arith.constant dense<[1, -1]> : tensor<2xi32>
// CHECK-DAG: arith.constant dense<[-3, -2]> : tensor<2xi32>
// CHECK-DAG: arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf64>
// CHECK: %[[WIDTH:.+]] = tensor.dim %{{.+}}, %c1
// CHECK: arith.cmpi sle, %[[WIDTH]], %c2
// CHECK: call @onnxc_rt_fail
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: scf.for
// CHECK: scf.while
// CHECK: arith.cmpi sge
// CHECK: scf.condition
// CHECK: tensor.extract
// CHECK: arith.cmpf ole
// CHECK: arith.select
// CHECK: scf.yield
// CHECK: arith.addf {{.*}} : f64
// CHECK: arith.addf {{.*}} : f64
// CHECK: arith.truncf {{.*}} : f64 to f32
// CHECK: -> tensor<?x1xf32>
func.func @regressor_one_tree(%x: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %0 = "onnx.ml.TreeEnsembleRegressor"(%x) {n_targets = 1 : i64, base_values = [0.5 : f32], nodes_treeids = [0, 0, 0, 0, 0], nodes_nodeids = [0, 1, 2, 3, 4], nodes_featureids = [2, 0, 0, 0, 0], nodes_modes = ["BRANCH_LEQ", "BRANCH_LEQ", "LEAF", "LEAF", "LEAF"], nodes_values = [0.5 : f32, -1.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32], nodes_truenodeids = [1, 2, 0, 0, 0], nodes_falsenodeids = [4, 3, 0, 0, 0], target_ids = [0, 0, 0], target_nodeids = [2, 3, 4], target_treeids = [0, 0, 0], target_weights = [1.0 : f32, 2.0 : f32, 3.0 : f32]} : (tensor<?x?xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// Mixed modes, a missing-value track, two targets, AVERAGE and SOFTMAX: a
// mode table (mode | 8 for a NaN that goes the true way), the comparisons
// selected by mode, `uno` for the NaN; the averaged scores go through a
// second generic that takes the row's softmax.
// CHECK-LABEL: func.func @regressor_modes_softmax
// CHECK-DAG: arith.constant dense<[9, 5]> : tensor<2xi32>
// CHECK: linalg.generic
// CHECK: scf.while
// CHECK-DAG: arith.cmpf olt
// CHECK-DAG: arith.cmpf une
// CHECK: arith.cmpf uno
// CHECK: arith.cmpi eq
// CHECK: linalg.generic
// CHECK: arith.divf {{.*}} : f64
// CHECK: math.exp
// CHECK: -> tensor<4x2xf32>
func.func @regressor_modes_softmax(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = "onnx.ml.TreeEnsembleRegressor"(%x) {n_targets = 2 : i64, aggregate_function = "AVERAGE", post_transform = "SOFTMAX", nodes_treeids = [0, 0, 0, 0, 0, 1], nodes_nodeids = [0, 1, 2, 3, 4, 0], nodes_featureids = [1, 0, 0, 0, 0, 0], nodes_modes = ["BRANCH_LT", "BRANCH_NEQ", "LEAF", "LEAF", "LEAF", "LEAF"], nodes_values = [0.5 : f32, 1.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32], nodes_missing_value_tracks_true = [1, 0, 0, 0, 0, 0], nodes_truenodeids = [1, 2, 0, 0, 0, 0], nodes_falsenodeids = [4, 3, 0, 0, 0, 0], target_ids = [0, 1, 0, 1, 1], target_nodeids = [2, 2, 3, 4, 0], target_treeids = [0, 0, 0, 0, 1], target_weights = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32]} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// A classifier of three string labels. The tree votes for several classes:
// one generic first finds the leaf of each (row, tree) ([N, trees] i32), so
// that the scores and whether some leaf voted ([N, 3] f64 and i1) read it
// instead of walking the tree again per class. The labels are pointers into
// a constant global; per row the scores (+ base_values, SOFTMAX) and the
// label of the best class are two generics.
// CHECK-LABEL: func.func @classifier_strings
// CHECK: %[[LEAVES:.+]] = linalg.generic
// CHECK: scf.while
// CHECK: arith.cmpf ogt
// CHECK: -> tensor<?x1xi32>
// CHECK: linalg.generic
// CHECK: scf.for
// CHECK: tensor.extract %[[LEAVES]]
// CHECK: arith.ori
// CHECK: -> (tensor<?x3xf64>, tensor<?x3xi1>)
// CHECK: llvm.mlir.addressof @__onnxc_strings_0
// CHECK: call @onnxc_rt_string_fill
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.truncf {{.*}} : f64 to f32
// CHECK: linalg.generic
// CHECK: scf.for
// CHECK: arith.cmpf ogt
// CHECK: tensor.extract
// CHECK: -> tensor<?xi64>
func.func @classifier_strings(%x: tensor<?x2xf64>) -> (tensor<?x!onnx.string>, tensor<?x3xf32>) {
  %0:2 = "onnx.ml.TreeEnsembleClassifier"(%x) {classlabels_strings = ["a", "b", "c"], post_transform = "SOFTMAX", base_values = [0.0 : f32, 0.5 : f32, 1.0 : f32], nodes_treeids = [0, 0, 0], nodes_nodeids = [0, 1, 2], nodes_featureids = [1, 0, 0], nodes_modes = ["BRANCH_GT", "LEAF", "LEAF"], nodes_values = [0.25 : f32, 0.0 : f32, 0.0 : f32], nodes_truenodeids = [1, 0, 0], nodes_falsenodeids = [2, 0, 0], class_ids = [0, 1, 2, 1], class_nodeids = [1, 1, 2, 2], class_treeids = [0, 0, 0, 0], class_weights = [0.25 : f32, 0.75 : f32, 0.5 : f32, 0.5 : f32]} : (tensor<?x2xf64>) -> (tensor<?x!onnx.string>, tensor<?x3xf32>)
  return %0#0, %0#1 : tensor<?x!onnx.string>, tensor<?x3xf32>
}

// Two classes and one class id (as a gradient-boosted model writes them):
// the score of class 0 plus the one base value decides (> 0: label 1), the
// scores are its logistic and that of its opposite. int64 X: the features
// become f32 (sitofp) for the comparisons.
// CHECK-LABEL: func.func @classifier_binary_logistic
// CHECK: linalg.generic
// CHECK: arith.sitofp {{.*}} : i64 to f32
// CHECK: arith.cmpf ole
// CHECK: arith.constant dense<[4, 9]> : tensor<2xi64>
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: arith.cmpf ogt
// CHECK: -> tensor<3xi64>
func.func @classifier_binary_logistic(%x: tensor<3x2xi64>) -> (tensor<3xi64>, tensor<3x2xf32>) {
  %0:2 = "onnx.ml.TreeEnsembleClassifier"(%x) {classlabels_int64s = [4, 9], post_transform = "LOGISTIC", base_values = [-0.25 : f32], nodes_treeids = [0, 0, 0, 1], nodes_nodeids = [0, 1, 2, 0], nodes_featureids = [0, 0, 0, 0], nodes_modes = ["BRANCH_LEQ", "LEAF", "LEAF", "LEAF"], nodes_values = [1.5 : f32, 0.0 : f32, 0.0 : f32, 0.0 : f32], nodes_truenodeids = [1, 0, 0, 0], nodes_falsenodeids = [2, 0, 0, 0], class_ids = [0, 0, 0], class_nodeids = [1, 2, 0], class_treeids = [0, 0, 1], class_weights = [-1.0 : f32, 1.0 : f32, 0.5 : f32]} : (tensor<3x2xi64>) -> (tensor<3xi64>, tensor<3x2xf32>)
  return %0#0, %0#1 : tensor<3xi64>, tensor<3x2xf32>
}

// TreeEnsemble-5 with a BRANCH_MEMBER node in f64: the sets are one table
// (with each node's range), searched by an scf.for of `oeq` comparisons;
// tree 1 is a single leaf (a root whose branches are the same leaf): its
// root code is that leaf's.
// CHECK-LABEL: func.func @tree_ensemble_member
// CHECK-DAG: arith.constant dense<[1.000000e+00, 3.000000e+00, 7.000000e+00]> : tensor<3xf64>
// CHECK-DAG: arith.constant dense<[0, 0, 3, 3]> : tensor<4xi32>
// CHECK-DAG: arith.constant dense<[0, -4]> : tensor<2xi32>
// CHECK: linalg.generic
// CHECK: scf.while
// CHECK: scf.for
// CHECK: arith.cmpf oeq
// CHECK: -> tensor<5x1xf64>
func.func @tree_ensemble_member(%x: tensor<5x2xf64>) -> tensor<5x1xf64> {
  %0 = "onnx.ml.TreeEnsemble"(%x) {n_targets = 1 : i64, tree_roots = [0, 2], nodes_featureids = [0, 1, 0], nodes_splits = dense<[2.0, 0.0, 0.0]> : tensor<3xf64>, nodes_modes = dense<[0, 6, 0]> : tensor<3xui8>, nodes_truenodeids = [1, 0, 3], nodes_falsenodeids = [2, 1, 3], nodes_trueleafs = [0, 1, 1], nodes_falseleafs = [1, 1, 1], leaf_targetids = [0, 0, 0, 0], leaf_weights = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>, membership_values = dense<[1.0, 3.0, 7.0, 0x7FF8000000000000]> : tensor<4xf64>} : (tensor<5x2xf64>) -> tensor<5x1xf64>
  return %0 : tensor<5x1xf64>
}
