#!/usr/bin/env python3
"""A model's own training algorithm (TrainingInfoProto) in onnxc --train.

    training_info.py --onnxc ONNXC --work DIR

The model: Y = X W + B. Its TrainingInfoProto: an algorithm (labels T, loss
= mean((Y - T)^2), Gradient of the loss w.r.t. W and B, the ONNX Adagrad
operator with its accumulators and an iteration count among the
algorithm's initializers, update_binding for all five) and an
initialization graph that sets W to other values than its initializer.
onnxc --train compiles the algorithm as the step: 5 steps through
onnxc_train_step must give numpy's losses and state (rtol 1e-4); the state
starts from the initialization graph's W (and after onnxc_train_reset
again); onnxc_train_eval runs Y = X W + B on the trained W and B. Bad
bindings are refused at compile time.
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
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "utils"))
from train_example import Trainer  # noqa: E402  (the ctypes binding)

RNG = np.random.default_rng(11)
N, K, M = 8, 5, 3
LR, EPS = 0.1, 1e-6


def model(update=None, init_binding=None):
    w = RNG.standard_normal((K, M)).astype(np.float32)
    b = np.zeros(M, np.float32)
    w0 = (RNG.standard_normal((K, M)) * 0.5).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["X", "W"], ["XW"]), helper.make_node("Add", ["XW", "B"], ["Y"])],
        "linear", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [N, K])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [N, M])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")])
    T = "ai.onnx.preview.training"
    algorithm = helper.make_graph(
        [helper.make_node("Sub", ["Y", "T"], ["D"]),
         helper.make_node("Mul", ["D", "D"], ["D2"]),
         helper.make_node("ReduceMean", ["D2"], ["loss"], keepdims=0),
         helper.make_node("Gradient", ["W", "B", "X", "T"], ["dW", "dB"], domain=T,
                          xs=["W", "B"], zs=["X", "T"], y="loss"),
         helper.make_node("Adagrad", ["R", "it", "W", "B", "dW", "dB", "H_W", "H_B"],
                          ["W_new", "B_new", "H_W_new", "H_B_new"], domain=T, epsilon=EPS),
         helper.make_node("Add", ["it", "one"], ["it_new"])],
        "algorithm", [helper.make_tensor_value_info("T", TensorProto.FLOAT, [N, M])],
        [helper.make_tensor_value_info("loss", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("W_new", TensorProto.FLOAT, [K, M]),
         helper.make_tensor_value_info("B_new", TensorProto.FLOAT, [M]),
         helper.make_tensor_value_info("H_W_new", TensorProto.FLOAT, [K, M]),
         helper.make_tensor_value_info("H_B_new", TensorProto.FLOAT, [M]),
         helper.make_tensor_value_info("it_new", TensorProto.INT64, [])],
        [numpy_helper.from_array(np.array(LR, np.float32), "R"),
         numpy_helper.from_array(np.array(0, np.int64), "it"),
         numpy_helper.from_array(np.array(1, np.int64), "one"),
         numpy_helper.from_array(np.zeros((K, M), np.float32), "H_W"),
         numpy_helper.from_array(np.zeros(M, np.float32), "H_B")])
    initialization = helper.make_graph(
        [helper.make_node("Constant", [], ["W_init"], value=numpy_helper.from_array(w0))],
        "initialization", [], [helper.make_tensor_value_info("W_init", TensorProto.FLOAT, [K, M])])
    info = helper.make_training_info(
        algorithm, update or [("W", "W_new"), ("B", "B_new"), ("H_W", "H_W_new"), ("H_B", "H_B_new"),
                              ("it", "it_new")],
        initialization, init_binding or [("W", "W_init")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(T, 1)])
    m.training_info.append(info)
    return m, w0, b


def compile_model(onnxc, m, path):
    onnx.save(m, path + ".onnx")
    p = subprocess.run([onnxc, path + ".onnx", "--train", "-o", path + ".so"], capture_output=True, text=True)
    return p.returncode, p.stderr


def reference(w, b, xs, ts):
    """numpy: the losses and the final W, B, H_W, H_B of Adagrad steps."""
    hw, hb, losses = np.zeros_like(w), np.zeros_like(b), []
    w, b = w.astype(np.float64), b.astype(np.float64)
    for x, t in zip(xs, ts):
        d = x @ w + b - t
        losses.append(np.mean(d * d))
        gy = 2 * d / d.size
        gw, gb = x.T @ gy, gy.sum(0)
        hw, hb = hw + gw * gw, hb + gb * gb
        w = w - LR * gw / (np.sqrt(hw) + EPS)
        b = b - LR * gb / (np.sqrt(hb) + EPS)
    return losses, {"W": w, "B": b, "H_W": hw, "H_B": hb}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    m, w0, b0 = model()
    rc, err = compile_model(args.onnxc, m, os.path.join(args.work, "ti"))
    if rc:
        print("FAIL compile: " + err)
        return 1
    lib = Trainer(os.path.join(args.work, "ti.so"))
    names = [lib.lib.onnxc_train_state_name(i).decode() for i in range(lib.lib.onnxc_train_num_state())]
    print("state: %s; inputs before it: %d" % (",".join(names), lib.lib.onnxc_train_num_inputs()))
    problems = []
    start = np.frombuffer(lib.state()["W"], np.float32).reshape(K, M)
    if not np.array_equal(start, w0):
        problems.append("the state does not start from the initialization graph's W")
    xs = [RNG.standard_normal((N, K)).astype(np.float32) for _ in range(5)]
    ts = [RNG.standard_normal((N, M)).astype(np.float32) for _ in range(5)]
    losses = [lib.step(x, t) for x, t in zip(xs, ts)]
    ref_losses, ref = reference(w0, b0, xs, ts)
    state = lib.state()
    if not np.allclose(losses, ref_losses, rtol=1e-4, atol=1e-6):
        problems.append("losses %s, numpy %s" % (losses, ref_losses))
    for n, v in ref.items():
        got = np.frombuffer(state[n], np.float32).reshape(v.shape)
        if not np.allclose(got, v, rtol=1e-4, atol=1e-6):
            problems.append("%s differs from numpy by %g" % (n, np.max(np.abs(got - v))))
    if int(np.frombuffer(state["it"], np.int64)[0]) != 5:
        problems.append("it = %s after 5 steps" % np.frombuffer(state["it"], np.int64))
    y = lib.eval(xs[0])[0]
    w = np.frombuffer(state["W"], np.float32).reshape(K, M)
    b = np.frombuffer(state["B"], np.float32)
    if not np.allclose(y, xs[0] @ w + b, rtol=1e-5, atol=1e-6):
        problems.append("eval is not X W + B on the trained state")
    lib.lib.onnxc_train_reset()
    state = lib.state()
    if (not np.array_equal(np.frombuffer(state["W"], np.float32).reshape(K, M), w0) or
            int(np.frombuffer(state["it"], np.int64)[0]) != 0):
        problems.append("reset does not run the initialization graph again")
    print("%s training info: %s" % ("FAIL" if problems else "PASS", "; ".join(problems) or
                                    "starts from the initialization graph, 5 Adagrad steps match numpy, "
                                    "eval on the trained state, reset initializes again"))

    # Bad bindings: compile-time errors.
    for what, update, init in [
            ("key", [("Q", "W_new")], None),
            ("value", [("W", "nothing")], None),
            ("init", None, [("R", "W_init")])]:
        m, _, _ = model(update, init)
        rc, err = compile_model(args.onnxc, m, os.path.join(args.work, "bad-" + what))
        print("bad %s: rc %d: %s" % (what, rc, err.strip().splitlines()[-1] if err.strip() else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
