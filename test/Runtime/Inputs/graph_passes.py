"""An exporter-style model for the graph passes, with numpy's answers.

  graph_passes.py DIR    writes DIR/model.onnx, the inputs DIR/{x,z,u}.npy
                         and the expected outputs DIR/{y,w,v,q}.npy

Branch 1 (x: [b, t, 64], both dims dynamic) is written the way torch.onnx
writes x.view(b, t, 4, 16).transpose(1, 2).transpose(1, 2).reshape(b, t, 64)
followed by an inference Dropout and a linear layer scaled by 1/sqrt(16):
Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains, a Transpose pair,
a scale computed from constants. Branch 2 (z: [1, 3, 8, 8]) is a Conv then
a per-channel Mul, a scalar Add, Relu and Flatten. Branch 3 (u: [3, 8]) is
a Gemm (transB, alpha, beta, C) and a MatMul by a weight, each followed by
an inference BatchNormalization.
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

F, I64 = TensorProto.FLOAT, TensorProto.INT64
rng = np.random.default_rng(7)


def const(name, array):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(array, name))


def i64(*v):
    return np.array(v, dtype=np.int64)


wl = rng.uniform(-0.5, 0.5, (64, 64)).astype(np.float32)
bl = rng.uniform(-0.5, 0.5, (64,)).astype(np.float32)
wc = rng.uniform(-0.5, 0.5, (4, 3, 3, 3)).astype(np.float32)
bc = rng.uniform(-0.5, 0.5, (4,)).astype(np.float32)
sc = np.array([1.0, -2.0, 0.5, 3.0], np.float32).reshape(1, 4, 1, 1)
wg = rng.uniform(-0.5, 0.5, (5, 8)).astype(np.float32)
cg = rng.uniform(-0.5, 0.5, (5,)).astype(np.float32)
wm = rng.uniform(-0.5, 0.5, (8, 5)).astype(np.float32)
bn = [rng.uniform(0.5, 1.5, (5,)).astype(np.float32),   # scale
      rng.uniform(-0.5, 0.5, (5,)).astype(np.float32),  # B
      rng.uniform(-0.5, 0.5, (5,)).astype(np.float32),  # mean
      rng.uniform(0.5, 2.0, (5,)).astype(np.float32)]   # var

nodes = [
    helper.make_node("Identity", ["x"], ["x0"]),
    helper.make_node("Shape", ["x0"], ["s"]),
    const("c0", i64(0).reshape(())), const("c1", i64(1).reshape(())),
    const("ax0", i64(0)),
    helper.make_node("Gather", ["s", "c0"], ["b"], axis=0),
    helper.make_node("Gather", ["s", "c1"], ["t"], axis=0),
    helper.make_node("Unsqueeze", ["b", "ax0"], ["bu"]),
    helper.make_node("Unsqueeze", ["t", "ax0"], ["tu"]),
    const("heads", i64(4, 16)),
    helper.make_node("Concat", ["bu", "tu", "heads"], ["s4"], axis=0),
    helper.make_node("Reshape", ["x0", "s4"], ["x4"]),
    helper.make_node("Transpose", ["x4"], ["xt"], perm=[0, 2, 1, 3]),
    helper.make_node("Transpose", ["xt"], ["xb"], perm=[0, 2, 1, 3]),
    const("width", i64(64)),
    helper.make_node("Concat", ["bu", "tu", "width"], ["s3"], axis=0),
    helper.make_node("Reshape", ["xb", "s3"], ["x3"]),
    const("ratio", np.array(0.1, np.float32)),
    helper.make_node("Dropout", ["x3", "ratio"], ["xd"]),
    const("wl", wl), const("bl", bl),
    helper.make_node("MatMul", ["xd", "wl"], ["mm"]),
    helper.make_node("Add", ["mm", "bl"], ["lin"]),
    const("dh", i64(16).reshape(())),
    helper.make_node("Cast", ["dh"], ["dhf"], to=F),
    helper.make_node("Sqrt", ["dhf"], ["scale"]),
    helper.make_node("Div", ["lin", "scale"], ["y"]),
    # Branch 2.
    const("wc", wc), const("bc", bc), const("sc", sc),
    const("shift", np.array(0.25, np.float32)),
    helper.make_node("Conv", ["z", "wc", "bc"], ["conv"], pads=[1, 1, 1, 1]),
    helper.make_node("Mul", ["conv", "sc"], ["scaled"]),
    helper.make_node("Add", ["scaled", "shift"], ["shifted"]),
    helper.make_node("Relu", ["shifted"], ["act"]),
    helper.make_node("Flatten", ["act"], ["w"], axis=1),
    # Branch 3.
    const("wg", wg), const("cg", cg), const("wm", wm),
    const("bn_scale", bn[0]), const("bn_b", bn[1]),
    const("bn_mean", bn[2]), const("bn_var", bn[3]),
    helper.make_node("Gemm", ["u", "wg", "cg"], ["gemm"], alpha=0.5,
                     beta=2.0, transB=1),
    helper.make_node("BatchNormalization",
                     ["gemm", "bn_scale", "bn_b", "bn_mean", "bn_var"], ["v"]),
    helper.make_node("MatMul", ["u", "wm"], ["mm2"]),
    helper.make_node("BatchNormalization",
                     ["mm2", "bn_scale", "bn_b", "bn_mean", "bn_var"], ["q"]),
]
graph = helper.make_graph(
    nodes, "exporter_style",
    [helper.make_tensor_value_info("x", F, ["b", "t", 64]),
     helper.make_tensor_value_info("z", F, [1, 3, 8, 8]),
     helper.make_tensor_value_info("u", F, [3, 8])],
    [helper.make_tensor_value_info("y", F, ["b", "t", 64]),
     helper.make_tensor_value_info("w", F, [1, 256]),
     helper.make_tensor_value_info("v", F, [3, 5]),
     helper.make_tensor_value_info("q", F, [3, 5])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8

x = rng.uniform(-1, 1, (2, 5, 64)).astype(np.float32)
z = rng.uniform(-1, 1, (1, 3, 8, 8)).astype(np.float32)
y = (x @ wl + bl) / np.float32(4.0)
zp = np.pad(z, ((0, 0), (0, 0), (1, 1), (1, 1)))
conv = np.zeros((1, 4, 8, 8), np.float32)
for i in range(3):
    for j in range(3):
        conv += np.einsum("fc,nchw->nfhw", wc[:, :, i, j],
                          zp[:, :, i:i + 8, j:j + 8])
conv += bc.reshape(1, 4, 1, 1)
w = np.maximum(conv * sc + np.float32(0.25), 0).reshape(1, 256)
u = rng.uniform(-1, 1, (3, 8)).astype(np.float32)


def batch_norm(t):
    scale, b, mean, var = bn
    return (t - mean) / np.sqrt(var + np.float32(1e-5)) * scale + b


v = batch_norm(0.5 * (u @ wg.T) + 2.0 * cg)
q = batch_norm(u @ wm)

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
save(model, os.path.join(out, "model.onnx"))
for name, value in [("x", x), ("z", z), ("u", u), ("y", y), ("w", w),
                    ("v", v), ("q", q)]:
    np.save(os.path.join(out, name + ".npy"), value.astype(np.float32))
