"""Writes the tensor files of onnxc-run's tests into the directory argv[1].

add_one/: a backend-test style folder for Inputs/add_one.c (input_K.pb,
output_K.pb), .npy and typed-field .pb variants, a wrong expected value and
inputs of the wrong dtype and shape. dtypes/: for every supported dtype
X_<dtype>.npy and the same values as X_<dtype>.pb (typed fields).
"""
import os
import sys

import numpy as np
from onnx import helper, numpy_helper

try:
    from onnx.helper import np_dtype_to_tensor_dtype
except ImportError:  # onnx < 1.13
    from onnx.mapping import NP_TYPE_TO_TENSOR_TYPE

    def np_dtype_to_tensor_dtype(dtype):
        return NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]

out = sys.argv[1]


def save_pb(path, array, name, raw=True):
    if raw:
        t = numpy_helper.from_array(array, name)
    else:
        dtype = np_dtype_to_tensor_dtype(array.dtype)
        # make_tensor stores float16 values as their bits itself.
        t = helper.make_tensor(name, dtype, array.shape, array.flatten().tolist(),
                               raw=False)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())


d = os.path.join(out, "add_one")
os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
x = np.arange(12, dtype=np.float32).reshape(4, 3) / 8
k = np.array([3, -5], dtype=np.int64)
ds = os.path.join(d, "test_data_set_0")
save_pb(os.path.join(ds, "input_0.pb"), x, "X")
save_pb(os.path.join(ds, "input_1.pb"), k, "K")
save_pb(os.path.join(ds, "output_0.pb"), x + 1, "Y")
save_pb(os.path.join(ds, "output_1.pb"), 2 * k, "Z")
np.save(os.path.join(d, "x.npy"), x)
np.save(os.path.join(d, "k.npy"), k)
np.save(os.path.join(d, "y.npy"), x + 1)
save_pb(os.path.join(d, "x_typed.pb"), x, "X", raw=False)
save_pb(os.path.join(d, "y_typed.pb"), x + 1, "Y", raw=False)
# Within rtol 1e-3 but not 1e-5; one element off by 0.5.
np.save(os.path.join(d, "y_close.npy"), (x + 1) * np.float32(1 + 1e-4))
y_bad = x + 1
y_bad[2, 1] += 0.5
np.save(os.path.join(d, "y_bad.npy"), y_bad)
np.save(os.path.join(d, "y_nan.npy"), np.where(x > 1, np.nan, x + 1).astype(np.float32))
np.save(os.path.join(d, "z_bad.npy"), np.array([6, -9], dtype=np.int64))
np.save(os.path.join(d, "y_shape.npy"), (x + 1).reshape(3, 4))
np.save(os.path.join(d, "x_f64.npy"), x.astype(np.float64))
np.save(os.path.join(d, "x_rank3.npy"), x.reshape(4, 3, 1))
np.save(os.path.join(d, "x_cols4.npy"), np.zeros((2, 4), np.float32))
np.save(os.path.join(d, "x_rows1.npy"), np.zeros((1, 3), np.float32))
np.save(os.path.join(d, "x_fail.npy"), np.full((1, 3), 1234, np.float32))
np.save(os.path.join(d, "x_fortran.npy"), np.asfortranarray(x))
with open(os.path.join(d, "garbage.npy"), "wb") as f:
    f.write(b"not a numpy file")
with open(os.path.join(d, "garbage.pb"), "wb") as f:
    f.write(b"\xff\xff\xff")
# A numpy format 2.0 file.
with open(os.path.join(d, "x_v2.npy"), "wb") as f:
    np.lib.format.write_array(f, x, version=(2, 0))
# An expected-dir with one output file too many.
extra = os.path.join(d, "extra")
os.makedirs(extra, exist_ok=True)
for i, (a, n) in enumerate([(x + 1, "Y"), (2 * k, "Z"), (k, "W")]):
    save_pb(os.path.join(extra, "output_%d.pb" % i), a, n)

d = os.path.join(out, "dtypes")
os.makedirs(d, exist_ok=True)
values = [[0, 1, 2], [3, 4, 5]]
for dt in ["float32", "float64", "float16", "int8", "int16", "int32", "int64",
           "uint8", "uint16", "uint32", "uint64", "bool"]:
    a = np.array(values, dtype=dt)
    if dt.startswith("float"):
        a = a / 4 - 0.3
        a = a.astype(dt)
    elif dt.startswith("int"):
        a = a - 3
        a = a.astype(dt)
    np.save(os.path.join(d, "X_%s.npy" % dt), a)
    save_pb(os.path.join(d, "X_%s.pb" % dt), a, "X", raw=False)
    save_pb(os.path.join(d, "X_%s_raw.pb" % dt), a, "X", raw=True)
