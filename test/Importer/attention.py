# Attention (opset 23+) has no dialect op: its ONNX definition is a function
# that depends on the node, and the importer inlines the body it builds for
# the node (lib/Importer/FunctionExpansions.cpp) in opset-17 operators.
# RUN: rm -rf %t && mkdir -p %t

# 3-D inputs with grouped-query heads (4 query heads share 2 key/value
# heads) and causal masking: reshape to heads, repeat each key/value head,
# Q K^T scaled by sqrt(scale) on each side, the causal bias, softmax, the
# fully-masked-row guard, and back to 3-D.
# RUN: %python %s gqa %t/gqa.onnx
# RUN: onnxc --emit=onnx %t/gqa.onnx -o - | FileCheck %s --check-prefix=GQA
# GQA-LABEL: func.func @main_graph(
# GQA-SAME: %[[Q:[^:]+]]: tensor<2x3x32xf32> {onnx.name = "Q"}, %[[K:[^:]+]]: tensor<2x5x16xf32> {onnx.name = "K"}, %[[V:[^:]+]]: tensor<2x5x16xf32> {onnx.name = "V"})
# GQA: %[[QR:.+]] = "onnx.Reshape"(%[[Q]], %{{.+}}) {{.*}} -> tensor<2x3x4x8xf32>
# GQA: "onnx.Transpose"(%[[QR]]) <{perm = [0, 2, 1, 3]}> {{.*}} -> tensor<2x4x3x8xf32>
# GQA: "onnx.Expand"({{.*}}) {{.*}} -> tensor<2x2x2x5x8xf32>
# GQA: "onnx.Reshape"({{.*}}) {{.*}} -> tensor<2x4x5x8xf32>
# GQA: %[[QK:.+]] = "onnx.MatMul"({{.*}}) : (tensor<2x4x3x8xf32>, tensor<2x4x8x5xf32>) -> tensor<2x4x3x5xf32>
# GQA: "onnx.Greater"({{.*}}) : (tensor<5xi64>, tensor<3x1xi64>) -> tensor<3x5xi1>
# GQA: %[[SM:.+]] = "onnx.Softmax"({{.*}}) <{axis = -1 : i64}> : (tensor<2x4x3x5xf32>) -> tensor<2x4x3x5xf32>
# GQA: "onnx.IsNaN"(%[[SM]])
# GQA: "onnx.MatMul"({{.*}}) : (tensor<2x4x3x5xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32>
# GQA: "onnx.Reshape"({{.*}}) {{.*}} -> tensor<2x3x32xf32>

# What the expansion does not cover is reported with the node: 3-D inputs
# need the head counts.
# RUN: %python %s noheads %t/noheads.onnx
# RUN: not onnxc %t/noheads.onnx -o %t/noheads.so 2>&1 | FileCheck %s --check-prefix=NOHEADS
# NOHEADS: ai.onnx::Attention-23 (Attention-23 has 3-D inputs without q_num_heads and kv_num_heads)

import sys

import onnx
from onnx import TensorProto, helper

mode, path = sys.argv[1], sys.argv[2]
F = TensorProto.FLOAT
attrs = {"q_num_heads": 4, "kv_num_heads": 2, "is_causal": 1} if mode == "gqa" else {}
graph = helper.make_graph(
    [helper.make_node("Attention", ["Q", "K", "V"], ["Y"], name="attn", **attrs)],
    "attention",
    [
        helper.make_tensor_value_info("Q", F, [2, 3, 32]),
        helper.make_tensor_value_info("K", F, [2, 5, 16]),
        helper.make_tensor_value_info("V", F, [2, 5, 16]),
    ],
    [helper.make_tensor_value_info("Y", F, None)],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
model.ir_version = 10
onnx.save(model, path)
