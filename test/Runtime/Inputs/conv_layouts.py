"""Small conv models with numpy references, for conv-layouts.test.

  conv_layouts.py OUT_DIR

Writes OUT_DIR/<name>.onnx, OUT_DIR/<name>_x.npy and OUT_DIR/<name>_y.npy
for: a 3x1 stride-3 conv whose output has one row (its im2col slab once
crashed the NCHW build), an RGB stem with Relu and MaxPool, a residual
block (3x3 + bias + Relu, 1x1, Add), a grouped conv, a depthwise conv with
Clip, a conv of 40 filters (not a multiple of 16) and an AveragePool that
excludes its padding; and OUT_DIR/empty.onnx, a conv whose window is
larger than its padded input (an empty output).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)


def conv(x, w, b=None, stride=1, pads=(0, 0, 0, 0), dilation=1, group=1):
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - (kh - 1) * dilation - 1) // stride + 1
    ow = (xp.shape[3] - (kw - 1) * dilation - 1) // stride + 1
    y = np.zeros((n, f, oh, ow), np.float64)
    fg = f // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg].astype(np.float64)
        ws = w[g * fg:(g + 1) * fg].astype(np.float64)
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dilation:i * dilation + stride * (oh - 1) + 1:stride,
                           j * dilation:j * dilation + stride * (ow - 1) + 1:stride]
                y[:, g * fg:(g + 1) * fg] += np.einsum("nchw,fc->nfhw", patch, ws[:, :, i, j])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def window(x, k, stride, pads, reduce, fill):
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])),
                constant_values=fill)
    oh = (xp.shape[2] - k) // stride + 1
    ow = (xp.shape[3] - k) // stride + 1
    views = [xp[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
             for i in range(k) for j in range(k)]
    return reduce(np.stack(views), axis=0)


def weight(shape):
    return (rng.standard_normal(shape) * 0.2).astype(np.float32)


def save(out, name, nodes, inits, x, y):
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y.shape))],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(out, name + ".onnx"))
    np.save(os.path.join(out, name + "_x.npy"), x)
    np.save(os.path.join(out, name + "_y.npy"), y.astype(np.float32))


def main(out):
    os.makedirs(out, exist_ok=True)
    # 3 x 1 stride 3 on 3 rows: one output row.
    x = rng.standard_normal((1, 32, 5, 19)).astype(np.float32)
    w0, b0, w1 = weight((48, 32, 1, 1)), weight((48,)), weight((80, 48, 3, 1))
    y = conv(conv(x, w0, b0, stride=2), w1, stride=3)
    save(out, "one_row", [
        helper.make_node("Conv", ["x", "w0", "b0"], ["t"], strides=[2, 2]),
        helper.make_node("Conv", ["t", "w1"], ["y"], strides=[3, 3])],
        {"w0": w0, "b0": b0, "w1": w1}, x, y)
    # RGB stem, Relu, MaxPool.
    x = rng.standard_normal((1, 3, 29, 29)).astype(np.float32)
    w, b = weight((32, 3, 7, 7)), weight((32,))
    y = window(np.maximum(conv(x, w, b, stride=2, pads=(3, 3, 3, 3)), 0), 3, 2,
               (1, 1, 1, 1), np.max, -np.inf)
    save(out, "stem", [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], strides=[2, 2], pads=[3, 3, 3, 3]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1])], {"w": w, "b": b}, x, y)
    # Residual block.
    x = rng.standard_normal((2, 32, 9, 11)).astype(np.float32)
    w1, b1, w2 = weight((32, 32, 3, 3)), weight((32,)), weight((32, 32, 1, 1))
    y = np.maximum(conv(np.maximum(conv(x, w1, b1, pads=(1, 1, 1, 1)), 0), w2) + x, 0)
    save(out, "residual", [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"]),
        helper.make_node("Add", ["c2", "x"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"])], {"w1": w1, "b1": b1, "w2": w2}, x, y)
    # Grouped conv, depthwise conv and Clip, 40 filters, AveragePool
    # without its padding.
    x = rng.standard_normal((1, 64, 10, 10)).astype(np.float32)
    wg, wd, wf = weight((64, 16, 3, 3)), weight((64, 1, 3, 3)), weight((40, 64, 1, 1))
    t = conv(x, wg, pads=(1, 1, 1, 1), group=4)
    t = np.clip(conv(t, wd, stride=2, pads=(1, 1, 1, 1), group=64), 0, 6)
    t = conv(t, wf)
    ones = np.ones((1, 1) + t.shape[2:])
    y = window(t, 3, 1, (1, 1, 1, 1), np.sum, 0) / window(ones, 3, 1, (1, 1, 1, 1), np.sum, 0)
    save(out, "mixed", [
        helper.make_node("Conv", ["x", "wg"], ["g"], pads=[1, 1, 1, 1], group=4),
        helper.make_node("Conv", ["g", "wd"], ["d"], strides=[2, 2], pads=[1, 1, 1, 1],
                         group=64),
        helper.make_node("Clip", ["d", "lo", "hi"], ["c"]),
        helper.make_node("Conv", ["c", "wf"], ["f"]),
        helper.make_node("AveragePool", ["f"], ["y"], kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], count_include_pad=0)],
        {"wg": wg, "wd": wd, "wf": wf, "lo": np.array(0, np.float32),
         "hi": np.array(6, np.float32)}, x, y)


def empty_model(out):
    # A dilated 3 x 3 window larger than its padded 3-row input: 0 rows out.
    w = weight((16, 16, 3, 3))
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], dilations=[2, 2], pads=[1, 1, 0, 1])],
        "empty", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 3, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(out, "empty.onnx"))


if __name__ == "__main__":
    main(sys.argv[1])
    empty_model(sys.argv[1])
