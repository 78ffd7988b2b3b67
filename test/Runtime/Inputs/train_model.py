"""Writes DIR/mlp.onnx (Gemm, Relu, Gemm: 20 -> 32 -> 4, float32
initializers) and a batch of it, DIR/x.npy and DIR/labels.npy (int64), for
onnxc --train and onnxc-run --train-steps.

  train_model.py DIR
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
params = {"w1": (rng.standard_normal((20, 32)) / np.sqrt(20)).astype(np.float32),
          "b1": np.zeros(32, np.float32),
          "w2": (rng.standard_normal((32, 4)) / np.sqrt(32)).astype(np.float32),
          "b2": np.zeros(4, np.float32)}
nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"]),
         helper.make_node("Relu", ["h"], ["r"]),
         helper.make_node("Gemm", ["r", "w2", "b2"], ["logits"])]
graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, 20])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [16, 4])],
                          [numpy_helper.from_array(v, n) for n, v in params.items()])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "mlp.onnx"))
np.save(os.path.join(out, "x.npy"), rng.standard_normal((16, 20)).astype(np.float32))
np.save(os.path.join(out, "labels.npy"), (np.arange(16) % 4).astype(np.int64))
