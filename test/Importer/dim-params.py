# Symbolic dims (dim_param) and unknown dims become `?`; the names of the
# symbolic ones are kept in onnx.dim_params ("" for the others). A tensor
# type without a shape is unranked; an empty shape is a scalar.
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx %t.onnx -o - | FileCheck %s --check-prefixes=CHECK,INFER
# The same types come from the importer's per-node inference alone.
# RUN: onnxc --emit=onnx --no-onnx-shape-inference %t.onnx -o - \
# RUN:   | FileCheck %s --check-prefixes=CHECK,NOINFER

# CHECK-LABEL: func.func @main_graph(
# CHECK-SAME: %[[X:[^:]+]]: tensor<?x?x3xf32> {onnx.dim_params = ["batch", "", ""], onnx.name = "X"}
# CHECK-SAME: %[[Z:[^:]+]]: tensor<*xf32> {onnx.name = "Z"}
# CHECK-SAME: %[[S:[^:]+]]: tensor<i64> {onnx.name = "S"}
# CHECK-SAME: -> (tensor<?x?x3xf32> {onnx.dim_params = ["batch", "seq", ""], onnx.name = "Y"},
# CHECK-SAME: tensor<*xf32> {onnx.name = "W"},
# CHECK-SAME: tensor<3xi64> {onnx.name = "Shape"},
# CHECK-SAME: tensor<?x5xf32> {onnx.name = "M"},
# ONNX's shape inference types the undeclared R as ["batch", "unk__0", 3]:
# only the name the model declares is kept.
# INFER-SAME: tensor<?x?x3xf32> {onnx.dim_params = ["batch", "", ""], onnx.name = "R"})
# NOINFER-SAME: tensor<?x?x3xf32> {onnx.name = "R"})
# CHECK: %[[Y:.+]] = "onnx.Relu"(%[[X]]) : (tensor<?x?x3xf32>) -> tensor<?x?x3xf32>
# CHECK: %[[W:.+]] = "onnx.Neg"(%[[Z]]) : (tensor<*xf32>) -> tensor<*xf32>
# CHECK: "onnx.Shape"(%[[X]]) {{.*}} -> tensor<3xi64>
# The dynamic dim stays `?` through MatMul.
# CHECK: "onnx.MatMul"({{.*}}) : (tensor<?x4xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>

import sys

import onnx
from onnx import TensorProto, helper

inputs = [
    helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", None, 3]),
    helper.make_tensor_value_info("Z", TensorProto.FLOAT, None),
    helper.make_tensor_value_info("S", TensorProto.INT64, []),
    helper.make_tensor_value_info("A", TensorProto.FLOAT, [None, 4]),
    helper.make_tensor_value_info("B", TensorProto.FLOAT, [4, 5]),
]
outputs = [
    helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", "seq", 3]),
    helper.make_tensor_value_info("W", TensorProto.FLOAT, None),
    helper.make_empty_tensor_value_info("Shape"),
    helper.make_empty_tensor_value_info("M"),
    helper.make_empty_tensor_value_info("R"),
]
nodes = [
    helper.make_node("Relu", ["X"], ["Y"], name="relu"),
    helper.make_node("Neg", ["Z"], ["W"]),
    helper.make_node("Shape", ["X"], ["Shape"]),
    helper.make_node("MatMul", ["A", "B"], ["M"]),
    helper.make_node("Relu", ["X"], ["R"]),
]
graph = helper.make_graph(nodes, "dims", inputs, outputs)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(model, sys.argv[1])
