# LabelEncoder-1 (ai.onnx.ml 1: classes_strings) is upgraded at import to
# the attributes of version 2 and later, by its input's type: strings map
# to their index in classes_strings (default_int64 otherwise), int64
# indices to their class (default_string otherwise). Run end to end: the
# outputs are the ones version 1 defines.
# RUN: %python %s %t
# RUN: onnxc --emit=onnx %t/le1.onnx -o - | FileCheck %s --check-prefix=IR
# IR: "onnx.ml.LabelEncoder"(%arg0) <{{{.*}}default_int64 = -7 : i64{{.*}}keys_strings = ["cat", "dog", "eel"]{{.*}}values_int64s = [0, 1, 2]}> : (tensor<4x!onnx.string>) -> tensor<4xi64>
# IR: "onnx.ml.LabelEncoder"(%arg1) <{{{.*}}default_string = "none"{{.*}}keys_int64s = [0, 1, 2]{{.*}}values_strings = ["cat", "dog", "eel"]}> : (tensor<4xi64>) -> tensor<4x!onnx.string>
# RUN: onnxc %t/le1.onnx -o %t/le1.so
# RUN: onnxc-run %t/le1.so --inputs %t/ds --expected-dir %t/ds | FileCheck %s
# CHECK: output 0 'ids' int64[4]: max abs error 0, max rel error 0: PASS
# CHECK: output 1 'names' string[4]: strings equal: PASS

import os
import sys

import onnx
from onnx import TensorProto, helper, numpy_helper
import numpy as np

out = sys.argv[1]
os.makedirs(os.path.join(out, "ds"), exist_ok=True)
classes = ["cat", "dog", "eel"]
nodes = [
    helper.make_node("LabelEncoder", ["words"], ["ids"], domain="ai.onnx.ml",
                     classes_strings=classes, default_int64=-7),
    helper.make_node("LabelEncoder", ["numbers"], ["names"], domain="ai.onnx.ml",
                     classes_strings=classes, default_string="none"),
]
graph = helper.make_graph(
    nodes, "le1",
    [helper.make_tensor_value_info("words", TensorProto.STRING, [4]),
     helper.make_tensor_value_info("numbers", TensorProto.INT64, [4])],
    [helper.make_tensor_value_info("ids", TensorProto.INT64, [4]),
     helper.make_tensor_value_info("names", TensorProto.STRING, [4])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid("ai.onnx.ml", 1)])
onnx.save(model, os.path.join(out, "le1.onnx"))


def save(name, tensor):
    with open(os.path.join(out, "ds", name), "wb") as f:
        f.write(tensor.SerializeToString())


words = ["dog", "zebra", "cat", "eel"]
numbers = [2, 0, 5, -1]
save("input_0.pb", helper.make_tensor("words", TensorProto.STRING, [4],
                                      [w.encode() for w in words]))
save("input_1.pb", numpy_helper.from_array(np.array(numbers, np.int64), "numbers"))
save("output_0.pb", numpy_helper.from_array(
    np.array([classes.index(w) if w in classes else -7 for w in words], np.int64), "ids"))
save("output_1.pb", helper.make_tensor(
    "names", TensorProto.STRING, [4],
    [(classes[n] if 0 <= n < len(classes) else "none").encode() for n in numbers]))
