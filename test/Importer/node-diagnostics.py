# Malformed nodes are reported with the node's name (or, for unnamed nodes,
# its first output), its operator, and what is wrong; onnxc fails without
# printing IR.
# RUN: rm -rf %t && mkdir -p %t

# RUN: %python %s missing-input %t/m.onnx
# RUN: not onnxc --emit=onnx %t/m.onnx -o - 2>&1 | FileCheck %s --check-prefix=MISSING-INPUT
# MISSING-INPUT: error: node 'gemm0' (Gemm) lacks required input 'B'
# MISSING-INPUT-NOT: func.func

# RUN: %python %s too-few-inputs %t/m.onnx
# RUN: not onnxc --emit=onnx %t/m.onnx -o - 2>&1 | FileCheck %s --check-prefix=TOO-FEW
# TOO-FEW: error: node (unnamed, output 'sum') (Add) lacks required input 'B'

# RUN: %python %s too-many-inputs %t/m.onnx
# RUN: not onnxc --emit=onnx %t/m.onnx -o - 2>&1 | FileCheck %s --check-prefix=TOO-MANY
# TOO-MANY: error: node 'relu0' (Relu) has 2 inputs, Relu takes at most 1

# RUN: %python %s undefined-input %t/m.onnx
# RUN: not onnxc --emit=onnx %t/m.onnx -o - 2>&1 | FileCheck %s --check-prefix=UNDEFINED
# UNDEFINED: error: input 'later' of node 'early' (Neg) is not defined before the node

# RUN: %python %s unknown-attribute %t/m.onnx
# RUN: not onnxc --emit=onnx %t/m.onnx -o - 2>&1 | FileCheck %s --check-prefix=UNKNOWN-ATTR
# UNKNOWN-ATTR: error: node 'relu0' (Relu) has attribute 'alpha', which Relu-14 does not define

# RUN: %python %s wrong-attribute-type %t/m.onnx
# RUN: not onnxc --emit=onnx %t/m.onnx -o - 2>&1 | FileCheck %s --check-prefix=ATTR-TYPE
# ATTR-TYPE: error: node 'transpose0' (Transpose): attribute 'perm' has type FLOATS, the schema expects INTS

# RUN: %python %s missing-attribute %t/m.onnx
# RUN: not onnxc --emit=onnx %t/m.onnx -o - 2>&1 | FileCheck %s --check-prefix=MISSING-ATTR
# MISSING-ATTR: error: node 'cast0' (Cast) lacks required attribute 'to'

# RUN: %python %s missing-output %t/m.onnx
# RUN: not onnxc --emit=onnx %t/m.onnx -o - 2>&1 | FileCheck %s --check-prefix=MISSING-OUTPUT
# MISSING-OUTPUT: error: graph output 'nowhere' is not produced by any node

# A subgraph input without a type (which ONNX's shape inference would supply).
# RUN: %python %s untyped-subgraph-input %t/m.onnx
# RUN: not onnxc --emit=onnx --no-onnx-shape-inference %t/m.onnx -o - 2>&1 \
# RUN:   | FileCheck %s --check-prefix=SUBGRAPH
# SUBGRAPH: error: input 'v' of subgraph 'body' of node 'loop0' has no usable type

# Node names are the ops' locations.
# RUN: %python %s valid %t/m.onnx
# RUN: onnxc --emit=onnx %t/m.onnx -o - --mlir-print-debuginfo --mlir-print-local-scope \
# RUN:   | FileCheck %s --check-prefix=LOC
# LOC: "onnx.Relu"(%{{.*}}) : (tensor<2xf32>) -> tensor<2xf32> loc("relu0"("{{.*}}m.onnx":0:0))
# LOC: "onnx.Neg"(%{{.*}}) : (tensor<2xf32>) -> tensor<2xf32> loc("Neg#2"("{{.*}}m.onnx":0:0))

import sys

import onnx
from onnx import TensorProto, helper


def f32(name, shape=(2,)):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def out(name):
    return helper.make_empty_tensor_value_info(name)


mode, path = sys.argv[1], sys.argv[2]
inputs = [f32("X")]
outputs = [out("Y")]
if mode == "missing-input":
    inputs = [f32("A", (2, 2))]
    nodes = [helper.make_node("Gemm", ["A", ""], ["Y"], name="gemm0")]
elif mode == "too-few-inputs":
    nodes = [helper.make_node("Add", ["X"], ["sum"]),
             helper.make_node("Identity", ["sum"], ["Y"])]
elif mode == "too-many-inputs":
    nodes = [helper.make_node("Relu", ["X", "X"], ["Y"], name="relu0")]
elif mode == "undefined-input":
    nodes = [helper.make_node("Neg", ["later"], ["Y"], name="early"),
             helper.make_node("Relu", ["X"], ["later"], name="late")]
elif mode == "unknown-attribute":
    nodes = [helper.make_node("Relu", ["X"], ["Y"], name="relu0", alpha=0.1)]
elif mode == "wrong-attribute-type":
    nodes = [helper.make_node("Transpose", ["X"], ["Y"], name="transpose0",
                              perm=[0.0])]
elif mode == "missing-attribute":
    nodes = [helper.make_node("Cast", ["X"], ["Y"], name="cast0")]
elif mode == "missing-output":
    nodes = [helper.make_node("Relu", ["X"], ["Y"], name="relu0")]
    outputs = [out("Y"), out("nowhere")]
elif mode == "untyped-subgraph-input":
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_empty_tensor_value_info("v")],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_empty_tensor_value_info("v")],
    )
    inputs = [f32("X"), helper.make_tensor_value_info("M", TensorProto.INT64, [])]
    nodes = [helper.make_node("Loop", ["M", "", "X"], ["Y"], name="loop0",
                              body=body)]
elif mode == "valid":
    nodes = [helper.make_node("Relu", ["X"], ["R"], name="relu0"),
             helper.make_node("Neg", ["R"], ["Y"])]

graph = helper.make_graph(nodes, mode, inputs, outputs)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(model, path)
