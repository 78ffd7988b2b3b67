"""A QDQ-quantized network as ONNX Runtime's quantization tool writes it:
the float input quantized (uint8), then Conv (int8 weights per output
channel, int32 bias of scale x_scale * w_scale) -> Relu -> Q/DQ, a second
such Conv, Flatten, MatMul (int8 weights) -> Q/DQ, the output float. The
scales come from the float model's ranges on a calibration batch (min/max,
symmetric weights), as the tool's MinMax calibration computes them.

  qdq_model.py OUT  ->  OUT/qdq.onnx, OUT/ds/input_0.pb (a batch of 8)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(os.path.join(out, "ds"), exist_ok=True)
rng = np.random.default_rng(3)

N, C, H = 8, 3, 12
w1 = rng.normal(0, 0.3, (8, C, 3, 3)).astype(np.float32)
b1 = rng.normal(0, 0.1, 8).astype(np.float32)
w2 = rng.normal(0, 0.2, (8, 8, 3, 3)).astype(np.float32)
b2 = rng.normal(0, 0.1, 8).astype(np.float32)
w3 = rng.normal(0, 0.05, (8 * (H // 2) * (H // 2), 10)).astype(np.float32)
x = rng.uniform(-1, 1, (N, C, H, H)).astype(np.float32)


def conv(x, w, b, stride=1, pad=1):
    n, c, h, ww = x.shape
    f, _, k, _ = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - k) // stride + 1
    y = np.zeros((n, f, oh, oh), np.float64)
    for i in range(k):
        for j in range(k):
            patch = xp[:, :, i:i + stride * oh:stride, j:j + stride * oh:stride]
            y += np.einsum("nchw,fc->nfhw", patch, w[:, :, i, j])
    return (y + b[None, :, None, None]).astype(np.float32)


def uint8_params(a):
    lo, hi = min(float(a.min()), 0.0), max(float(a.max()), 0.0)
    scale = (hi - lo) / 255.0
    return np.float32(scale), np.uint8(round(-lo / scale))


def weight_params(w, axis):
    other = tuple(d for d in range(w.ndim) if d != axis)
    return (np.abs(w).max(axis=other) / 127.0).astype(np.float32)


# Calibration: the float network's activation ranges.
a1 = np.maximum(conv(x, w1, b1), 0)
a2 = np.maximum(conv(a1, w2, b2, stride=2), 0)
a3 = a2.reshape(N, -1) @ w3
xs, xz = uint8_params(x)
s1, z1 = uint8_params(a1)
s2, z2 = uint8_params(a2)
s3, z3 = uint8_params(a3)
ws1, ws2 = weight_params(w1, 0), weight_params(w2, 0)
ws3 = np.float32(np.abs(w3).max() / 127.0)

inits = []


def const(name, value):
    inits.append(numpy_helper.from_array(np.asarray(value), name))
    return name


def q_weights(name, w, scale, axis):
    shape = [-1 if d == axis else 1 for d in range(w.ndim)]
    s = scale.reshape(shape) if np.ndim(scale) else scale
    return const(name, np.clip(np.round(w / s), -127, 127).astype(np.int8))


nodes = []


def dq(src, scale, zp, out_name, axis=None):
    kw = {"axis": axis} if axis is not None else {}
    ins = [src, scale] + ([zp] if zp else [])
    nodes.append(helper.make_node("DequantizeLinear", ins, [out_name], **kw))
    return out_name


def q(src, scale, zp, out_name):
    nodes.append(helper.make_node("QuantizeLinear", [src, scale, zp], [out_name]))
    return out_name


xq = q("X", const("xs", xs), const("xz", xz), "xq")
t = dq(xq, "xs", "xz", "xf")
for i, (w, b, ws, s, z, stride) in enumerate([(w1, b1, ws1, s1, z1, 1),
                                             (w2, b2, ws2, s2, z2, 2)]):
    in_scale = xs if i == 0 else s1
    wq = q_weights("w%d" % i, w, ws, 0)
    bq = const("b%d" % i, np.round(b / (in_scale * ws)).astype(np.int32))
    wf = dq(wq, const("ws%d" % i, ws), None, "wf%d" % i, axis=0)
    bf = dq(bq, const("bs%d" % i, (in_scale * ws).astype(np.float32)), None, "bf%d" % i,
            axis=0)
    nodes.append(helper.make_node("Conv", [t, wf, bf], ["c%d" % i], pads=[1, 1, 1, 1],
                                  strides=[stride, stride]))
    nodes.append(helper.make_node("Relu", ["c%d" % i], ["r%d" % i]))
    aq = q("r%d" % i, const("s%d" % i, s), const("z%d" % i, z), "a%dq" % i)
    t = dq(aq, "s%d" % i, "z%d" % i, "a%df" % i)
nodes.append(helper.make_node("Flatten", [t], ["flat"]))
# The flattened activations as uint8 again, for the MatMul's DQ.
fq = q("flat", "s1", "z1", "flatq")
ff = dq(fq, "s1", "z1", "flatf")
w3f = dq(q_weights("w3", w3, ws3, None), const("ws3", ws3), None, "w3f")
nodes.append(helper.make_node("MatMul", [ff, w3f], ["mm"]))
yq = q("mm", const("s3", s3), const("z3", z3), "yq")
dq(yq, "s3", "z3", "Y")

graph = helper.make_graph(
    nodes, "qdq", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [N, C, H, H])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [N, 10])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "qdq.onnx"))
with open(os.path.join(out, "ds", "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(x, "X").SerializeToString())
print("output quantum %.6g" % s3)
