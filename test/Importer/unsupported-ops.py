# Every operator the onnx dialect cannot represent is reported at once, in a
# single error that names each operator (domain::type-version), why it is not
# supported, and the nodes that use it; nothing is printed and onnxc fails.
# RUN: %python %s %t.onnx
# RUN: not onnxc --emit=onnx %t.onnx -o - 2>&1 | FileCheck %s

# CHECK: error: the model uses 6 operator(s) not supported by onnxc:
# CHECK-NEXT: ai.onnx.ml::LabelEncoder (the model does not import the operator's domain), used by 1 node(s): 'encoder'
# CHECK-NEXT: ai.onnx::NoSuchOp-28 (the onnx dialect has no operator of this name), used by 1 node(s): 'typo'
# CHECK-NEXT: ai.onnx::SpaceToDepth-28 (version 28 changed the operator; the dialect models version 13), used by 1 node(s): 'space_to_depth'
# CHECK-NEXT: com.example::Frobnicate-1 (the onnx dialect has no operator of this name), used by 3 node(s): 'frob_in_branch', 'frob1', 'frob2'
# CHECK-NEXT: com.example::Twiddle-1 (the onnx dialect has no operator of this name), used by 1 node(s): (unnamed, output 'twiddled')
# CHECK-NEXT: com.other::Add (the onnx dialect has no operator of this name), used by 1 node(s): 'other_add'
# CHECK-NOT: error
# CHECK-NOT: func.func

import sys

import onnx
from onnx import TensorProto, helper


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


then_branch = helper.make_graph(
    [helper.make_node("Frobnicate", ["X"], ["b"], name="frob_in_branch",
                      domain="com.example")],
    "then", [], [f32("b", [2])],
)
else_branch = helper.make_graph(
    [helper.make_node("Neg", ["X"], ["n"])], "else", [], [f32("n", [2])]
)
nodes = [
    # An unsupported op in a subgraph, before any other: the If is built, its
    # branch cannot be, and the scan goes on.
    helper.make_node("If", ["C"], ["picked"], name="if",
                     then_branch=then_branch, else_branch=else_branch),
    helper.make_node("Relu", ["picked"], ["r"], name="relu"),
    helper.make_node("Frobnicate", ["r"], ["f1"], name="frob1",
                     domain="com.example"),
    helper.make_node("Frobnicate", ["f1"], ["f2"], name="frob2",
                     domain="com.example"),
    helper.make_node("Twiddle", ["f2"], ["twiddled"], domain="com.example"),
    # Changed in opset 28 (the `mode` attribute); the dialect models 13.
    helper.make_node("SpaceToDepth", ["X"], ["has_out"], name="space_to_depth",
                     blocksize=2),
    helper.make_node("NoSuchOp", ["X"], ["typo_out"], name="typo"),
    helper.make_node("Add", ["X", "X"], ["other"], name="other_add",
                     domain="com.other"),
    helper.make_node("LabelEncoder", ["X"], ["encoded"], name="encoder",
                     domain="ai.onnx.ml", keys_floats=[1.0],
                     values_int64s=[1]),
]
graph = helper.make_graph(
    nodes,
    "unsupported",
    [
        f32("X", [2]),
        helper.make_tensor_value_info("C", TensorProto.BOOL, []),
    ],
    [helper.make_empty_tensor_value_info(n)
     for n in ["twiddled", "has_out", "typo_out", "other", "encoded"]],
)
model = helper.make_model(
    graph,
    opset_imports=[helper.make_opsetid("", 28),
                   helper.make_opsetid("com.example", 1)],
)
onnx.save(model, sys.argv[1])
