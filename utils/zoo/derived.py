"""Derived variants of float ONNX models, written as ONNX Runtime's tools write them.

    qdq_int8(model, calib, per_channel=True) -> ModelProto
        static QDQ quantization (ORT quantize_static, QuantFormat.QDQ):
        uint8 asymmetric activations from min/max calibration, int8
        symmetric weights (per output channel for Conv/MatMul/Gemm when
        per_channel), int32 biases with scale x_scale * w_scale (the
        weight scale widened where the bias would overflow int32, as ORT
        >= 1.18 does).
    dynamic_int8(model, per_channel=False) -> ModelProto
        dynamic quantization (ORT quantize_dynamic): DynamicQuantizeLinear
        on the activation, MatMulInteger/ConvInteger, Cast, Mul by the
        scales' product.
    to_fp16(model, keep_io_float32=True) -> ModelProto
        float16 conversion (onnxconverter-common's convert_float_to_float16
        with keep_io_types).

    ort_run(model, feeds, outputs=None, opt_level="all") -> dict | list[dict]
        runs a model in ONNX Runtime (onnxruntime-node through npm, see
        ensure_ort) and returns its outputs as numpy arrays; feeds may be a
        list of feed dicts (one session, several runs).

Everything here is plain onnx.helper/numpy; ONNX Runtime is only the
reference that the self-test (test_derived.py) checks the outputs against.
"""

import copy
import fcntl
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORT_VERSION = "1.30.0"
ORT_DIR = os.environ.get("ONNXC_ORT_DIR", os.path.join(ROOT, "build", "zoo", "ort"))

# --------------------------------------------------------------------------
# ONNX Runtime through onnxruntime-node
# --------------------------------------------------------------------------

_ORT_JS = r"""
'use strict';
const fs = require('fs'), path = require('path');
const [ortDir, modelPath, specPath, outDir, optLevel] = process.argv.slice(2);
const ort = require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));
const T = {float32: Float32Array, float64: Float64Array, float16: Uint16Array,
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
  uint64: BigUint64Array, bool: Uint8Array};
function load(s) {
  if (s.dtype === 'string')
    return new ort.Tensor('string', JSON.parse(fs.readFileSync(s.file, 'utf8')), s.shape);
  const b = fs.readFileSync(s.file);
  const ab = new ArrayBuffer(b.byteLength); new Uint8Array(ab).set(b);
  return new ort.Tensor(s.dtype, new T[s.dtype](ab), s.shape);
}
function plain(v) {
  if (v && v.dims !== undefined && v.type !== undefined)
    return {tensor: v.type, shape: v.dims, data: Array.from(v.data, (x) => typeof x === 'bigint' ? Number(x) : x)};
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), plain(x)]));
  if (typeof v === 'bigint') return Number(v);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}
async function main() {
  const spec = JSON.parse(fs.readFileSync(specPath, 'utf8'));
  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: optLevel || 'all', logSeverityLevel: 3});
  const names = spec.outputs || session.outputNames;
  const result = {inputs: session.inputNames, outputNames: session.outputNames, runs: []};
  for (let r = 0; r < spec.runs.length; ++r) {
    const feeds = {};
    for (const s of spec.runs[r]) feeds[s.name] = load(s);
    const res = await session.run(feeds, names);
    const outs = [];
    names.forEach((name, k) => {
      const t = res[name];
      if (t && t.dims !== undefined && t.type !== 'string' && t.data && t.data.buffer) {
        const file = path.join(outDir, `out_${r}_${k}.bin`);
        fs.writeFileSync(file, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
        outs.push({name, dtype: t.type, shape: t.dims, file});
      } else {
        outs.push({name, json: plain(t)});
      }
    });
    result.runs.push(outs);
  }
  fs.writeFileSync(path.join(outDir, 'result.json'), JSON.stringify(result));
}
main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
"""

_NP_TO_ORT = {np.float32: "float32", np.float64: "float64", np.float16: "float16",
              np.int8: "int8", np.uint8: "uint8", np.int16: "int16",
              np.uint16: "uint16", np.int32: "int32", np.uint32: "uint32",
              np.int64: "int64", np.uint64: "uint64", np.bool_: "bool"}
_ORT_TO_NP = {v: k for k, v in _NP_TO_ORT.items()}


def ensure_ort(ort_dir=ORT_DIR):
    """onnxruntime-node ORT_VERSION under ort_dir (npm, no install scripts)."""
    pkg = os.path.join(ort_dir, "node_modules", "onnxruntime-node", "package.json")
    os.makedirs(ort_dir, exist_ok=True)
    with open(os.path.join(os.path.dirname(ort_dir), ".ort-install.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (os.path.exists(pkg) and json.load(open(pkg))["version"] == ORT_VERSION):
            subprocess.run(["npm", "install", "--prefix", ort_dir, "--ignore-scripts",
                            "--no-audit", "--no-fund", "onnxruntime-node@" + ORT_VERSION],
                           check=True, stdout=sys.stderr)
    return ort_dir


def ort_run(model, feeds, outputs=None, opt_level="all", ort_dir=ORT_DIR):
    """Outputs of `model` (ModelProto or path) in ONNX Runtime.

    feeds: {name: array} -> {name: array}; a list of such dicts -> a list.
    Tensor outputs come back as numpy arrays (float16 as np.float16),
    anything else (ZipMap's sequence of maps) as plain Python objects."""
    ensure_ort(ort_dir)
    single = isinstance(feeds, dict)
    runs = [feeds] if single else list(feeds)
    with tempfile.TemporaryDirectory(prefix="ortrun-") as tmp:
        if isinstance(model, onnx.ModelProto):
            path = os.path.join(tmp, "model.onnx")
            onnx.save(model, path)
        else:
            path = model
        spec = {"outputs": outputs, "runs": []}
        for r, fd in enumerate(runs):
            specs = []
            for k, (name, val) in enumerate(fd.items()):
                f = os.path.join(tmp, "in_%d_%d.bin" % (r, k))
                if isinstance(val, np.ndarray) and val.dtype.kind in "OUS":
                    with open(f, "w") as fh:
                        json.dump([str(x) for x in val.ravel()], fh)
                    specs.append({"name": name, "dtype": "string", "shape": list(val.shape), "file": f})
                    continue
                a = np.ascontiguousarray(val)
                a.tofile(f)
                specs.append({"name": name, "dtype": _NP_TO_ORT[a.dtype.type],
                              "shape": list(a.shape), "file": f})
            spec["runs"].append(specs)
        sp = os.path.join(tmp, "spec.json")
        with open(sp, "w") as f:
            json.dump(spec, f)
        js = os.path.join(tmp, "run.js")
        with open(js, "w") as f:
            f.write(_ORT_JS)
        proc = subprocess.run(["node", js, ort_dir, path, sp, tmp, opt_level],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("onnxruntime: " + proc.stderr.strip()[-3000:])
        with open(os.path.join(tmp, "result.json")) as f:
            res = json.load(f)
        out = []
        for outs in res["runs"]:
            d = {}
            for o in outs:
                if "file" in o:
                    d[o["name"]] = np.fromfile(o["file"], dtype=_ORT_TO_NP[o["dtype"]]).reshape(o["shape"])
                else:
                    d[o["name"]] = o["json"]
            out.append(d)
    return out[0] if single else out


# --------------------------------------------------------------------------
# shared graph helpers
# --------------------------------------------------------------------------

def _opset(model, domain=""):
    for o in model.opset_import:
        if o.domain in (domain, "ai.onnx" if domain == "" else domain):
            return o.version
    return 0


def _ensure_opset(model, version, feeds=None):
    """`model` at opset >= version (ONNX's version converter).  Some
    adapters (Softmax 12->13) need shapes that dynamic inputs leave unknown:
    then the conversion runs on a copy whose inputs have the shapes of
    `feeds`, and the converted model gets the original inputs back."""
    if _opset(model) >= version:
        return model
    from onnx import version_converter
    try:
        return version_converter.convert_version(model, version)
    except Exception:
        if not feeds:
            raise
    # every tensor's concrete type and shape from one ORT run on `feeds`
    fixed = copy.deepcopy(model)
    names = [o for n in fixed.graph.node for o in n.output if o]
    types = _elem_types(fixed)
    known = [o for o in names if o in types]
    probe = copy.deepcopy(fixed)
    have = {o.name for o in probe.graph.output}
    for o in known:
        if o not in have:
            probe.graph.output.append(helper.make_tensor_value_info(o, types[o], None))
    vals = ort_run(probe, feeds, outputs=known, opt_level="disabled")
    del fixed.graph.value_info[:]
    for o in known:
        if isinstance(vals.get(o), np.ndarray):
            fixed.graph.value_info.append(helper.make_tensor_value_info(o, types[o], vals[o].shape))
    for vi in fixed.graph.input:
        if vi.name in feeds:
            shape = vi.type.tensor_type.shape
            del shape.dim[:]
            for d in np.shape(feeds[vi.name]):
                shape.dim.add().dim_value = d
    conv = version_converter.convert_version(fixed, version)
    del conv.graph.input[:]
    conv.graph.input.extend(model.graph.input)
    del conv.graph.value_info[:]
    return conv


def _constants_to_initializers(model):
    """Constant nodes with a `value` tensor, and Identity nodes of an
    initializer (torch's shared parameters), become initializers."""
    g = model.graph
    keep = []
    outputs = {o.name for o in g.output}
    inits = {t.name: t for t in g.initializer}
    for n in g.node:
        if n.op_type == "Constant" and len(n.attribute) == 1 and \
                n.attribute[0].name == "value" and n.output[0] not in outputs:
            t = copy.deepcopy(n.attribute[0].t)
            t.name = n.output[0]
            g.initializer.append(t)
            inits[t.name] = t
        elif n.op_type == "Identity" and n.input[0] in inits and n.output[0] not in outputs:
            t = copy.deepcopy(inits[n.input[0]])
            t.name = n.output[0]
            g.initializer.append(t)
            inits[t.name] = t
        else:
            keep.append(n)
    del g.node[:]
    g.node.extend(keep)


def _elem_types(model):
    """{tensor name: elem_type} after shape inference."""
    inf = onnx.shape_inference.infer_shapes(model)
    g = inf.graph
    types = {}
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        if vi.type.HasField("tensor_type"):
            types[vi.name] = vi.type.tensor_type.elem_type
    for t in g.initializer:
        types[t.name] = t.data_type
    return types


def _remove_unused_initializers(model):
    g = model.graph
    used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
    for n in g.node:  # names used inside subgraphs
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                used |= {i for sn in a.g.node for i in sn.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    gi = [i for i in g.input if i.name in used or i.name not in
          {t.name for t in model.graph.initializer} | {i.name for i in g.input}]
    del g.input[:]
    g.input.extend(gi)


def _consumers(graph):
    c = {}
    for n in graph.node:
        for i in n.input:
            c.setdefault(i, []).append(n)
    return c


# --------------------------------------------------------------------------
# static QDQ quantization
# --------------------------------------------------------------------------

WEIGHT_OPS = ("Conv", "MatMul", "Gemm")
# quantized inputs and outputs, each tensor with its own calibrated range
DEFAULT_OPS = ("Add", "Mul", "Concat", "GlobalAveragePool", "Sigmoid",
               "HardSigmoid", "LeakyRelu", "Softmax")
# the output reuses the input's parameters (ORT's QDQDirect8BitOp)
DIRECT8BIT_OPS = ("Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten",
                  "MaxPool", "AveragePool", "Slice", "Resize")
# removed when the producer's output can take their output's range
REMOVABLE_OPS = ("Relu", "Clip")


def _u8_params(rmin, rmax):
    """ORT's compute_scale_zp for uint8, asymmetric (range widened to 0)."""
    rmin, rmax = min(float(rmin), 0.0), max(float(rmax), 0.0)
    scale = np.float32((rmax - rmin) / 255.0)
    if scale < np.finfo(np.float32).tiny:
        return np.float32(1.0), np.uint8(0)
    zp = np.round(0.0 - rmin / scale)
    return scale, np.uint8(np.clip(zp, 0, 255))


def _s8_symmetric(w, axis=None, scale=None):
    """int8 symmetric weight ([-127, 127]); per axis when axis is given;
    with `scale` (from _widen_for_int32_bias) instead of max |w| / 127."""
    w = w.astype(np.float32)
    if axis is None:
        amax = np.float32(np.abs(w).max()) if w.size else np.float32(0)
        if scale is None:
            scale = np.float32(amax / 127.0) if amax > 0 else np.float32(1.0)
        scale = np.float32(scale)
        q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
        return q, np.array(scale, np.float32), np.array(0, np.int8)
    red = tuple(i for i in range(w.ndim) if i != axis)
    amax = np.abs(w).max(axis=red).astype(np.float32)
    if scale is None:
        scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
    scale = np.asarray(scale, np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale, np.zeros(scale.shape, np.int8)


def _widen_for_int32_bias(x_scale, w_scale, bias):
    """ORT's _adjust_weight_scale_for_int32_bias (quantize_static >= 1.18):
    the weight scale (per tensor, or per channel against each channel's
    bias) that keeps the int32 bias round(b / (x_scale * w_scale)) in range,
    or None when x_scale * w_scale is large enough already.  Without it a
    tiny activation range (a random-weight network's deep layers) saturates
    the bias and the layer loses it."""
    qrange = float(np.iinfo(np.int32).max) - float(np.iinfo(np.int32).min + 1)
    xs = np.float64(x_scale)
    ws = np.asarray(w_scale, np.float64)
    b = np.asarray(bias, np.float64).reshape(-1)
    if ws.ndim == 0:
        absmax = max(-min(float(b.min(initial=0.0)), 0.0), max(float(b.max(initial=0.0)), 0.0))
        smallest = 1.0001 * 2.0 * absmax / qrange
        return np.array(smallest / xs, np.float32) if xs * ws < smallest else None
    if ws.shape != b.shape:
        return None
    smallest = 1.0001 * 2.0 * np.abs(b) / qrange
    low = xs * ws < smallest
    return np.where(low, smallest / xs, ws).astype(np.float32) if low.any() else None


def calibrate_ranges(model, calib, names):
    """{name: (min, max)} of the float tensors `names` over the calibration
    feeds, from one ORT session of `model` with them as extra outputs."""
    m = copy.deepcopy(model)
    present = {o.name for o in m.graph.output}
    for n in names:
        if n not in present:
            m.graph.output.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, None))
    outs = ort_run(m, list(calib), outputs=list(names), opt_level="disabled")
    ranges = {}
    for d in outs:
        for n in names:
            a = d[n]
            if a.size == 0:
                continue
            lo, hi = float(a.min()), float(a.max())
            if n in ranges:
                lo, hi = min(lo, ranges[n][0]), max(hi, ranges[n][1])
            ranges[n] = (lo, hi)
    return ranges


def qdq_int8(model, calib, per_channel=True):
    """Static QDQ quantization of `model` as ORT's quantize_static writes it.

    calib: list of feed dicts (the calibration data)."""
    m = _ensure_opset(copy.deepcopy(model), 13, calib[0] if calib else None)
    _constants_to_initializers(m)
    g = m.graph
    types = _elem_types(m)
    inits = {t.name: t for t in g.initializer}
    FLOAT = TensorProto.FLOAT
    graph_outputs = {o.name for o in g.output}
    graph_inputs = {i.name for i in g.input if i.name not in inits}

    def is_act(name):
        return name and name not in inits and types.get(name) == FLOAT

    def is_init(name):
        return name in inits and inits[name].data_type == FLOAT

    original = copy.deepcopy(m)   # calibrated as it is, Relus included
    # ---- plan (node order, as ORT's quantizer walks the graph) ----
    requested = {}      # activation tensor -> None (own range) or source tensor
    weights = {}        # (node idx, input idx) -> ("weight", axis) | ("bias", x, w) | ("const",)
    removed = set()     # node indices of removed Relu/Clip
    consumers = _consumers(g)
    producer = {o: k for k, n in enumerate(g.node) for o in n.output}

    def attr(n, name, default):
        for a in n.attribute:
            if a.name == name:
                return helper.get_attribute_value(a)
        return default

    for k, n in enumerate(g.node):
        op = n.op_type
        if op in WEIGHT_OPS:
            if op == "Conv":
                if not is_act(n.input[0]) or not is_init(n.input[1]):
                    continue
                requested.setdefault(n.input[0], None)
                weights[(k, 1)] = ("weight", 0 if per_channel else None)
                if len(n.input) > 2 and is_init(n.input[2]):
                    weights[(k, 2)] = ("bias", n.input[0], (k, 1))
            elif op == "MatMul":
                if not all(is_act(x) or is_init(x) for x in n.input[:2]):
                    continue
                for i in (0, 1):
                    if is_act(n.input[i]):
                        requested.setdefault(n.input[i], None)
                    else:
                        nd = len(inits[n.input[i]].dims)
                        ax = nd - 1 if (per_channel and i == 1 and nd >= 2) else None
                        weights[(k, i)] = ("weight", ax)
            else:  # Gemm
                if not is_act(n.input[0]) or not is_init(n.input[1]):
                    continue
                requested.setdefault(n.input[0], None)
                ax = (0 if attr(n, "transB", 0) else 1) if per_channel else None
                weights[(k, 1)] = ("weight", ax)
                if len(n.input) > 2 and is_init(n.input[2]) and \
                        attr(n, "alpha", 1.0) == 1.0 and attr(n, "beta", 1.0) == 1.0 and \
                        len(inits[n.input[2]].dims) == 1:
                    weights[(k, 2)] = ("bias", n.input[0], (k, 1))
            for o in n.output:
                if types.get(o) == FLOAT:
                    requested.setdefault(o, None)
        elif op in DEFAULT_OPS:
            if not all(not x or is_act(x) or is_init(x) for x in n.input):
                continue
            for i, x in enumerate(n.input):
                if is_act(x):
                    requested.setdefault(x, None)
                elif is_init(x):
                    weights[(k, i)] = ("const",)
            for o in n.output:
                if types.get(o) == FLOAT:
                    requested.setdefault(o, None)
        elif op in DIRECT8BIT_OPS:
            if n.input[0] in requested and types.get(n.output[0]) == FLOAT:
                requested.setdefault(n.output[0], n.input[0])
        elif op in REMOVABLE_OPS:
            x, y = n.input[0], n.output[0]
            if x not in requested:
                continue
            if len(consumers.get(x, [])) == 1 and x not in graph_outputs and \
                    x not in graph_inputs and x in producer and requested[x] is None and \
                    not any(v == x for v in requested.values()):
                # the producer writes the activation's output directly
                removed.add(k)
                del requested[x]
                p = g.node[producer[x]]
                for j, o in enumerate(p.output):
                    if o == x:
                        p.output[j] = y
                producer[y] = producer[x]
            requested.setdefault(y, None)

    # ---- calibration ----
    own = [t for t, src in requested.items() if src is None]
    ranges = calibrate_ranges(original, calib, own)
    # ORT's QDQQuantizer forces Softmax's output range to [0, 1] (its
    # QLinearSoftmax kernel overflows float with a much smaller output scale)
    for n in g.node:
        if n.op_type == "Softmax" and n.output[0] in requested:
            ranges[n.output[0]] = (0.0, 1.0)
    params = {}
    for t in requested:
        src = t
        while requested.get(src) is not None:
            src = requested[src]
        lo, hi = ranges.get(src, (0.0, 1.0))
        params[t] = _u8_params(lo, hi)

    # ---- weight scales widened for their int32 biases ----
    wscale = {}         # (weight name, axis) -> scale
    for (k, i), spec in weights.items():
        if spec[0] != "bias":
            continue
        wk, wi = spec[2]
        wname, axis = g.node[wk].input[wi], weights[spec[2]][1]
        cur = wscale.get((wname, axis))
        if cur is None:
            cur = _s8_symmetric(numpy_helper.to_array(inits[wname]), axis)[1]
        new = _widen_for_int32_bias(params[spec[1]][0], cur,
                                    numpy_helper.to_array(inits[g.node[k].input[i]]))
        if new is not None:
            wscale[(wname, axis)] = new

    # ---- rewrite ----
    new_inits = []
    new_nodes = []
    renamed_in = {}     # activation tensor -> DQ output its consumers read
    out_rename = {}     # graph-output tensor -> name its producer writes

    def add_init(arr, name):
        new_inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def qdq(t):
        scale, zp = params[t]
        sn = add_init(np.array(scale, np.float32), t + "_scale")
        zn = add_init(np.array(zp, np.uint8), t + "_zero_point")
        if t in graph_outputs:
            q_in, dq_out = t + "_QuantizeLinear_Input", t
            out_rename[t] = q_in
        else:
            q_in, dq_out = t, t + "_DequantizeLinear_Output"
            renamed_in[t] = dq_out
        return [helper.make_node("QuantizeLinear", [q_in, sn, zn], [t + "_QuantizeLinear_Output"],
                                 name=t + "_QuantizeLinear"),
                helper.make_node("DequantizeLinear", [t + "_QuantizeLinear_Output", sn, zn], [dq_out],
                                 name=t + "_DequantizeLinear")]

    for t in requested:
        if t in graph_inputs:
            new_nodes.extend(qdq(t))
    done_w = {}
    wq = {}             # (node idx, input idx) -> (scale array) of quantized weights
    for k, n in enumerate(g.node):
        if k in removed:
            continue
        n = copy.deepcopy(n)
        for i, x in enumerate(n.input):
            spec = weights.get((k, i))
            if spec is not None:
                w = numpy_helper.to_array(inits[x]).astype(np.float32)
                if spec[0] == "weight":
                    key = (x, "w", spec[1])
                    if key not in done_w:
                        q, s, z = _s8_symmetric(w, spec[1], wscale.get((x, spec[1])))
                        base = x if not any(kk[0] == x for kk in done_w) else "%s_%d" % (x, len(done_w))
                        qn = add_init(q, base + "_quantized")
                        sn = add_init(s, base + "_scale")
                        zn = add_init(z, base + "_zero_point")
                        kw = {"axis": spec[1]} if spec[1] is not None else {}
                        new_nodes.append(helper.make_node(
                            "DequantizeLinear", [qn, sn, zn], [base + "_DequantizeLinear_Output"],
                            name=base + "_DequantizeLinear", **kw))
                        done_w[key] = (base + "_DequantizeLinear_Output", s)
                    n.input[i], wq[(k, i)] = done_w[key]
                elif spec[0] == "bias":
                    xs = params[spec[1]][0]
                    ws = wq[spec[2]]
                    bs = (np.float32(xs) * ws).astype(np.float32)
                    # saturate (the weight's scale was widened where that overflows)
                    q = np.clip(np.round(w.astype(np.float64) / bs), -2**31, 2**31 - 1).astype(np.int32)
                    base = x + "_" + n.name if (x, "b") in done_w else x
                    done_w[(x, "b")] = True
                    qn = add_init(q, base + "_quantized")
                    sn = add_init(bs, base + "_quantized_scale")
                    zn = add_init(np.zeros(bs.shape, np.int32), base + "_quantized_zero_point")
                    kw = {"axis": 0} if bs.ndim == 1 else {}
                    new_nodes.append(helper.make_node(
                        "DequantizeLinear", [qn, sn, zn], [base + "_DequantizeLinear_Output"],
                        name=base + "_DequantizeLinear", **kw))
                    n.input[i] = base + "_DequantizeLinear_Output"
                else:  # constant operand of Add/Mul/...: uint8 like an activation
                    key = (x, "c")
                    if key not in done_w:
                        s, z = _u8_params(w.min() if w.size else 0, w.max() if w.size else 0)
                        q = np.clip(np.round(w / s) + z, 0, 255).astype(np.uint8)
                        qn = add_init(q, x + "_quantized")
                        sn = add_init(np.array(s, np.float32), x + "_scale")
                        zn = add_init(np.array(z, np.uint8), x + "_zero_point")
                        new_nodes.append(helper.make_node(
                            "DequantizeLinear", [qn, sn, zn], [x + "_DequantizeLinear_Output"],
                            name=x + "_DequantizeLinear"))
                        done_w[key] = (x + "_DequantizeLinear_Output", s)
                    n.input[i] = done_w[key][0]
            elif x in renamed_in:
                n.input[i] = renamed_in[x]
        after = []
        for j, o in enumerate(n.output):
            if o in requested:
                after.extend(qdq(o))
                if o in out_rename:
                    n.output[j] = out_rename[o]
        new_nodes.append(n)
        new_nodes.extend(after)
    del g.node[:]
    g.node.extend(_toposort(new_nodes, {i.name for i in g.input} | {t.name for t in g.initializer}
                            | {t.name for t in new_inits}))
    g.initializer.extend(new_inits)
    del g.value_info[:]
    _remove_unused_initializers(m)
    onnx.checker.check_model(m)
    return m


def _strip(model, removed):
    """`model` without the nodes `removed` (their outputs already renamed)."""
    m = copy.deepcopy(model)
    keep = [n for k, n in enumerate(m.graph.node) if k not in removed]
    del m.graph.node[:]
    m.graph.node.extend(keep)
    del m.graph.value_info[:]
    return m


def _toposort(nodes, available):
    avail = set(available) | {""}
    out, pending = [], list(nodes)
    while pending:
        rest = []
        for n in pending:
            if all(i in avail for i in n.input):
                out.append(n)
                avail.update(n.output)
            else:
                rest.append(n)
        if len(rest) == len(pending):   # a cycle or an outer-scope name: keep order
            out.extend(rest)
            break
        pending = rest
    return out


# --------------------------------------------------------------------------
# dynamic quantization
# --------------------------------------------------------------------------

def _u8_asym(w):
    s, z = _u8_params(w.min(), w.max())
    return np.clip(np.round(w / s) + z, 0, 255).astype(np.uint8), s, z


def dynamic_int8(model, per_channel=False, conv=True):
    """Dynamic quantization as ORT's quantize_dynamic writes it.

    MatMul (constant 2-D B) -> DynamicQuantizeLinear(A), MatMulInteger with
    an int8 symmetric B, Cast, Mul(A_scale * B_scale); Gemm (alpha = beta =
    1, transA = 0, constant B) likewise plus Add of C; Conv (when conv) ->
    ConvInteger with a uint8 weight (ORT's CPU ConvInteger takes uint8
    weights), Cast, Mul, Add of the bias."""
    m = _ensure_opset(copy.deepcopy(model), 11)
    _constants_to_initializers(m)
    g = m.graph
    types = _elem_types(m)
    inits = {t.name: t for t in g.initializer}
    FLOAT = TensorProto.FLOAT
    new_nodes, new_inits = [], []
    dq_cache = {}

    def add_init(arr, name):
        new_inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def dyn_quant(x):
        if x not in dq_cache:
            outs = [x + "_quantized", x + "_scale", x + "_zero_point"]
            new_nodes.append(helper.make_node("DynamicQuantizeLinear", [x], outs,
                                              name=x + "_QuantizeLinear"))
            dq_cache[x] = outs
        return dq_cache[x]

    def attr(n, name, default):
        for a in n.attribute:
            if a.name == name:
                return helper.get_attribute_value(a)
        return default

    def integer_tail(n, acc, xs, ws_name, y, bias=None):
        new_nodes.append(helper.make_node("Cast", [acc], [acc + "_cast_output"],
                                          to=FLOAT, name=acc + "_cast"))
        sm = n.name + "_scales_mul"
        new_nodes.append(helper.make_node("Mul", [xs, ws_name], [sm + ":0"], name=sm))
        out = y if bias is None else y + "_output_0_before_bias"
        new_nodes.append(helper.make_node("Mul", [acc + "_cast_output", sm + ":0"], [out],
                                          name=n.name + "_output_scale_mul"))
        if bias is not None:
            new_nodes.append(helper.make_node("Add", [out, bias], [y], name=n.name + "_bias_add"))

    for k, n in enumerate(g.node):
        if not n.name:
            n.name = "%s_%d" % (n.op_type, k)
        op = n.op_type
        if op == "MatMul" and types.get(n.input[0]) == FLOAT and n.input[0] not in inits and \
                n.input[1] in inits and len(inits[n.input[1]].dims) == 2:
            w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)
            q, s, z = _s8_symmetric(w, 1 if per_channel else None)
            wn = add_init(q, n.input[1] + "_quantized")
            sn = add_init(s, n.input[1] + "_scale")
            zn = add_init(z, n.input[1] + "_zero_point")
            xq, xs, xz = dyn_quant(n.input[0])
            acc = n.output[0] + "_output_quantized"
            new_nodes.append(helper.make_node("MatMulInteger", [xq, wn, xz, zn], [acc],
                                              name=n.name + "_quant"))
            integer_tail(n, acc, xs, sn, n.output[0])
        elif op == "Gemm" and n.input[1] in inits and n.input[0] not in inits and \
                types.get(n.input[0]) == FLOAT and attr(n, "alpha", 1.0) == 1.0 and \
                attr(n, "beta", 1.0) == 1.0 and attr(n, "transA", 0) == 0:
            w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)
            if attr(n, "transB", 0):
                w = w.T
            q, s, z = _s8_symmetric(np.ascontiguousarray(w), 1 if per_channel else None)
            wn = add_init(q, n.input[1] + "_quantized")
            sn = add_init(s, n.input[1] + "_scale")
            zn = add_init(z, n.input[1] + "_zero_point")
            xq, xs, xz = dyn_quant(n.input[0])
            acc = n.output[0] + "_output_quantized"
            new_nodes.append(helper.make_node("MatMulInteger", [xq, wn, xz, zn], [acc],
                                              name=n.name + "_quant"))
            integer_tail(n, acc, xs, sn, n.output[0],
                         n.input[2] if len(n.input) > 2 and n.input[2] else None)
        elif op == "Conv" and conv and n.input[1] in inits and n.input[0] not in inits and \
                types.get(n.input[0]) == FLOAT:
            w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)
            q, s, z = _u8_asym(w)
            wn = add_init(q, n.input[1] + "_quantized")
            sn = add_init(np.array(s, np.float32), n.input[1] + "_scale")
            zn = add_init(np.array(z, np.uint8), n.input[1] + "_zero_point")
            xq, xs, xz = dyn_quant(n.input[0])
            acc = n.output[0] + "_output_quantized"
            new_nodes.append(helper.make_node("ConvInteger", [xq, wn, xz, zn], [acc],
                                              name=n.name + "_quant",
                                              **{a.name: helper.get_attribute_value(a)
                                                 for a in n.attribute}))
            bias = None
            if len(n.input) > 2 and n.input[2]:
                b = numpy_helper.to_array(inits[n.input[2]]) if n.input[2] in inits else None
                if b is not None:
                    rank = len(inits[n.input[1]].dims)   # the weight's, = the input's
                    bias = add_init(b.reshape([-1] + [1] * (rank - 2)).astype(np.float32),
                                    n.input[2] + "_reshaped")
                else:
                    raise ValueError("Conv with a computed bias")
            integer_tail(n, acc, xs, sn, n.output[0], bias)
        else:
            new_nodes.append(n)
    del g.node[:]
    g.node.extend(new_nodes)
    g.initializer.extend(new_inits)
    _remove_unused_initializers(m)
    onnx.checker.check_model(m)
    return m


# --------------------------------------------------------------------------
# float16
# --------------------------------------------------------------------------

# onnxconverter-common's DEFAULT_OP_BLOCK_LIST: these run in float32
FP16_BLOCK_LIST = {
    "ArrayFeatureExtractor", "Binarizer", "CastMap", "CategoryMapper",
    "DictVectorizer", "FeatureVectorizer", "Imputer", "LabelEncoder",
    "LinearClassifier", "LinearRegressor", "Normalizer", "OneHotEncoder",
    "RandomUniformLike", "SVMClassifier", "SVMRegressor", "Scaler",
    "TreeEnsembleClassifier", "TreeEnsembleRegressor", "ZipMap",
    "NonMaxSuppression", "TopK", "RoiAlign", "Range", "CumSum", "Min", "Max",
    "Upsample"}
# (op, input index) that must stay float32 whatever the data type
FP16_FLOAT_INPUTS = {("Resize", 1), ("Resize", 2)}


def to_fp16(model, keep_io_float32=True, block_list=FP16_BLOCK_LIST, block_overflow=True):
    """float32 -> float16 (initializers, Constants, Cast targets, value
    types); the ops of block_list and Resize's roi/scales stay float32 with
    Casts around them; with keep_io_float32 the graph inputs and outputs
    stay float32 (a Cast after each input, before each output).

    block_overflow (not in onnxconverter-common, which clips such values):
    a node with a constant float input beyond float16's range (e.g. a
    BatchNormalization variance of 1e8) stays float32 too."""
    m = copy.deepcopy(model)
    g = m.graph
    types = _elem_types(m)
    F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16
    inits = {t.name: t for t in g.initializer}
    graph_in = [i for i in g.input if i.name not in inits]
    consumers = _consumers(g)
    blocked = set()
    if block_overflow:
        consts = {t.name: t for t in g.initializer if t.data_type == F32}
        for n in g.node:
            if n.op_type == "Constant" and n.attribute and n.attribute[0].name == "value" and \
                    n.attribute[0].t.data_type == F32:
                consts[n.output[0]] = n.attribute[0].t
        big = {k for k, t in consts.items()
               if np.abs(numpy_helper.to_array(t)).max(initial=0.0) > 65504.0}
        for k, n in enumerate(g.node):
            if n.op_type != "Constant" and any(x in big for x in n.input):
                blocked.add(k)
                n.name = n.name or "%s_%d" % (n.op_type, k)
    blocked_names = {g.node[k].name for k in blocked}

    def f32_position(n, i):
        return n.op_type in block_list or (n.op_type, i) in FP16_FLOAT_INPUTS or \
            (n.name and n.name in blocked_names)

    def is_blocked(n):
        return n.op_type in block_list or (n.name and n.name in blocked_names)

    # initializers used only at float32 positions stay float32
    keep32 = set()
    const_f32 = [t.name for t in g.initializer if t.data_type == F32] + \
        [n.output[0] for n in g.node if n.op_type == "Constant" and n.attribute and
         n.attribute[0].name == "value" and n.attribute[0].t.data_type == F32]
    for name in const_f32:
        uses = [(n, i) for n in consumers.get(name, []) for i, x in enumerate(n.input) if x == name]
        if uses and all(f32_position(n, i) for n, i in uses):
            keep32.add(name)
    for t in g.initializer:
        if t.data_type == F32 and t.name not in keep32:
            a = numpy_helper.to_array(t)
            t.CopyFrom(numpy_helper.from_array(_to_f16(a), t.name))

    new_nodes = []
    rename_in = {}
    if keep_io_float32:
        for k, vi in enumerate(graph_in):
            if vi.type.tensor_type.elem_type == F32:
                c = "graph_input_cast_%d" % k
                new_nodes.append(helper.make_node("Cast", [vi.name], [c], to=F16,
                                                  name="graph_input_cast%d" % k))
                rename_in[vi.name] = c
    else:
        for vi in graph_in:
            if vi.type.tensor_type.elem_type == F32:
                vi.type.tensor_type.elem_type = F16
    out_names = {o.name: k for k, o in enumerate(g.output)}
    cast_out = []
    counter = [0]

    def fresh(base):
        counter[0] += 1
        return "%s_fp16cast_%d" % (base, counter[0])

    for n in g.node:
        n = copy.deepcopy(n)
        for i, x in enumerate(n.input):
            if x in rename_in:
                n.input[i] = rename_in[x]
        if n.op_type == "Cast" and helper.get_attribute_value(n.attribute[0]) == F32 \
                and n.op_type not in block_list:
            for a in n.attribute:
                if a.name == "to":
                    a.i = F16
        if n.op_type == "Constant" and n.output[0] not in keep32:
            for a in n.attribute:
                if a.name == "value" and a.t.data_type == F32:
                    a.t.CopyFrom(numpy_helper.from_array(_to_f16(numpy_helper.to_array(a.t)), a.t.name))
        if n.op_type in ("ConstantOfShape",):
            for a in n.attribute:
                if a.name == "value" and a.t.data_type == F32:
                    a.t.CopyFrom(numpy_helper.from_array(_to_f16(numpy_helper.to_array(a.t)), a.t.name))
        post = []
        for i, x in enumerate(n.input):
            if x and types.get(x) == F32 and f32_position(n, i) and x not in keep32:
                c = fresh(x)
                new_nodes.append(helper.make_node("Cast", [n.input[i]], [c], to=F32, name=c))
                n.input[i] = c
        if is_blocked(n):
            for j, o in enumerate(n.output):
                if types.get(o) == F32:
                    c = fresh(o)
                    n.output[j] = c
                    post.append(helper.make_node("Cast", [c], [o], to=F16, name=c + "_back"))
        new_nodes.append(n)
        new_nodes.extend(post)
    if keep_io_float32:
        for k, o in enumerate(g.output):
            if types.get(o.name) == F32 or o.type.tensor_type.elem_type == F32:
                c = "graph_output_cast_%d" % k
                for n in new_nodes:
                    for j, x in enumerate(n.output):
                        if x == o.name:
                            n.output[j] = c
                    for j, x in enumerate(n.input):
                        if x == o.name:
                            n.input[j] = c
                cast_out.append(helper.make_node("Cast", [c], [o.name], to=F32,
                                                 name="graph_output_cast%d" % k))
    else:
        for o in g.output:
            if o.type.tensor_type.elem_type == F32:
                o.type.tensor_type.elem_type = F16
    del g.node[:]
    g.node.extend(new_nodes + cast_out)
    del g.value_info[:]
    onnx.checker.check_model(m)
    m = onnx.shape_inference.infer_shapes(m)
    del m.graph.value_info[:]
    return m


def _to_f16(a):
    # clamp like onnxconverter-common (values beyond fp16's range saturate)
    return np.clip(a, -65504.0, 65504.0).astype(np.float16)


# --------------------------------------------------------------------------
# backend-test layout (what onnxc-run --inputs/--expected-dir read)
# --------------------------------------------------------------------------

def value_proto(value, name=""):
    """A TensorProto (array), SequenceProto (list of arrays or of dicts) or
    MapProto (dict) of `value`, the file formats onnxc-run reads."""
    if isinstance(value, dict):
        keys = list(value.keys())
        kt = np.int64 if all(isinstance(k, (int, np.integer)) for k in keys) else None
        mp = onnx.MapProto()
        mp.name = name
        if kt is not None:
            mp.key_type = TensorProto.INT64
            mp.keys.extend(int(k) for k in keys)
        else:
            mp.key_type = TensorProto.STRING
            mp.string_keys.extend(str(k).encode() for k in keys)
        vals = np.array([value[k] for k in keys], dtype=np.float32)
        mp.values.CopyFrom(_seq_of_tensors(list(vals)))
        return mp
    if isinstance(value, (list, tuple)):
        sp = onnx.SequenceProto()
        sp.name = name
        if value and isinstance(value[0], dict):
            sp.elem_type = onnx.SequenceProto.MAP
            sp.map_values.extend(value_proto(v) for v in value)
        else:
            sp.elem_type = onnx.SequenceProto.TENSOR
            sp.tensor_values.extend(numpy_helper.from_array(np.asarray(v)) for v in value)
        return sp
    a = np.asarray(value)
    if a.dtype.kind in "OUS":
        t = helper.make_tensor(name, TensorProto.STRING, a.shape,
                               [str(x).encode() for x in a.ravel()])
        return t
    return numpy_helper.from_array(a, name)


def _seq_of_tensors(scalars):
    sp = onnx.SequenceProto()
    sp.elem_type = onnx.SequenceProto.TENSOR
    sp.tensor_values.extend(numpy_helper.from_array(np.asarray(v, np.float32)) for v in scalars)
    return sp


def write_test_dir(dir, model, inputs, expected, index=0):
    """dir/model.onnx and dir/test_data_set_<index>/{input,output}_K.pb, K
    in the order of the graph's inputs (initializers left out) and outputs;
    model None leaves model.onnx as it is (another data set of it)."""
    data = os.path.join(dir, "test_data_set_%d" % index)
    os.makedirs(data, exist_ok=True)
    if model is None:
        model = onnx.load(os.path.join(dir, "model.onnx"), load_external_data=False)
    else:
        onnx.save(model, os.path.join(dir, "model.onnx"))
    inits = {t.name for t in model.graph.initializer}
    ins = [i.name for i in model.graph.input if i.name not in inits]
    for k, name in enumerate(ins):
        open(os.path.join(data, "input_%d.pb" % k), "wb").write(
            value_proto(inputs[name], name).SerializeToString())
    for k, o in enumerate(model.graph.output):
        if o.name in expected:
            open(os.path.join(data, "output_%d.pb" % k), "wb").write(
                value_proto(expected[o.name], o.name).SerializeToString())
    return dir
