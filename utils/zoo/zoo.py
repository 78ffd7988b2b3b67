#!/usr/bin/python3
"""zoo.py - compile and run the real-model zoo with onnxc (docs/Zoo.md).

    /usr/bin/python3 utils/zoo/zoo.py [--subset ci|all] [--models REGEX]
        [--variants 13-static,17-dynamic] [--jobs N] [--report FILE.json]
        [--onnxc BIN] [--onnxc-run BIN] [--cache DIR] [--no-ort] [--list]

For each model (utils/zoo/vision.py, audio.py, text.py and the other
model files registering into zoo_common.REGISTRY) and each variant (ONNX
opset 13 or 17, static or dynamic shapes) it

  1. exports the torch module to build/zoo/<model>/<variant>/model.onnx,
     with the torch reference outputs of seeded inputs as backend-test data
     sets (test_data_set_N/input_K.pb, output_K.pb): one for a static
     variant, two of different sizes for a dynamic one. The export is cached
     and redone only when the model's definition (the hash of its source and
     parameters) changes;
  2. optionally runs the model in ONNX Runtime (onnxruntime-node, through
     utils/bench/ort_worker.js) and checks that ORT agrees with torch; a
     disagreement is reported in its own column and does not fail the model;
  3. compiles it with `onnxc model.onnx -o model.so` (wall time and peak RSS
     through /usr/bin/time, under the shared build lock);
  4. runs `onnxc-run model.so --inputs D --expected-dir D --rtol R --atol A`
     on every data set, three times (any crash fails the model).

Status per model and variant: pass, export-fail, compile-fail, run-fail
(onnxc-run exit 2), mismatch (exit 1), crash (a signal), timeout (compile
120 s, run 60 s). It prints a table, then `zoo: N passed, M failed`, and
exits with 1 when anything failed.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import time
import traceback
import warnings

ZOO_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(ZOO_DIR))
sys.path.insert(0, ZOO_DIR)

import numpy as np  # noqa: E402

MODEL_FILES = ["vision", "audio", "text", "derived", "sklearn_zoo",
               "packaged"]
ORT_VERSION = "1.30.0"
EXPORT_LOCK = threading.Lock()
PRINT_LOCK = threading.Lock()


def say(*args):
    with PRINT_LOCK:
        print("zoo:", *args, file=sys.stderr, flush=True)


def load_models():
    import importlib
    from zoo_common import REGISTRY
    for name in MODEL_FILES:
        if not os.path.exists(os.path.join(ZOO_DIR, name + ".py")):
            continue
        try:
            importlib.import_module(name)
        except Exception as e:  # a broken model file must not hide the rest
            say("warning: could not load %s.py: %s: %s" %
                (name, type(e).__name__, e))
    return REGISTRY


# ---- export and reference data ---------------------------------------------

def flatten(out):
    if out is None:
        return []
    if isinstance(out, (list, tuple)):
        return [y for x in out for y in flatten(x)]
    if isinstance(out, dict):
        return [y for x in out.values() for y in flatten(x)]
    return [out]


def to_numpy(x):
    import torch
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().contiguous().numpy()
    return np.asarray(x)


def first_line(text):
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:300]
    return ""


def error_line(text):
    """The first line of a tool's output that reports an error."""
    for line in text.splitlines():
        if re.search(r"error|FAIL|Assertion|Segmentation|terminate|Abort",
                     line):
            return line.strip()[:300]
    return first_line(text)


def exception_line(e):
    text = str(e).strip()
    line = first_line(text) if text else ""
    return ("%s: %s" % (type(e).__name__, line))[:300]


def graph_io(path):
    import onnx
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    ins = [vi.name for vi in m.graph.input if vi.name not in inits]
    outs = [vi.name for vi in m.graph.output]
    return ins, outs


def write_pb(array, name, path):
    from onnx import numpy_helper
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(array),
                                        name).SerializeToString())


class Prepared:
    """A model's module and reference data, built once per driver run."""

    def __init__(self, model):
        self.model = model
        self._module = None
        self._data = {}

    def module(self):
        if self._module is None:
            self._module = self.model.build()
        return self._module

    def data(self, index):
        """(inputs as tensors/arrays, inputs as numpy, outputs as numpy)."""
        if index not in self._data:
            import torch
            m = self.model
            args = m.make_inputs(index)
            if m.reference is not None:
                outs = m.reference(args)
            else:
                with torch.no_grad():
                    outs = self.module()(*args)
            self._data[index] = (args, [to_numpy(a) for a in args],
                                 [to_numpy(o) for o in flatten(outs)])
        return self._data[index]


def export_variant(prep, variant, vdir, key):
    """Exports one variant and writes its data sets; returns a dict."""
    import torch
    m = prep.model
    opset, kind = variant.split("-")
    opset, dynamic = int(opset), kind == "dynamic"
    path = os.path.join(vdir, "model.onnx")
    t0 = time.perf_counter()
    info = {"key": key, "ok": False}
    try:
        nsets = 2 if dynamic else 1
        sets = [prep.data(i) for i in range(nsets)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if m.export_onnx is not None:
                m.export_onnx(opset, dynamic, path)
            else:
                # Not under no_grad: torch 1.13's nn.TransformerEncoderLayer
                # takes its fused "fast path" (not exportable) there.
                torch.onnx.export(
                    prep.module(), sets[0][0], path,
                    opset_version=opset, input_names=m.input_names,
                    output_names=m.output_names,
                    dynamic_axes=m.dynamic_axes if dynamic else None,
                    do_constant_folding=True, **m.export_kwargs)
        ins, outs = graph_io(path)
        for i, (_, arrays, refs) in enumerate(sets):
            if len(outs) != len(refs):
                raise RuntimeError("the graph has %d outputs, the reference "
                                   "%d" % (len(outs), len(refs)))
            d = os.path.join(vdir, "test_data_set_%d" % i)
            os.makedirs(d, exist_ok=True)
            for k, name in enumerate(ins):
                if name not in m.input_names:
                    raise RuntimeError("graph input %s is not one of %s" %
                                       (name, m.input_names))
                write_pb(arrays[m.input_names.index(name)], name,
                         os.path.join(d, "input_%d.pb" % k))
            for k, (name, ref) in enumerate(zip(outs, refs)):
                write_pb(ref, name, os.path.join(d, "output_%d.pb" % k))
        info.update(ok=True, sets=nsets, inputs=ins, outputs=outs,
                    onnx_mb=round(os.path.getsize(path) / 2**20, 2))
    except Exception as e:
        info["error"] = exception_line(e)
        info["traceback"] = traceback.format_exc()[-4000:]
    info["export_s"] = round(time.perf_counter() - t0, 2)
    with open(os.path.join(vdir, "export.json"), "w") as f:
        json.dump(info, f, indent=1)
    return info


# ---- ONNX Runtime -----------------------------------------------------------

def ensure_ort(cache):
    """onnxruntime-node under CACHE/ort, installed the way utils/bench.py
    installs it (npm --ignore-scripts)."""
    sys.path.insert(0, os.path.join(ROOT, "utils"))
    import bench
    return bench.ensure_ort(cache)


def read_pb(path):
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def close_enough(actual, expected, rtol, atol):
    """(ok, max abs error) with onnxc-run's rule |a-e| <= atol+rtol*|e|."""
    a = np.asarray(actual)
    e = np.asarray(expected)
    if a.shape != e.shape:
        return False, float("inf")
    if a.dtype == np.bool_ or e.dtype == np.bool_:
        return bool((a == e).all()), float((a != e).sum())
    a = a.astype(np.float64)
    e = e.astype(np.float64)
    nan = np.isnan(a) | np.isnan(e)
    if (np.isnan(a) != np.isnan(e)).any():
        return False, float("nan")
    diff = np.abs(np.where(nan, 0, a - e))
    ok = bool((diff <= atol + rtol * np.abs(np.where(nan, 0, e))).all())
    return ok, float(diff.max(initial=0.0))


def run_ort(ort_dir, vdir, nsets, rtol, atol):
    """Runs every data set in ORT; returns {status, max_abs_err, error}."""
    worst = 0.0
    for i in range(nsets):
        d = os.path.join(vdir, "test_data_set_%d" % i)
        work = os.path.join(vdir, "ort_%d" % i)
        os.makedirs(work, exist_ok=True)
        specs = []
        k = 0
        while os.path.exists(os.path.join(d, "input_%d.pb" % k)):
            import onnx
            t = onnx.TensorProto()
            with open(os.path.join(d, "input_%d.pb" % k), "rb") as f:
                t.ParseFromString(f.read())
            a = read_pb(os.path.join(d, "input_%d.pb" % k))
            f = os.path.join(work, "input_%d.bin" % k)
            np.ascontiguousarray(a).tofile(f)
            specs.append({"name": t.name, "dtype": a.dtype.name,
                          "shape": list(a.shape), "file": f})
            k += 1
        with open(os.path.join(work, "inputs.json"), "w") as f:
            json.dump(specs, f)
        try:
            proc = subprocess.run(
                ["node", os.path.join(ROOT, "utils", "bench", "ort_worker.js"),
                 ort_dir, os.path.join(vdir, "model.onnx"),
                 os.path.join(work, "inputs.json"), "1"],
                input="save %s\nquit\n" % work, capture_output=True,
                text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return {"status": "error", "error": "ORT timed out"}
        replies = [json.loads(l) for l in proc.stdout.splitlines()
                   if l.startswith("{")]
        err = [r["error"] for r in replies if "error" in r]
        saved = [r for r in replies if "outputs" in r and
                 isinstance(r["outputs"], list) and r["outputs"] and
                 isinstance(r["outputs"][0], dict)]
        if err or not saved:
            msg = err[0] if err else first_line(proc.stderr) or "no output"
            return {"status": "error", "error": first_line(msg)}
        for k, spec in enumerate(saved[0]["outputs"]):
            dtype = "bool" if spec["dtype"] == "bool" else spec["dtype"]
            a = np.fromfile(spec["file"], dtype=dtype).reshape(spec["shape"])
            e = read_pb(os.path.join(d, "output_%d.pb" % k))
            ok, err_abs = close_enough(a, e, rtol, atol)
            worst = max(worst, err_abs) if not np.isnan(err_abs) else err_abs
            if not ok:
                return {"status": "disagree", "max_abs_err": err_abs,
                        "error": "set %d output %d (%s): max abs error %g" %
                        (i, k, spec["name"], err_abs)}
    return {"status": "agree", "max_abs_err": worst}


# ---- onnxc ------------------------------------------------------------------

def locked(cmd, lock):
    return (["flock", "-s", lock] if lock else []) + cmd


def signal_of(rc):
    if rc < 0:
        return -rc
    if rc > 128 and rc != 124:
        return rc - 128
    return 0


def compile_model(args, vdir):
    """Returns (status, seconds, rss_mb, error)."""
    so = os.path.join(vdir, "model.so")
    tfile = os.path.join(vdir, "compile.time")
    for f in (so, tfile):
        if os.path.exists(f):
            os.remove(f)
    cmd = locked(["timeout", "-k", "5", str(args.compile_timeout),
                  "/usr/bin/time", "-o", tfile, "-f", "%e %M",
                  args.onnxc, os.path.join(vdir, "model.onnx"), "-o", so],
                 args.lock)
    proc = subprocess.run(cmd, capture_output=True, text=True,
                          errors="replace")
    with open(os.path.join(vdir, "compile.log"), "w") as f:
        f.write(proc.stdout + proc.stderr)
    seconds = rss = None
    timed = open(tfile).read() if os.path.exists(tfile) else ""
    m = re.search(r"^([\d.]+) (\d+)\s*$", timed, re.M)
    if m:
        seconds, rss = float(m.group(1)), round(int(m.group(2)) / 1024, 1)
    sig = re.search(r"terminated by signal (\d+)", timed)
    if proc.returncode == 124:
        return "timeout", seconds or float(args.compile_timeout), rss, \
            "compile took over %d s" % \
            args.compile_timeout
    if sig or signal_of(proc.returncode):
        n = int(sig.group(1)) if sig else signal_of(proc.returncode)
        return "crash", seconds, rss, "onnxc killed by signal %d: %s" % (
            n, error_line(proc.stderr))
    if proc.returncode != 0 or not os.path.exists(so):
        return "compile-fail", seconds, rss, error_line(proc.stderr) or \
            "onnxc exited with %d" % proc.returncode
    return "pass", seconds, rss, ""


def run_model(args, vdir, nsets, rtol, atol):
    """Runs every data set three times; returns (status, max abs, error)."""
    so = os.path.join(vdir, "model.so")
    worst = None
    for rep in range(args.repeats):
        for i in range(nsets):
            d = os.path.join(vdir, "test_data_set_%d" % i)
            cmd = locked(["timeout", "-k", "5", str(args.run_timeout),
                          args.onnxc_run, so, "--inputs", d, "--expected-dir",
                          d, "--rtol", repr(rtol), "--atol", repr(atol)],
                         args.lock)
            proc = subprocess.run(cmd, capture_output=True, text=True,
                                  errors="replace")
            out = proc.stdout + proc.stderr
            with open(os.path.join(vdir, "run_%d_%d.log" % (rep, i)),
                      "w") as f:
                f.write(out)
            for v in re.findall(r"max abs error ([^,]+),", out):
                try:
                    x = float(v)
                except ValueError:
                    continue
                if worst is None or x > worst or np.isnan(x):
                    worst = x
            rc = proc.returncode
            where = "set %d run %d: " % (i, rep + 1)
            if rc == 124:
                return "timeout", worst, where + "run took over %d s" % \
                    args.run_timeout
            if signal_of(rc):
                return "crash", worst, where + "onnxc-run killed by signal " \
                    "%d %s" % (signal_of(rc), error_line(proc.stderr))
            if rc == 1:
                lines = [l.strip() for l in out.splitlines()
                         if "FAIL" in l or "differ" in l]
                return "mismatch", worst, where + " | ".join(lines[:2])[:300]
            if rc != 0:
                return "run-fail", worst, where + error_line(out)
    return "pass", worst, ""


# ---- driver -----------------------------------------------------------------

def run_one_model(args, model, variants, ort_dir):
    prep = Prepared(model)
    key_base = model.definition_hash()
    rows = []
    for variant in variants:
        row = {"model": model.name, "family": model.family,
               "variant": variant, "status": None, "export_s": None,
               "compile_s": None, "rss_mb": None, "max_abs_err": None,
               "onnx_mb": None, "ort": None, "error": ""}
        vdir = os.path.join(args.cache, model.name, variant)
        os.makedirs(vdir, exist_ok=True)
        key = hashlib.sha256(("%s %s" % (key_base, variant)).encode()) \
            .hexdigest()[:16]
        info_path = os.path.join(vdir, "export.json")
        info = None
        if os.path.exists(info_path) and not args.reexport:
            try:
                info = json.load(open(info_path))
            except ValueError:
                info = None
            if info and (info.get("key") != key or (info.get("ok") and not
                         os.path.exists(os.path.join(vdir, "model.onnx")))):
                info = None
        if info is None:
            with EXPORT_LOCK:
                say("exporting %s %s" % (model.name, variant))
                info = export_variant(prep, variant, vdir, key)
            ort_cache = os.path.join(vdir, "ort.json")
            if os.path.exists(ort_cache):
                os.remove(ort_cache)
        row["export_s"] = info.get("export_s")
        row["onnx_mb"] = info.get("onnx_mb")
        if not info.get("ok"):
            row.update(status="export-fail", error=info.get("error", ""))
            rows.append(row)
            say("%-28s %-11s export-fail  %s" % (model.name, variant,
                                                 row["error"]))
            continue
        nsets = info["sets"]
        if ort_dir:
            ort_cache = os.path.join(vdir, "ort.json")
            ort = None
            if os.path.exists(ort_cache):
                ort = json.load(open(ort_cache))
                if ort.get("key") != key:
                    ort = None
            if ort is None:
                ort = run_ort(ort_dir, vdir, nsets, model.rtol, model.atol)
                ort["key"] = key
                with open(ort_cache, "w") as f:
                    json.dump(ort, f)
            row["ort"] = {k: v for k, v in ort.items() if k != "key"}
        if args.export_only:
            status, secs, rss, err = "exported", None, None, ""
        else:
            status, secs, rss, err = compile_model(args, vdir)
        row.update(compile_s=secs, rss_mb=rss)
        if status == "pass":
            status, worst, err = run_model(args, vdir, nsets, model.rtol,
                                           model.atol)
            row["max_abs_err"] = worst
        if status == "pass" and not args.no_c_api:
            import c_api
            status, _, err = c_api.check(
                os.path.join(vdir, "model.so"), vdir, nsets, info["inputs"],
                model.rtol, model.atol, read_pb, close_enough,
                args.run_timeout)
        row.update(status=status, error=err)
        rows.append(row)
        say("%-28s %-11s %-12s %6s s %7s MB  %s" % (
            model.name, variant, status, fmt(secs), fmt(rss), err))
    return rows


def fmt(v, spec="%.1f"):
    if v is None:
        return "-"
    if isinstance(v, float) and (np.isnan(v) or np.isinf(v)):
        return str(v)
    return spec % v


def print_table(rows):
    hdr = "%-28s %-11s %-12s %8s %8s %9s %-9s %s" % (
        "model", "variant", "status", "compile", "RSS MB", "max|err|", "ort",
        "error")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        ort = (r["ort"] or {}).get("status", "-")
        print("%-28s %-11s %-12s %8s %8s %9s %-9s %s" % (
            r["model"], r["variant"], r["status"], fmt(r["compile_s"]),
            fmt(r["rss_mb"], "%.0f"), fmt(r["max_abs_err"], "%.2g"), ort,
            r["error"][:160]))


def error_kind(row):
    """A row's error with the paths, node names and numbers taken out, to
    group failures by cause."""
    e = row["error"] or row["status"]
    e = re.sub(r"\S+\.onnx: ", "", e)
    e = re.sub(r"^set \d+ run \d+: ", "", e)
    e = re.sub(r"node '[^']*'", "node '...'", e)
    e = re.sub(r"while rewriting node .*", "", e)
    e = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", e)
    return "%s: %s" % (row["status"], e.strip()[:200])


def print_groups(rows):
    groups = {}
    for r in rows:
        if r["status"] not in ("pass", "exported"):
            groups.setdefault(error_kind(r), []).append(r)
    if not groups:
        return
    print("failures by error:")
    for kind, rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print("  [%d] %s" % (len(rs), kind))
        print("      " + ", ".join("%s/%s" % (r["model"], r["variant"])
                                   for r in rs))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--list", action="store_true",
                   help="list the models (of --subset/--models) and exit")
    p.add_argument("--subset", choices=["ci", "all"], default="all")
    p.add_argument("--models", default=None,
                   help="regex over model names (re.search)")
    p.add_argument("--family", default=None,
                   help="regex over family names (re.search)")
    p.add_argument("--variants", default=None,
                   help="comma-separated, of 13-static,13-dynamic,"
                   "17-static,17-dynamic (default: all four; with "
                   "--subset ci, each model's ci_variants)")
    p.add_argument("--jobs", type=int, default=1,
                   help="models handled at once (exports stay serial)")
    p.add_argument("--report", default=None, help="write the rows as JSON")
    p.add_argument("--onnxc", default=os.path.join(ROOT, "build", "bin",
                                                   "onnxc"))
    p.add_argument("--onnxc-run", default=os.path.join(ROOT, "build", "bin",
                                                       "onnxc-run"))
    p.add_argument("--cache", default=os.path.join(ROOT, "build", "zoo"))
    p.add_argument("--no-ort", action="store_true",
                   help="do not check the export with ONNX Runtime")
    p.add_argument("--lock", default="/tmp/onnxc-build.lock",
                   help="run onnxc/onnxc-run under `flock -s LOCK` "
                   "('' for none)")
    p.add_argument("--compile-timeout", type=int, default=120)
    p.add_argument("--run-timeout", type=int, default=60)
    p.add_argument("--no-c-api", action="store_true",
                   help="skip the run of every data set through the C API "
                   "from Python (utils/zoo/c_api.py) after onnxc-run's")
    p.add_argument("--repeats", type=int, default=3,
                   help="onnxc-run runs per data set")
    p.add_argument("--reexport", action="store_true",
                   help="export again even when the cache is current")
    p.add_argument("--export-only", action="store_true",
                   help="export (and check with ORT) but do not compile")
    p.add_argument("--show", metavar="REPORT",
                   help="print the table and the failures grouped by error "
                   "of a --report file, and exit")
    args = p.parse_args(argv)
    if args.show:
        rows = json.load(open(args.show))["rows"]
        print_table(rows)
        print_groups(rows)
        failed = sum(r["status"] not in ("pass", "exported") for r in rows)
        print("zoo: %d passed, %d failed" % (len(rows) - failed, failed))
        return 1 if failed else 0
    args.cache = os.path.abspath(args.cache)

    registry = load_models()
    models = [m for m in registry.values()
              if (args.subset == "all" or m.ci)
              and (not args.models or re.search(args.models, m.name))
              and (not args.family or re.search(args.family, m.family))]
    if args.list:
        for m in models:
            print("%-28s %-13s %-3s %-24s %s" % (
                m.name, m.family, "ci" if m.ci else "",
                ",".join(m.ci_variants) if m.ci else "",
                " / ".join(",".join("%s=%s" % kv for kv in s.items())
                           for s in m.sizes[:2])))
        fams = {}
        for m in models:
            fams[m.family] = fams.get(m.family, 0) + 1
        print("%d models: %s" % (len(models), ", ".join(
            "%s %d" % kv for kv in sorted(fams.items()))))
        return 0
    if not models:
        say("no model matches")
        return 2
    if args.variants:
        wanted = args.variants.split(",")
        bad = [v for v in wanted if v not in
               ("13-static", "13-dynamic", "17-static", "17-dynamic")]
        if bad:
            p.error("unknown variant(s) %s" % ",".join(bad))
    plan = []
    for m in models:
        if args.variants:
            vs = [v for v in m.variants() if v in wanted]
        elif args.subset == "ci":
            vs = [v for v in m.variants() if v in m.ci_variants]
        else:
            vs = m.variants()
        plan.extend((m, [v]) for v in vs)
    # Static variants first: they are the quick ones, and a long run that
    # is stopped early has then checked every model once.
    plan.sort(key=lambda item: item[1][0].endswith("dynamic"))
    if not args.export_only:
        for tool in (args.onnxc, args.onnxc_run):
            if not os.access(tool, os.X_OK):
                say("error: %s is not an executable (build onnxc first)" %
                    tool)
                return 2
    ort_dir = None
    if not args.no_ort:
        try:
            ort_dir = ensure_ort(args.cache)
        except Exception as e:
            say("warning: no ONNX Runtime (%s); going on without it" % e)
    t0 = time.time()
    rows = []
    say("%d models, %d model/variant pairs" % (len({m.name for m, _ in plan}),
                                               len(plan)))

    def task(item):
        m, vs = item
        return run_one_model(args, m, vs, ort_dir)

    def write_report(done):
        if not args.report:
            return
        os.makedirs(os.path.dirname(os.path.abspath(args.report)),
                    exist_ok=True)
        with open(args.report + ".tmp", "w") as f:
            json.dump({"elapsed_s": round(time.time() - t0, 1),
                       "subset": args.subset, "complete": done,
                       "planned": len(plan), "rows": rows}, f, indent=1)
        os.replace(args.report + ".tmp", args.report)

    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = [pool.submit(task, item) for item in plan]
        for fut in futures:
            rows.extend(fut.result())
            write_report(False)
    elapsed = time.time() - t0

    print_table(rows)
    print_groups(rows)
    failed = [r for r in rows if r["status"] not in ("pass", "exported")]
    ort_bad = [r for r in rows if r["ort"] and r["ort"]["status"] != "agree"]
    if ort_bad:
        print("ONNX Runtime disagrees with torch or fails (not counted):")
        for r in ort_bad:
            print("  %-28s %-11s %-9s %s" % (r["model"], r["variant"],
                                             r["ort"]["status"],
                                             r["ort"].get("error", "")))
    slow = [r for r in rows if (r["compile_s"] or 0) > 30 or
            (r["rss_mb"] or 0) > 2048]
    for r in slow:
        print("over budget: %-28s %-11s compile %s s, RSS %s MB" % (
            r["model"], r["variant"], fmt(r["compile_s"]),
            fmt(r["rss_mb"], "%.0f")))
    write_report(True)
    print("zoo: %d passed, %d failed" % (len(rows) - len(failed),
                                         len(failed)))
    print("(%.0f s)" % elapsed, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
