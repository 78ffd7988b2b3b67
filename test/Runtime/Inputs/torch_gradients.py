#!/usr/bin/env python3
"""Gradients of an MLP and a CNN by onnxc against PyTorch's autograd.

    torch_gradients.py --onnxc ONNXC --work DIR

Each network is written as an ONNX model (opset 17) whose loss is
SoftmaxCrossEntropyLoss (mean) of its logits and integer labels, with an
ai.onnx.preview.training Gradient of the loss with respect to every
parameter; onnxc compiles it and the shared object runs through the C API.
The same network in PyTorch (torch.nn.functional, the same float32
parameters and batch) gives the reference by loss.backward(). Prints the
worst relative error per network and PASS when every gradient matches to
rtol 1e-4 (atol 1e-6).
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "utils", "gpu"))
from device_run import Model  # noqa: E402  (the ctypes binding of the C API)

RTOL, ATOL = 1e-4, 1e-6
RNG = np.random.default_rng(11)


def param(*shape, scale=None):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
    scale = scale or 1.0 / np.sqrt(fan_in)
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def mlp():
    params = {"w1": param(20, 32), "b1": param(32, scale=0.1), "w2": param(32, 10),
              "b2": param(10, scale=0.1)}
    x = RNG.standard_normal((8, 20)).astype(np.float32)
    labels = RNG.integers(0, 10, 8).astype(np.int64)
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Gemm", ["r", "w2", "b2"], ["logits"]),
    ]

    def forward(t):
        h = F.relu(t["x"] @ t["w1"] + t["b1"])
        return h @ t["w2"] + t["b2"]
    return "mlp", nodes, params, x, labels, forward


def cnn():
    params = {"c1": param(8, 3, 3, 3), "c1b": param(8, scale=0.1),
              "bn_s": (1 + 0.1 * RNG.standard_normal(8)).astype(np.float32),
              "bn_b": param(8, scale=0.1),
              "c2": param(16, 8, 3, 3), "c2b": param(16, scale=0.1),
              "fc": param(10, 16), "fcb": param(10, scale=0.1)}
    x = RNG.standard_normal((4, 3, 12, 12)).astype(np.float32)
    labels = RNG.integers(0, 10, 4).astype(np.int64)
    nodes = [
        helper.make_node("Conv", ["x", "c1", "c1b"], ["a1"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["a1", "bn_s", "bn_b", "bn_mean", "bn_var"],
                         ["n1", "run_mean", "run_var"], training_mode=1),
        helper.make_node("Relu", ["n1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "c2", "c2b"], ["a2"], strides=[2, 2]),
        helper.make_node("Relu", ["a2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "fc", "fcb"], ["logits"], transB=1),
    ]

    def forward(t):
        a1 = F.conv2d(t["x"], t["c1"], t["c1b"], padding=1)
        n1 = F.batch_norm(a1, torch.zeros(8), torch.ones(8), t["bn_s"], t["bn_b"], training=True)
        p1 = F.max_pool2d(F.relu(n1), 2)
        r2 = F.relu(F.conv2d(p1, t["c2"], t["c2b"], stride=2))
        f = F.adaptive_avg_pool2d(r2, 1).flatten(1)
        return F.linear(f, t["fc"], t["fcb"])
    return "cnn", nodes, params, x, labels, forward


def build(name, nodes, params, x, labels):
    names = list(params)
    nodes = list(nodes) + [
        helper.make_node("SoftmaxCrossEntropyLoss", ["logits", "labels"], ["loss"]),
        helper.make_node("Gradient", names, ["grad_" + n for n in names],
                         domain="ai.onnx.preview.training", xs=names, y="loss"),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape),
              helper.make_tensor_value_info("labels", TensorProto.INT64, labels.shape)]
    inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, v.shape) for n, v in params.items()]
    inits = []
    if name == "cnn":
        inits = [numpy_helper.from_array(np.zeros(8, np.float32), "bn_mean"),
                 numpy_helper.from_array(np.ones(8, np.float32), "bn_var")]
    outputs = [helper.make_tensor_value_info("loss", TensorProto.FLOAT, [])]
    outputs += [helper.make_tensor_value_info("grad_" + n, TensorProto.FLOAT, v.shape)
                for n, v in params.items()]
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.preview.training", 1)])


def check(net, onnxc, work):
    name, nodes, params, x, labels, forward = net
    path = os.path.join(work, name + ".onnx")
    onnx.save(build(name, nodes, params, x, labels), path)
    lib = os.path.join(work, name + ".so")
    p = subprocess.run([onnxc, path, "-o", lib], capture_output=True, text=True)
    if p.returncode != 0:
        return False, "onnxc failed: " + p.stderr.strip()
    status, out = Model(lib).run([x, labels] + list(params.values()))
    if status != 0:
        return False, "run failed: " + out

    t = {n: torch.tensor(v, requires_grad=True) for n, v in params.items()}
    t["x"] = torch.tensor(x)
    loss = F.cross_entropy(forward(t), torch.tensor(labels))
    loss.backward()
    problems = []
    worst = 0.0
    if abs(float(out[0]) - float(loss)) > ATOL + RTOL * abs(float(loss)):
        problems.append("loss %.7g, PyTorch %.7g" % (float(out[0]), float(loss)))
    for (n, _), got in zip(params.items(), out[1:]):
        ref = t[n].grad.numpy()
        err = np.abs(got - ref)
        worst = max(worst, float((err / (np.abs(ref) + ATOL / RTOL)).max()))
        bad = err > ATOL + RTOL * np.abs(ref)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            problems.append("d loss/d %s[%d]: %.7g, PyTorch %.7g" % (n, i, got.flat[i], ref.flat[i]))
    size = sum(v.size for v in params.values())
    return not problems, "%d parameters, loss %.6f, worst relative error %.1e%s" % (
        size, float(out[0]), worst, "; " + "; ".join(problems) if problems else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    torch.manual_seed(0)
    failed = 0
    for net in (mlp(), cnn()):
        ok, detail = check(net, args.onnxc, args.work)
        print("%s %s: %s" % ("PASS" if ok else "FAIL", net[0], detail))
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
