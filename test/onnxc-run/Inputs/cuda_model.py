"""Writes argv[1]/cuda_model.onnx: Y = ReduceSum(Relu(Erf(X W + B)), axis 1)
with X float32[N, 8] (N dynamic), W and B weights: a contraction, a math
function (libdevice's erff), a broadcast and a reduction."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
w = numpy_helper.from_array(rng.standard_normal((8, 16)).astype(np.float32), "W")
b = numpy_helper.from_array(rng.standard_normal((16,)).astype(np.float32), "B")
axes = numpy_helper.from_array(np.array([1], np.int64), "axes")
nodes = [
    helper.make_node("MatMul", ["X", "W"], ["xw"], name="matmul"),
    helper.make_node("Add", ["xw", "B"], ["xwb"], name="bias"),
    helper.make_node("Erf", ["xwb"], ["e"], name="erf"),
    helper.make_node("Relu", ["e"], ["r"], name="relu"),
    helper.make_node("ReduceSum", ["r", "axes"], ["Y"], name="sum", keepdims=0),
]
graph = helper.make_graph(
    nodes, "cuda_model",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 8])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N"])],
    [w, b, axes])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
with open(os.path.join(sys.argv[1], "cuda_model.onnx"), "wb") as f:
    f.write(model.SerializeToString())
