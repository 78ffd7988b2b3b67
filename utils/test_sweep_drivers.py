#!/usr/bin/env python3
"""Tests of the sweep drivers utils/conformance.py and utils/import_sweep.py.

They run the drivers' main() on a fake suite in a temporary folder, with
fake `onnxc` and `onnxc-run` shell scripts, so they need no build and no
test data. Each fake model's text says what the fakes do with it (FAKE_*
below). They check that a sweep cannot pass vacuously: a missing suite
folder, a listed test that is no longer in the suite or came out SKIP, and
an onnxc-run determinism failure each make it fail, and --update drops the
names the suite no longer has.

  /usr/bin/python3 utils/test_sweep_drivers.py -v
  /usr/bin/python3 -m unittest -v utils/test_sweep_drivers.py   # from the repo root
"""

import contextlib
import io
import os
import shutil
import signal
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conformance  # noqa: E402
import import_sweep  # noqa: E402

# onnxc MODEL [--emit=...] -o OUT: logs its arguments to compile.log beside
# itself; fails on "unsupported" and "broken" models, else copies the
# model's text to OUT (the "library").
FAKE_ONNXC = r"""#!/bin/sh
echo "$*" >> "$(dirname "$0")/compile.log"
model=$1; out=
while [ $# -gt 0 ]; do
  [ "$1" = -o ] && { out=$2; shift; }
  shift
done
case $(cat "$model") in
  unsupported*) echo "model.onnx: error: 'onnx.Foo' is not supported" >&2; exit 1;;
  broken*) echo "model.onnx: error: broken model" >&2; exit 1;;
esac
cat "$model" > "$out"
"""

# onnxc-run LIB OPTIONS...: logs its options to run.log beside itself; a
# "mismatch" library fails its comparison, a "nondet" one fails
# --check-determinism (and passes without it), any other passes.
FAKE_ONNXC_RUN = r"""#!/bin/sh
lib=$1; shift
echo "$*" >> "$(dirname "$0")/run.log"
det=0
for a in "$@"; do [ "$a" = --check-determinism ] && det=1; done
case $(cat "$lib") in
  mismatch*)
    echo "output 0 'Y': FAIL"
    echo "  [0]: got 1, expected 2"
    echo "result: FAIL"
    exit 1;;
  nondet*)
    if [ $det = 1 ]; then
      echo "result: PASS"
      echo "determinism: FAIL: output 0 'Y' differs between run 1 and thread 3" >&2
      exit 1
    fi;;
esac
echo "determinism: ok"
echo "result: PASS"
"""


class SweepTest(unittest.TestCase):
    """A temporary folder with the fakes (bin/), the suites and the lists."""

    module = None  # the driver under test
    LIST_HEADER = "# a list\n"

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sweep-drivers.")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        bindir = os.path.join(self.tmp, "bin")
        os.mkdir(bindir)
        self.onnxc = self.write_exe(os.path.join(bindir, "onnxc"), FAKE_ONNXC)
        self.onnxc_run = self.write_exe(os.path.join(bindir, "onnxc-run"), FAKE_ONNXC_RUN)
        self.run_log = os.path.join(bindir, "run.log")
        self.lists = os.path.join(self.tmp, "lists")
        os.mkdir(self.lists)
        self.suites = {}

    @staticmethod
    def write_exe(path, text):
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
        return path

    def make_suite(self, suite, tests):
        """tests: {"folder/test": behaviour}; "nomodel" is a test folder with
        no model.onnx (SKIP), "nodata" one with no test_data_set (SKIP in the
        conformance sweep), any other text goes into model.onnx."""
        root = os.path.join(self.tmp, suite)
        for name, behaviour in tests.items():
            d = os.path.join(root, name)
            os.makedirs(d)
            if behaviour == "nomodel":
                continue
            with open(os.path.join(d, "model.onnx"), "w") as f:
                f.write(behaviour)
            if behaviour != "nodata":
                os.mkdir(os.path.join(d, "test_data_set_0"))
        os.makedirs(root, exist_ok=True)
        self.suites[suite] = root
        return root

    def write_list(self, suite, names):
        with open(os.path.join(self.lists, suite + ".passing"), "w") as f:
            f.write(self.LIST_HEADER + "".join(n + "\n" for n in names))

    def read_list(self, suite):
        with open(os.path.join(self.lists, suite + ".passing")) as f:
            return [l.strip() for l in f if l.strip() and not l.startswith("#")]

    def tool_args(self):
        return []

    def sweep(self, *argv):
        """Runs the driver's main(); returns (exit status, stdout, stderr)."""
        out, err = io.StringIO(), io.StringIO()
        sigterm = signal.getsignal(signal.SIGTERM)
        try:
            with mock.patch.dict(self.module.SUITES, self.suites, clear=True), \
                    contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = self.module.main(self.tool_args() + ["--lists-dir", self.lists] +
                                      list(argv))
        finally:
            signal.signal(signal.SIGTERM, sigterm)
        return rc, out.getvalue(), err.getvalue()

    def assert_sweep(self, expected_rc, *argv):
        rc, out, err = self.sweep(*argv)
        self.assertEqual(rc, expected_rc, "exit status of %s\nstdout:\n%s\nstderr:\n%s"
                         % (" ".join(argv), out, err))
        return out, err


class ConformanceTest(SweepTest):
    module = conformance

    def tool_args(self):
        return ["--onnxc", self.onnxc, "--onnxc-run", self.onnxc_run, "--jobs", "2",
                "--report", os.path.join(self.tmp, "report.txt")]

    def report(self):
        with open(os.path.join(self.tmp, "report.txt")) as f:
            return f.read()

    def test_cuda_host_check(self):
        # Compiled with --cuda-gemm-host-check, run and compared as on the
        # CPU (a listed mismatch fails), the CPU lists never rewritten.
        self.make_suite("fake", {"node/test_a": "pass", "node/test_b": "mismatch"})
        self.write_list("fake", ["node/test_a", "node/test_b"])
        out, _ = self.assert_sweep(1, "--target", "cuda-host-check")
        self.assertIn("REGRESSIONS", out)
        with open(os.path.join(self.tmp, "bin", "compile.log")) as f:
            compiles = f.read().splitlines()
        self.assertEqual(len(compiles), 2)
        self.assertTrue(all(c.endswith("--cuda-gemm-host-check") for c in compiles), compiles)
        self.assert_sweep(2, "--target", "cuda-host-check", "--update")
        self.assertEqual(self.read_list("fake"), ["node/test_a", "node/test_b"])

    def test_listed_tests_pass(self):
        self.make_suite("fake", {"node/test_a": "pass", "node/test_b": "pass",
                                 "node/test_new": "pass"})
        self.write_list("fake", ["node/test_a", "node/test_b"])
        out, _ = self.assert_sweep(0)
        self.assertIn("1 passing test(s) not in", out)
        self.assertNotIn("NOT RUN", out)

    def test_missing_suite_folder_fails(self):
        self.make_suite("fake", {"node/test_a": "pass"})
        self.write_list("fake", ["node/test_a"])
        missing = os.path.join(self.tmp, "not-installed")
        self.suites["gone"] = missing
        _, err = self.assert_sweep(2)
        self.assertIn(missing, err)
        self.assertIn("--allow-missing-suite", err)
        out, _ = self.assert_sweep(0, "--allow-missing-suite")
        self.assertIn("%s not found, skipped" % missing, out)
        # A suite not selected is not looked at.
        self.assert_sweep(0, "--suite", "fake")
        self.assert_sweep(2, "--suite", "gone")

    def test_listed_test_not_in_suite_fails(self):
        self.make_suite("fake", {"node/test_a": "pass"})
        self.write_list("fake", ["node/test_a", "node/test_gone"])
        out, _ = self.assert_sweep(1)
        self.assertIn("NOT RUN: 1 listed test(s)", out)
        self.assertIn("fake/node/test_gone: not found in", out)
        self.assert_sweep(0, "--filter", "test_a")  # not asked for
        out, _ = self.assert_sweep(1, "--filter", "test_(a|gone)")
        self.assertIn("fake/node/test_gone: not found in", out)

    def test_empty_suite_folder_fails(self):
        self.make_suite("fake", {})
        self.write_list("fake", ["node/test_a"])
        out, _ = self.assert_sweep(1)
        self.assertIn("fake/node/test_a: not found in", out)

    def test_listed_test_skipped_fails(self):
        self.make_suite("fake", {"node/test_a": "pass", "node/test_nodata": "nodata",
                                 "real/test_link": "nomodel"})
        self.write_list("fake", ["node/test_a", "node/test_nodata", "real/test_link"])
        out, _ = self.assert_sweep(1)
        self.assertIn("NOT RUN: 2 listed test(s)", out)
        self.assertIn("fake/node/test_nodata: SKIP no test_data_set", out)
        self.assertIn("fake/real/test_link: SKIP no model.onnx", out)

    def test_filter_matching_nothing_fails(self):
        self.make_suite("fake", {"node/test_a": "pass"})
        _, err = self.assert_sweep(2, "--filter", "test_typo")
        self.assertIn("matches no test", err)

    def test_regressions(self):
        self.make_suite("fake", {"node/test_a": "mismatch", "node/test_b": "unsupported"})
        self.write_list("fake", ["node/test_a", "node/test_b"])
        out, _ = self.assert_sweep(1)
        self.assertIn("REGRESSIONS: 2 listed test(s)", out)
        self.assertIn("fake/node/test_a: FAIL mismatch: test_data_set_0: output 0 'Y': FAIL", out)
        self.assertIn("fake/node/test_b: UNSUPPORTED", out)
        self.assertNotIn("NOT RUN", out)

    def test_update_drops_vanished_names(self):
        self.make_suite("fake", {"node/test_a": "pass", "node/test_b": "mismatch",
                                 "node/test_new": "pass", "other/test_c": "mismatch"})
        self.write_list("fake", ["node/test_a", "node/test_b", "node/test_gone",
                                 "other/test_c", "other/test_gone"])
        # With --filter, the listed tests outside it stay while they exist.
        out, _ = self.assert_sweep(0, "--update", "--filter", "node/")
        self.assertEqual(self.read_list("fake"), ["node/test_a", "node/test_new",
                                                  "other/test_c"])
        self.assertIn("3 test(s), 1 added, 3 dropped", out)
        self.write_list("fake", ["node/test_a", "node/test_gone", "other/test_c"])
        self.assert_sweep(0, "--update")
        self.assertEqual(self.read_list("fake"), ["node/test_a", "node/test_new"])
        self.assert_sweep(0)  # the updated list holds

    def test_determinism_failure_is_fail(self):
        self.make_suite("fake", {"node/test_a": "pass", "node/test_nondet": "nondet"})
        self.write_list("fake", ["node/test_a", "node/test_nondet"])
        out, _ = self.assert_sweep(1)
        detail = ("determinism: test_data_set_0: FAIL: output 0 'Y' differs between run 1 "
                  "and thread 3")
        self.assertIn("fake/node/test_nondet: FAIL " + detail, out)
        self.assertIn("FAIL fake/node/test_nondet " + detail, self.report())
        self.assertIn("PASS fake/node/test_a", self.report())
        with open(self.run_log) as f:
            runs = f.read().splitlines()
        self.assertEqual(len(runs), 2)
        for run in runs:
            self.assertTrue(run.endswith("--check-determinism"), run)

    def test_no_check_determinism(self):
        self.make_suite("fake", {"node/test_nondet": "nondet"})
        self.write_list("fake", ["node/test_nondet"])
        self.assert_sweep(0, "--no-check-determinism")
        with open(self.run_log) as f:
            self.assertNotIn("--check-determinism", f.read())


class ImportSweepTest(SweepTest):
    module = import_sweep

    def tool_args(self):
        return ["--onnxc", self.onnxc, "--jobs", "2"]

    def test_listed_models_pass(self):
        self.make_suite("fake", {"node/test_a": "pass", "node/test_b": "broken"})
        self.write_list("fake", ["node/test_a"])
        out, _ = self.assert_sweep(0)
        self.assertNotIn("NOT RUN", out)

    def test_missing_suite_folder_fails(self):
        self.make_suite("fake", {"node/test_a": "pass"})
        self.write_list("fake", ["node/test_a"])
        missing = os.path.join(self.tmp, "not-installed")
        self.suites["gone"] = missing
        _, err = self.assert_sweep(2)
        self.assertIn(missing, err)
        out, _ = self.assert_sweep(0, "--allow-missing-suite")
        self.assertIn("%s not found, skipped" % missing, out)
        self.assert_sweep(0, "--suite", "fake")

    def test_listed_model_not_run_fails(self):
        self.make_suite("fake", {"node/test_a": "pass", "real/test_link": "nomodel"})
        self.write_list("fake", ["node/test_a", "node/test_gone", "real/test_link"])
        out, _ = self.assert_sweep(1)
        self.assertIn("NOT RUN: 2 listed model(s)", out)
        self.assertIn("fake/node/test_gone: not found in", out)
        self.assertIn("fake/real/test_link: SKIP no model.onnx", out)

    def test_regression(self):
        self.make_suite("fake", {"node/test_a": "broken"})
        self.write_list("fake", ["node/test_a"])
        out, _ = self.assert_sweep(1)
        self.assertIn("REGRESSIONS: 1 listed model(s)", out)
        self.assertIn("fake/node/test_a: model.onnx: error: broken model", out)

    def test_update_drops_vanished_names(self):
        self.make_suite("fake", {"node/test_a": "pass", "node/test_new": "pass",
                                 "node/test_b": "broken"})
        self.write_list("fake", ["node/test_a", "node/test_b", "node/test_gone"])
        out, _ = self.assert_sweep(0, "--update")
        self.assertEqual(self.read_list("fake"), ["node/test_a", "node/test_new"])
        self.assertIn("2 model(s), 1 added, 2 dropped", out)
        self.assert_sweep(0)


if __name__ == "__main__":
    unittest.main()
