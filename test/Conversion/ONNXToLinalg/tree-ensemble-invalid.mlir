// RUN: onnx-mlir-opt --convert-onnx-to-linalg --split-input-file --verify-diagnostics %s

// Inconsistent trees are refused at compile time, naming what is wrong
// (the walk would not end, or would read out of the tables).

// Node 1 leads back to node 0.
func.func @cycle(%x: tensor<2x2xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'onnx.ml.TreeEnsembleRegressor': node 1 of tree 0 leads back to node 0 of tree 0: the tree has a cycle}}
  %0 = "onnx.ml.TreeEnsembleRegressor"(%x) {n_targets = 1 : i64, nodes_treeids = [0, 0, 0], nodes_nodeids = [0, 1, 2], nodes_featureids = [0, 1, 0], nodes_modes = ["BRANCH_LEQ", "BRANCH_LEQ", "LEAF"], nodes_values = [0.0 : f32, 0.0 : f32, 0.0 : f32], nodes_truenodeids = [1, 0, 0], nodes_falsenodeids = [2, 2, 0], target_ids = [0], target_nodeids = [2], target_treeids = [0], target_weights = [1.0 : f32]} : (tensor<2x2xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// A child in another tree (ids are per tree).
func.func @missing_child(%x: tensor<2x2xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'onnx.ml.TreeEnsembleRegressor': node 0 of tree 0: its false child, node 2, does not exist in the tree}}
  %0 = "onnx.ml.TreeEnsembleRegressor"(%x) {n_targets = 1 : i64, nodes_treeids = [0, 0, 1], nodes_nodeids = [0, 1, 2], nodes_featureids = [0, 0, 0], nodes_modes = ["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values = [0.0 : f32, 0.0 : f32, 0.0 : f32], nodes_truenodeids = [1, 0, 0], nodes_falsenodeids = [2, 0, 0], target_ids = [0, 0], target_nodeids = [1, 2], target_treeids = [0, 1], target_weights = [1.0 : f32, 2.0 : f32]} : (tensor<2x2xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @class_out_of_range(%x: tensor<2x2xf32>) -> (tensor<2xi64>, tensor<2x2xf32>) {
  // expected-error @+1 {{'onnx.ml.TreeEnsembleClassifier': class_ids gives node 0 of tree 0 the class 2, out of range [0, 2)}}
  %0:2 = "onnx.ml.TreeEnsembleClassifier"(%x) {classlabels_int64s = [0, 1], nodes_treeids = [0], nodes_nodeids = [0], nodes_featureids = [0], nodes_modes = ["LEAF"], nodes_values = [0.0 : f32], nodes_truenodeids = [0], nodes_falsenodeids = [0], class_ids = [2], class_nodeids = [0], class_treeids = [0], class_weights = [1.0 : f32]} : (tensor<2x2xf32>) -> (tensor<2xi64>, tensor<2x2xf32>)
  return %0#0, %0#1 : tensor<2xi64>, tensor<2x2xf32>
}

// -----

func.func @length_mismatch(%x: tensor<2x2xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'onnx.ml.TreeEnsembleRegressor': nodes_values has 1 entries, nodes_treeids 2}}
  %0 = "onnx.ml.TreeEnsembleRegressor"(%x) {n_targets = 1 : i64, nodes_treeids = [0, 0], nodes_nodeids = [0, 1], nodes_featureids = [0, 0], nodes_modes = ["LEAF", "LEAF"], nodes_values = [0.0 : f32], nodes_truenodeids = [0, 0], nodes_falsenodeids = [0, 0]} : (tensor<2x2xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// TreeEnsemble-5: a leaf index beyond leaf_weights, a cycle through node
// indices, and a BRANCH_MEMBER node without a set.
func.func @te5_leaf_out_of_range(%x: tensor<2x2xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'onnx.ml.TreeEnsemble': node 0: its true child, leaf 3, is out of range [0, 2)}}
  %0 = "onnx.ml.TreeEnsemble"(%x) {n_targets = 1 : i64, tree_roots = [0], nodes_featureids = [0], nodes_splits = dense<[0.0]> : tensor<1xf32>, nodes_modes = dense<[0]> : tensor<1xui8>, nodes_truenodeids = [3], nodes_falsenodeids = [1], nodes_trueleafs = [1], nodes_falseleafs = [1], leaf_targetids = [0, 0], leaf_weights = dense<[1.0, 2.0]> : tensor<2xf32>} : (tensor<2x2xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @te5_cycle(%x: tensor<2x2xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'onnx.ml.TreeEnsemble': node 1 leads back to node 0: the tree has a cycle}}
  %0 = "onnx.ml.TreeEnsemble"(%x) {n_targets = 1 : i64, tree_roots = [0], nodes_featureids = [0, 1], nodes_splits = dense<[0.0, 1.0]> : tensor<2xf32>, nodes_modes = dense<[0, 1]> : tensor<2xui8>, nodes_truenodeids = [1, 0], nodes_falsenodeids = [0, 1], nodes_trueleafs = [0, 0], nodes_falseleafs = [1, 1], leaf_targetids = [0, 0], leaf_weights = dense<[1.0, 2.0]> : tensor<2xf32>} : (tensor<2x2xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @te5_member_without_set(%x: tensor<2x2xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'onnx.ml.TreeEnsemble': membership_values has fewer sets than there are BRANCH_MEMBER nodes}}
  %0 = "onnx.ml.TreeEnsemble"(%x) {n_targets = 1 : i64, tree_roots = [0], nodes_featureids = [0], nodes_splits = dense<[0.0]> : tensor<1xf32>, nodes_modes = dense<[6]> : tensor<1xui8>, nodes_truenodeids = [0], nodes_falsenodeids = [1], nodes_trueleafs = [1], nodes_falseleafs = [1], leaf_targetids = [0, 0], leaf_weights = dense<[1.0, 2.0]> : tensor<2xf32>} : (tensor<2x2xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}
