# The dialect models Split at version 18: num_outputs splits into that many
# parts, ceil(dim / parts) each with the last smaller; older Split nodes
# import unchanged (their equal parts are the same rule).
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx %t.onnx -o - | FileCheck %s
# CHECK-LABEL: func.func @main_graph(
# CHECK: "onnx.Split"(%{{.+}}) <{axis = 1 : i64, num_outputs = 3 : i64}> : (tensor<2x7xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>)

import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph(
    [helper.make_node("Split", ["X"], ["A", "B", "C"], name="split", axis=1, num_outputs=3)],
    "split18",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 7])],
    [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in "ABC"],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
