"""Checks onnxc's outputs of the ONNX backend tests test_training_dropout*
with a non-zero ratio, whose reference outputs come from numpy's random
generator (which onnxc does not reproduce): the statistics instead.

  check_training_dropout.py DATA TEST OUT

DATA/TEST holds the test (model.onnx, test_data_set_0/input_K.pb: x, ratio,
training_mode), OUT the outputs onnxc-run --save-outputs wrote. Checks that
y is x scaled by 1 / (1 - ratio) where kept and 0 elsewhere, that the kept
fraction is 1 - ratio within 5 standard errors, and that the mask output,
if any, marks exactly the kept elements.
"""

import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

data, test, out = sys.argv[1:4]
inputs = [numpy_helper.to_array(onnx.load_tensor(os.path.join(data, test, "test_data_set_0",
                                                               "input_%d.pb" % i)))
          for i in range(3)]
x, ratio, mode = inputs[0], float(inputs[1]), bool(inputs[2])
outputs = []
for k in range(2):
    path = os.path.join(out, "output_%d.pb" % k)
    if os.path.exists(path):
        outputs.append(numpy_helper.to_array(onnx.load_tensor(path)))
y = outputs[0]
failures = []
kept = y != 0
expected = np.where(kept, x / (1 - ratio), 0).astype(x.dtype)
if not mode:
    failures.append("training_mode is off in the test data")
if not np.allclose(y, expected, rtol=1e-6, atol=0):
    failures.append("kept elements are not x / (1 - ratio)")
if np.count_nonzero(x == 0):
    failures.append("x has zeros (kept elements not identifiable)")
n = x.size
rate = kept.mean()
if abs(rate - (1 - ratio)) > 5 * np.sqrt(ratio * (1 - ratio) / n):
    failures.append("kept %.3f, expected %.3f" % (rate, 1 - ratio))
if len(outputs) > 1 and not np.array_equal(outputs[1], kept):
    failures.append("the mask is not the kept elements")
print("%s: %s (kept %.3f of %d, ratio %.2f%s)" % (
    test, "FAIL " + "; ".join(failures) if failures else "OK", rate, n, ratio,
    ", mask checked" if len(outputs) > 1 else ""))
sys.exit(1 if failures else 0)
