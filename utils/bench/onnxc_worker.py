#!/usr/bin/python3
"""onnxc side of utils/bench.py: runs a compiled model through its C API.

    onnxc_worker.py MODEL.so INPUTS.json

Loads MODEL.so with ctypes, binds the inputs that INPUTS.json describes
([{name, dtype, shape, file}], raw little-endian data in `file`) in the
model's signature order, and answers the same stdin commands as
ort_worker.js, one JSON line each:
    run N     -> {"times_ms": [...]}     N timed onnxc_run calls
    save DIR  -> {"outputs": [{name, dtype, shape, file}]} after one run
    quit
"""

import ctypes
import json
import os
import sys
import time

import numpy as np

ONNX_TO_NUMPY = {1: np.float32, 2: np.uint8, 3: np.int8, 5: np.int16,
                 6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16,
                 11: np.float64}


class Tensor(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("data", ctypes.c_void_p)]


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    so_path, inputs_json = sys.argv[1], sys.argv[2]
    lib = ctypes.CDLL(os.path.abspath(so_path))
    lib.onnxc_input_name.restype = ctypes.c_char_p
    lib.onnxc_output_name.restype = ctypes.c_char_p
    lib.onnxc_last_error.restype = ctypes.c_char_p
    lib.onnxc_run.argtypes = [ctypes.POINTER(Tensor), ctypes.c_size_t,
                              ctypes.POINTER(ctypes.POINTER(Tensor)),
                              ctypes.POINTER(ctypes.c_size_t)]
    lib.onnxc_free_outputs.argtypes = [ctypes.POINTER(Tensor), ctypes.c_size_t]

    specs = {s["name"]: s for s in json.load(open(inputs_json))}
    n_in = lib.onnxc_num_inputs()
    keep = []  # arrays and shapes the tensors point into
    tensors = (Tensor * max(n_in, 1))()
    for i in range(n_in):
        name = lib.onnxc_input_name(i).decode()
        spec = specs[name]
        array = np.fromfile(spec["file"], dtype=spec["dtype"]).reshape(
            spec["shape"])
        array = np.ascontiguousarray(array)
        shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        keep += [array, shape]
        tensors[i] = Tensor(lib.onnxc_input_dtype(i), array.ndim, shape,
                            array.ctypes.data)

    outputs = ctypes.POINTER(Tensor)()
    n_out = ctypes.c_size_t()

    def run_once():
        status = lib.onnxc_run(tensors, n_in, ctypes.byref(outputs),
                               ctypes.byref(n_out))
        if status != 0:
            raise RuntimeError("onnxc_run failed (%d): %s" %
                               (status, lib.onnxc_last_error().decode()))

    reply({"ready": True})
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "run":
            times = []
            for _ in range(int(words[1])):
                t0 = time.perf_counter()
                run_once()
                times.append((time.perf_counter() - t0) * 1e3)
                lib.onnxc_free_outputs(outputs, n_out)
            reply({"times_ms": times})
        elif words[0] == "save":
            run_once()
            saved = []
            for k in range(n_out.value):
                t = outputs[k]
                shape = [t.shape[d] for d in range(t.rank)]
                dtype = ONNX_TO_NUMPY[t.dtype]
                count = int(np.prod(shape)) if shape else 1
                buf = ctypes.string_at(t.data, count * np.dtype(dtype).itemsize)
                path = os.path.join(words[1], "onnxc_output_%d.bin" % k)
                with open(path, "wb") as f:
                    f.write(buf)
                saved.append({"name": lib.onnxc_output_name(k).decode(),
                              "dtype": np.dtype(dtype).name, "shape": shape,
                              "file": path})
            lib.onnxc_free_outputs(outputs, n_out)
            reply({"outputs": saved})
        elif words[0] == "quit":
            break
        else:
            reply({"error": "unknown command " + words[0]})


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # the driver reads the reason
        reply({"error": str(e)})
        sys.exit(1)
