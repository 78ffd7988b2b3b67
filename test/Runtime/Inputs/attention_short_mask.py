#!/usr/bin/env python3
"""Attention-24 with an attn_mask shorter than the keys, end to end.

    attention_short_mask.py --onnxc ONNXC --work DIR

The mask is padded to the keys' length with -inf (a bool mask with false),
as ONNX's reference does: with a static key length the importer pads by a
constant, with a dynamic one (the K/V sequence a symbolic dim) by a length
computed at run time. Each case is compared with numpy.
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "utils", "gpu"))
from device_run import Model  # noqa: E402  (the ctypes binding of the C API)

RNG = np.random.default_rng(3)


def reference(q, k, v, mask):
    pad = k.shape[2] - mask.shape[-1]
    if mask.dtype == np.bool_:
        mask = np.where(np.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, pad)]), 0.0, -np.inf)
    else:
        mask = np.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, pad)], constant_values=-np.inf)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1]) + mask
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def case(onnxc, work, name, kv_dim, mask_type, mask):
    q = RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)
    k = RNG.standard_normal((1, 2, 5, 4)).astype(np.float32)
    v = RNG.standard_normal((1, 2, 5, 4)).astype(np.float32)
    F = TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node("Attention", ["Q", "K", "V", "M"], ["Y"], name="attn")], name,
        [helper.make_tensor_value_info("Q", F, [1, 2, 3, 4]),
         helper.make_tensor_value_info("K", F, [1, 2, kv_dim, 4]),
         helper.make_tensor_value_info("V", F, [1, 2, kv_dim, 4]),
         helper.make_tensor_value_info("M", mask_type, list(mask.shape))],
        [helper.make_tensor_value_info("Y", F, None)])
    path = os.path.join(work, name)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)]), path + ".onnx")
    p = subprocess.run([onnxc, path + ".onnx", "-o", path + ".so"], capture_output=True, text=True)
    if p.returncode:
        return "FAIL %s: %s" % (name, p.stderr.strip())
    status, out = Model(path + ".so").run([q, k, v, mask])
    if status:
        return "FAIL %s: %s" % (name, out)
    ref = reference(q, k, v, mask)
    err = np.max(np.abs(out[0] - ref))
    return "%s %s: max abs error %.2g" % ("PASS" if err < 1e-5 else "FAIL", name, err)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    lines = [
        case(args.onnxc, args.work, "static_float", 5, TensorProto.FLOAT,
             RNG.standard_normal((1, 1, 3, 2)).astype(np.float32)),
        case(args.onnxc, args.work, "static_bool", 5, TensorProto.BOOL,
             np.array([[[[True, False, True]] * 3]])),
        case(args.onnxc, args.work, "dynamic_float", "T", TensorProto.FLOAT,
             RNG.standard_normal((1, 2, 3, 3)).astype(np.float32)),
        case(args.onnxc, args.work, "full_length", 5, TensorProto.FLOAT,
             RNG.standard_normal((3, 5)).astype(np.float32)),
    ]
    print("\n".join(lines))
    return 0 if all(line.startswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
