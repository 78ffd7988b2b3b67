"""c_api.py - a zoo model's data sets through its C API, from Python.

zoo.py runs every data set with onnxc-run (a C++ client of the library's C
API); this runs them once more through the C API directly, the way an
application calls it: utils/bench/onnxc_worker.py loads the .so with ctypes,
binds the inputs by name in the signature's order, runs onnxc_run and saves
the outputs, which are compared with the reference at the model's rtol and
atol (zoo.py's rule). A library linked with the sanitizers' runtimes cannot
be loaded into Python (sanitizer-sweep.sh passes --no-c-api).
"""

import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
WORKER = os.path.join(ROOT, "utils", "bench", "onnxc_worker.py")
sys.path.insert(0, os.path.join(ROOT, "utils", "bench"))
import zoo_set  # noqa: E402  (the pb -> inputs.json conversion)


def _ask(proc, command):
    proc.stdin.write(command + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError("the C API worker exited")
    reply = json.loads(line)
    if "error" in reply:
        raise RuntimeError(reply["error"])
    return reply


def run_set(so, data_dir, work, input_names, timeout):
    """The outputs (numpy arrays, in output order) of one data set."""
    inputs, _ = zoo_set.write_inputs(None, work, data=data_dir,
                                     names=input_names)
    proc = subprocess.Popen([sys.executable, WORKER, so, inputs],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        line = proc.stdout.readline()
        if not line or "error" in json.loads(line):
            raise RuntimeError("cannot load %s: %s" % (
                so, json.loads(line).get("error") if line else "exited"))
        saved = _ask(proc, "save " + work)["outputs"]
        proc.stdin.write("quit\n")
        proc.stdin.close()
        proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return [np.fromfile(s["file"], dtype=s["dtype"]).reshape(s["shape"])
            for s in saved]


def check(so, vdir, nsets, input_names, rtol, atol, read_pb, close_enough,
          timeout):
    """(status, max abs error, error) over every data set."""
    worst = 0.0
    for i in range(nsets):
        d = os.path.join(vdir, "test_data_set_%d" % i)
        try:
            outs = run_set(so, d, os.path.join(vdir, "capi_%d" % i),
                           input_names, timeout)
        except (RuntimeError, OSError, ValueError,
                subprocess.TimeoutExpired) as e:
            return "c-api-fail", None, "set %d: %s" % (i, str(e)[:300])
        k = 0
        while os.path.exists(os.path.join(d, "output_%d.pb" % k)):
            if k >= len(outs):
                return "c-api-mismatch", worst, \
                    "set %d: %d outputs, expected more" % (i, len(outs))
            ok, err = close_enough(outs[k], read_pb(
                os.path.join(d, "output_%d.pb" % k)), rtol, atol)
            worst = max(worst, err) if not np.isnan(err) else err
            if not ok:
                return "c-api-mismatch", worst, \
                    "set %d output %d: max abs error %g" % (i, k, err)
            k += 1
    return "pass", worst, ""
