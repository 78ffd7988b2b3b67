#!/usr/bin/env python3
"""Models with run-time dims for utils/check_cost.py, where checks remain.

  make_check_cost_models.py OUTDIR

Writes OUTDIR/embed_mlp.onnx: token ids int64[B, S] -> Gather from an
8192 x 256 embedding table -> Reshape to [B*S, 256] (shape computed at run
time) -> MatMul 256x512 -> Relu -> MatMul 512x256 -> Add the embedding ->
Reshape back to [B, S, 256]. Its checks: the Gather's index range, the
Reshapes' element counts, the MatMuls' contraction dims and the Add's
broadcast. And OUTDIR/cnn_batch.onnx: the bundled example CNN with a
symbolic batch dim N.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_example_model  # noqa: E402


def embed_mlp():
    rng = np.random.default_rng(0)
    table = rng.standard_normal((8192, 256)).astype(np.float32)
    w1 = (rng.standard_normal((256, 512)) / 16).astype(np.float32)
    w2 = (rng.standard_normal((512, 256)) / 23).astype(np.float32)
    inits = [numpy_helper.from_array(table, "table"), numpy_helper.from_array(w1, "w1"),
             numpy_helper.from_array(w2, "w2"),
             numpy_helper.from_array(np.array([-1, 256], np.int64), "flat_shape"),
             numpy_helper.from_array(np.array([0, 2], np.int64), "bs_idx"),
             numpy_helper.from_array(np.array([256], np.int64), "width")]
    nodes = [
        helper.make_node("Gather", ["table", "ids"], ["emb"], name="embed", axis=0),
        helper.make_node("Reshape", ["emb", "flat_shape"], ["flat"], name="flatten"),
        helper.make_node("MatMul", ["flat", "w1"], ["h"], name="fc1"),
        helper.make_node("Relu", ["h"], ["hr"], name="relu"),
        helper.make_node("MatMul", ["hr", "w2"], ["o"], name="fc2"),
        helper.make_node("Add", ["o", "flat"], ["res"], name="residual"),
        helper.make_node("Shape", ["ids"], ["ids_shape"], name="shape"),
        helper.make_node("Concat", ["ids_shape", "width"], ["out_shape"], name="out_shape",
                         axis=0),
        helper.make_node("Reshape", ["res", "out_shape"], ["y"], name="unflatten"),
    ]
    graph = helper.make_graph(
        nodes, "embed_mlp",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["B", "S"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["B", "S", 256])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def cnn_batch():
    m = make_example_model.make_model()
    for v in list(m.graph.input) + list(m.graph.output):
        d = v.type.tensor_type.shape.dim[0]
        d.Clear()
        d.dim_param = "N"
    return m


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    onnx.save(embed_mlp(), os.path.join(out, "embed_mlp.onnx"))
    onnx.save(cnn_batch(), os.path.join(out, "cnn_batch.onnx"))


if __name__ == "__main__":
    main()
