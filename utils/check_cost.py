#!/usr/bin/env python3
"""What the run-time checks cost: each model compiled with and without them.

  utils/check_cost.py [--iterations N] [--warmup N] MODEL.onnx...

Compiles every model twice, `onnxc M -o with.so` and `onnxc M -o without.so
--no-runtime-checks`, runs both with `onnxc-run --random-inputs --warmup W
--iterations N [--dim NAME=VALUE]...`, alternating the two libraries in rounds so that machine
noise hits both alike, and prints the median latencies and their ratio
(a cost of +1.0% means the checked model takes 1% longer). Models with
symbolic input dims take the --dim values, else 1 (onnxc-run's rule). Also prints the
number of checks left in each checked model (calls of onnxc_rt_fail in its
LLVM IR).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def median_ms(onnxc_run, lib, warmup, iterations, extra):
    out = subprocess.run([onnxc_run, lib, "--random-inputs", "--warmup", str(warmup),
                          "--iterations", str(iterations)] + extra,
                         check=True, capture_output=True, text=True).stdout
    m = re.search(r"latency: min ([0-9.]+) ms, median ([0-9.]+) ms", out)
    if not m:
        raise RuntimeError("no latency in onnxc-run's output:\n" + out)
    return float(m.group(2))


def count_checks(onnxc, model):
    ir = subprocess.run([onnxc, model, "--emit=llvm-ir", "-o", "-"], check=True,
                        capture_output=True, text=True).stdout
    return len(re.findall(r"call void @onnxc_rt_fail\(", ir))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+")
    ap.add_argument("--onnxc", default=os.path.join(ROOT, "build", "bin", "onnxc"))
    ap.add_argument("--onnxc-run", default=os.path.join(ROOT, "build", "bin", "onnxc-run"))
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--dim", action="append", default=[], metavar="NAME=VALUE",
                    help="size of a symbolic input dim (passed to onnxc-run)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="alternating rounds of with/without (median of the rounds)")
    args = ap.parse_args()
    print("%-28s %7s %12s %12s %8s" % ("model", "checks", "with (ms)", "without (ms)",
                                       "cost"))
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models:
            name = os.path.basename(model)[:-5]
            libs = {}
            for variant, extra in (("with", []), ("without", ["--no-runtime-checks"])):
                libs[variant] = os.path.join(tmp, "%s_%s.so" % (name, variant))
                subprocess.run([args.onnxc, model, "-o", libs[variant]] + extra, check=True)
            times = {"with": [], "without": []}
            for _ in range(args.rounds):
                for variant in ("without", "with"):
                    times[variant].append(median_ms(
                        args.onnxc_run, libs[variant], args.warmup, args.iterations,
                        [a for d in args.dim for a in ("--dim", d)]))
            w = statistics.median(times["with"])
            wo = statistics.median(times["without"])
            print("%-28s %7d %12.3f %12.3f %+7.1f%%" % (
                name, count_checks(args.onnxc, model), w, wo, 100.0 * (w / wo - 1)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
