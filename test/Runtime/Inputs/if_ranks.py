#!/usr/bin/env python3
"""An If whose branches return tensors of different ranks, end to end.

    if_ranks.py --onnxc ONNXC --work DIR

then: X reshaped to 2 x 3; else: X (6). After the If: the rank (Size of
Shape), the element count (ReduceProd of Shape) and the sum of the result,
each a scalar whatever the branch. onnx-simplify moves them into both
branches (SinkContinuationIntoIf); the outputs must be numpy's for both
conditions.
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "utils", "gpu"))
from device_run import Model  # noqa: E402  (the ctypes binding of the C API)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    F, I = TensorProto.FLOAT, TensorProto.INT64
    then = helper.make_graph([helper.make_node("Reshape", ["x", "shape23"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", F, [2, 3])])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [],
                              [helper.make_tensor_value_info("e", F, [6])])
    nodes = [helper.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=other),
             helper.make_node("Shape", ["y"], ["s"]),
             helper.make_node("Size", ["s"], ["rank"]),
             helper.make_node("ReduceProd", ["s"], ["count"], keepdims=0),
             helper.make_node("ReduceSum", ["y"], ["total"], keepdims=0)]
    graph = helper.make_graph(
        nodes, "if_ranks",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", F, [6])],
        [helper.make_tensor_value_info("rank", I, []), helper.make_tensor_value_info("count", I, []),
         helper.make_tensor_value_info("total", F, [])],
        [numpy_helper.from_array(np.array([2, 3], np.int64), "shape23")])
    path = os.path.join(args.work, "if_ranks")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path + ".onnx")
    p = subprocess.run([args.onnxc, path + ".onnx", "-o", path + ".so"], capture_output=True, text=True)
    if p.returncode:
        print("FAIL compile: " + p.stderr.strip())
        return 1
    lib = Model(path + ".so")
    x = np.arange(6, dtype=np.float32) * 0.5
    ok = True
    for cond, rank in [(True, 2), (False, 1)]:
        status, out = lib.run([np.array(cond), x])
        got = None if status else (int(out[0]), int(out[1]), float(out[2]))
        want = (rank, 6, float(x.sum()))
        ok &= got == want
        print("%s cond=%s: %s (expected %s)" % ("PASS" if got == want else "FAIL", cond,
                                                out if status else got, want))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
