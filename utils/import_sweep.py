#!/usr/bin/env python3
"""Import sweep: imports and verifies every model of the ONNX backend suites.

For each suite (Debian's ONNX 1.12 copy and the ONNX 1.23 copy in
../shared/onnx-backend-tests) every `*/model.onnx` (and `light_*.onnx`) is
run through `onnxc --emit=onnx-inferred` (import, verify, shape inference,
verify). The result of each model is PASS or FAIL with the first line of the
diagnostic. The checked-in lists `test/import-sweep/<suite>.passing` name the
models that import today; a listed model that fails makes the sweep fail
(exit 1), and so does a listed model that did not run (NOT RUN: no longer in
the suite folder, or SKIP). A selected suite whose folder is missing is an
error (exit 2); --allow-missing-suite skips it instead, for a checkout
without the data.

  utils/import_sweep.py --onnxc build/bin/onnxc            # check
  utils/import_sweep.py --onnxc build/bin/onnxc --update   # rewrite lists
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITES = {
    "onnx-1.12": "/usr/share/libonnx-testdata/data",
    "onnx-1.23": os.path.join(os.path.dirname(ROOT), "shared", "onnx-backend-tests"),
}
LISTS_DIR = os.path.join(ROOT, "test", "import-sweep")  # <suite>.passing


def find_models(root):
    models = []
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            continue
        for entry in sorted(os.listdir(path)):
            p = os.path.join(path, entry)
            if os.path.isdir(p):
                m = os.path.join(p, "model.onnx")
                # Debian's real/ folder holds only download links (data.json).
                models.append((folder + "/" + entry, m if os.path.exists(m) else None))
            elif entry.endswith(".onnx"):
                models.append((folder + "/" + entry[:-5], p))
    return models


def run_one(onnxc, name, path, timeout):
    if path is None:
        return name, "SKIP", "no model.onnx (download link only)"
    try:
        r = subprocess.run([onnxc, path, "--emit=onnx-inferred", "-o", os.devnull],
                           capture_output=True, text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return name, "FAIL", "timeout after %ds" % timeout
    if r.returncode == 0:
        return name, "PASS", ""
    if r.returncode < 0:
        return name, "FAIL", "CRASH (signal %d)" % -r.returncode
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    msg = " | ".join(lines[:3]) if lines else "exit %d" % r.returncode
    return name, "FAIL", msg.replace(os.path.dirname(path) + "/", "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--onnxc", default=os.path.join(ROOT, "build", "bin", "onnxc"))
    ap.add_argument("--suite", action="append", choices=sorted(SUITES))
    ap.add_argument("--update", action="store_true",
                    help="rewrite the checked-in lists of passing models")
    ap.add_argument("--allow-missing-suite", action="store_true",
                    help="skip a selected suite whose folder is missing instead of failing "
                         "(exit 2); for a checkout without the test data")
    ap.add_argument("--lists-dir", default=LISTS_DIR,
                    help="folder of the <suite>.passing lists (default: %(default)s)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--report", help="write every result line to this file")
    args = ap.parse_args(argv)

    suites = []
    for suite in sorted(set(args.suite or SUITES)):
        root = SUITES[suite]
        if os.path.isdir(root):
            suites.append((suite, root))
        elif not args.allow_missing_suite:
            print("error: suite %s: folder %s not found (install the data, select other "
                  "suites with --suite, or pass --allow-missing-suite)" % (suite, root),
                  file=sys.stderr)
            return 2
        else:
            print("%s: %s not found, skipped (--allow-missing-suite)" % (suite, root))

    failed_listed = []
    not_run = []
    report = []
    for suite, root in suites:
        models = find_models(root)
        start = time.time()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda m: run_one(args.onnxc, m[0], m[1], args.timeout),
                                    models))
        listfile = os.path.join(args.lists_dir, suite + ".passing")
        listed = []
        if os.path.exists(listfile):
            with open(listfile) as f:
                listed = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        listed_set = set(listed)
        per_folder = {}
        for name, status, msg in results:
            folder = name.split("/")[0]
            c = per_folder.setdefault(folder, {"PASS": 0, "FAIL": 0, "SKIP": 0})
            c[status] += 1
            report.append("%s %s/%s%s" % (status, suite, name, (": " + msg) if msg else ""))
            if name not in listed_set:
                continue
            if status == "SKIP":
                not_run.append("%s/%s: SKIP %s" % (suite, name, msg))
            elif status != "PASS":
                failed_listed.append("%s/%s: %s" % (suite, name, msg))
        found = {name for name, _, _ in results}
        not_run.extend("%s/%s: not found in %s" % (suite, name, root)
                       for name in listed if name not in found)
        total = {k: sum(c[k] for c in per_folder.values()) for k in ("PASS", "FAIL", "SKIP")}
        print("%s (%s), %.0fs" % (suite, root, time.time() - start))
        for folder, c in sorted(per_folder.items()):
            print("  %-20s %4d/%-4d import%s" % (folder, c["PASS"], c["PASS"] + c["FAIL"],
                                                ("  (%d skipped)" % c["SKIP"]) if c["SKIP"] else ""))
        print("  %-20s %4d/%-4d import (%.1f%%)" % (
            "total", total["PASS"], total["PASS"] + total["FAIL"],
            100.0 * total["PASS"] / max(1, total["PASS"] + total["FAIL"])))
        if args.update:
            passing = {name for name, status, _ in results if status == "PASS"}
            dropped = sorted(listed_set - passing)
            print("  %s: %d model(s), %d added, %d dropped%s" % (
                os.path.relpath(listfile, ROOT), len(passing), len(passing - listed_set),
                len(dropped), (": " + " ".join(dropped[:8]) + (" ..." if len(dropped) > 8 else ""))
                if dropped else ""))
            os.makedirs(os.path.dirname(listfile), exist_ok=True)
            with open(listfile, "w") as f:
                f.write("# Models of the %s suite that import and verify; kept by\n"
                        "# utils/import_sweep.py --update. A listed model that fails is a regression.\n" % suite)
                for name, status, _ in results:
                    if status == "PASS":
                        f.write(name + "\n")
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(report) + "\n")
    if args.update:
        return 0
    if failed_listed:
        print("\nREGRESSIONS: %d listed model(s) no longer import:" % len(failed_listed))
        for l in failed_listed:
            print("  " + l)
    if not_run:
        print("\nNOT RUN: %d listed model(s) did not run (--update drops the ones no longer "
              "in the suite):" % len(not_run))
        for l in not_run:
            print("  " + l)
    return 1 if failed_listed or not_run else 0


if __name__ == "__main__":
    sys.exit(main())
