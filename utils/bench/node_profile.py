#!/usr/bin/env python3
"""Time per ONNX node of a compiled model, with the GFLOP/s of each conv/matmul.

  node_profile.py MODEL.onnx [--threads T] [--iterations N] [--top K]
                  [--onnxc build/bin/onnxc] [--onnxc-run build/bin/onnxc-run]
                  [--onnxc-arg=--layout=nchw ...] [--dim seq=128 ...]

Compiles MODEL with `onnxc --node-line-tables`, runs it under `perf record`
(`onnxc-run --random-inputs`, skipping the first 1.5 s of setup; at least
--iterations runs, more for fast models so that 2 s are recorded), and splits
the samples by source file (= node name; samples outside any node's code go
to their symbol: memmove, memset, ...). The time of a node is its share of
the samples times the median latency; GFLOP/s uses the FLOP counts of
utils/bench/flops.py. Needs `perf`. A measurement aid, not a test.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flops import per_node_flops  # noqa: E402


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--onnxc", default=os.path.join(root, "build/bin/onnxc"))
    ap.add_argument("--onnxc-run", default=os.path.join(root, "build/bin/onnxc-run"))
    ap.add_argument("--onnxc-arg", action="append", default=[],
                    help="extra onnxc argument (repeatable), e.g. --onnxc-arg=--layout=nchw")
    ap.add_argument("--dim", action="append", default=[],
                    help="NAME=VALUE of a dynamic input dim (onnxc-run --dim), e.g. seq=128")
    args = ap.parse_args()
    dims = [v for d in args.dim for v in ("--dim", d)]
    with tempfile.TemporaryDirectory() as tmp:
        so = os.path.join(tmp, "m.so")
        subprocess.run([args.onnxc, args.model, "--node-line-tables", "-o", so] + args.onnxc_arg,
                       check=True)
        data = os.path.join(tmp, "perf.data")
        # Enough iterations to run at least 2 s past perf's 1.5 s delay (a
        # 4 ms model's 100 iterations ended before perf began to record).
        probe = subprocess.run(
            [args.onnxc_run, so, "--random-inputs", "--warmup", "1", "--iterations", "5",
             "--threads", str(args.threads)] + dims, capture_output=True, text=True, check=True)
        probe_ms = float(re.search(r"median ([0-9.]+) ms", probe.stdout + probe.stderr).group(1))
        iterations = max(args.iterations, int(2000.0 / max(probe_ms, 0.01)) + 1)
        run = subprocess.run(
            ["perf", "record", "-q", "-D", "1500", "-o", data, args.onnxc_run, so,
             "--random-inputs", "--warmup", "5", "--iterations", str(iterations),
             "--threads", str(args.threads)] + dims, capture_output=True, text=True, check=True)
        median = float(re.search(r"median ([0-9.]+) ms", run.stdout + run.stderr).group(1))
        rep = subprocess.run(["perf", "report", "-i", data, "--sort", "srcfile,sym",
                              "--stdio"], capture_output=True, text=True).stdout
    share = {}
    for line in rep.splitlines():
        m = re.match(r"\s*([0-9.]+)%\s+(\S*)\s+\[.\]\s+(\S+)", line)
        if not m:
            continue
        pct, src, sym = float(m.group(1)), m.group(2), m.group(3)
        key = src if src and not src.endswith((".c", ".S", ".h")) else sym
        share[key] = share.get(key, 0.0) + pct
    info = per_node_flops(onnx.load(args.model, load_external_data=False))
    total = sum(share.values())
    print("median latency %.3f ms at %d thread(s); %.1f%% of samples attributed"
          % (median, args.threads, total))
    print("| node | op | ms | % | GFLOP/s |")
    print("|---|---|---|---|---|")
    for key, pct in sorted(share.items(), key=lambda kv: -kv[1])[:args.top]:
        ms = median * pct / 100.0
        op, f = info.get(key, ("", 0))
        gf = "%.1f" % (f / ms / 1e6) if f and ms > 0 else ""
        print("| %s | %s | %.3f | %.1f | %s |" % (key, op, ms, pct, gf))
    by_op = {}
    for key, pct in share.items():
        op = info[key][0] if key in info else "(other)"
        by_op[op] = by_op.get(op, 0.0) + pct
    print("\nby op type: " + ", ".join("%s %.1f%%" % kv for kv in
                                         sorted(by_op.items(), key=lambda kv: -kv[1])))


if __name__ == "__main__":
    main()
