# The dialect models Reduce* at version 18 (ReduceMax and ReduceMin at 20):
# `axes` is an optional input. Older nodes are upgraded: their `axes`
# attribute becomes a constant input; without it they reduce every axis.
# RUN: rm -rf %t && mkdir -p %t

# Opset 13: ReduceMean-13 with axes = [1], ReduceMax-13 without axes.
# RUN: %python %s opset13 %t/opset13.onnx
# RUN: onnxc --emit=onnx %t/opset13.onnx -o - | FileCheck %s --check-prefix=OPSET13
# OPSET13-LABEL: func.func @main_graph(
# OPSET13-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32> {onnx.name = "X"})
# OPSET13-DAG: %[[AXES:.+]] = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
# OPSET13-DAG: "onnx.ReduceMean"(%[[X]], %[[AXES]]) <{keepdims = 0 : i64, noop_with_empty_axes = 0 : i64}> : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
# OPSET13-DAG: "onnx.ReduceMax"(%[[X]]) <{keepdims = 1 : i64, noop_with_empty_axes = 0 : i64}> : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>

# Opset 11 goes through libonnx's converter to opset 17 first (ReduceL2-13),
# then the same upgrade.
# RUN: %python %s opset11 %t/opset11.onnx
# RUN: onnxc --emit=onnx %t/opset11.onnx -o - | FileCheck %s --check-prefix=OPSET11
# OPSET11: %[[AXES:.+]] = "onnx.Constant"() <{value = dense<[0, -1]> : tensor<2xi64>}>
# OPSET11: "onnx.ReduceL2"(%{{.+}}, %[[AXES]]) {{.*}} -> tensor<1x3x1xf32>

# Opset 20: the axes are a run-time input (their length is known), and
# ReduceMax takes bool.
# RUN: %python %s opset20 %t/opset20.onnx
# RUN: onnxc --emit=onnx %t/opset20.onnx -o - | FileCheck %s --check-prefix=OPSET20
# OPSET20-LABEL: func.func @main_graph(
# OPSET20-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32> {onnx.name = "X"}, %[[A:[^:]+]]: tensor<2xi64> {onnx.name = "A"}, %[[B:[^:]+]]: tensor<2x3xi1> {onnx.name = "B"})
# OPSET20: "onnx.ReduceSumSquare"(%[[X]], %[[A]]) <{keepdims = 0 : i64, noop_with_empty_axes = 0 : i64}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?xf32>
# OPSET20: "onnx.ReduceMax"(%[[B]], %{{.+}}) {{.*}} : (tensor<2x3xi1>, tensor<1xi64>) -> tensor<2x1xi1>

import sys

import onnx
from onnx import TensorProto, helper

mode, path = sys.argv[1], sys.argv[2]
F = TensorProto.FLOAT
if mode == "opset13":
    nodes = [
        helper.make_node("ReduceMean", ["X"], ["M"], name="mean", axes=[1], keepdims=0),
        helper.make_node("ReduceMax", ["X"], ["N"], name="max"),
    ]
    inputs = [helper.make_tensor_value_info("X", F, [2, 3, 4])]
    outputs = [helper.make_tensor_value_info("M", F, None),
               helper.make_tensor_value_info("N", F, None)]
    inits, opset = [], 13
elif mode == "opset11":
    nodes = [helper.make_node("ReduceL2", ["X"], ["M"], name="l2", axes=[0, -1])]
    inputs = [helper.make_tensor_value_info("X", F, [2, 3, 4])]
    outputs = [helper.make_tensor_value_info("M", F, None)]
    inits, opset = [], 11
else:
    nodes = [
        helper.make_node("ReduceSumSquare", ["X", "A"], ["M"], name="ssq", keepdims=0),
        helper.make_node("ReduceMax", ["B", "one"], ["N"], name="max"),
    ]
    inputs = [helper.make_tensor_value_info("X", F, [2, 3, 4]),
              helper.make_tensor_value_info("A", TensorProto.INT64, [2]),
              helper.make_tensor_value_info("B", TensorProto.BOOL, [2, 3])]
    outputs = [helper.make_tensor_value_info("M", F, None),
               helper.make_tensor_value_info("N", TensorProto.BOOL, None)]
    inits = [helper.make_tensor("one", TensorProto.INT64, [1], [1])]
    opset = 20
graph = helper.make_graph(nodes, mode, inputs, outputs, inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
model.ir_version = 8
onnx.save(model, path)
