"""Loop cases for test/Runtime/control-flow.test: writes DIR/model.onnx and
DIR/test_data_set_0/{input,output}_K.pb (numpy computes the expected values).

The Loop runs until its condition turns false (no trip count), so its scan
output is collected at run time; the scan element's length is dynamic (the
input's), and a carried value grows by one element per iteration.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL

# body(i, cond, acc, grown): acc2 = acc * 2; grown2 = Concat(grown, [i]);
# cond2 = ReduceSum(acc2) < limit; scan = acc2
body = helper.make_graph(
    [
        helper.make_node("Mul", ["acc", "two"], ["acc2"]),
        helper.make_node("Unsqueeze", ["i", "zero"], ["i1"]),
        helper.make_node("Cast", ["i1"], ["i1f"], to=F),
        helper.make_node("Concat", ["grown", "i1f"], ["grown2"], axis=0),
        helper.make_node("ReduceSum", ["acc2"], ["total"], keepdims=0),
        helper.make_node("Less", ["total", "limit"], ["cond2"]),
        helper.make_node("Identity", ["acc2"], ["scan"]),
    ],
    "body",
    [helper.make_tensor_value_info("i", I64, []),
     helper.make_tensor_value_info("cond", B, []),
     helper.make_tensor_value_info("acc", F, ["n"]),
     helper.make_tensor_value_info("grown", F, [None])],
    [helper.make_tensor_value_info("cond2", B, []),
     helper.make_tensor_value_info("acc2", F, ["n"]),
     helper.make_tensor_value_info("grown2", F, [None]),
     helper.make_tensor_value_info("scan", F, ["n"])],
    [numpy_helper.from_array(np.array(2, np.float32), "two"),
     numpy_helper.from_array(np.array([0], np.int64), "zero")])
graph = helper.make_graph(
    [helper.make_node("Constant", [], ["start"],
                      value=numpy_helper.from_array(np.array([], np.float32))),
     helper.make_node("Constant", [], ["go"],
                      value=numpy_helper.from_array(np.array(True))),
     helper.make_node("Loop", ["", "go", "x", "start"],
                      ["acc_out", "grown_out", "scans"], body=body)],
    "while_scan",
    [helper.make_tensor_value_info("x", F, ["n"]),
     helper.make_tensor_value_info("limit", F, [])],
    [helper.make_tensor_value_info("acc_out", F, ["n"]),
     helper.make_tensor_value_info("grown_out", F, [None]),
     helper.make_tensor_value_info("scans", F, [None, "n"])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "model.onnx"))

x = np.array([0.5, 1.0, 0.25], np.float32)
limit = np.array(40.0, np.float32)
acc, grown, scans, i = x, np.zeros(0, np.float32), [], 0
while True:
    acc = acc * 2
    grown = np.concatenate([grown, np.array([i], np.float32)])
    scans.append(acc)
    i += 1
    if not acc.sum() < limit:
        break
for k, a in enumerate([x, limit]):
    onnx.save_tensor(numpy_helper.from_array(a),
                     os.path.join(out, "test_data_set_0", f"input_{k}.pb"))
for k, a in enumerate([acc, grown, np.stack(scans)]):
    onnx.save_tensor(numpy_helper.from_array(a),
                     os.path.join(out, "test_data_set_0", f"output_{k}.pb"))
