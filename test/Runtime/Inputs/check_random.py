"""Checks the outputs of the `random` case (cases.py) saved by onnxc-run
--save-outputs: dtypes, ranges and statistics within 5 standard errors.

  check_random.py DIR MODE    MODE: train (ratio 0.25), zero (ratio 0), eval
"""

import sys

import numpy as np
import onnx
from onnx import numpy_helper

out, mode = sys.argv[1], sys.argv[2]
u, n, b, m, d, mask = [numpy_helper.to_array(onnx.load_tensor("%s/output_%d.pb" % (out, i)))
                       for i in range(6)]
failures = []


def check(name, ok):
    if not ok:
        failures.append(name)


N = u.size
check("uniform dtype/range", u.dtype == np.float32 and u.min() >= -2 and u.max() < 3)
check("uniform mean", abs(u.mean() - 0.5) < 5 * 5 / np.sqrt(12 * N))
check("normal mean/std", abs(n.mean() - 1) < 5 * 2 / np.sqrt(N) and abs(n.std() - 2) < 0.05)
check("bernoulli values", set(np.unique(b)) <= {0.0, 1.0})
check("bernoulli mean", abs(b.mean() - 0.3) < 5 * np.sqrt(0.21 / N))
freq = np.bincount(m.ravel(), minlength=3) / m.size
check("multinomial dtype", m.dtype == np.int32 and m.shape == (1, 20000))
check("multinomial frequencies", np.all(np.abs(freq - [0.2, 0.5, 0.3]) < 0.02))
if mode == "train":
    check("dropout mask rate", abs(mask.mean() - 0.75) < 5 * np.sqrt(0.1875 / N))
    check("dropout values", np.array_equal(d, np.where(mask, np.float32(1 / 0.75), 0)))
else:
    check("dropout identity", mask.all() and np.array_equal(d, np.ones_like(d)))
print("random: " + ("OK" if not failures else "FAIL " + ", ".join(failures)))
sys.exit(1 if failures else 0)
