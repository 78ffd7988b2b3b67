# RotaryEmbedding-23 is imported as a function body built for the node
# (lib/Importer/FunctionExpansions.cpp): 3-D input split into heads, the
# cos/sin caches gathered at position_ids, interleaved pairs rotated on the
# first rotary_embedding_dim values, the rest passed through.
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx %t.onnx -o - | FileCheck %s
# CHECK-LABEL: func.func @main_graph(
# CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x16xf32> {onnx.name = "X"}
# CHECK: %[[XH:.+]] = "onnx.Reshape"(%[[X]], %{{.+}}) {{.*}} -> tensor<2x3x2x8xf32>
# CHECK: "onnx.Slice"(%[[XH]], {{.*}} -> tensor<2x3x2x4xf32>
# CHECK: "onnx.Gather"({{.*}}) <{axis = 0 : i64}> : (tensor<10x2xf32>, tensor<2x3xi64>) -> tensor<2x3x2xf32>
# CHECK: "onnx.Slice"({{.*}} -> tensor<2x3x2x2xf32>
# CHECK: "onnx.Concat"({{.*}}) <{axis = -1 : i64}> : (tensor<2x3x2x2x1xf32>, tensor<2x3x2x2x1xf32>) -> tensor<2x3x2x2x2xf32>
# CHECK: "onnx.Concat"({{.*}}) <{axis = -1 : i64}> : (tensor<2x3x2x4xf32>, tensor<2x3x2x4xf32>) -> tensor<2x3x2x8xf32>
# CHECK: "onnx.Reshape"({{.*}}) {{.*}} -> tensor<2x3x16xf32>

import sys

import onnx
from onnx import TensorProto, helper

F = TensorProto.FLOAT
graph = helper.make_graph(
    [helper.make_node("RotaryEmbedding", ["X", "cos", "sin", "pos"], ["Y"], name="rope",
                      num_heads=2, rotary_embedding_dim=4, interleaved=1)],
    "rope",
    [
        helper.make_tensor_value_info("X", F, [2, 3, 16]),
        helper.make_tensor_value_info("cos", F, [10, 2]),
        helper.make_tensor_value_info("sin", F, [10, 2]),
        helper.make_tensor_value_info("pos", TensorProto.INT64, [2, 3]),
    ],
    [helper.make_tensor_value_info("Y", F, None)],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
model.ir_version = 10
onnx.save(model, sys.argv[1])
