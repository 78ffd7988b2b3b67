"""RNN, GRU and LSTM models with what the ONNX suites leave out (reverse and
bidirectional directions, sequence_lens, clip, activations with alpha and
beta, input_forget, linear_before_reset = 0 and 1, batch-first layout), their
inputs and their expected outputs from a numpy reference of the ONNX
equations: recurrent_models.py OUT_DIR writes NAME.onnx, NAME_<input>.npy
and NAME_<output>.npy for each model."""

import os
import sys

import numpy as np
from onnx import TensorProto, helper

ACT = {
    "Sigmoid": lambda x, a, b: 1 / (1 + np.exp(-x)),
    "Tanh": lambda x, a, b: np.tanh(x),
    "Relu": lambda x, a, b: np.maximum(x, 0),
    "LeakyRelu": lambda x, a, b: np.where(x < 0, a * x, x),
    "HardSigmoid": lambda x, a, b: np.clip(a * x + b, 0, 1),
    "Softsign": lambda x, a, b: x / (1 + np.abs(x)),
    "ScaledTanh": lambda x, a, b: a * np.tanh(b * x),
    "Affine": lambda x, a, b: a * x + b,
}


def cell_step(kind, x, h, c, w, r, bias, p, acts, clip, lbr, input_forget):
    """One step for all rows; returns (h, c)."""
    hid = h.shape[1]
    g = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    wb, rb = (bias[: g * hid], bias[g * hid:]) if bias is not None else (0, 0)
    xw = x @ w.T + wb
    hr = h @ r.T + rb

    def f(i, v):
        if clip is not None:
            v = np.clip(v, -clip, clip)
        name, a, b = acts[i]
        return ACT[name](v, a, b)

    def part(v, k):
        return v[:, k * hid:(k + 1) * hid] if not np.isscalar(v) else v

    if kind == "RNN":
        return f(0, xw + hr), None
    if kind == "GRU":
        z = f(0, part(xw, 0) + part(hr, 0))
        rg = f(0, part(xw, 1) + part(hr, 1))
        if lbr:
            ht = f(1, part(xw, 2) + rg * part(hr, 2))
        else:
            rbh = rb[2 * hid:] if bias is not None else 0
            ht = f(1, part(xw, 2) + (rg * h) @ r[2 * hid:].T + rbh)
        return (1 - z) * ht + z * h, None
    pi, po, pf = (p[:hid], p[hid:2 * hid], p[2 * hid:]) if p is not None else (0, 0, 0)
    i = f(0, part(xw, 0) + part(hr, 0) + pi * c)
    fg = 1 - i if input_forget else f(0, part(xw, 2) + part(hr, 2) + pf * c)
    cc = f(1, part(xw, 3) + part(hr, 3))
    c = fg * c + i * cc
    o = f(0, part(xw, 1) + part(hr, 1) + po * c)
    return o * f(2, c) if clip is None else o * ACT[acts[2][0]](c, acts[2][1], acts[2][2]), c


def reference(kind, x, w, r, bias, lens, h0, c0, p, direction, acts, clip, lbr, input_forget):
    """x [seq, batch, input]; returns Y [seq, dirs, batch, hid], Y_h, Y_c."""
    seq, batch, _ = x.shape
    dirs = 2 if direction == "bidirectional" else 1
    hid = r.shape[2]
    per = len(acts) // dirs
    lens = lens if lens is not None else np.full(batch, seq)
    y = np.zeros((seq, dirs, batch, hid), np.float32)
    yh = np.zeros((dirs, batch, hid), np.float32)
    yc = np.zeros((dirs, batch, hid), np.float32)
    for d in range(dirs):
        rev = direction == "reverse" or d == 1
        for bi in range(batch):
            h = h0[d, bi:bi + 1] if h0 is not None else np.zeros((1, hid), np.float32)
            c = c0[d, bi:bi + 1] if c0 is not None else np.zeros((1, hid), np.float32)
            n = lens[bi]
            for s in range(n):
                t = n - 1 - s if rev else s
                h, c2 = cell_step(kind, x[t, bi:bi + 1], h, c, w[d], r[d],
                                  bias[d] if bias is not None else None,
                                  p[d] if p is not None else None,
                                  acts[d * per:(d + 1) * per], clip, lbr, input_forget)
                c = c2 if c2 is not None else c
                y[t, d, bi] = h[0]
            yh[d, bi] = h[0]
            yc[d, bi] = c[0]
    return y, yh, yc


def build(out, name, kind, seq, batch, inp, hid, direction, *, lens=None, bias=True,
          h0=False, c0=False, peep=False, acts=None, clip=None, lbr=0,
          input_forget=0, layout=0, outputs=("Y", "Y_h", "Y_c")):
    rng = np.random.default_rng(len(name))
    dirs = 2 if direction == "bidirectional" else 1
    g = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    arr = lambda *s: rng.uniform(-1, 1, s).astype(np.float32)
    x = arr(seq, batch, inp)
    feeds = {"X": x, "W": arr(dirs, g * hid, inp), "R": arr(dirs, g * hid, hid)}
    opt = {"B": arr(dirs, 2 * g * hid) if bias else None,
           "sequence_lens": np.array(lens, np.int32) if lens is not None else None,
           "initial_h": arr(dirs, batch, hid) if h0 else None,
           "initial_c": arr(dirs, batch, hid) if c0 else None,
           "P": arr(dirs, 3 * hid) if peep else None}
    names = ["X", "W", "R", "B", "sequence_lens", "initial_h"]
    if kind == "LSTM":
        names += ["initial_c", "P"]
    inputs = [n if n in feeds or opt.get(n) is not None else "" for n in names]
    while inputs and inputs[-1] == "":
        inputs.pop()
    defaults = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"],
                "LSTM": ["Sigmoid", "Tanh", "Tanh"]}[kind]
    act_list = acts or [(a, 0, 0) for a in defaults * dirs]
    attrs = {"direction": direction, "hidden_size": hid, "layout": layout}
    if acts:
        attrs["activations"] = [a[0] for a in acts]
        alphas = [a[1] for a in acts if a[0] not in ("Sigmoid", "Tanh", "Relu", "Softsign")]
        betas = [a[2] for a in acts if a[0] in ("HardSigmoid", "ScaledTanh", "Affine")]
        if alphas:
            attrs["activation_alpha"] = alphas
        if betas:
            attrs["activation_beta"] = betas
    if clip is not None:
        attrs["clip"] = clip
    if kind == "GRU":
        attrs["linear_before_reset"] = lbr
    if kind == "LSTM":
        attrs["input_forget"] = input_forget
    outs = [o if o in outputs else "" for o in (["Y", "Y_h", "Y_c"] if kind == "LSTM" else ["Y", "Y_h"])]
    while outs and outs[-1] == "":
        outs.pop()
    node = helper.make_node(kind, inputs, outs, **attrs)
    y, yh, yc = reference(kind, x, feeds["W"], feeds["R"], opt["B"], opt["sequence_lens"],
                          opt["initial_h"], opt["initial_c"], opt["P"], direction,
                          act_list, clip, lbr, input_forget)
    if layout:
        feeds["X"] = np.ascontiguousarray(x.transpose(1, 0, 2))
        for k in ("initial_h", "initial_c"):
            if opt[k] is not None:
                opt[k] = np.ascontiguousarray(opt[k].transpose(1, 0, 2))
        y, yh, yc = y.transpose(2, 0, 1, 3), yh.transpose(1, 0, 2), yc.transpose(1, 0, 2)
    feeds.update({k: v for k, v in opt.items() if v is not None})
    expected = {"Y": y, "Y_h": yh, "Y_c": yc}
    f32 = TensorProto.FLOAT
    vi = [helper.make_tensor_value_info(n, TensorProto.INT32 if n == "sequence_lens" else f32,
                                        list(feeds[n].shape)) for n in inputs if n]
    vo = [helper.make_tensor_value_info(o, f32, list(expected[o].shape)) for o in outs if o]
    graph = helper.make_graph([node], name, vi, vo)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 7
    with open(os.path.join(out, name + ".onnx"), "wb") as fh:
        fh.write(model.SerializeToString())
    for n in inputs:
        if n:
            np.save(os.path.join(out, "%s_%s.npy" % (name, n)), feeds[n])
    for o in outs:
        if o:
            np.save(os.path.join(out, "%s_%s.npy" % (name, o)),
                    np.ascontiguousarray(expected[o]).astype(np.float32))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    build(out, "lstm_bidi", "LSTM", 4, 3, 2, 3, "bidirectional", lens=[4, 1, 3],
          h0=True, c0=True, peep=True)
    build(out, "lstm_reverse", "LSTM", 3, 2, 3, 4, "reverse", input_forget=1,
          acts=[("Sigmoid", 0, 0), ("ScaledTanh", 0.9, 1.1), ("Tanh", 0, 0)])
    build(out, "gru_reverse", "GRU", 5, 2, 3, 2, "reverse", lens=[2, 5], lbr=0,
          layout=1, h0=True)
    build(out, "gru_bidi", "GRU", 3, 2, 2, 3, "bidirectional", lbr=1,
          acts=[("HardSigmoid", 0.3, 0.6), ("Softsign", 0, 0),
                ("Sigmoid", 0, 0), ("LeakyRelu", 0.2, 0)])
    # Lengths outside [0, seq]: a run-time error, not a read out of bounds.
    np.save(os.path.join(out, "gru_reverse_lens_long.npy"), np.array([6, 2], np.int32))
    np.save(os.path.join(out, "gru_reverse_lens_negative.npy"), np.array([2, -1], np.int32))
    build(out, "rnn_clip", "RNN", 4, 2, 3, 3, "forward", lens=[3, 4], clip=0.5,
          acts=[("LeakyRelu", 0.1, 0)], outputs=("Y_h",))


if __name__ == "__main__":
    main()
