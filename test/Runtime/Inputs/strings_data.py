"""Writes the value files of onnxc-run-strings.test into the directory
argv[1], for the model of Inputs/strings_model.c (s: string[N],
sep: optional(string[]) -> upper, lens, parts, joined):

ds/: a backend-test folder (input_K.pb, output_K.pb: TensorProto,
SequenceProto and OptionalProto files of strings); none/: the same with sep
without a value; wrong expected values, and files onnxc-run refuses.
"""
import os
import sys

import numpy as np
from onnx import OptionalProto, SequenceProto, TensorProto, helper, numpy_helper

out = sys.argv[1]


def strings(values, name=""):
    """A string TensorProto of a list (a tensor of rank 1) or a str (a
    scalar); str values are written as UTF-8, bytes as they are."""
    return numpy_helper.from_array(np.array(values, dtype=object), name)


def save(path, proto):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def upper(s):
    """ASCII letters upper-cased, as the model does it."""
    return "".join(c.upper() if c.isascii() else c for c in s)


LONG = "the quick brown fox jumps over the lazy dog, " * 2  # 90 bytes
s = ["hello", "World 42", "", "tab\tx\x01y", 'caf\u00e9 "q"', LONG]
lens = np.array([len(x.encode()) for x in s], dtype=np.int64)

for folder, sep in (("ds", "-"), ("none", None)):
    d = os.path.join(out, folder)
    save(os.path.join(d, "input_0.pb"), strings(s, "s"))
    if sep is None:
        opt = helper.make_optional("sep", OptionalProto.UNDEFINED, None)
        joined = helper.make_optional("joined", OptionalProto.UNDEFINED, None)
    else:
        opt = helper.make_optional("sep", OptionalProto.TENSOR, strings(sep))
        joined = helper.make_optional("joined", OptionalProto.TENSOR,
                                      strings(sep.join(s)))
    save(os.path.join(d, "input_1.pb"), opt)
    save(os.path.join(d, "output_0.pb"), strings([upper(x) for x in s],
                                                 "upper"))
    save(os.path.join(d, "output_1.pb"), numpy_helper.from_array(lens, "lens"))
    save(os.path.join(d, "output_2.pb"),
         helper.make_sequence("parts", SequenceProto.TENSOR,
                              [strings(x) for x in s]))
    save(os.path.join(d, "output_3.pb"), joined)

# Wrong expected values: element 3 (and 5) of upper, the end of the long
# string alone, item 4 of parts, a sequence one item short.
bad = [upper(x) for x in s]
bad[3] = "TAB X\x01Y"
bad[5] = bad[5][:-1] + "!"
save(os.path.join(out, "upper_bad.pb"), strings(bad, "upper"))
long_bad = [upper(x) for x in s]
long_bad[5] = long_bad[5][:85] + "?" + long_bad[5][86:]
save(os.path.join(out, "upper_long.pb"), strings(long_bad, "upper"))
parts = list(s)
parts[4] = "cafe"
save(os.path.join(out, "parts_bad.pb"),
     helper.make_sequence("parts", SequenceProto.TENSOR,
                          [strings(x) for x in parts]))
save(os.path.join(out, "parts_short.pb"),
     helper.make_sequence("parts", SequenceProto.TENSOR,
                          [strings(x) for x in s[:-1]]))
save(os.path.join(out, "upper_int.pb"), numpy_helper.from_array(lens, "upper"))

# Bytes that are not UTF-8, as make_tensor writes them.
save(os.path.join(out, "s_bytes.pb"),
     helper.make_tensor("s", TensorProto.STRING, [2], [b"\xff\xfe", b"ok"]))

# What onnxc-run refuses: a NUL byte, raw_data, too few values, a .npy file.
save(os.path.join(out, "s_nul.pb"),
     helper.make_tensor("s", TensorProto.STRING, [2], [b"a", b"b\x00c"]))
raw = TensorProto(name="s", data_type=TensorProto.STRING, dims=[2],
                  raw_data=b"ab")
save(os.path.join(out, "s_raw.pb"), raw)
few = TensorProto(name="s", data_type=TensorProto.STRING, dims=[3],
                  string_data=[b"a", b"b"])
save(os.path.join(out, "s_few.pb"), few)
np.save(os.path.join(out, "s.npy"), np.array(["a", "bc"]))
