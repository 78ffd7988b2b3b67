# LinearAttention-27 imports as onnx.LinearAttention, typed by the project's
# rule: output (B, T, q_num_heads * d_v) in the query's type, present_state
# (B, kv_num_heads, d_k, d_v) in past_state's type. GQA: 4 query heads of
# d_k = 3 over 2 key/value heads, values of d_v = 5.
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx %t.onnx -o - | FileCheck %s
# CHECK: "onnx.LinearAttention"({{.*}}) <{{.*}}kv_num_heads = 2 : i64, {{.*}}q_num_heads = 4 : i64, {{.*}}update_rule = "gated_delta"}> : (tensor<1x6x12xf16>, tensor<1x6x6xf16>, tensor<1x6x10xf16>, tensor<1x2x3x5xf32>, tensor<1x6x2xf16>, tensor<1x6x1xf16>) -> (tensor<1x6x20xf16>, tensor<1x2x3x5xf32>)

import sys

import onnx
from onnx import TensorProto, helper

H, F = TensorProto.FLOAT16, TensorProto.FLOAT
node = helper.make_node("LinearAttention", ["q", "k", "v", "past", "decay", "beta"],
                        ["out", "state"], name="la", q_num_heads=4, kv_num_heads=2)
graph = helper.make_graph(
    [node], "la",
    [helper.make_tensor_value_info("q", H, [1, 6, 12]),
     helper.make_tensor_value_info("k", H, [1, 6, 6]),
     helper.make_tensor_value_info("v", H, [1, 6, 10]),
     helper.make_tensor_value_info("past", F, [1, 2, 3, 5]),
     helper.make_tensor_value_info("decay", H, [1, 6, 2]),
     helper.make_tensor_value_info("beta", H, [1, 6, 1])],
    [helper.make_tensor_value_info("out", H, None),
     helper.make_tensor_value_info("state", F, None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 27)])
model.ir_version = 10
onnx.save(model, sys.argv[1])
