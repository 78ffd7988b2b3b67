# A model of an old opset whose graph uses a value nothing defines gets a
# clear error before libonnx's version converter sees it (whose IR import
# crashes on such graphs).
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s output %t/output.onnx
# RUN: not onnxc --emit=onnx %t/output.onnx 2>&1 | FileCheck %s --check-prefix=OUTPUT
# OUTPUT: output.onnx: error: output 'missing' of graph 'g' is not produced by any node
# RUN: %python %s input %t/input.onnx
# RUN: not onnxc --emit=onnx %t/input.onnx 2>&1 | FileCheck %s --check-prefix=INPUT
# INPUT: input.onnx: error: input 'nowhere' of node 'relu' (Relu) is not defined before the node

import sys

from onnx import TensorProto, helper, save

case, path = sys.argv[1], sys.argv[2]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
if case == "output":
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    outputs = [helper.make_tensor_value_info("missing", TensorProto.FLOAT, [2])]
else:
    nodes = [helper.make_node("Relu", ["nowhere"], ["y"], name="relu")]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])]
# Opset 6 (Relu-6 -> Relu-14) makes the importer run the version converter.
model = helper.make_model(helper.make_graph(nodes, "g", [x], outputs),
                          opset_imports=[helper.make_opsetid("", 6)])
model.ir_version = 7
save(model, path)
