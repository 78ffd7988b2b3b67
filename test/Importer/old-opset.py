# Models of old opsets are converted to opset 17 (libonnx's version
# converter), so their nodes import as the operator versions the dialect
# models.
# RUN: rm -rf %t && mkdir -p %t

# Opset 6, IR version 3: Add-6 with its `broadcast` attribute, Reshape-5, and
# an initializer that is also a graph input.
# RUN: %python %s opset6 %t/opset6.onnx
# RUN: onnxc --emit=onnx %t/opset6.onnx -o - | FileCheck %s --check-prefix=OPSET6
# OPSET6: module attributes {onnx.ir_version = 3 : i64, onnx.opset_import = {ai.onnx = 17 : i64}}
# OPSET6-LABEL: func.func @main_graph(
# OPSET6-SAME: %[[A:[^:]+]]: tensor<2x3x4xf32> {onnx.name = "A"}, %[[B:[^:]+]]: tensor<4xf32> {onnx.name = "B"})
# OPSET6-SAME: -> (tensor<3x8xf32> {onnx.name = "R"})
# OPSET6: %[[SHAPE:.+]] = "onnx.Constant"() <{value = dense<[3, 8]> : tensor<2xi64>}>
# Add-14 broadcasts without being told to.
# OPSET6: %[[SUM:.+]] = "onnx.Add"(%[[A]], %[[B]]) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
# OPSET6-NOT: broadcast
# OPSET6: "onnx.Reshape"(%[[SUM]], %[[SHAPE]]) <{allowzero = 0 : i64}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3x8xf32>

# Opset 4: Reshape-1 took the shape as an attribute; Reshape-5 and later take
# it as an input, which the conversion makes a constant.
# RUN: %python %s opset4 %t/opset4.onnx
# RUN: onnxc --emit=onnx %t/opset4.onnx -o - | FileCheck %s --check-prefix=OPSET4
# OPSET4: onnx.opset_import = {ai.onnx = 17 : i64}
# OPSET4: %[[SHAPE:.+]] = "onnx.Constant"() <{value = dense<[4, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
# OPSET4: %[[R:.+]] = "onnx.Reshape"(%{{.*}}, %[[SHAPE]]) {{.*}} -> tensor<4x6xf32>
# OPSET4: "onnx.Relu"(%[[R]]) : (tensor<4x6xf32>) -> tensor<4x6xf32>

# Opset 12: Softmax-11 (coerce to 2-D at `axis`) becomes Softmax-13; the
# converter keeps the old semantics with Flatten and Reshape.
# RUN: %python %s opset12 %t/opset12.onnx
# RUN: onnxc --emit=onnx %t/opset12.onnx -o - | FileCheck %s --check-prefix=OPSET12
# OPSET12: onnx.opset_import = {ai.onnx = 17 : i64}
# OPSET12: %[[FLAT:.+]] = "onnx.Flatten"(%{{.*}}) <{axis = 1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
# OPSET12-DAG: %[[SHAPE:.+]] = "onnx.Constant"() <{value = dense<[2, 3, 4]> : tensor<3xi64>}>
# OPSET12-DAG: %[[SM:.+]] = "onnx.Softmax"(%[[FLAT]]) <{axis = -1 : i64}> : (tensor<2x12xf32>) -> tensor<2x12xf32>
# OPSET12: %[[Y:.+]] = "onnx.Reshape"(%[[SM]], %[[SHAPE]])
# OPSET12: return %[[Y]] : tensor<2x3x4xf32>

import sys

import onnx
from onnx import TensorProto, helper

mode, path = sys.argv[1], sys.argv[2]
if mode == "opset6":
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], [3, 8])
    graph = helper.make_graph(
        [
            helper.make_node("Add", ["A", "B"], ["C"], name="add", broadcast=1),
            helper.make_node("Reshape", ["C", "shape"], ["R"], name="reshape"),
        ],
        "opset6",
        [
            helper.make_tensor_value_info("A", TensorProto.FLOAT, [2, 3, 4]),
            helper.make_tensor_value_info("B", TensorProto.FLOAT, [4]),
            helper.make_tensor_value_info("shape", TensorProto.INT64, [2]),
        ],
        [helper.make_tensor_value_info("R", TensorProto.FLOAT, [3, 8])],
        [shape],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
    model.ir_version = 3
elif mode == "opset4":
    graph = helper.make_graph(
        [
            helper.make_node("Reshape", ["A"], ["R"], name="reshape",
                             shape=[4, 6]),
            helper.make_node("Relu", ["R"], ["Y"], name="relu"),
        ],
        "opset4",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4, 6])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 4)])
    model.ir_version = 3
elif mode == "opset12":
    graph = helper.make_graph(
        [helper.make_node("Softmax", ["X"], ["Y"], name="softmax", axis=1)],
        "opset12",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3, 4])],
    )
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 12)])
onnx.save(model, path)
