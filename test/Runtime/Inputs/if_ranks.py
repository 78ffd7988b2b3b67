#!/usr/bin/env python3
"""An If whose branches return tensors of different ranks, end to end.

    if_ranks.py --onnxc ONNXC --work DIR

then: X reshaped to 2 x 3; else: X (6). After the If: the rank (Size of
Shape), the element count (ReduceProd of Shape) and the sum of the result,
each a scalar whatever the branch. onnx-simplify moves them into both
branches (SinkContinuationIntoIf); the outputs must be numpy's for both
conditions.

Then a model whose output is such an If's result (rank -1 in the
signature): then X reshaped to 2 x 3, else an inner If on a second
condition (X, or X reshaped to 1 x 1 x 6), beside a ranked output. Run
through onnxc_run for the four conditions, and through onnxc-run against
expected .pb files.
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
    ap.add_argument("--onnxc-run", required=True)
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
    return 0 if ok and output_rank(args) else 1


def output_rank(args):
    F = TensorProto.FLOAT
    shape = lambda name, dims: numpy_helper.from_array(np.array(dims, np.int64), name)
    inner = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e1"])], "inner_then", [],
        [helper.make_tensor_value_info("e1", F, [6])])
    inner_else = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape116"], ["e2"])], "inner_else", [],
        [helper.make_tensor_value_info("e2", F, [1, 1, 6])])
    then = helper.make_graph([helper.make_node("Reshape", ["x", "shape23"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", F, [2, 3])])
    other = helper.make_graph(
        [helper.make_node("If", ["cond2"], ["e"], then_branch=inner, else_branch=inner_else)],
        "else", [], [helper.make_tensor_value_info("e", F, None)])
    nodes = [helper.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=other),
             helper.make_node("ReduceSum", ["x"], ["total"], keepdims=0)]
    graph = helper.make_graph(
        nodes, "if_output",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("cond2", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", F, [6])],
        [helper.make_tensor_value_info("y", F, None), helper.make_tensor_value_info("total", F, [])],
        [shape("shape23", [2, 3]), shape("shape116", [1, 1, 6])])
    path = os.path.join(args.work, "if_output")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path + ".onnx")
    p = subprocess.run([args.onnxc, path + ".onnx", "-o", path + ".so"], capture_output=True, text=True)
    if p.returncode:
        print("FAIL compile if_output: " + p.stderr.strip())
        return False
    lib = Model(path + ".so")
    print("output ranks: %d %d" % (lib.lib.onnxc_output_rank(0), lib.lib.onnxc_output_rank(1)))
    x = np.arange(6, dtype=np.float32) - 2.5
    ok = True
    for cond, cond2, dims in [(True, True, (2, 3)), (True, False, (2, 3)), (False, True, (6,)),
                              (False, False, (1, 1, 6))]:
        status, out = lib.run([np.array(cond), np.array(cond2), x])
        good = (not status and out[0].shape == dims and np.array_equal(out[0].ravel(), x)
                and out[1] == x.sum())
        ok &= good
        print("%s cond=%s cond2=%s: %s" % ("PASS" if good else "FAIL", cond, cond2,
                                           out[0].shape if not status else status))
    # onnxc-run: inputs and expected outputs as TensorProto files.
    for name, value in [("cond", np.array(False)), ("cond2", np.array(False)), ("x", x)]:
        with open(os.path.join(args.work, name + ".pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, name).SerializeToString())
    for name, value in [("y", x.reshape(1, 1, 6)), ("total", np.array(x.sum(), np.float32))]:
        with open(os.path.join(args.work, "expected_" + name + ".pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, name).SerializeToString())
    run = [args.onnxc_run, path + ".so"]
    for name in ["cond", "cond2", "x"]:
        run += ["--input", "%s=%s" % (name, os.path.join(args.work, name + ".pb"))]
    for name in ["y", "total"]:
        run += ["--expected", "%s=%s" % (name, os.path.join(args.work, "expected_" + name + ".pb"))]
    p = subprocess.run(run, capture_output=True, text=True)
    print("onnxc-run rc=%d" % p.returncode)
    print(p.stdout.strip())
    if p.returncode:
        print(p.stderr.strip())
    return ok and p.returncode == 0


if __name__ == "__main__":
    sys.exit(main())
