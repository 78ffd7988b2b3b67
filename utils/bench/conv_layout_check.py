#!/usr/bin/env python3
"""Random conv chains compiled in both layouts must agree.

  conv_layout_check.py [--seeds A:B] [--onnxc build/bin/onnxc]
                       [--onnxc-run build/bin/onnxc-run]

For each seed, builds a small model with python3-onnx: an input of 1-3
images with 1, 3, 5 or 16-80 channels, then 1-4 ops drawn from Conv (kernel
1-5, non-square, strides 1-3, dilations 1-2, asymmetric pads, with or
without bias, groups 2-3 where channels allow), depthwise Conv, MaxPool,
AveragePool (count_include_pad 0 and 1), Relu and per-channel Add. It
compiles the model with `--layout=nchw` and `--layout=nchwc`, runs both on
the same random inputs and compares |nchwc - nchw| <= 1e-3 |nchw| + 1e-5
max|nchw|: the two layouts sum in different orders, so an output that
cancels (a small sum of large terms) differs by rounding relative to the
output's scale, not to itself. Models whose NCHW build
fails to compile or run (windows larger than their input) are skipped.
A check for changes to onnxc-conv-nchwc and the runtime's kernels, not a
test of the suite. Exit status 1 if any seed disagrees.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build_model(seed):
    r = random.Random(seed)
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def weight(name, shape):
        inits.append(numpy_helper.from_array(
            (rng.standard_normal(shape) * 0.2).astype(np.float32), name))
        return name

    n = r.choice([1, 1, 2, 3])
    c = r.choice([1, 3, 5, 16, 16, 32, 48, 80])
    h, w = r.randint(5, 20), r.randint(5, 20)
    shape = [n, c, h, w]
    x = "x"
    for i in range(r.randint(1, 4)):
        kind = r.choice(["conv", "conv", "conv", "dw", "pool", "avg", "relu",
                         "add", "group"])
        y = "t%d" % i
        if kind in ("conv", "group"):
            f = 16 * r.choice([1, 2, 3, 4, 5])
            kh = r.choice([1, 1, 3, 3, 5])
            kw = r.choice([kh, kh, 1, 3])
            s, d = r.choice([1, 1, 2, 3]), r.choice([1, 1, 2])
            g = 1
            if kind == "group":
                g = r.choice([2, 3])
                if c % (16 * g) or f % (16 * g):
                    g = 1
            pads = [r.randint(0, kh // 2 * d), r.randint(0, kw // 2 * d),
                    r.randint(0, kh // 2 * d), r.randint(0, kw // 2 * d)]
            ins = [x, weight(y + "w", [f, c // g, kh, kw])]
            if r.random() < 0.6:
                ins.append(weight(y + "b", [f]))
            nodes.append(helper.make_node("Conv", ins, [y], pads=pads,
                                          strides=[s, s], dilations=[d, d],
                                          group=g))
            c = f
        elif kind == "dw":
            s = r.choice([1, 2])
            nodes.append(helper.make_node(
                "Conv", [x, weight(y + "w", [c, 1, 3, 3])], [y],
                pads=[1, 1, 1, 1], strides=[s, s], group=c))
        elif kind == "pool":
            nodes.append(helper.make_node(
                "MaxPool", [x], [y], kernel_shape=[3, 3],
                strides=[r.choice([1, 2])] * 2, pads=[1, 1, 1, 1]))
        elif kind == "avg":
            nodes.append(helper.make_node(
                "AveragePool", [x], [y], kernel_shape=[2, 2], strides=[1, 1],
                pads=[0, 0, 1, 1], count_include_pad=r.choice([0, 1])))
        elif kind == "relu":
            nodes.append(helper.make_node("Relu", [x], [y]))
        else:
            nodes.append(helper.make_node(
                "Add", [x, weight(y + "c", [c, 1, 1])], [y]))
        x = y
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def compare(expected_dir, got_dir):
    """The largest |got - expected| / (1e-3 |expected| + 1e-5 max|expected|)
    over all outputs, or None if they do not match in number or shape."""
    worst = 0.0
    names = sorted(os.listdir(expected_dir))
    if names != sorted(os.listdir(got_dir)):
        return None
    for name in names:
        tensors = []
        for d in (expected_dir, got_dir):
            t = onnx.TensorProto()
            with open(os.path.join(d, name), "rb") as f:
                t.ParseFromString(f.read())
            tensors.append(numpy_helper.to_array(t).astype(np.float64))
        e, g = tensors
        if e.shape != g.shape:
            return None
        if e.size == 0:
            continue
        tol = 1e-3 * np.abs(e) + 1e-5 * np.abs(e).max() + 1e-12
        worst = max(worst, float((np.abs(g - e) / tol).max()))
    return worst


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1:101", help="range A:B of seeds")
    ap.add_argument("--onnxc", default=os.path.join(root, "build/bin/onnxc"))
    ap.add_argument("--onnxc-run", default=os.path.join(root, "build/bin/onnxc-run"))
    args = ap.parse_args()
    first, last = (int(v) for v in args.seeds.split(":"))
    agreed = skipped = 0
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "m.onnx")
        plain, blocked = os.path.join(tmp, "n.so"), os.path.join(tmp, "c.so")
        expected = os.path.join(tmp, "expected")

        def run(cmd):
            return subprocess.run(cmd, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)

        for seed in range(first, last):
            onnx.save(build_model(seed), model)
            if run([args.onnxc, model, "--layout=nchw", "-o", plain]).returncode:
                skipped += 1
                continue
            subprocess.run(["rm", "-rf", expected])
            if run([args.onnxc_run, plain, "--random-inputs", "--save-outputs",
                    expected]).returncode:
                skipped += 1
                continue
            out = run([args.onnxc, model, "--layout=nchwc", "-o", blocked])
            if out.returncode:
                failed.append((seed, "nchwc compile: " + out.stdout.strip()[-300:]))
                continue
            got = os.path.join(tmp, "got")
            subprocess.run(["rm", "-rf", got])
            out = run([args.onnxc_run, blocked, "--random-inputs", "--save-outputs",
                       got])
            if out.returncode:
                failed.append((seed, "nchwc run: " + out.stdout.strip()[-300:]))
                continue
            worst = compare(expected, got)
            if worst is None or worst > 1.0:
                failed.append((seed, "outputs differ (error / tolerance %s)" % worst))
            else:
                agreed += 1
    for seed, why in failed:
        print("seed %d: %s" % (seed, why))
    print("%d agree, %d differ, %d skipped (NCHW build failed)"
          % (agreed, len(failed), skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
