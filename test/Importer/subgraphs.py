# Graph attributes (If branches, Loop and Scan bodies) become regions ending
# in onnx.Yield, in the schema's attribute order; subgraph inputs become block
# arguments, and values of enclosing graphs are used directly.
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx %t.onnx -o - | FileCheck %s

# CHECK-LABEL: func.func @main_graph(
# CHECK-SAME: %[[COND:[^:]+]]: tensor<i1> {onnx.name = "cond"}
# CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32> {onnx.name = "X"}
# CHECK-SAME: %[[TRIP:[^:]+]]: tensor<i64> {onnx.name = "trip"}
# CHECK-SAME: %[[INIT:[^:]+]]: tensor<3xf32> {onnx.name = "init"}

# If: else_branch first, then then_branch.
# CHECK: %[[IF:.+]] = "onnx.If"(%[[COND]]) ({
# CHECK-NEXT:   %[[NEG:.+]] = "onnx.Neg"(%[[X]])
# CHECK-NEXT:   onnx.Yield %[[NEG]] : tensor<2x3xf32>
# CHECK-NEXT: }, {
# CHECK-NEXT:   %[[ADD:.+]] = "onnx.Add"(%[[X]], %[[X]])
# CHECK-NEXT:   onnx.Yield %[[ADD]] : tensor<2x3xf32>
# CHECK-NEXT: }) : (tensor<i1>) -> tensor<2x3xf32>

# Loop with its optional `cond` input left empty ("").
# CHECK: %[[LOOP:.+]]:2 = "onnx.Loop"(%[[TRIP]], %[[X]]) <{operandSegmentSizes = array<i32: 1, 0, 1>}> ({
# CHECK-NEXT: ^bb0(%[[I:.+]]: tensor<i64>, %[[C:.+]]: tensor<i1>, %[[V:.+]]: tensor<2x3xf32>):
# CHECK-NEXT:   %[[NEXT:.+]] = "onnx.Add"(%[[V]], %[[X]])
# CHECK-NEXT:   %[[COUT:.+]] = "onnx.Identity"(%[[C]])
# CHECK-NEXT:   %[[IF32:.+]] = "onnx.Cast"(%[[I]]) <{round_mode = "up", saturate = 1 : i64, to = 1 : i64}>
# An If nested in the body sees the body's values and the main graph's.
# CHECK-NEXT:   %[[INNER:.+]] = "onnx.If"(%[[C]]) ({
# CHECK-NEXT:     onnx.Yield %[[X]] : tensor<2x3xf32>
# CHECK-NEXT:   }, {
# CHECK-NEXT:     onnx.Yield %[[NEXT]] : tensor<2x3xf32>
# CHECK-NEXT:   })
# CHECK-NEXT:   onnx.Yield %[[COUT]], %[[INNER]], %[[IF32]] : tensor<i1>, tensor<2x3xf32>, tensor<f32>
# The carried value keeps its rank; the scan output gains the iteration dim.
# CHECK-NEXT: }) : (tensor<i64>, tensor<2x3xf32>) -> (tensor<?x?xf32>, tensor<?xf32>)

# Scan: one state variable and one scan input.
# CHECK: %[[SCAN:.+]]:2 = "onnx.Scan"(%[[INIT]], %[[X]]) <{num_scan_inputs = 1 : i64}> ({
# CHECK-NEXT: ^bb0(%[[ACC:.+]]: tensor<3xf32>, %[[ROW:.+]]: tensor<3xf32>):
# CHECK-NEXT:   %[[SUM:.+]] = "onnx.Add"(%[[ACC]], %[[ROW]])
# CHECK-NEXT:   onnx.Yield %[[SUM]], %[[SUM]] : tensor<3xf32>, tensor<3xf32>
# CHECK-NEXT: }) : (tensor<3xf32>, tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2x3xf32>)
# CHECK: return %[[IF]], %[[LOOP]]#0, %[[LOOP]]#1, %[[SCAN]]#0, %[[SCAN]]#1

import sys

import onnx
from onnx import TensorProto, helper


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def scalar(name, elem_type):
    return helper.make_tensor_value_info(name, elem_type, [])


then_branch = helper.make_graph(
    [helper.make_node("Add", ["X", "X"], ["t"], name="then_add")],
    "then",
    [],
    [f32("t", [2, 3])],
)
else_branch = helper.make_graph(
    [helper.make_node("Neg", ["X"], ["e"], name="else_neg")],
    "else",
    [],
    [f32("e", [2, 3])],
)
inner_if = helper.make_node(
    "If",
    ["c"],
    ["picked"],
    name="inner_if",
    then_branch=helper.make_graph(
        [], "inner_then", [], [f32("v_next", [2, 3])]
    ),
    else_branch=helper.make_graph([], "inner_else", [], [f32("X", [2, 3])]),
)
loop_body = helper.make_graph(
    [
        helper.make_node("Add", ["v", "X"], ["v_next"], name="body_add"),
        helper.make_node("Identity", ["c"], ["c_out"]),
        helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
        inner_if,
    ],
    "loop_body",
    [scalar("i", TensorProto.INT64), scalar("c", TensorProto.BOOL), f32("v", [2, 3])],
    [scalar("c_out", TensorProto.BOOL), f32("picked", [2, 3]), f32("i_f", [])],
)
scan_body = helper.make_graph(
    [helper.make_node("Add", ["acc", "row"], ["acc_next"], name="scan_add")],
    "scan_body",
    [f32("acc", [3]), f32("row", [3])],
    [f32("acc_next", [3]), f32("acc_next", [3])],
)
nodes = [
    helper.make_node(
        "If", ["cond"], ["Y"], name="if",
        then_branch=then_branch, else_branch=else_branch,
    ),
    helper.make_node("Loop", ["trip", "", "X"], ["L", "Ls"], name="loop",
                     body=loop_body),
    helper.make_node("Scan", ["init", "X"], ["S", "Ss"], name="scan",
                     body=scan_body, num_scan_inputs=1),
]
graph = helper.make_graph(
    nodes,
    "subgraphs",
    [
        scalar("cond", TensorProto.BOOL),
        f32("X", [2, 3]),
        scalar("trip", TensorProto.INT64),
        f32("init", [3]),
    ],
    [helper.make_empty_tensor_value_info(n) for n in ["Y", "L", "Ls", "S", "Ss"]],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(model, sys.argv[1])
