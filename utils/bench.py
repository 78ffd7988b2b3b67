#!/usr/bin/python3
"""bench.py - onnxc against ONNX Runtime on the same machine, same run.

    /usr/bin/python3 utils/bench.py [--models NAME,...] [--threads 1,2]
        [--rounds R] [--iterations N] [--out FILE.md]

For each model of the set (the light/ models of ../shared/onnx-backend-tests
and the models utils/make_bench_models.py builds: sgemm and conv
microbenchmarks, a MobileNetV2-class CNN, a BERT-class encoder with a
dynamic and a static sequence length, a small UNet), the driver

  1. compiles the model with build/bin/onnxc, recording wall time and the
     compiler's peak RSS;
  2. makes one set of inputs (floats uniform in [-1, 1), integers in [0, 4),
     seed 0; dynamic dims from --dim, default seq=128) shared by both sides;
  3. starts one onnxc worker (utils/bench/onnxc_worker.py: the .so through
     its C API) and one ONNX Runtime worker (utils/bench/ort_worker.js:
     onnxruntime-node, installed with npm --ignore-scripts into
     build/bench/ort), per thread count, and checks that both give the same
     outputs (rtol 1e-3, atol 1e-4 relative to the output's scale);
  4. after one untimed run and warm-up runs, times them interleaved: R
     rounds of N runs each, onnxc then ORT, so that both see the same
     machine state (N shrinks, down to 1, so that a slow side's timed runs
     take about --budget-s);
  5. prints a Markdown table: latency min/median of each, the ratio of the
     medians onnxc/ORT, compile time and RSS, GFLOP (2*MACs of Conv,
     ConvTranspose, MatMul, Gemm), onnxc's GFLOP/s and its share of the
     measured single-core FMA peak (utils/bench/peak.c), and the geometric
     mean of the ratios per thread count.

With --zoo REGEX the set is the real-model zoo's exported models instead
(utils/bench/zoo_set.py): each <model>/<variant> (default 17-static and
17-dynamic) on its data set 0, 3 rounds of about 2 s per side; the .so of
an unchanged model and onnxc is reused (its recorded compile numbers are
shown), and a dynamic variant's row gives its time over its static twin's
(dyn/static). --json FILE keeps the rows.

onnxc's intra-op threads are set through ONNXC_NUM_THREADS (models compiled
before the runtime had threads run single-threaded whatever it says); ORT's
through intraOpNumThreads. The timings are never test assertions: the
numbers go to docs/Performance.md with the command that printed them.
"""

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import onnx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "bench"))
from flops import count_flops  # noqa: E402
import zoo_set  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_DIR = os.path.join(ROOT, "utils", "bench")
LIGHT_DIR = os.path.join(os.path.dirname(ROOT), "shared",
                         "onnx-backend-tests", "light")
ORT_VERSION = "1.30.0"
LIGHT_MODELS = ["resnet50", "densenet121", "inception_v1", "inception_v2",
                "squeezenet", "shufflenet", "vgg19", "bvlc_alexnet",
                "zfnet512"]
BUILT_MODELS = ["sgemm_1024", "sgemm_2048", "conv3x3_64", "conv1x1_256",
                "dwconv3x3_144", "conv3x3_24_b8", "shapes_cnn_b32", "mobilenetv2", "bert_encoder",
                "bert_encoder_static", "unet_small", "resnet50_full"]
NUMPY_TO_ORT = {"float32": "float32", "int64": "int64", "int32": "int32",
                "uint8": "uint8", "int8": "int8", "bool": "bool",
                "float64": "float64"}
ONNX_TO_NUMPY = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32,
                 7: np.int64, 9: np.bool_, 11: np.float64}


def say(*args):
    print("bench:", *args, file=sys.stderr, flush=True)


def ensure_ort(work):
    """onnxruntime-node under work/ort (npm, no install scripts)."""
    ort_dir = os.path.join(work, "ort")
    package = os.path.join(ort_dir, "node_modules", "onnxruntime-node",
                           "package.json")
    if os.path.exists(package) and \
            json.load(open(package))["version"] == ORT_VERSION:
        return ort_dir
    os.makedirs(ort_dir, exist_ok=True)
    say("installing onnxruntime-node %s into %s" % (ORT_VERSION, ort_dir))
    subprocess.run(["npm", "install", "--prefix", ort_dir, "--ignore-scripts",
                    "--no-audit", "--no-fund",
                    "onnxruntime-node@" + ORT_VERSION], check=True,
                   stdout=sys.stderr)
    return ort_dir


def measure_peak(work):
    """Single-core fp32 FMA GFLOP/s (utils/bench/peak.c, -march=native)."""
    exe = os.path.join(work, "peak")
    subprocess.run(["clang-22", "-O2", "-march=native", "-o", exe,
                    os.path.join(BENCH_DIR, "peak.c")], check=True)
    out = subprocess.run(["taskset", "-c", "0", exe], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0])


def model_paths(names, work):
    paths = {}
    built = [n for n in names if n in BUILT_MODELS]
    if built:
        out = os.path.join(work, "models")
        missing = [n for n in built
                   if not os.path.exists(os.path.join(out, n + ".onnx"))]
        if missing:
            subprocess.run([sys.executable,
                            os.path.join(ROOT, "utils",
                                         "make_bench_models.py"),
                            "--out", out, "--only", *missing], check=True,
                           stdout=sys.stderr)
        for n in built:
            paths[n] = os.path.join(out, n + ".onnx")
    for n in names:
        if n in LIGHT_MODELS:
            paths[n] = os.path.join(LIGHT_DIR, "light_%s.onnx" % n)
        elif n not in paths:
            raise SystemExit("bench: unknown model %s (known: %s)" %
                             (n, ", ".join(LIGHT_MODELS + BUILT_MODELS)))
    return paths


def compile_model(onnxc, model, so, flags):
    """(seconds, peak RSS MiB) of `onnxc model -o so flags...`.

    The peak RSS is the one onnxc reports with --time-stages (VmHWM of its
    own address space): wait4's ru_maxrss would include this Python
    process's RSS from before the exec."""
    t0 = time.perf_counter()
    proc = subprocess.run([onnxc, model, "-o", so, "--time-stages"] + flags,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - t0
    err = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError("onnxc failed: " + err.strip()[-2000:])
    peak = re.search(r"onnxc: peak RSS (\d+) MiB", err)
    return seconds, float(peak.group(1)) if peak else float("nan")


def make_inputs(model_path, dims, folder):
    """Writes one raw file per graph input; returns their specs."""
    model = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    rng = np.random.default_rng(0)
    specs = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        t = vi.type.tensor_type
        shape = []
        for d in t.shape.dim:
            if d.HasField("dim_value"):
                shape.append(d.dim_value)
            else:
                shape.append(dims.get(d.dim_param, 1))
        dtype = ONNX_TO_NUMPY[t.elem_type]
        if dtype in (np.float32, np.float64):
            array = rng.uniform(-1, 1, shape).astype(dtype)
        elif dtype == np.bool_:
            array = rng.integers(0, 2, shape).astype(dtype)
        else:
            array = rng.integers(0, 4, shape).astype(dtype)
        path = os.path.join(folder, "input_%d.bin" % len(specs))
        array.tofile(path)
        specs.append({"name": vi.name, "dtype": np.dtype(dtype).name,
                      "shape": shape, "file": path})
    with open(os.path.join(folder, "inputs.json"), "w") as f:
        json.dump(specs, f)
    return os.path.join(folder, "inputs.json")


class Worker:
    """A timing worker answering run/save/quit on stdin."""

    def __init__(self, argv, env=None, cpus=None):
        if cpus and shutil.which("taskset"):
            argv = ["taskset", "-c", cpus] + argv
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True,
                                     env=env)
        self.read()

    def read(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("worker %s exited" % self.proc.args)
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        self.proc.wait(timeout=60)


def outputs_match(a, b):
    """Max |a-b| relative to the reference's scale, per output."""
    worst = 0.0
    for x, y in zip(a, b):
        xa = np.fromfile(x["file"], dtype=x["dtype"]).astype(np.float64)
        ya = np.fromfile(y["file"],
                         dtype=NUMPY_TO_ORT.get(y["dtype"], y["dtype"]))
        ya = ya.astype(np.float64)
        if xa.shape != ya.shape:
            return math.inf
        scale = max(np.abs(ya).max(initial=0.0), 1e-6)
        worst = max(worst, float(np.abs(xa - ya).max(initial=0.0)) / scale)
    return worst


def compile_cached(args, path, so):
    """compile_model, or the recorded numbers of an up-to-date .so (zoo
    mode only: the same onnxc binary, model and flags as last time)."""
    record = so + ".json"
    key = {"onnxc_mtime": os.path.getmtime(args.onnxc),
           "model_mtime": os.path.getmtime(path), "flags": args.onnxc_flag}
    if args.zoo and os.path.exists(so) and os.path.exists(record):
        with open(record) as f:
            last = json.load(f)
        if last.get("key") == key:
            return last["compile_s"], last["compile_mib"]
    seconds, mib = compile_model(args.onnxc, path, so, args.onnxc_flag)
    with open(record, "w") as f:
        json.dump({"key": key, "compile_s": seconds, "compile_mib": mib}, f)
    return seconds, mib


def bench_model(name, path, args, work, ort_dir, peak):
    folder = os.path.join(work, "run", name)
    os.makedirs(folder, exist_ok=True)
    so = os.path.join(folder, name.replace("/", "_") + ".so")
    row = {"model": name}
    try:
        row["compile_s"], row["compile_mib"] = compile_cached(args, path, so)
    except RuntimeError as e:
        row["error"] = str(e).splitlines()[0][:200] if str(e) else "failed"
        say(name, "compile error:", row["error"])
        return [row]
    if args.zoo:
        # The zoo's own inputs (token ids in range, real sizes); the FLOPs
        # of a dynamic variant are its static twin's (the same sizes).
        inputs, shapes = zoo_set.write_inputs(path, folder)
        counted = zoo_set.static_twin(path) or path
        flops, unknown = count_flops(onnx.load(counted),
                                     zoo_set.dims_of(counted, shapes))
    else:
        inputs = make_inputs(path, args.dims, folder)
        flops, unknown = count_flops(onnx.load(path), args.dims)
    row["gflop"] = flops / 1e9
    row["uncounted"] = unknown
    rows = []
    for threads in args.threads:
        r = dict(row, threads=threads)
        cpus = ",".join(str(c) for c in range(threads))
        env = dict(os.environ, ONNXC_NUM_THREADS=str(threads))
        onnxc_w = Worker([sys.executable,
                          os.path.join(BENCH_DIR, "onnxc_worker.py"), so,
                          inputs], env=env, cpus=cpus)
        ort_w = Worker(["node", os.path.join(BENCH_DIR, "ort_worker.js"),
                        ort_dir, path, inputs, str(threads)], cpus=cpus)
        try:
            mine = onnxc_w.ask("save " + folder)["outputs"]
            theirs = ort_w.ask("save " + folder)["outputs"]
            r["error_rel"] = outputs_match(mine, theirs)
            first = [onnxc_w.ask("run 1")["times_ms"][0],
                     ort_w.ask("run 1")["times_ms"][0]]
            # Slow models get fewer runs: each side's timed runs stay near
            # --budget-s (at least one run per round).
            per_round = [max(1, min(args.iterations,
                                    int(args.budget_s * 1e3 /
                                        (t * args.rounds))))
                         for t in first]
            warmup = [min(args.warmup, n) for n in per_round]
            if warmup[0]:
                onnxc_w.ask("run %d" % warmup[0])
            if warmup[1]:
                ort_w.ask("run %d" % warmup[1])
            t_onnxc, t_ort = [], []
            for _ in range(args.rounds):
                # Each side starts once the other's threads have gone idle:
                # ORT's workers spin for a while after a run, on the same
                # cores.
                time.sleep(args.settle_ms / 1e3)
                t_onnxc += onnxc_w.ask("run %d" % per_round[0])["times_ms"]
                time.sleep(args.settle_ms / 1e3)
                t_ort += ort_w.ask("run %d" % per_round[1])["times_ms"]
        except RuntimeError as e:
            r["error"] = str(e)[:200]
            say(name, "run error:", r["error"])
            rows.append(r)
            continue
        finally:
            onnxc_w.close()
            ort_w.close()
        r["onnxc_min"], r["onnxc_med"] = min(t_onnxc), \
            statistics.median(t_onnxc)
        r["ort_min"], r["ort_med"] = min(t_ort), statistics.median(t_ort)
        r["ratio"] = r["onnxc_med"] / r["ort_med"]
        r["runs"] = "%d/%d" % (len(t_onnxc), len(t_ort))
        r["gflops"] = flops / (r["onnxc_min"] * 1e-3) / 1e9
        r["peak_pct"] = 100.0 * r["gflops"] / (peak * threads) if peak else 0
        say("%s T=%d: onnxc %.2f ms, ORT %.2f ms, ratio %.2f" %
            (name, threads, r["onnxc_med"], r["ort_med"], r["ratio"]))
        rows.append(r)
    return rows


def fmt_ms(v):
    return "%.3g" % v if v < 10 else "%.1f" % v


def dynamic_vs_static(rows):
    """Sets r["dyn_static"] on each zoo row of a dynamic variant: its onnxc
    median over its static twin's at the same thread count."""
    med = {(r["model"], r.get("threads")): r["onnxc_med"]
           for r in rows if "onnxc_med" in r}
    for r in rows:
        if "onnxc_med" in r and r["model"].endswith("-dynamic"):
            twin = med.get((r["model"].replace("-dynamic", "-static"),
                            r["threads"]))
            if twin:
                r["dyn_static"] = r["onnxc_med"] / twin


def table(rows, peak):
    dynamic_vs_static(rows)
    zoo = any("dyn_static" in r for r in rows)
    extra = " dyn/static |" if zoo else ""
    lines = ["| model | T | onnxc min / med ms | ORT min / med ms | "
             "onnxc/ORT | compile s | compile MiB | GFLOP | onnxc GFLOP/s "
             "| % peak | max rel. diff | runs |" + extra,
             "|---|---|---|---|---|---|---|---|---|---|---|---|" +
             ("---|" if zoo else "")]
    for r in rows:
        if "onnxc_med" not in r:
            lines.append("| %s | %s | %s |  |  |  |  |  |  |  |  |  |%s" %
                         (r["model"], r.get("threads", "-"),
                          "error: " + r.get("error", "?").replace("|", "/"),
                          "  |" if zoo else ""))
            continue
        lines.append(
            "| %s | %d | %s / %s | %s / %s | %.2f | %.1f | %.0f | %.2f | "
            "%.1f | %.1f | %.1e | %s |" %
            (r["model"], r["threads"], fmt_ms(r["onnxc_min"]),
             fmt_ms(r["onnxc_med"]), fmt_ms(r["ort_min"]),
             fmt_ms(r["ort_med"]), r["ratio"], r["compile_s"],
             r["compile_mib"], r["gflop"], r["gflops"], r["peak_pct"],
             r["error_rel"], r["runs"]) +
            (" %s |" % ("%.2f" % r["dyn_static"] if "dyn_static" in r
                        else "") if zoo else ""))
    lines.append("")
    for threads in sorted({r["threads"] for r in rows if "ratio" in r}):
        ratios = [r["ratio"] for r in rows
                  if r.get("threads") == threads and "ratio" in r]
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        lines.append("Geometric mean onnxc/ORT at %d thread(s): %.2f over %d "
                     "models (worst %.2f)." % (threads, geo, len(ratios),
                                               max(ratios)))
    for threads in sorted({r["threads"] for r in rows if "dyn_static" in r}):
        ds = [r["dyn_static"] for r in rows
              if r.get("threads") == threads and "dyn_static" in r]
        lines.append("Dynamic variants within 1.2x of their static twin at %d "
                     "thread(s): %d of %d (worst %.2f)." %
                     (threads, sum(1 for x in ds if x <= 1.2), len(ds),
                      max(ds)))
    lines.append("Measured single-core fp32 FMA peak: %.1f GFLOP/s "
                 "(utils/bench/peak.c); %% peak is against peak x T." % peak)
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="all",
                        help="comma-separated names, 'light', 'built' or "
                             "'all' (default)")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--zoo", metavar="REGEX",
                        help="benchmark the real-model zoo's exported "
                        "models whose name matches REGEX instead "
                        "(utils/bench/zoo_set.py; '.' for all)")
    parser.add_argument("--zoo-variants", default="17-static,17-dynamic")
    parser.add_argument("--zoo-cache",
                        default=os.path.join(ROOT, "build", "zoo"))
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--rounds", type=int, default=None,
                        help="default 5 (3 with --zoo)")
    parser.add_argument("--settle-ms", type=float, default=200.0,
                        help="pause before each side's batch of runs, so "
                        "that the other side's threads have gone idle")
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--budget-s", type=float, default=None,
                        help="seconds of timed runs per side and model: "
                             "fewer runs per round for slow models "
                             "(default 20; 2 with --zoo)")
    parser.add_argument("--dim", action="append", default=[],
                        help="NAME=VALUE for dynamic input dims "
                             "(default seq=128)")
    parser.add_argument("--onnxc", default=os.path.join(ROOT, "build", "bin",
                                                        "onnxc"))
    parser.add_argument("--onnxc-flag", action="append", default=[],
                        help="extra onnxc option (repeatable), e.g. "
                             "--onnxc-flag=--no-vectorize")
    parser.add_argument("--work", default=os.path.join(ROOT, "build",
                                                       "bench"))
    parser.add_argument("--out", help="also write the table to this file")
    args = parser.parse_args()
    args.threads = [int(t) for t in args.threads.split(",")]
    args.dims = {"seq": 128}
    for d in args.dim:
        k, v = d.split("=")
        args.dims[k] = int(v)
    if args.rounds is None:
        args.rounds = 3 if args.zoo else 5
    if args.budget_s is None:
        args.budget_s = 2.0 if args.zoo else 20.0
    if args.zoo:
        entries = zoo_set.zoo_entries(args.zoo_cache, args.zoo,
                                      args.zoo_variants.split(","))
        if not entries:
            raise SystemExit("bench: no exported zoo model matches %r in %s "
                             "(utils/zoo/zoo.py --export-only exports them)"
                             % (args.zoo, args.zoo_cache))
        names = [n for n, _ in entries]
        paths = dict(entries)
    else:
        names = {"all": LIGHT_MODELS + BUILT_MODELS, "light": LIGHT_MODELS,
                 "built": BUILT_MODELS}.get(args.models)
        if names is None:
            names = args.models.split(",")

    os.makedirs(args.work, exist_ok=True)
    ort_dir = ensure_ort(args.work)
    peak = measure_peak(args.work)
    say("measured single-core FMA peak: %.1f GFLOP/s" % peak)
    if not args.zoo:
        paths = model_paths(names, args.work)
    rows = []
    for name in names:
        rows += bench_model(name, paths[name], args, args.work, ort_dir,
                            peak)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"peak": peak, "rows": rows}, f, indent=1)
    text = table(rows, peak)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
