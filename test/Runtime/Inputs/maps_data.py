"""Writes the value files of onnxc-run-maps.test into the directory argv[1],
for the model of Inputs/maps_model.c (m: map(string -> float32),
p: float32[N,2] -> keys_sorted, scaled, zip), with ONNX's own helpers:
a map is a MapProto whose values are a SequenceProto of one 0-d tensor per
key (onnx.helper.make_map; numpy_helper.to_dict reads it back), a sequence
of maps a SequenceProto of elem_type MAP.

ds/: a backend-test folder (input_K.pb, output_K.pb); empty/: the same for
an empty map and no rows; wrong expected values, and files onnxc-run or the
model refuses.
"""
import os
import sys

import numpy as np
from onnx import SequenceProto, TensorProto, helper, numpy_helper

out = sys.argv[1]


def tensor(array, name=""):
    return numpy_helper.from_array(array, name)


def make_map(name, entries, dtype=np.float32, key_type=None):
    """A MapProto of the (key, value) pairs `entries`, in their order (an
    empty one has string keys unless `key_type` says otherwise)."""
    keys = [k for k, _ in entries]
    if key_type is None:
        key_type = TensorProto.INT64 if keys and isinstance(
            keys[0], int) else TensorProto.STRING
    if key_type == TensorProto.STRING:
        keys = [k.encode() for k in keys]
    values = numpy_helper.from_list([np.array(v, dtype) for _, v in entries])
    return helper.make_map(name, key_type, keys, values)


def sequence_of_maps(name, maps):
    return helper.make_sequence(
        name, SequenceProto.MAP,
        [make_map("", m, key_type=TensorProto.INT64) for m in maps])


def save(path, proto):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


m = [("kiwi", -2.0), ("apple", 1.5), ("caf\u00e9", 8.0), ("banana", 0.25)]
p = np.array([[0.1, 0.9], [0.75, 0.25], [0.5, 0.5]], np.float32)


def outputs(d, m, p):
    keys = sorted(k.encode() for k, _ in m)
    save(os.path.join(d, "output_0.pb"),
         tensor(np.array(keys, dtype=object), "keys_sorted"))
    save(os.path.join(d, "output_1.pb"),
         make_map("scaled", [(k, 2 * v) for k, v in m]))
    save(os.path.join(d, "output_2.pb"),
         sequence_of_maps("zip", [[(0, r[0]), (1, r[1])] for r in p]))


d = os.path.join(out, "ds")
save(os.path.join(d, "input_0.pb"), make_map("m", m))
save(os.path.join(d, "input_1.pb"), tensor(p, "p"))
outputs(d, m, p)

# An empty map and no rows; an empty sequence as numpy_helper.from_list([])
# writes it (of tensors).
d = os.path.join(out, "empty")
p0 = np.zeros((0, 2), np.float32)
save(os.path.join(d, "input_0.pb"), make_map("m", []))
save(os.path.join(d, "input_1.pb"), tensor(p0, "p"))
outputs(d, [], p0)
save(os.path.join(d, "output_2.pb"), numpy_helper.from_list([], "zip"))

# Wrong expected values: a value (named by its key), a missing and an extra
# key, the types, a sequence's item and length.
scaled = [(k, 2 * v) for k, v in m]
bad = dict(scaled)
bad["banana"] = 0.75
save(os.path.join(out, "scaled_value.pb"), make_map("scaled", list(bad.items())))
save(os.path.join(out, "scaled_keys.pb"),
     make_map("scaled", [e for e in scaled if e[0] != "kiwi"] + [("zebra", 1)]))
save(os.path.join(out, "scaled_f64.pb"), make_map("scaled", scaled, np.float64))
save(os.path.join(out, "scaled_int_keys.pb"),
     make_map("scaled", [(k, v) for k, (_, v) in enumerate(scaled)]))
rows = [[(0, r[0]), (1, r[1])] for r in p]
save(os.path.join(out, "zip_value.pb"),
     sequence_of_maps("zip", rows[:1] + [[(0, 0.7), (1, 0.25)]] + rows[2:]))
save(os.path.join(out, "zip_keys.pb"),
     sequence_of_maps("zip", rows[:2] + [[(0, 0.5), (2, 0.5)]]))
save(os.path.join(out, "zip_short.pb"), sequence_of_maps("zip", rows[:2]))

# Inputs the model refuses (int64 keys) and files onnxc-run refuses.
save(os.path.join(out, "m_int_keys.pb"), make_map("m", [(3, 1.0), (7, 2.0)]))
save(os.path.join(out, "m_int32_keys.pb"),
     make_map("m", [(3, 1.0)], key_type=TensorProto.INT32))
save(os.path.join(out, "m_duplicate.pb"),
     make_map("m", [("apple", 1.0), ("pear", 2.0), ("apple", 3.0)]))
vector = make_map("m", [("apple", 1.0)])
vector.values.tensor_values[0].CopyFrom(
    tensor(np.array([1, 2], np.float32)))
save(os.path.join(out, "m_vector.pb"), vector)
few = make_map("m", [("apple", 1.0), ("pear", 2.0)])
del few.values.tensor_values[1]
save(os.path.join(out, "m_few.pb"), few)
save(os.path.join(out, "m_nul.pb"), make_map("m", [("a", 1.0), ("b\0c", 2.0)]))
save(os.path.join(out, "tensor.pb"), tensor(p, "m"))
np.save(os.path.join(out, "m.npy"), p)
