#!/usr/bin/env python3
"""Conformance sweep: compiles and runs every model of the ONNX backend suites.

For each suite (Debian's ONNX 1.12 copy and the ONNX 1.23 copy in
../shared/onnx-backend-tests) every `<folder>/<test>/model.onnx` is compiled
with `onnxc model.onnx -o model.so`, and every `test_data_set_*` of the test is
run with `onnxc-run model.so --inputs DIR --expected-dir DIR --rtol R --atol A`.
The light/ models (`light_X.onnx` + `light_X_output_0.pb`, no input file) are
run on the input the ONNX backend runner made their reference output from
(`onnxc-run --ramp-inputs`: element i of n is i/n) and checked the same way.

Status of a test (one line `STATUS suite/folder/test [detail]` each in the
report file):
  PASS           compiled, and every data set matches within tolerance
  FAIL           compiled, but an output differs (detail starts "mismatch")
                 or onnxc-run could not run it (detail starts "run error")
  UNSUPPORTED    onnxc failed with "not supported" (or "does not support")
                 in its diagnostic
  COMPILE_ERROR  onnxc failed otherwise (or wrote no library)
  CRASH          onnxc or onnxc-run was killed by a signal
  TIMEOUT        onnxc (--timeout) or onnxc-run (--run-timeout) took too long
  SKIP           nothing to run (Debian's real/ holds download links only)

Tolerances are the ONNX backend runner's: rtol 1e-3, atol 1e-7, a test's
data.json may say otherwise, and the overrides that onnx's own reference
backend test passes (onnx/test/test_backend_reference.py) apply to the tests
it names (TOLERANCE_OVERRIDES below).

Every onnxc-run also gets `--check-determinism` (unless
--no-check-determinism): it runs the model twice on the same input buffers
and from several threads, and exits 1 with a line "determinism: FAIL ..." when
the outputs differ or an input was modified. Such a test is a FAIL with the
detail "determinism: <data set>: ...".

The checked-in lists `test/conformance/<suite>.passing` name the tests that
pass today; a listed test that does not pass makes the sweep fail (exit 1),
and so does a listed test that did not run (NOT RUN: it is no longer in the
suite folder, or came out SKIP), unless --filter leaves it out. A selected
suite whose folder is missing is an error (exit 2); --allow-missing-suite
skips it instead, for a checkout without the data.

With --target cuda-host-check every model is compiled for the CPU with
`onnxc --cuda-gemm-host-check` and run as on the CPU: the CUDA target's
matmul and convolution views and fused ops (which op a product's kernel
absorbs, where it reads and writes), as scalar loop nests checked against
the same expected outputs.

With --target cuda every model is compiled with `onnxc --target=cuda`
(--gpu-arch, a fat binary: its PTX goes through CUDA's ptxas) and, with
--compile-only (as on machines without a GPU), a test PASSes when it
compiles; the lists checked are the same CPU lists: every test that passes
on the CPU must compile for CUDA. --fake-driver adds a run of each compiled
model (its first data set) by onnxc-run against the stand-in libcuda.so.1
of test/onnxc-run/Inputs/fake_libcuda.c, whose kernels only print their
launches and whose device memory the host cannot touch: the test then
PASSes unless the run crashes (the host code touched a buffer that
onnxc-device-memory put in device memory, say) or hangs; its outputs mean
nothing and are not compared. Without a CUDA toolkit (the one `onnxc
--version` names: ptxas and libdevice) the cuda sweep is
skipped (exit 0, "skipped: no CUDA toolkit").

  utils/conformance.py                          # check both suites
  utils/conformance.py --suite onnx-1.23 --filter 'node/test_(add|sub)'
  utils/conformance.py --update                 # rewrite the lists
"""

import argparse
import collections
import concurrent.futures
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITES = {
    "onnx-1.12": "/usr/share/libonnx-testdata/data",
    "onnx-1.23": os.path.join(os.path.dirname(ROOT), "shared", "onnx-backend-tests"),
}
LISTS_DIR = os.path.join(ROOT, "test", "conformance")  # <suite>.passing
STATUSES = ["PASS", "FAIL", "UNSUPPORTED", "COMPILE_ERROR", "CRASH", "TIMEOUT", "SKIP"]

DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-7
# test name: {"rtol": R, "atol": A}, as onnx/test/test_backend_reference.py
# passes them to the backend test runner (test_kwargs; atol 1e-6 is its Linux
# value for the DFT tests).
TOLERANCE_OVERRIDES = {
    "test_dft": {"atol": 1e-6},
    "test_dft_axis": {"atol": 1e-6},
    "test_dft_axis_opset19": {"atol": 1e-6},
    "test_dft_inverse": {"atol": 1e-6},
    "test_dft_inverse_opset19": {"atol": 1e-6},
    "test_dft_opset19": {"atol": 1e-6},
    "test_celu_bfloat16_expanded": {"rtol": 1e-2, "atol": 1e-2},
}


class Test:
    def __init__(self, suite, name, model, data_sets, light_outputs=None, rtol=None, atol=None):
        self.suite = suite
        self.name = name  # folder/test
        self.model = model  # None: nothing to run
        self.data_sets = data_sets
        self.light_outputs = light_outputs  # light/: the expected output files
        self.rtol = rtol
        self.atol = atol

    @property
    def full_name(self):
        return self.suite + "/" + self.name


def find_tests(suite, root, rtol, atol):
    tests = []
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            continue
        for entry in sorted(os.listdir(path)):
            p = os.path.join(path, entry)
            if os.path.isdir(p):
                r, a = rtol, atol
                data_json = os.path.join(p, "data.json")
                if os.path.exists(data_json):
                    with open(data_json) as f:
                        data = json.load(f)
                    r, a = data.get("rtol", r), data.get("atol", a)
                override = TOLERANCE_OVERRIDES.get(entry, {})
                r, a = override.get("rtol", r), override.get("atol", a)
                m = os.path.join(p, "model.onnx")
                data_sets = sorted(glob.glob(os.path.join(p, "test_data_set_*")),
                                   key=lambda d: int(d.rsplit("_", 1)[1])
                                   if d.rsplit("_", 1)[1].isdigit() else 0)
                tests.append(Test(suite, folder + "/" + entry,
                                  m if os.path.exists(m) else None, data_sets, rtol=r, atol=a))
            elif entry.endswith(".onnx"):
                stem = p[:-5]
                outputs = []
                while os.path.exists("%s_output_%d.pb" % (stem, len(outputs))):
                    outputs.append("%s_output_%d.pb" % (stem, len(outputs)))
                tests.append(Test(suite, folder + "/" + entry[:-5], p, [], light_outputs=outputs,
                                  rtol=rtol, atol=atol))
    return tests


class Processes:
    """The running child processes, killed as a group on timeout or Ctrl-C."""

    def __init__(self):
        self.lock = threading.Lock()
        self.live = set()
        self.stopping = False

    def run(self, cmd, timeout, env=None):
        """Returns (returncode or None on timeout, stdout, stderr)."""
        with self.lock:
            if self.stopping:
                raise KeyboardInterrupt
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 errors="replace", start_new_session=True, env=env)
            self.live.add(p)
        try:
            try:
                out, err = p.communicate(timeout=timeout)
                return p.returncode, out, err
            except subprocess.TimeoutExpired:
                self.kill(p)
                out, err = p.communicate()
                return None, out, err
        finally:
            with self.lock:
                self.live.discard(p)

    @staticmethod
    def kill(p):
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill_all(self):
        with self.lock:
            self.stopping = True
            for p in list(self.live):
                self.kill(p)


def signal_name(rc):
    try:
        return signal.Signals(-rc).name
    except ValueError:
        return "signal %d" % -rc


def one_line(text, *strip):
    for s in strip:
        if s:
            text = text.replace(s + "/", "").replace(s, "")
    text = " | ".join(l.strip() for l in text.splitlines() if l.strip())
    return text[:400] + ("..." if len(text) > 400 else "")


# onnxc's words for a model feature it cannot handle yet (the backend says
# "'onnx.X' is not supported", the importer "uses operator(s) that onnxc does
# not support", the runtime interface "which the runtime does not support").
UNSUPPORTED_RE = re.compile(r"not supported|does not support")
# What the unsupported-feature histogram counts: an op name if there is one.
OP_RE = re.compile(r"'(onnx\.\w+)'|\b([\w.]+::\w+-\d+)")


def compile_message(err):
    """The diagnostic of a failed compile: the first error (with its note
    lines), preferring one that says what is unsupported."""
    lines = [l for l in err.splitlines() if l.strip()]
    starts = [i for i, l in enumerate(lines) if "error:" in l] or [0]
    first = next((i for i in starts if UNSUPPORTED_RE.search(lines[i])), starts[0])
    block = lines[first:first + 1]
    for l in lines[first + 1:first + 4]:
        if "error:" in l or "note: see current operation" in l:  # IR dumps
            break
        block.append(l)
    return "\n".join(block)


def unsupported_features(detail):
    ops = [a or b for a, b in OP_RE.findall(detail)]
    return sorted(set(ops)) or [re.sub(r"^.*?error:\s*", "", detail).split(" | ")[0][:100]]


def determinism_failure(text):
    """What onnxc-run --check-determinism said went wrong: its first line
    "determinism: FAIL ...", less the "determinism:", or None."""
    for l in text.splitlines():
        l = l.strip()
        if l.startswith("determinism:") and "FAIL" in l:
            return l[len("determinism:"):].strip()
    return None


def run_test(test, args, procs, tmp_root):
    if test.model is None:
        return "SKIP", "no model.onnx (download link only)"
    if test.light_outputs is not None and not test.light_outputs:
        return "SKIP", "no reference output"
    if test.light_outputs is None and not test.data_sets:
        return "SKIP", "no test_data_set"
    test_dir = os.path.dirname(test.model)
    work = tempfile.mkdtemp(prefix=test.name.replace("/", "_") + ".", dir=tmp_root)
    try:
        lib = os.path.join(work, "model.so")
        rc, out, err = procs.run([args.onnxc, test.model, "-o", lib] + args.target_flags,
                                 args.timeout)
        if rc is None:
            return "TIMEOUT", "onnxc: compile took more than %ds" % args.timeout
        if rc < 0:
            msg = one_line(compile_message(err), work, test_dir)
            return "CRASH", "onnxc: %s%s" % (signal_name(rc), (": " + msg) if msg else "")
        if rc != 0:
            status = "UNSUPPORTED" if UNSUPPORTED_RE.search(err) else "COMPILE_ERROR"
            msg = one_line(compile_message(err), work, test_dir) or "exit %d" % rc
            return status, msg
        if not os.path.exists(lib):
            return "COMPILE_ERROR", "onnxc exited 0 but wrote no %s" % os.path.basename(lib)
        if args.fake_driver:
            return run_with_fake_driver(test, args, procs, lib)
        if args.compile_only:
            return "PASS", ""

        tolerance = ["--rtol", repr(test.rtol), "--atol", repr(test.atol)]
        if args.check_determinism:
            tolerance.append("--check-determinism")
        if test.light_outputs is not None:
            expected = os.path.join(work, "expected")
            os.mkdir(expected)
            for k, f in enumerate(test.light_outputs):
                os.symlink(f, os.path.join(expected, "output_%d.pb" % k))
            runs = [("ramp input", [args.onnxc_run, lib, "--ramp-inputs",
                                    "--expected-dir", expected] + tolerance)]
        else:
            runs = [(os.path.basename(d), [args.onnxc_run, lib, "--inputs", d,
                                           "--expected-dir", d] + tolerance)
                    for d in test.data_sets]
        for label, cmd in runs:
            rc, out, err = procs.run(cmd, args.run_timeout)
            if rc is None:
                return "TIMEOUT", "%s: onnxc-run took more than %ds" % (label, args.run_timeout)
            if rc < 0:
                return "CRASH", "%s: onnxc-run: %s" % (label, signal_name(rc))
            determinism = determinism_failure(out + "\n" + err)
            if rc != 0 and determinism:
                return "FAIL", "determinism: %s: %s" % (
                    label, one_line(determinism, work, test_dir))
            if rc == 1:
                # The failing outputs with their first bad element; the
                # summary line only when it says more (a count mismatch).
                lines = out.splitlines()
                bad = [l.strip() for i, l in enumerate(lines)
                       if (": FAIL" in l and not l.startswith("result:")) or
                       l.startswith("FAIL:") or
                       (i > 0 and ": FAIL" in lines[i - 1] and l.startswith("  "))]
                if not bad:
                    bad = [l for l in lines if l.startswith("result: FAIL")]
                return "FAIL", "mismatch: %s: %s" % (label, one_line("\n".join(bad[:4]), work))
            if rc != 0:
                return "FAIL", "run error: %s: %s" % (
                    label, one_line(err, work, test_dir) or "onnxc-run exit %d" % rc)
        return "PASS", ""
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_with_fake_driver(test, args, procs, lib):
    """--fake-driver: the host side of a CUDA model, run once."""
    if test.light_outputs is not None:
        cmd = [args.onnxc_run, lib, "--ramp-inputs"]
    else:
        cmd = [args.onnxc_run, lib, "--inputs", test.data_sets[0]]
    env = dict(os.environ, LD_LIBRARY_PATH=args.fake_driver)
    rc, out, err = procs.run(cmd + ["--device", "cuda"], args.run_timeout, env)
    if rc is None:
        return "TIMEOUT", "fake driver: onnxc-run took more than %ds" % args.run_timeout
    if rc < 0:
        return "CRASH", "fake driver: onnxc-run: %s" % signal_name(rc)
    return "PASS", ""


def build_fake_driver(tmp_root):
    """Compiles the stand-in libcuda.so.1 into tmp_root/fake-cuda; its
    folder, or None."""
    source = os.path.join(ROOT, "test", "onnxc-run", "Inputs", "fake_libcuda.c")
    folder = os.path.join(tmp_root, "fake-cuda")
    os.makedirs(folder, exist_ok=True)
    for cc in ("/usr/lib/llvm-22/bin/clang", "clang", "cc"):
        try:
            done = subprocess.run([cc, "-shared", "-fPIC", "-O1", source, "-o",
                                   os.path.join(folder, "libcuda.so.1")],
                                  capture_output=True, text=True)
        except OSError:
            continue
        if done.returncode == 0:
            return folder
    return None


def read_list(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--onnxc", default=os.path.join(ROOT, "build", "bin", "onnxc"))
    ap.add_argument("--onnxc-run", default=os.path.join(ROOT, "build", "bin", "onnxc-run"))
    ap.add_argument("--suite", action="append", choices=sorted(SUITES))
    ap.add_argument("--filter", metavar="REGEX",
                    help="run only the tests whose suite/folder/test name matches (re.search)")
    ap.add_argument("--update", action="store_true",
                    help="rewrite the checked-in lists of passing tests (with --filter, only "
                         "the entries of the tests that ran change; names no longer in the "
                         "suite are dropped)")
    ap.add_argument("--allow-missing-suite", action="store_true",
                    help="skip a selected suite whose folder is missing instead of failing "
                         "(exit 2); for a checkout without the test data")
    ap.add_argument("--check-determinism", action=argparse.BooleanOptionalAction, default=True,
                    help="pass --check-determinism to every onnxc-run: outputs that differ "
                         "between runs or threads, or a modified input, are a FAIL "
                         "(default: on)")
    ap.add_argument("--lists-dir", default=LISTS_DIR,
                    help="folder of the <suite>.passing lists (default: %(default)s)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300, help="seconds per compile")
    ap.add_argument("--run-timeout", type=int, default=300, help="seconds per onnxc-run")
    ap.add_argument("--rtol", type=float, default=DEFAULT_RTOL,
                    help="default relative tolerance (per-test overrides still apply)")
    ap.add_argument("--atol", type=float, default=DEFAULT_ATOL,
                    help="default absolute tolerance (per-test overrides still apply)")
    ap.add_argument("--report", default=os.path.join(ROOT, "build", "conformance-results.txt"),
                    help="write every result line to this file (default: %(default)s)")
    ap.add_argument("--target", choices=["cpu", "cuda", "cuda-host-check"], default="cpu",
                    help="what onnxc compiles for (default: %(default)s)")
    ap.add_argument("--gpu-arch", default="sm_90", help="--target cuda: onnxc --gpu-arch")
    ap.add_argument("--compile-only", action="store_true",
                    help="a test passes when it compiles (its lists are still checked)")
    ap.add_argument("--fake-driver", action="store_true",
                    help="--target cuda: also run each model's host side against a "
                         "stand-in libcuda.so.1; a test passes unless that run crashes "
                         "or hangs")
    args = ap.parse_args(argv)
    args.target_flags = []
    if args.target == "cuda":
        if args.update:
            print("error: --update rewrites the CPU lists; not with --target cuda",
                  file=sys.stderr)
            return 2
        args.target_flags = ["--target=cuda", "--gpu-arch=" + args.gpu_arch,
                             "--gpu-binary=fatbin"]
    elif args.fake_driver:
        print("error: --fake-driver runs CUDA models: with --target cuda", file=sys.stderr)
        return 2
    if args.target == "cuda-host-check":
        if args.update:
            print("error: --update rewrites the CPU lists; not with --target cuda-host-check",
                  file=sys.stderr)
            return 2
        args.target_flags = ["--cuda-gemm-host-check"]

    for tool in (args.onnxc, args.onnxc_run):
        if not os.access(tool, os.X_OK):
            print("error: %s is not an executable (build it, or pass --onnxc/--onnxc-run)" % tool,
                  file=sys.stderr)
            return 2
    args.onnxc = os.path.abspath(args.onnxc)
    args.onnxc_run = os.path.abspath(args.onnxc_run)
    if args.target == "cuda":
        # onnxc --version names the CUDA toolkit it found (the same search
        # --target=cuda makes), or "none".
        version = subprocess.run([args.onnxc, "--version"], capture_output=True,
                                 text=True).stdout
        found = re.search(r"CUDA toolkit (\S+)", version)
        if not found or found.group(1) == "none":
            print("skipped: no CUDA toolkit (ptxas, libdevice) to assemble the PTX with")
            return 0
    pattern = re.compile(args.filter) if args.filter else None

    start = time.time()
    suites = []  # (name, root, names of all its tests, in --filter or not)
    tests = []
    for suite in sorted(set(args.suite or SUITES)):
        root = SUITES[suite]
        if not os.path.isdir(root):
            if not args.allow_missing_suite:
                print("error: suite %s: folder %s not found (install the data, select other "
                      "suites with --suite, or pass --allow-missing-suite)" % (suite, root),
                      file=sys.stderr)
                return 2
            print("%s: %s not found, skipped (--allow-missing-suite)" % (suite, root))
            continue
        found = find_tests(suite, root, args.rtol, args.atol)
        suites.append((suite, root, {t.name for t in found}))
        tests.extend(t for t in found if not pattern or pattern.search(t.full_name))
    if pattern and not tests and suites:
        print("error: --filter %r matches no test of %s" % (
            args.filter, ", ".join(s for s, _, _ in suites)), file=sys.stderr)
        return 2

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    procs = Processes()
    results = {}
    progress = sys.stderr.isatty()
    tmp_root = tempfile.mkdtemp(prefix="onnxc-conformance.")
    if args.fake_driver:
        args.fake_driver = build_fake_driver(tmp_root)
        if not args.fake_driver:
            print("error: --fake-driver: cannot compile test/onnxc-run/Inputs/fake_libcuda.c "
                  "(no clang or cc)", file=sys.stderr)
            shutil.rmtree(tmp_root, ignore_errors=True)
            return 2
    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futures = {pool.submit(run_test, t, args, procs, tmp_root): t for t in tests}
            try:
                for n, f in enumerate(concurrent.futures.as_completed(futures), 1):
                    t = futures[f]
                    results[t.full_name] = f.result()
                    if progress:
                        print("\r[%d/%d] %-60.60s" % (n, len(tests), t.full_name), end="",
                              file=sys.stderr, flush=True)
            except KeyboardInterrupt:
                procs.kill_all()
                for f in futures:
                    f.cancel()
                print("\ninterrupted", file=sys.stderr)
                return 130
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)
    if progress:
        print("\r" + " " * 80 + "\r", end="", file=sys.stderr)

    report = []
    regressions = []
    not_run = []
    for suite, root, existing in suites:
        suite_tests = [t for t in tests if t.suite == suite]
        per_folder = collections.OrderedDict()
        unsupported = collections.Counter()
        for t in suite_tests:
            status, detail = results[t.full_name]
            folder = t.name.split("/")[0]
            per_folder.setdefault(folder, collections.Counter())[status] += 1
            report.append("%s %s%s" % (status, t.full_name, (" " + detail) if detail else ""))
            if status == "UNSUPPORTED":
                unsupported.update(unsupported_features(detail))

        listfile = os.path.join(args.lists_dir, suite + ".passing")
        listed = read_list(listfile)
        ran = {t.name: results[t.full_name][0] for t in suite_tests}
        for name in listed:
            if pattern and not pattern.search(suite + "/" + name):
                continue  # not asked for
            if name not in ran:
                not_run.append("%s/%s: not found in %s" % (suite, name, root))
            elif ran[name] == "SKIP":
                not_run.append("%s/%s: SKIP %s" % (suite, name, results[suite + "/" + name][1]))
            elif ran[name] != "PASS":
                regressions.append("%s/%s: %s %s" % (suite, name, *results[suite + "/" + name]))
        new = [n for n, s in ran.items() if s == "PASS" and n not in listed]

        print("%s (%s)" % (suite, root))
        total = collections.Counter()
        for folder, c in per_folder.items():
            total.update(c)
            print_counts(folder, c)
        print_counts("total", total)
        if unsupported:
            print("  most frequent unsupported ops (tests that need them):")
            for msg, n in unsupported.most_common(12):
                print("    %5d  %s" % (n, msg[:110]))
        if new and not args.update:
            print("  %d passing test(s) not in %s (--update adds them)"
                  % (len(new), os.path.relpath(listfile, ROOT)))

        if args.update:
            # Outside --filter: kept while the suite still has the test.
            keep = [n for n in listed if n not in ran and n in existing]
            passing = sorted(set(keep) | {n for n, s in ran.items() if s == "PASS"})
            dropped = sorted(set(listed) - set(passing))
            print("  %s: %d test(s), %d added, %d dropped%s" % (
                os.path.relpath(listfile, ROOT), len(passing), len(set(passing) - set(listed)),
                len(dropped), (": " + " ".join(dropped[:8]) + (" ..." if len(dropped) > 8 else ""))
                if dropped else ""))
            os.makedirs(os.path.dirname(listfile), exist_ok=True)
            with open(listfile, "w") as f:
                f.write("# Tests of the %s suite that compile, run and match their reference\n"
                        "# output; kept by utils/conformance.py --update. A listed test that does\n"
                        "# not pass is a regression.\n" % suite)
                for name in passing:
                    f.write(name + "\n")

    if args.report:
        os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
        with open(args.report, "w") as f:
            f.write("\n".join(report) + ("\n" if report else ""))
        print("results: %s" % args.report)
    print("wall time: %.1fs (%d tests, %d jobs)" % (time.time() - start, len(tests), args.jobs))
    if args.update:
        return 0
    if regressions:
        print("\nREGRESSIONS: %d listed test(s) no longer pass:" % len(regressions))
        for l in regressions:
            print("  " + l)
    if not_run:
        print("\nNOT RUN: %d listed test(s) did not run (--update drops the ones no longer "
              "in the suite):" % len(not_run))
        for l in not_run:
            print("  " + l)
    return 1 if regressions or not_run else 0


def print_counts(folder, c):
    ran = sum(n for s, n in c.items() if s != "SKIP")
    others = "  ".join("%s %d" % (s, c[s]) for s in STATUSES[1:] if c[s])
    print("  %-18s %5d/%-5d pass (%5.1f%%)  %s" % (
        folder, c["PASS"], ran, 100.0 * c["PASS"] / max(1, ran), others))


if __name__ == "__main__":
    sys.exit(main())
