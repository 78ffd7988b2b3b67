"""Writes the value files of onnxc-run-values.test into the directory
argv[1], for the model of Inputs/values_model.c (s: seq(float32[N,3]),
o: optional(int64[2]) -> rev, o2, n, all, maybe):

ds/: a backend-test folder (input_K.pb, output_K.pb: SequenceProto,
OptionalProto and TensorProto files); none/: the same with o without a
value; wrong expected values, and files of the wrong kind.
"""
import os
import sys

import numpy as np
from onnx import OptionalProto, SequenceProto, TensorProto, helper, numpy_helper

out = sys.argv[1]


def tensor(array, name=""):
    return numpy_helper.from_array(array, name)


def sequence(name, arrays):
    return helper.make_sequence(name, SequenceProto.TENSOR,
                                [tensor(a) for a in arrays])


def optional(name, value):
    """`value`: an array, a list of arrays, or None."""
    if value is None:
        return helper.make_optional(name, OptionalProto.UNDEFINED, None)
    if isinstance(value, list):
        return helper.make_optional(name, OptionalProto.SEQUENCE,
                                    sequence("", value))
    return helper.make_optional(name, OptionalProto.TENSOR, tensor(value))


def save(path, proto):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


a = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
b = np.array([[-1.5, 0.25, 8]], dtype=np.float32)
c = np.arange(9, dtype=np.float32).reshape(3, 3) - 4
s = [a, b, c]
o = np.array([3, -5], dtype=np.int64)

for folder, opt in (("ds", o), ("none", None)):
    d = os.path.join(out, folder)
    save(os.path.join(d, "input_0.pb"), sequence("s", s))
    save(os.path.join(d, "input_1.pb"), optional("o", opt))
    save(os.path.join(d, "output_0.pb"), sequence("rev", s[::-1]))
    save(os.path.join(d, "output_1.pb"),
         optional("o2", None if opt is None else 2 * opt))
    save(os.path.join(d, "output_2.pb"), tensor(np.array(3, np.int64), "n"))
    save(os.path.join(d, "output_3.pb"), sequence("all", s))
    save(os.path.join(d, "output_4.pb"),
         optional("maybe", None if opt is None else s))

# Wrong expected values.
a2 = a.copy()
a2[1, 2] = 9
save(os.path.join(out, "rev_value.pb"), sequence("rev", [c, b, a2]))
save(os.path.join(out, "rev_short.pb"), sequence("rev", [c, b]))
save(os.path.join(out, "rev_shape.pb"), sequence("rev", [c, a, a]))
save(os.path.join(out, "o2_none.pb"), optional("o2", None))
save(os.path.join(out, "maybe_short.pb"), optional("maybe", [a, b]))

# Other inputs: an empty and a long sequence, float64 items, an int64 o.
save(os.path.join(out, "s_empty.pb"), sequence("s", []))
save(os.path.join(out, "s_long.pb"),
     sequence("s", [np.full((1, 3), k, np.float32) for k in range(6)]))
save(os.path.join(out, "s_f64.pb"), sequence("s", [b.astype(np.float64)]))
save(os.path.join(out, "o.pb"), optional("o", o))
np.save(os.path.join(out, "o.npy"), o)

# Files of the wrong kind.
save(os.path.join(out, "tensor.pb"), tensor(a, "s"))
np.save(os.path.join(out, "s.npy"), a)
save(os.path.join(out, "o_seq.pb"), optional("o", [a]))
save(os.path.join(out, "seq2.pb"), sequence("o", [o, o]))
save(os.path.join(out, "n_seq.pb"), sequence("n", [a]))
