# Operators new after opset 17 import as their dialect ops, typed by the
# inference rule they share with an older operator (Relu's for the unary
# ones, Add's broadcasting for the binary ones). Mish-18 imports as the
# dialect's Mish-22 (version 22 only added bfloat16).
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx %t.onnx -o - | FileCheck %s
# CHECK-LABEL: func.func @main_graph(
# CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32> {onnx.name = "X"}, %[[A:[^:]+]]: tensor<2x3xi32> {onnx.name = "A"}, %[[B:[^:]+]]: tensor<3xi32> {onnx.name = "B"})
# CHECK: %[[G:.+]] = "onnx.Gelu"(%[[X]]) <{approximate = "tanh"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK: %[[M:.+]] = "onnx.Mish"(%[[G]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK: "onnx.BitwiseAnd"(%[[A]], %[[B]]) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>

import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph(
    [
        helper.make_node("Gelu", ["X"], ["G"], name="gelu", approximate="tanh"),
        helper.make_node("Mish", ["G"], ["M"], name="mish"),
        helper.make_node("BitwiseAnd", ["A", "B"], ["C"], name="and"),
    ],
    "new_ops",
    [
        helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3]),
        helper.make_tensor_value_info("A", TensorProto.INT32, [2, 3]),
        helper.make_tensor_value_info("B", TensorProto.INT32, [3]),
    ],
    [
        helper.make_tensor_value_info("M", TensorProto.FLOAT, None),
        helper.make_tensor_value_info("C", TensorProto.INT32, None),
    ],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
model.ir_version = 9
onnx.save(model, sys.argv[1])
