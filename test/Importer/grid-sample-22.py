# The dialect models GridSample at version 22. A GridSample-16 node's modes
# are renamed on import (bilinear -> linear, bicubic -> cubic; an absent mode
# is the same default either way).
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx %t.onnx -o - | FileCheck %s
# CHECK: "onnx.GridSample"(%{{.*}}, %{{.*}}) <{align_corners = 0 : i64, mode = "cubic", padding_mode = "zeros"}>
# CHECK: "onnx.GridSample"(%{{.*}}, %{{.*}}) <{align_corners = 0 : i64, mode = "linear", padding_mode = "border"}>

import sys

import onnx
from onnx import TensorProto, helper

graph = helper.make_graph(
    [helper.make_node("GridSample", ["X", "G"], ["Y"], mode="bicubic"),
     helper.make_node("GridSample", ["X", "G"], ["Z"], padding_mode="border")],
    "gridsample16",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, 4, 4]),
     helper.make_tensor_value_info("G", TensorProto.FLOAT, [1, 3, 3, 2])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None),
     helper.make_tensor_value_info("Z", TensorProto.FLOAT, None)],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
