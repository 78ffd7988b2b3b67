# SwiGLU-28, GroupNormalization-18/21, CenterCropPad-18 and
# CausalConvWithState-27 import as
# function bodies built for the node (lib/Importer/FunctionExpansions.cpp).
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

# CenterCropPad over axes [-1, 0] of a 3 x 5 x 4 input to shape [6, 2]: dim
# 2 pads 4 -> 6 (1 before, 1 after), dim 0 crops 3 -> 2 (from 0); dim 1 is
# not named: its pads are 0 and the slice leaves it alone.
# RUN: %python %s center_crop_pad %t/ccp.onnx
# RUN: onnxc --emit=onnx %t/ccp.onnx -o - | FileCheck %s --check-prefix=CCP
# CCP: "onnx.Gather"
# CCP: "onnx.Concat"({{.*}}) <{axis = 0 : i64}> : ({{.*}}) -> tensor<6xi64>
# CCP: "onnx.Pad"
# CCP: "onnx.Slice"
# After the graph passes the pads and the window are constants.
# RUN: onnxc --emit=onnx-graph %t/ccp.onnx -o - | FileCheck %s --check-prefix=CCP-GRAPH
# CCP-GRAPH-DAG: %[[STARTS:.+]] = "onnx.Constant"() <{value = dense<0> : tensor<2xi64>}>
# CCP-GRAPH-DAG: %[[ENDS:.+]] = "onnx.Constant"() <{value = dense<[6, 2]> : tensor<2xi64>}>
# CCP-GRAPH-DAG: %[[AXES:.+]] = "onnx.Constant"() <{value = dense<[2, 0]> : tensor<2xi64>}>
# CCP-GRAPH-DAG: %[[PADS:.+]] = "onnx.Constant"() <{value = dense<[0, 0, 1, 0, 0, 1]> : tensor<6xi64>}>
# CCP-GRAPH: %[[P:.+]] = "onnx.Pad"(%{{.+}}, %[[PADS]]) {{.*}} -> tensor<3x5x6xf32>
# CCP-GRAPH: "onnx.Slice"(%[[P]], %[[STARTS]], %[[ENDS]], %[[AXES]]) {{.*}} -> tensor<2x5x6xf32>

# CausalConvWithState without past_state, float16, SiLU: zeros for the k - 1
# earlier positions, the depthwise Conv (group = channels) in float32, and
# present_state sliced from the end of the concatenation.
# RUN: %python %s causal_conv %t/cc.onnx
# RUN: onnxc --emit=onnx-graph %t/cc.onnx -o - | FileCheck %s --check-prefix=CC
# CC: %[[Z:.+]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<1x3x3xf32>}>
# CC: %[[ZH:.+]] = "onnx.CastLike"(%[[Z]], %arg0)
# CC: %[[P:.+]] = "onnx.Concat"(%[[ZH]], %arg0) <{axis = 2 : i64}> : (tensor<1x3x3xf16>, tensor<1x3x5xf16>) -> tensor<1x3x8xf16>
# CC: "onnx.Conv"({{.*}}) <{{.*}}group = 3 : i64{{.*}}> : (tensor<1x3x8xf32>, tensor<3x1x4xf32>, tensor<3xf32>) -> tensor<1x3x5xf32>
# CC: "onnx.Sigmoid"
# CC: "onnx.CastLike"({{.*}}) {{.*}} -> tensor<1x3x5xf16>
# CC: "onnx.Slice"(%[[P]], {{.*}} : (tensor<1x3x8xf16>, {{.*}}) -> tensor<1x3x3xf16>

# A node without the inputs its expansion reads (found by onnxc-fuzz-import
# for FlexAttention; RotaryEmbedding read input 0 of an empty list the same
# way) is refused by name, for every op that has an expansion.
# RUN: %python %s rotary_empty %t/rotary.onnx
# RUN: not onnxc %t/rotary.onnx -o %t/rotary.so 2>&1 | FileCheck %s --check-prefix=EMPTY
# EMPTY: ai.onnx::RotaryEmbedding-23 (RotaryEmbedding-23 needs its first 3 inputs (X, cos_cache, sin_cache))

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
elif mode == "causal_conv":
    H = TensorProto.FLOAT16
    nodes = [helper.make_node("CausalConvWithState", ["X", "W", "B"], ["Y", "state"], name="cc",
                              activation="silu")]
    inputs = [helper.make_tensor_value_info("X", H, [1, 3, 5]),
              helper.make_tensor_value_info("W", H, [3, 1, 4]),
              helper.make_tensor_value_info("B", H, [3])]
    opset = 27
    F = H
elif mode == "rotary_empty":
    nodes = [helper.make_node("RotaryEmbedding", [], ["Y"], name="rotary")]
    inputs = []
    opset = 23
elif mode == "center_crop_pad":
    nodes = [helper.make_node("CenterCropPad", ["X", "shape"], ["Y"], name="ccp", axes=[-1, 0])]
    inputs = [helper.make_tensor_value_info("X", F, [3, 5, 4])]
    opset = 18
else:
    nodes = [helper.make_node("GroupNormalization", ["X", "scale", "bias"], ["Y"],
                              name="gn", num_groups=2)]
    inputs = [helper.make_tensor_value_info("X", F, [2, 6, 2, 2]),
              helper.make_tensor_value_info("scale", F, [2]),
              helper.make_tensor_value_info("bias", F, [2])]
    opset = 18
inits = []
if mode == "center_crop_pad":
    inits = [helper.make_tensor("shape", TensorProto.INT64, [2], [6, 2])]
outputs = [helper.make_tensor_value_info("Y", F, None)]
if mode == "causal_conv":
    outputs.append(helper.make_tensor_value_info("state", F, None))
graph = helper.make_graph(nodes, mode, inputs, outputs, initializer=inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
model.ir_version = 8
onnx.save(model, path)
