"""Map models for test/Runtime/maps.test, in the backend-test layout
(DIR/NAME/model.onnx, DIR/NAME/test_data_set_0/{input,output}_K.pb; numpy and
plain Python give the expected values):

  zipmap_int, zipmap_str  probabilities [N, 3] -> ZipMap (int64 / string
                          labels), scikit-learn classifiers' second output
                          as skl2onnx writes it
  dict_vectorizer         map(string -> float) -> DictVectorizer [1, 4]
                          (a key outside the vocabulary is ignored)
  cast_map                map(int64 -> float) -> CastMap DENSE and SPARSE
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

root = sys.argv[1]
F, I64, S = TensorProto.FLOAT, TensorProto.INT64, TensorProto.STRING
ML = helper.make_opsetid("ai.onnx.ml", 3)
AI = helper.make_opsetid("", 17)


def map_type(key_type, value_type):
    t = onnx.TypeProto()
    t.map_type.key_type = key_type
    t.map_type.value_type.CopyFrom(helper.make_tensor_type_proto(value_type, None))
    return t


def seq_of_maps(key_type, value_type):
    return helper.make_sequence_type_proto(map_type(key_type, value_type))


def save(name, graph, inputs, outputs):
    d = os.path.join(root, name, "test_data_set_0")
    os.makedirs(d, exist_ok=True)
    model = helper.make_model(graph, opset_imports=[AI, ML])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(root, name, "model.onnx"))
    for k, proto in enumerate(inputs):
        with open(os.path.join(d, f"input_{k}.pb"), "wb") as f:
            f.write(proto.SerializeToString())
    for k, proto in enumerate(outputs):
        with open(os.path.join(d, f"output_{k}.pb"), "wb") as f:
            f.write(proto.SerializeToString())


def map_proto(name, keys, values, key_type, value_type):
    keys = [k.encode() if isinstance(k, str) else k for k in keys]
    return helper.make_map(name, key_type, list(keys),
                           helper.make_sequence(
                               "values", onnx.SequenceProto.TENSOR,
                               [numpy_helper.from_array(np.array(v, dtype=value_type))
                                for v in values]))


probs = np.array([[0.1, 0.7, 0.2], [0.5, 0.25, 0.25]], np.float32)
for name, labels in [("zipmap_int", [0, 1, 5]), ("zipmap_str", ["cat", "dog", "eel"])]:
    attr = ({"classlabels_int64s": labels} if isinstance(labels[0], int)
            else {"classlabels_strings": labels})
    key = I64 if isinstance(labels[0], int) else S
    graph = helper.make_graph(
        [helper.make_node("ZipMap", ["p"], ["z"], domain="ai.onnx.ml", **attr)],
        name, [helper.make_tensor_value_info("p", F, [None, 3])],
        [helper.make_value_info("z", seq_of_maps(key, F))])
    expected = helper.make_sequence(
        "z", onnx.SequenceProto.MAP,
        [map_proto("", labels, row, key, np.float32) for row in probs])
    save(name, graph, [numpy_helper.from_array(probs, "p")], [expected])

vocab = ["a", "b", "c", "d"]
graph = helper.make_graph(
    [helper.make_node("DictVectorizer", ["m"], ["y"], domain="ai.onnx.ml",
                      string_vocabulary=vocab)],
    "dict_vectorizer",
    [helper.make_value_info("m", map_type(S, F))],
    [helper.make_tensor_value_info("y", F, [1, 4])])
m = {"c": 3.0, "a": 1.5, "zz": 9.0}
y = np.array([[m.get(k, 0.0) for k in vocab]], np.float32)
save("dict_vectorizer", graph,
     [map_proto("m", list(m.keys()), list(m.values()), S, np.float32)],
     [numpy_helper.from_array(y, "y")])

graph = helper.make_graph(
    [helper.make_node("CastMap", ["m"], ["dense"], domain="ai.onnx.ml"),
     helper.make_node("CastMap", ["m"], ["sparse"], domain="ai.onnx.ml",
                      map_form="SPARSE", max_map=6)],
    "cast_map",
    [helper.make_value_info("m", map_type(I64, F))],
    [helper.make_tensor_value_info("dense", F, [1, None]),
     helper.make_tensor_value_info("sparse", F, [1, 6])])
m = {4: 0.5, 1: 2.0, 3: -1.0}
dense = np.array([[m[k] for k in sorted(m)]], np.float32)
sparse = np.array([[m.get(k, 0.0) for k in range(6)]], np.float32)
save("cast_map", graph, [map_proto("m", list(m.keys()), list(m.values()), I64,
                                   np.float32)],
     [numpy_helper.from_array(dense, "dense"),
      numpy_helper.from_array(sparse, "sparse")])
