# FlexAttention-1 (ai.onnx.preview) imports as its computation: Q, K, V in
# float32, the 2 K/V heads repeated for the 4 query heads, scores scaled by
# 1/sqrt(8), the score_mod graph spliced in (its initializer a Constant, its
# names renamed apart), Softmax over the keys, probs @ V cast back to f16.
# RUN: %python %s gqa %t.onnx
# RUN: onnxc --emit=onnx-graph %t.onnx -o - | FileCheck %s
# CHECK-DAG: %[[C:.+]] = "onnx.Constant"() <{value = dense<2.000000e+00> : tensor<f32>}>
# CHECK-DAG: %[[SCALE:.+]] = "onnx.Constant"() <{value = dense<0.353553385> : tensor<1xf32>}>
# CHECK: "onnx.Expand"{{.*}} -> tensor<1x2x2x6x8xf32>
# CHECK: "onnx.Reshape"{{.*}} -> tensor<1x4x6x8xf32>
# CHECK: %[[QK:.+]] = "onnx.MatMul"({{.*}}) : (tensor<1x4x5x8xf32>, tensor<1x4x8x6xf32>) -> tensor<1x4x5x6xf32>
# CHECK: %[[S:.+]] = "onnx.Mul"(%[[QK]], %[[SCALE]])
# CHECK: %[[D:.+]] = "onnx.Div"(%[[S]], %[[C]])
# CHECK: %[[T:.+]] = "onnx.Tanh"(%[[D]])
# CHECK: %[[M:.+]] = "onnx.Mul"(%[[T]], %[[C]])
# CHECK: "onnx.Softmax"(%[[M]]) <{axis = -1 : i64}>
# CHECK: "onnx.CastLike"({{.*}}) {{.*}} -> tensor<1x4x5x8xf16>

# A score_mod that reads a value of the main graph is refused by name.
# RUN: %python %s outer %t.outer.onnx
# RUN: not onnxc %t.outer.onnx -o %t.so 2>&1 | FileCheck %s --check-prefix=OUTER
# OUTER: ai.onnx.preview::FlexAttention-1 (FlexAttention-1 has a score_mod graph that reads 'bias' from outside it)

# A FlexAttention without its inputs (found by onnxc-fuzz-import: the body
# builder read input 0 of a node that has none) is refused by name.
# RUN: %python %s noinputs %t.noinputs.onnx
# RUN: not onnxc %t.noinputs.onnx -o %t.so 2>&1 | FileCheck %s --check-prefix=NOINPUTS
# NOINPUTS: ai.onnx.preview::FlexAttention-1 (FlexAttention-1 needs Q, K and V)

import sys

import onnx
from onnx import TensorProto, helper

H = TensorProto.FLOAT16
mode, path = sys.argv[1], sys.argv[2]
if mode == "gqa":
    cap = helper.make_tensor("cap", TensorProto.FLOAT, [], [2.0])
    score_mod = helper.make_graph(
        [helper.make_node("Div", ["scores", "cap"], ["scaled"]),
         helper.make_node("Tanh", ["scaled"], ["capped"]),
         helper.make_node("Mul", ["capped", "cap"], ["scores_out"])],
        "soft_cap", [helper.make_tensor_value_info("scores", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("scores_out", TensorProto.FLOAT, None)], [cap])
    inits = []
else:
    score_mod = helper.make_graph(
        [helper.make_node("Add", ["scores", "bias"], ["scores_out"])],
        "outer", [helper.make_tensor_value_info("scores", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("scores_out", TensorProto.FLOAT, None)])
    inits = [helper.make_tensor("bias", TensorProto.FLOAT, [], [1.0])]
node = helper.make_node("FlexAttention", [] if mode == "noinputs" else ["Q", "K", "V"], ["Y"],
                        domain="ai.onnx.preview", score_mod=score_mod)
graph = helper.make_graph(
    [node], "flex",
    [helper.make_tensor_value_info("Q", H, [1, 4, 5, 8]),
     helper.make_tensor_value_info("K", H, [1, 2, 6, 8]),
     helper.make_tensor_value_info("V", H, [1, 2, 6, 8])],
    [helper.make_tensor_value_info("Y", H, None)], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26),
                                                helper.make_opsetid("ai.onnx.preview", 1)])
model.ir_version = 10
onnx.save(model, path)
