# SwiGLU-28 and GroupNormalization-18/21 import as function bodies built for
# the node (lib/Importer/FunctionExpansions.cpp).
# RUN: rm -rf %t && mkdir -p %t

# SwiGLU: A * sigmoid(alpha * A) * B.
# RUN: %python %s swiglu %t/swiglu.onnx
# RUN: onnxc --emit=onnx %t/swiglu.onnx -o - | FileCheck %s --check-prefix=SWIGLU
# SWIGLU-LABEL: func.func @main_graph(
# SWIGLU-SAME: %[[A:[^:]+]]: tensor<2x4xf32> {onnx.name = "A"}, %[[B:[^:]+]]: tensor<2x4xf32> {onnx.name = "B"})
# SWIGLU: %[[S:.+]] = "onnx.Mul"(%{{.+}}, %[[A]])
# SWIGLU: %[[G:.+]] = "onnx.Sigmoid"(%[[S]])
# SWIGLU: %[[W:.+]] = "onnx.Mul"(%[[A]], %[[G]])
# SWIGLU: "onnx.Mul"(%[[W]], %[[B]]) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>

# GroupNormalization-18 (deprecated): 2 groups of 3 channels, statistics over
# each group (ReduceMean-18 over axis 2 of N x G x rest), the per-group scale
# repeated over its channels.
# RUN: %python %s groupnorm18 %t/gn18.onnx
# RUN: onnxc --emit=onnx %t/gn18.onnx -o - | FileCheck %s --check-prefix=GN18
# GN18: "onnx.Reshape"({{.*}}) {{.*}} -> tensor<2x2x12xf32>
# GN18: "onnx.ReduceMean"({{.*}}) <{keepdims = 1 : i64, noop_with_empty_axes = 0 : i64}> : (tensor<2x2x12xf32>, tensor<1xi64>) -> tensor<2x2x1xf32>
# GN18: "onnx.Expand"({{.*}}) : (tensor<2x1xf32>, tensor<2xi64>) -> tensor<2x3xf32>
# GN18: "onnx.Reshape"({{.*}}) {{.*}} -> tensor<6x1x1xf32>
# GN18: "onnx.Add"({{.*}}) : (tensor<2x6x2x2xf32>, tensor<6x1x1xf32>) -> tensor<2x6x2x2xf32>

import sys

import onnx
from onnx import TensorProto, helper

mode, path = sys.argv[1], sys.argv[2]
F = TensorProto.FLOAT
if mode == "swiglu":
    nodes = [helper.make_node("SwiGLU", ["A", "B"], ["Y"], name="swiglu", alpha=1.5)]
    inputs = [helper.make_tensor_value_info("A", F, [2, 4]),
              helper.make_tensor_value_info("B", F, [2, 4])]
    opset = 28
else:
    nodes = [helper.make_node("GroupNormalization", ["X", "scale", "bias"], ["Y"],
                              name="gn", num_groups=2)]
    inputs = [helper.make_tensor_value_info("X", F, [2, 6, 2, 2]),
              helper.make_tensor_value_info("scale", F, [2]),
              helper.make_tensor_value_info("bias", F, [2])]
    opset = 18
graph = helper.make_graph(nodes, mode, inputs, [helper.make_tensor_value_info("Y", F, None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
model.ir_version = 8
onnx.save(model, path)
