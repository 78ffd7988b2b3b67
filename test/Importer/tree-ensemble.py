# The tree ensembles of ai.onnx.ml: TreeEnsemble-5 (ai.onnx.ml opset 5,
# which libonnx 1.12 does not know) imports as onnx.ml.TreeEnsemble;
# TreeEnsembleRegressor/Classifier-3 as before. Their results are typed by
# hand rules (SchemaInference.cpp) where the model does not declare them:
# [N, n_targets] of X's type (TreeEnsemble), f32 (Regressor); the labels
# [N] and the scores [N, classes] (Classifier).
# RUN: rm -rf %t && mkdir -p %t

# RUN: %python %s te5 %t/te5.onnx
# RUN: onnxc --emit=onnx %t/te5.onnx -o - | FileCheck %s --check-prefix=TE5
# RUN: onnxc --emit=onnx --no-onnx-shape-inference %t/te5.onnx -o - | FileCheck %s --check-prefix=TE5
# TE5-LABEL: func.func @main_graph(
# TE5-SAME: %[[X:[^:]+]]: tensor<?x3xf64> {onnx.dim_params = ["N", ""], onnx.name = "X"}
# TE5: "onnx.ml.TreeEnsemble"(%[[X]])
# TE5-SAME: aggregate_function = 1 : i64
# TE5-SAME: leaf_weights = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf64>
# TE5-SAME: n_targets = 2 : i64
# TE5-SAME: nodes_modes = dense<[0, 6]> : tensor<2xui8>
# TE5-SAME: tree_roots = [0]
# TE5-SAME: (tensor<?x3xf64>) -> tensor<?x2xf64>

# Undeclared results of the opset-3 ensembles.
# RUN: %python %s v3 %t/v3.onnx
# RUN: onnxc --emit=onnx %t/v3.onnx -o - | FileCheck %s --check-prefix=V3
# V3: "onnx.ml.TreeEnsembleRegressor"({{.*}}) -> tensor<?x2xf32>
# V3: "onnx.ml.TreeEnsembleClassifier"({{.*}}) -> (tensor<?x!onnx.string>, tensor<?x3xf32>)
# V3: "onnx.ml.TreeEnsembleClassifier"({{.*}}) -> (tensor<1xi64>, tensor<1x2xf32>)

# TreeEnsemble is not defined before ai.onnx.ml opset 5; the opset-3
# ensembles are deprecated from 5 on (the dialect models them at 3).
# RUN: %python %s te5_at_4 %t/te5_at_4.onnx
# RUN: not onnxc %t/te5_at_4.onnx -o %t/x.so 2>&1 | FileCheck %s --check-prefix=AT4
# AT4: ai.onnx.ml::TreeEnsemble-4 (the operator is not defined at this opset)
# RUN: %python %s v3_at_5 %t/v3_at_5.onnx
# RUN: not onnxc %t/v3_at_5.onnx -o %t/x.so 2>&1 | FileCheck %s --check-prefix=V3AT5
# V3AT5: ai.onnx.ml::TreeEnsembleRegressor-5 (ai.onnx.ml opset 5 changed the operator; the dialect models ai.onnx.ml opset 3)

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def te5_node():
    return helper.make_node(
        "TreeEnsemble", ["X"], ["Y"], domain="ai.onnx.ml", n_targets=2,
        aggregate_function=1, post_transform=0, tree_roots=[0],
        nodes_featureids=[0, 2],
        nodes_splits=numpy_helper.from_array(np.array([0.5, 0.0])),
        nodes_modes=numpy_helper.from_array(np.array([0, 6], np.uint8)),
        nodes_truenodeids=[1, 0], nodes_falsenodeids=[2, 1],
        nodes_trueleafs=[0, 1], nodes_falseleafs=[1, 1],
        leaf_targetids=[0, 1, 1],
        leaf_weights=numpy_helper.from_array(np.array([1.0, 2.0, 3.0])),
        membership_values=numpy_helper.from_array(
            np.array([1.0, 4.0, np.nan])))


def regressor_node(out="Y"):
    return helper.make_node(
        "TreeEnsembleRegressor", ["X"], [out], domain="ai.onnx.ml",
        n_targets=2, nodes_treeids=[0], nodes_nodeids=[0],
        nodes_featureids=[0], nodes_modes=["LEAF"], nodes_values=[0.0],
        nodes_truenodeids=[0], nodes_falsenodeids=[0], target_ids=[1],
        target_nodeids=[0], target_treeids=[0], target_weights=[1.0])


def classifier_node(x, outs, **labels):
    return helper.make_node(
        "TreeEnsembleClassifier", [x], outs, domain="ai.onnx.ml",
        nodes_treeids=[0], nodes_nodeids=[0], nodes_featureids=[0],
        nodes_modes=["LEAF"], nodes_values=[0.0], nodes_truenodeids=[0],
        nodes_falsenodeids=[0], class_ids=[1], class_nodeids=[0],
        class_treeids=[0], class_weights=[1.0], **labels)


def model(nodes, inputs, outputs, ml_opset):
    graph = helper.make_graph(nodes, "trees", inputs, outputs)
    m = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", ml_opset)])
    m.ir_version = 8
    return m


case, path = sys.argv[1], sys.argv[2]
x3 = helper.make_tensor_value_info("X", TensorProto.DOUBLE, ["N", 3])
xf = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 3])
untyped = lambda name: helper.make_tensor_value_info(
    name, TensorProto.UNDEFINED, None)
if case == "te5":
    m = model([te5_node()], [x3], [untyped("Y")], 5)
elif case == "te5_at_4":
    m = model([te5_node()], [x3], [untyped("Y")], 4)
elif case == "v3":
    m = model([regressor_node(),
               classifier_node("X", ["L", "S"],
                               classlabels_strings=["a", "b", "c"]),
               classifier_node("V", ["L1", "S1"], classlabels_int64s=[0, 1])],
              [xf, helper.make_tensor_value_info("V", TensorProto.FLOAT, [3])],
              [untyped(n) for n in ["Y", "L", "S", "L1", "S1"]], 3)
elif case == "v3_at_5":
    m = model([regressor_node()], [xf], [untyped("Y")], 5)
onnx.save(m, path)
