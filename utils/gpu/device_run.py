#!/usr/bin/env python3
"""Runs what make_device_bundle.py prepared, on a machine with an NVIDIA GPU.

  device_run.py BUNDLE.tar.xz --out DIR [--fallback PTX_BUNDLE.tar.xz]
                [--budget-s 420] [--conformance-s 200] [--no-torch-compile]

Needs python3 with numpy (and torch for the comparison); no onnxc, no LLVM.

0. Probe: the first bundled test runs once; if its kernels do not load (a
   driver older than the toolkit that made the cubins), the --fallback
   bundle (compiled with --gpu-binary=ptx, which the driver compiles itself)
   is used instead, and the report says so.

1. Conformance: each bundled test's model.so (compiled with
   --target=cuda) is loaded with ctypes and run on each data set through
   the onnxc C API; outputs are compared as utils/conformance.py does
   (|actual - expected| <= atol + rtol * |expected|, NaN where expected is
   NaN, exact for integers and bools). Tests run in worker processes; a
   worker that dies or hangs (a crashed CUDA context) is replaced and its
   test counted as CRASH. DIR/conformance.txt gets one line per test.
2. Benchmarks: the bundled models' median latency over timed runs (after
   warm-up), next to PyTorch on the same GPU (eager, and torch.compile with
   mode="reduce-overhead", which uses CUDA graphs), and sgemm throughput as
   a fraction of the GPU's fp32 peak. DIR/bench.md gets the table.
"""

import argparse
import concurrent.futures
import ctypes
import json
import multiprocessing as mp
import os
import queue
import subprocess
import sys
import tarfile
import time

import numpy as np

DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16,
          6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64,
          12: np.uint32, 13: np.uint64}
CODES = {np.dtype(v): k for k, v in DTYPES.items()}
BF16 = 16


def to_bf16(a):
    """The bfloat16 bits (uint16) of `a`, rounded to nearest even; uint16
    input is taken as bits already."""
    if a.dtype == np.uint16:
        return a
    bits = np.require(a, np.float32, "C").view(np.uint32).astype(np.uint64)
    sixteen, one = np.uint64(16), np.uint64(1)
    rounded = (bits + np.uint64(0x7FFF) + ((bits >> sixteen) & one)) >> sixteen
    nan = np.isnan(a.astype(np.float32))
    return np.where(nan, 0x7FC0, rounded).astype(np.uint16)


class Tensor(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("data", ctypes.c_void_p)]


class RunOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("input_memory", ctypes.c_int32)]


class Model:
    def __init__(self, path):
        self.lib = ctypes.CDLL(os.path.abspath(path), mode=os.RTLD_LOCAL | os.RTLD_NOW)
        L = self.lib
        L.onnxc_run.argtypes = [ctypes.POINTER(Tensor), ctypes.c_size_t,
                                ctypes.POINTER(ctypes.POINTER(Tensor)),
                                ctypes.POINTER(ctypes.c_size_t)]
        self.run_with = getattr(L, "onnxc_run_with", None)  # API version 3
        if self.run_with is not None:
            self.run_with.argtypes = [ctypes.POINTER(RunOptions)] + L.onnxc_run.argtypes
        L.onnxc_last_error.restype = ctypes.c_char_p
        L.onnxc_input_dim.restype = ctypes.c_int64
        L.onnxc_free_outputs.argtypes = [ctypes.POINTER(Tensor), ctypes.c_size_t]
        self.num_inputs = L.onnxc_num_inputs()

    def signature(self):
        L = self.lib
        sig = []
        for i in range(self.num_inputs):
            dims = [L.onnxc_input_dim(i, a) for a in range(L.onnxc_input_rank(i))]
            sig.append((DTYPES[L.onnxc_input_dtype(i)], [d if d >= 0 else 1 for d in dims]))
        return sig

    def run(self, arrays, keep_outputs=True):
        """(status, outputs or message); keep_outputs=False (timing) frees
        the outputs unread."""
        arrays = [np.require(a, requirements="C") for a in arrays]  # keeps 0-d
        ins = (Tensor * max(1, len(arrays)))()
        keep = []
        for i, a in enumerate(arrays):
            code = CODES.get(a.dtype, 0)
            if i < self.num_inputs and self.lib.onnxc_input_dtype(i) == BF16:
                a, code = to_bf16(a), BF16
            shape = (ctypes.c_int64 * max(1, a.ndim))(*a.shape)
            keep.append((shape, a))
            ins[i] = Tensor(code, a.ndim, shape, a.ctypes.data)
        outs = ctypes.POINTER(Tensor)()
        n = ctypes.c_size_t()
        status = self.lib.onnxc_run(ins, len(arrays), ctypes.byref(outs), ctypes.byref(n))
        if status != 0:
            return status, self.lib.onnxc_last_error().decode(errors="replace")
        return 0, self.take_outputs(outs, n, keep_outputs)

    def take_outputs(self, outs, n, keep_outputs):
        """The outputs as numpy arrays (none unless keep_outputs), freed."""
        result = []
        for k in range(n.value if keep_outputs else 0):
            t = outs[k]
            shape = [t.shape[d] for d in range(t.rank)]
            dt = np.dtype(np.uint16 if t.dtype == BF16 else DTYPES[t.dtype])
            count = int(np.prod(shape)) if shape else 1
            buf = (ctypes.c_char * (count * dt.itemsize)).from_address(t.data) if count else b""
            value = np.frombuffer(bytes(buf), dt).reshape(shape).copy()
            if t.dtype == BF16:  # as float32, which the expected values are
                value = (value.astype(np.uint32) << 16).view(np.float32)
            result.append(value)
        self.lib.onnxc_free_outputs(outs, n)
        return result

    def run_device(self, tensors, keep_outputs=True):
        """onnxc_run_with(ONNXC_MEMORY_DEVICE) on CUDA torch tensors (their
        data_ptr() as device addresses): (status, numpy outputs or message)."""
        ins = (Tensor * max(1, len(tensors)))()
        keep = []
        for i, t in enumerate(tensors):
            shape = (ctypes.c_int64 * max(1, t.dim()))(*t.shape)
            keep.append(shape)
            code = CODES[np.dtype(str(t.dtype).replace("torch.", ""))]
            ins[i] = Tensor(code, t.dim(), shape, t.data_ptr())
        options = RunOptions(ctypes.sizeof(RunOptions), 1)
        outs = ctypes.POINTER(Tensor)()
        n = ctypes.c_size_t()
        status = self.run_with(ctypes.byref(options), ins, len(tensors),
                               ctypes.byref(outs), ctypes.byref(n))
        if status != 0:
            return status, self.lib.onnxc_last_error().decode(errors="replace")
        return 0, self.take_outputs(outs, n, keep_outputs)

    def close(self):
        import _ctypes
        _ctypes.dlclose(self.lib._handle)


def compare(actual, expected, rtol, atol):
    if actual.shape != expected.shape:
        return "shape %s, expected %s" % (list(actual.shape), list(expected.shape))
    if expected.dtype.kind in "fc":
        a = actual.astype(np.float64)
        e = expected.astype(np.float64)
        nan = np.isnan(e)
        with np.errstate(invalid="ignore"):
            bad = ~nan & ~((a == e) | (np.abs(a - e) <= atol + rtol * np.abs(e)))
        bad |= nan & ~np.isnan(a)
    else:
        bad = actual != expected.astype(actual.dtype)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        return "%d of %d differ; first at %d: %r, expected %r" % (
            int(bad.sum()), bad.size, i, actual.flat[i], expected.flat[i])
    return None


def run_test(folder):
    with open(os.path.join(folder, "meta.json")) as f:
        meta = json.load(f)
    m = Model(os.path.join(folder, "model.so"))
    try:
        for d in meta["data"]:
            z = np.load(os.path.join(folder, d["file"]))
            if d.get("ramp"):
                ins = []
                for dt, shape in m.signature():
                    n = int(np.prod(shape))
                    ins.append((np.arange(n, dtype=np.float64) / max(n, 1))
                               .astype(dt).reshape(shape))
            else:
                ins = [z["in%d" % k] for k in range(m.num_inputs)]
            outs = sorted((k for k in z.files if k.startswith("out")), key=lambda k: int(k[3:]))
            # With CUDA graphs (--graph-conformance) four runs: the third
            # captures, the fourth replays; every one must be right.
            for run in range(4 if os.environ.get("ONNXC_CUDA_GRAPHS") == "1" else 1):
                status, got = m.run(ins)
                if status != 0:
                    return "FAIL", "%s: run %d: status %d: %s" % (
                        d["file"], run + 1, status, got[:300])
                for k, key in enumerate(outs):
                    problem = compare(got[k], z[key], meta["rtol"], meta["atol"])
                    if problem:
                        return "FAIL", "%s: run %d: output %d: %s" % (
                            d["file"], run + 1, k, problem)
        return "PASS", ""
    finally:
        m.close()


def worker(tasks, results):
    while True:
        folder = tasks.get()
        if folder is None:
            return
        results.put(("start", folder, "", ""))
        try:
            status, detail = run_test(folder)
        except Exception as e:
            status, detail = "FAIL", "runner: %s" % e
        results.put(("done", folder, status, detail))


def tool_env(root):
    """(onnxc-run, its environment) from the bundle's bin/: the bundled
    protobuf libraries, and its libstdc++ only where the machine's own is
    too old; (None, message) when it cannot run."""
    bin_dir = os.path.join(root, "bin")
    tool = os.path.join(bin_dir, "onnxc-run")
    if not os.path.exists(tool):
        return None, "no onnxc-run in the bundle"
    problem = ""
    for libs in (bin_dir, bin_dir + ":" + os.path.join(bin_dir, "fallback")):
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = libs + ":" + env.get("LD_LIBRARY_PATH", "")
        r = subprocess.run([tool, "--help"], env=env, capture_output=True, text=True)
        if r.returncode == 0:
            return tool, env
        problem = (r.stderr or r.stdout).strip()[:300]
    return None, "onnxc-run does not start: " + problem


def run_with_tool(folder, tool, env):
    """A test whose values numpy does not hold (sequences, optionals, maps,
    strings, float8, int4, ...), run as utils/conformance.py runs it on the
    CPU: onnxc-run with the data set's .pb files, on the GPU."""
    with open(os.path.join(folder, "meta.json")) as f:
        meta = json.load(f)
    for d in meta["data"]:
        data = os.path.join(folder, d["dir"])
        cmd = [tool, os.path.join(folder, "model.so"), "--device", meta.get("device", "cuda"),
               "--inputs", data,
               "--expected-dir", data, "--rtol", repr(meta["rtol"]), "--atol",
               repr(meta["atol"]), "--check-determinism"]
        try:
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return "TIMEOUT", "%s: onnxc-run took more than 120 s" % d["dir"]
        if r.returncode < 0:
            return "CRASH", "%s: onnxc-run killed by signal %d" % (d["dir"], -r.returncode)
        if r.returncode:
            lines = [l for l in (r.stderr + r.stdout).splitlines() if l.strip()]
            return "FAIL", "%s: %s" % (d["dir"], " | ".join(lines[-3:])[:400])
    return "PASS", ""


def conformance(root, out, deadline, report="conformance.txt"):
    folders = []
    for suite in sorted(os.listdir(os.path.join(root, "tests"))):
        base = os.path.join(root, "tests", suite)
        folders += [os.path.join(base, t) for t in sorted(os.listdir(base))]
    results = {}
    # Tests for onnxc-run: 8 at a time in the background (each its own
    # process and CUDA context) while the others run through ctypes.
    by_tool = []
    for f in folders:
        with open(os.path.join(f, "meta.json")) as m:
            if json.load(m).get("runner") == "onnxc-run":
                by_tool.append(f)
    tool, env = tool_env(root)
    pool = concurrent.futures.ThreadPoolExecutor(8)

    def run_one(folder):
        if time.time() > deadline:
            return
        results[folder] = run_with_tool(folder, tool, env) if tool else ("FAIL", env)

    tool_runs = [pool.submit(run_one, f) for f in by_tool]
    pending = [f for f in folders if f not in set(by_tool)]
    ctx = mp.get_context("spawn")
    while pending and time.time() < deadline:
        tasks, res = ctx.Queue(), ctx.Queue()
        for f in pending:
            tasks.put(f)
        tasks.put(None)
        p = ctx.Process(target=worker, args=(tasks, res), daemon=True)
        p.start()
        current, last = None, time.time()
        while True:
            try:
                kind, folder, status, detail = res.get(timeout=1)
                last = time.time()
                if kind == "start":
                    current = folder
                else:
                    results[folder] = (status, detail)
                    current = None
                    if status == "FAIL" and "status 7" in detail and \
                            ("illegal" in detail or "launch failed" in detail):
                        # The context is lost: later tests need a new process.
                        p.kill()
                        break
                continue
            except queue.Empty:
                pass
            if not p.is_alive() or time.time() - last > 60 or time.time() > deadline:
                if current:
                    results[current] = ("CRASH" if not p.is_alive() else "TIMEOUT",
                                        "worker exit %s" % p.exitcode)
                p.kill()
                break
            if all(f in results for f in pending):
                break
        p.join(5)
        pending = [f for f in pending if f not in results]
    concurrent.futures.wait(tool_runs)
    pool.shutdown()
    counts = {}
    with open(os.path.join(out, report), "w") as f:
        for folder in folders:
            name = os.path.relpath(folder, os.path.join(root, "tests")).replace("__", "/")
            status, detail = results.get(folder, ("NOT RUN", "out of time"))
            counts[status] = counts.get(status, 0) + 1
            f.write("%s %s %s\n" % (status, name, detail))
    return counts, len(folders)


def timed(fn, warmup=3, iters=20, sync=None):
    for _ in range(warmup):
        fn()
    if sync:
        sync()
    times = []
    for _ in range(iters):
        t = time.perf_counter()
        fn()
        if sync:
            sync()
        times.append(time.perf_counter() - t)
    return float(np.median(times)) * 1e3


def torch_models():
    import torch
    import torch.nn as nn

    class Bottleneck(nn.Module):
        def __init__(self, cin, width, stride):
            super().__init__()
            self.a = nn.Sequential(nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width),
                                   nn.ReLU())
            self.b = nn.Sequential(nn.Conv2d(width, width, 3, stride, 1, bias=False),
                                   nn.BatchNorm2d(width), nn.ReLU())
            self.c = nn.Sequential(nn.Conv2d(width, 4 * width, 1, bias=False),
                                   nn.BatchNorm2d(4 * width))
            self.down = None
            if stride != 1 or cin != 4 * width:
                self.down = nn.Sequential(nn.Conv2d(cin, 4 * width, 1, stride, bias=False),
                                          nn.BatchNorm2d(4 * width))

        def forward(self, x):
            y = self.c(self.b(self.a(x)))
            return torch.relu(y + (self.down(x) if self.down is not None else x))

    def resnet50():
        layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                  nn.MaxPool2d(3, 2, 1)]
        cin = 64
        for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
            for b in range(blocks):
                layers.append(Bottleneck(cin, width, stride if b == 0 else 1))
                cin = 4 * width
        layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000)]
        return nn.Sequential(*layers)

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.words = nn.Embedding(30522, 768)
            self.pos = nn.Embedding(512, 768)
            self.norm = nn.LayerNorm(768)
            layer = nn.TransformerEncoderLayer(768, 12, 3072, dropout=0.0, activation="gelu",
                                               batch_first=True)
            self.enc = nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)

        def forward(self, ids):
            pos = torch.arange(ids.shape[1], device=ids.device)
            return self.enc(self.norm(self.words(ids) + self.pos(pos)))

    return {"resnet50_full": (resnet50, lambda: torch.randn(1, 3, 224, 224)),
            "bert_encoder_static": (Bert, lambda: torch.randint(0, 30522, (2, 128)))}


def profile(so, ins, path, runs=5):
    """The kernels' time per run (ms) from the runtime's profile
    (ONNXC_CUDA_PROFILE) of `runs` runs after 3 unprofiled ones, which goes
    to `path` with the kernels sorted by time after the runtime's own
    table."""
    if os.path.exists(path):
        os.remove(path)
    m = Model(so)
    for _ in range(3):  # warm-up, not profiled: the first run's copies
        m.run(ins, keep_outputs=False)
    os.environ["ONNXC_CUDA_PROFILE"] = path
    try:
        for _ in range(runs):
            m.run(ins, keep_outputs=False)
        m.close()
    finally:
        del os.environ["ONNXC_CUDA_PROFILE"]
    if not os.path.exists(path):
        return None
    with open(path) as f:
        lines = f.read().splitlines()
    total = None
    rows = []
    for line in lines:
        if line.startswith("onnxc cuda profile:"):
            total = float(line.split(" and ")[1].split()[0])
        elif line.strip() and line.split()[0].isdigit():
            rows.append(line)
    rows.sort(key=lambda l: -float(l.split()[2]))
    with open(path, "a") as f:
        f.write("\nby time:\n" + "\n".join(rows[:40]) + "\n")
    return total


def bench(root, out, deadline, use_compile):
    rows = []
    lines = []
    gpu, peaks = "?", {}
    try:
        import torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        gpu = torch.cuda.get_device_name(0)
        sync = torch.cuda.synchronize
    except Exception as e:
        torch = None
        lines.append("torch unavailable: %s" % e)
    references = torch_models() if torch is not None else {}
    bench_dir = os.path.join(root, "bench")
    # The quick products checked against numpy first (every kernel), then
    # the timings that matter most.
    order = ["matmul_1111x777x1000.so", "matmul_1111x777x1000+tile64.so",
             "matmul_1111x777x1000+tile128.so", "matmul_1111x777x1000+tf32.so",
             "matmul_64x8192x64.so", "matmul_64x8192x64+tf32.so",
             "matmul_1111x777x1000_f16.so", "matmul_1111x777x1000_f16+nohalf.so",
             "matmul_1111x777x1000_f16+tile128.so", "matmul_64x8192x64_f16.so",
             "sgemm_1024.so",
             "sgemm_1024+tile128.so", "sgemm_1024+tf32.so", "sgemm_4096.so",
             "sgemm_4096+tile64.so", "sgemm_4096+tf32.so", "hgemm_4096.so",
             "hgemm_4096+nohalf.so", "resnet50_full.so",
             "resnet50_full+tf32.so", "bert_encoder_static.so", "bert_encoder_static+tf32.so"]
    names = sorted(os.listdir(bench_dir), key=lambda n: (order.index(n) if n in order else 9, n)) \
        if os.path.isdir(bench_dir) else []
    for so in names:
        name = so[:-3]
        if time.time() > deadline:
            lines.append("%s: out of time" % name)
            continue
        m = Model(os.path.join(bench_dir, so))
        rng = np.random.default_rng(0)
        ins = []
        for dt, shape in m.signature():
            if np.issubdtype(dt, np.integer):
                ins.append(rng.integers(0, 1000, shape).astype(dt))
            else:
                ins.append(rng.uniform(-1, 1, shape).astype(dt))
        status, got = m.run(ins)
        if status != 0:
            lines.append("%s: onnxc status %d: %s" % (name, status, got))
            m.close()
            continue
        row = {"model": name}
        # NAME+VARIANT: the model compiled with other onnxc flags (tile64,
        # tile128: a GEMM kernel forced; tf32: --gpu-precision=tf32, timed
        # next to torch with tf32 allowed too).
        base, _, variant = name.partition("+")
        tf32 = variant == "tf32"
        if base.startswith(("sgemm", "hgemm", "matmul")):
            # The product against numpy's (float64): the kernels' results.
            # tf32 operands keep 10 bits of mantissa: sums of K products
            # are off by ~1e-3 sqrt(K); a wrong fragment layout by ~sqrt(K).
            # f16 products (exact, summed in f32) round once to f16: 2^-11
            # of the result.
            want = ins[0].astype(np.float64) @ ins[1].astype(np.float64)
            half = got[0].dtype == np.float16
            rtol, atol = (1e-2, 0.25) if tf32 else (2e-3, 0.05) if half else (1e-3, 1e-3)
            bad = compare(got[0].astype(np.float32), want.astype(np.float32), rtol, atol)
            row["check"] = "OK" if bad is None else "FAIL: " + bad
            err = np.abs(got[0].astype(np.float64) - want)
            row["max_abs_error"] = float(err.max()) if err.size else 0.0
        first = time.perf_counter()
        m.run(ins)
        one = time.perf_counter() - first
        iters = max(3, min(50, int(10.0 / max(one, 1e-4))))
        onnxc_ms = timed(lambda: m.run(ins, keep_outputs=False), warmup=2, iters=iters)
        # The same inputs already on the GPU (onnxc_run_with, device
        # addresses): the outputs must be the host run's, bit for bit.
        if torch is not None and m.run_with is not None and \
                all(m.lib.onnxc_input_dtype(i) != BF16 for i in range(len(ins))):
            dev = [torch.from_numpy(np.ascontiguousarray(a)).cuda() for a in ins]
            sync()
            status, dgot = m.run_device(dev)
            if status != 0:
                row["device_inputs"] = "status %d: %s" % (status, dgot)
            else:
                same = len(dgot) == len(got) and all(
                    np.array_equal(x, y, equal_nan=True) for x, y in zip(dgot, got))
                row["device_inputs"] = "same outputs" if same else "OUTPUTS DIFFER"
                row["onnxc_device_ms"] = timed(
                    lambda: m.run_device(dev, keep_outputs=False), warmup=2, iters=iters)
        m.close()
        row["onnxc_ms"] = onnxc_ms
        # A/B in the same run (the variables are read at a library's first
        # run: a fresh load each): every buffer in managed memory, as before
        # onnxc-device-memory; the launches as CUDA graphs, whose outputs
        # (from the fourth run: the third captures) must equal the eager
        # run's bit for bit.
        for key, var, value in (("onnxc_managed_ms", "ONNXC_CUDA_DEVICE_MEMORY", "0"),
                                ("onnxc_graphs_ms", "ONNXC_CUDA_GRAPHS", "1")):
            os.environ[var] = value
            try:
                variant = Model(os.path.join(bench_dir, so))
                for _ in range(3):
                    variant.run(ins, keep_outputs=False)
                status, vgot = variant.run(ins)
                if key == "onnxc_graphs_ms":
                    same = status == 0 and len(vgot) == len(got) and all(
                        np.array_equal(x, y, equal_nan=True) for x, y in zip(vgot, got))
                    row["graphs"] = "same outputs" if same else "OUTPUTS DIFFER (%s)" % (
                        vgot if status else "values")
                row[key] = timed(lambda: variant.run(ins, keep_outputs=False),
                                 warmup=2, iters=iters)
                variant.close()
            finally:
                del os.environ[var]
        row["kernel_ms"] = profile(os.path.join(bench_dir, so), ins,
                                   os.path.join(out, "profile_%s.txt" %
                                                name.replace("+", "_")))
        with_torch = torch is not None and variant in ("", "tf32", "nohalf")
        if with_torch:
            torch.backends.cuda.matmul.allow_tf32 = tf32
            torch.backends.cudnn.allow_tf32 = tf32
        if base.startswith(("sgemm", "hgemm")):
            n = int(base.split("_")[1])
            row["onnxc_tflops"] = 2 * n ** 3 / (onnxc_ms * 1e-3) / 1e12
            if with_torch:
                dtype = torch.float16 if base.startswith("hgemm") else torch.float32
                a = torch.randn(n, n, device="cuda", dtype=dtype)
                b = torch.randn(n, n, device="cuda", dtype=dtype)
                t_ms = timed(lambda: torch.mm(a, b), iters=50, sync=sync)
                row["torch_eager_ms"] = t_ms
                row["torch_tflops"] = 2 * n ** 3 / (t_ms * 1e-3) / 1e12
                # Torch's sgemm with large tiles, as the reference for "peak".
                if n == 4096:
                    kind = "f16" if dtype == torch.float16 else "tf32" if tf32 else "fp32"
                    peaks[kind] = row["torch_tflops"]
        elif with_torch and base in references:
            make, inp = references[base]
            with torch.no_grad():
                model = make().cuda().eval()
                x = inp().cuda()
                row["torch_eager_ms"] = timed(lambda: model(x), sync=sync)
                if use_compile and not tf32 and time.time() + 120 < deadline:
                    try:
                        c = torch.compile(model, mode="reduce-overhead")
                        row["torch_compiled_ms"] = timed(lambda: c(x), warmup=5, sync=sync)
                    except Exception as e:
                        lines.append("%s: torch.compile failed: %s" % (name, str(e)[:200]))
        if with_torch:
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        rows.append(row)
        print("bench", row, flush=True)
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write("GPU: %s\n\n" % gpu)
        f.write("| model | onnxc ms | onnxc ms, all managed | onnxc ms, CUDA graphs |"
                " onnxc ms, device inputs |"
                " its kernels ms | torch eager ms | torch.compile (reduce-overhead) ms |"
                " onnxc TFLOP/s | torch TFLOP/s |\n|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write("| %s | %.3f | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
                r["model"], r["onnxc_ms"],
                "%.3f" % r["onnxc_managed_ms"] if "onnxc_managed_ms" in r else "-",
                "%.3f" % r["onnxc_graphs_ms"] if "onnxc_graphs_ms" in r else "-",
                "%.3f" % r["onnxc_device_ms"] if "onnxc_device_ms" in r else "-",
                "%.3f" % r["kernel_ms"] if r.get("kernel_ms") is not None else "-",
                "%.3f" % r["torch_eager_ms"] if "torch_eager_ms" in r else "-",
                "%.3f" % r["torch_compiled_ms"] if "torch_compiled_ms" in r else "-",
                "%.2f" % r["onnxc_tflops"] if "onnxc_tflops" in r else "-",
                "%.2f" % r["torch_tflops"] if "torch_tflops" in r else "-"))
        for kind, peak in sorted(peaks.items()):
            f.write("\ntorch gemm 4096^3 (%s): %.1f TFLOP/s\n" % (kind, peak))
        for r in rows:
            if "device_inputs" in r:
                f.write("\n%s with device inputs: %s\n" % (r["model"], r["device_inputs"]))
            if "graphs" in r:
                f.write("\n%s with CUDA graphs: %s\n" % (r["model"], r["graphs"]))
        for r in rows:
            if "check" in r:
                f.write("\n%s result vs numpy: %s (max |error| %.3g)\n" % (
                    r["model"], r["check"], r["max_abs_error"]))
        for l in lines:
            f.write("\n" + l)
    return rows


def unpack(bundle, name):
    work = os.path.join(os.path.dirname(os.path.abspath(bundle)), name)
    with tarfile.open(bundle) as t:
        t.extractall(work)
    return os.path.join(work, "bundle")


def probe(root):
    """None when the first test's kernels load, else the message."""
    base = os.path.join(root, "tests")
    folder = None
    for suite in sorted(os.listdir(base)):
        for t in sorted(os.listdir(os.path.join(base, suite))):
            with open(os.path.join(base, suite, t, "meta.json")) as f:
                if "runner" not in json.load(f):
                    folder = os.path.join(base, suite, t)
                    break
        if folder:
            break
    if folder is None:
        return None
    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        status, detail = pool.apply(run_test, (folder,))
    print("probe %s: %s %s" % (os.path.basename(folder), status, detail), flush=True)
    return detail if "status 7" in detail else None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bundle")
    ap.add_argument("--out", required=True)
    ap.add_argument("--fallback", help="the bundle to use when the first one's kernels "
                                       "do not load")
    ap.add_argument("--budget-s", type=float, default=420)
    ap.add_argument("--conformance-s", type=float, default=200)
    ap.add_argument("--no-torch-compile", action="store_true")
    ap.add_argument("--skip-conformance", action="store_true")
    ap.add_argument("--graph-conformance-s", type=float, default=0,
                    help="then the conformance tests again for this long with "
                         "ONNXC_CUDA_GRAPHS=1, each data set run four times "
                         "(conformance-graphs.txt)")
    args = ap.parse_args()
    start = time.time()
    os.makedirs(args.out, exist_ok=True)
    root = unpack(args.bundle, "unpacked")
    print("unpacked in %.1fs" % (time.time() - start), flush=True)
    problem = probe(root)
    if problem and args.fallback:
        print("falling back to %s: %s" % (args.fallback, problem), flush=True)
        with open(os.path.join(args.out, "fallback.txt"), "w") as f:
            f.write("first bundle's probe failed: %s\n" % problem)
        root = unpack(args.fallback, "unpacked-fallback")
    if not args.skip_conformance:
        counts, total = conformance(root, args.out, start + args.conformance_s)
        print("conformance on the GPU: %s of %d (%.1fs)" % (counts, total, time.time() - start),
              flush=True)
    if args.graph_conformance_s > 0:
        began = time.time()
        os.environ["ONNXC_CUDA_GRAPHS"] = "1"
        try:
            counts, total = conformance(root, args.out, began + args.graph_conformance_s,
                                        "conformance-graphs.txt")
        finally:
            del os.environ["ONNXC_CUDA_GRAPHS"]
        print("conformance with CUDA graphs: %s of %d (%.1fs)" % (
            counts, total, time.time() - began), flush=True)
    bench(root, args.out, start + args.budget_s, not args.no_torch_compile)
    # The profiles as one file (the device tool returns a few files only).
    names = sorted(f for f in os.listdir(args.out) if f.startswith("profile_"))
    with open(os.path.join(args.out, "profiles.txt"), "w") as f:
        for n in names:
            with open(os.path.join(args.out, n)) as p:
                f.write("== %s\n%s\n" % (n[len("profile_"):-4], p.read()))
            os.remove(os.path.join(args.out, n))
    print("done in %.1fs" % (time.time() - start), flush=True)


if __name__ == "__main__":
    main()
