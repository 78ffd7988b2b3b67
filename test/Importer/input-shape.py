# onnxc --input-shape NAME:D1xD2... and --dim NAME=N fix dims the model
# leaves dynamic before ONNX's inference runs; the named dim takes its value
# in the outputs too. The If below is the minimal form of Silero VAD v5's
# rank-polymorphic graph (TorchScript's `squeeze(1)` when dim 1 is 1): with
# the shape given, its condition folds and the result has one rank.
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx --input-shape=X:2x1x3 --input-shape=S: %t.onnx -o - \
# RUN:   | FileCheck %s --check-prefix=IMPORT
# IMPORT: func.func @main_graph(%{{.*}}: tensor<2x1x3xf32> {onnx.name = "X"}, %{{.*}}: tensor<i64> {onnx.name = "S"})
# IMPORT-SAME: -> (tensor<2x1x3xf32> {onnx.name = "Y"}
# RUN: onnxc --emit=onnx-graph --input-shape=X:2x1x3 %t.onnx -o - \
# RUN:   | FileCheck %s --check-prefix=GRAPH
# GRAPH-NOT: onnx.If
# GRAPH: "onnx.Squeeze"({{.*}}) : (tensor<2x1x3xf32>, tensor<1xi64>) -> tensor<2x3xf32>
# GRAPH-NOT: onnx.If
# It compiles and runs: Z comes back with shape [2,3] (rank -1 in the
# signature, which is made before the If folds).
# RUN: onnxc --input-shape=X:2x1x3 --input-shape=S: %t.onnx -o %t.so
# RUN: onnxc-run %t.so --random-inputs | FileCheck %s --check-prefix=EXEC
# EXEC: output 0 'Y' float32[2,1,3]
# EXEC: output 1 'Z' float32[2,3]
# '?' keeps a dim dynamic; --dim gives a named dim.
# RUN: onnxc --emit=onnx --input-shape='X:?x5x?' --dim=batch=4 %t.onnx -o - \
# RUN:   | FileCheck %s --check-prefix=PARTIAL
# PARTIAL: func.func @main_graph(%{{.*}}: tensor<4x5x3xf32> {onnx.name = "X"}
# PARTIAL-SAME: -> (tensor<4x5x3xf32> {onnx.name = "Y"}
#
# Mistakes are errors naming the option:
# RUN: not onnxc --input-shape=Q:1 %t.onnx -o %t.so 2>&1 | FileCheck %s --check-prefix=NONAME
# NONAME: --input-shape Q:1: the model has no graph input named 'Q' (its inputs: 'S', 'X')
# RUN: not onnxc --input-shape=X:2x1 %t.onnx -o %t.so 2>&1 | FileCheck %s --check-prefix=RANK
# RANK: --input-shape X:2x1: input 'X' has rank 3 in the model, not 2
# RUN: not onnxc --input-shape=X:2x1x4 %t.onnx -o %t.so 2>&1 | FileCheck %s --check-prefix=STATIC
# STATIC: --input-shape X:2x1x4: dim 2 of input 'X' is 3 in the model; only its dynamic dims can be given
# RUN: not onnxc --input-shape=X:2xfourx3 %t.onnx -o %t.so 2>&1 | FileCheck %s --check-prefix=SYNTAX
# SYNTAX: onnxc: error: --input-shape X:2xfourx3: 'four' is not a dim (a non-negative integer or '?')
# RUN: not onnxc --dim=seq=3 %t.onnx -o %t.so 2>&1 | FileCheck %s --check-prefix=NODIM
# NODIM: --dim seq=3: no graph input has a dim named 'seq' (the inputs' named dims: 'batch')
# RUN: not onnxc --dim=batch=2 --input-shape=X:3x1x3 %t.onnx -o %t.so 2>&1 | FileCheck %s --check-prefix=CONFLICT
# CONFLICT: dim 'batch' is 2 and, through --input-shape X:3x1x3, 3

import sys

import onnx
from onnx import TensorProto, helper

squeeze = helper.make_graph(
    [helper.make_node("Squeeze", ["X", "one"], ["sq"])], "then", [],
    [helper.make_tensor_value_info("sq", TensorProto.FLOAT, None)])
keep = helper.make_graph(
    [helper.make_node("Identity", ["X"], ["id"])], "else", [],
    [helper.make_tensor_value_info("id", TensorProto.FLOAT, None)])
nodes = [
    helper.make_node("Relu", ["X"], ["Y"], name="relu"),
    helper.make_node("Constant", [], ["one"],
                     value=helper.make_tensor("one", TensorProto.INT64, [1], [1])),
    helper.make_node("Shape", ["X"], ["shape"]),
    helper.make_node("Gather", ["shape", "one"], ["d1"], axis=0),
    helper.make_node("Equal", ["d1", "one"], ["is1"]),
    helper.make_node("Squeeze", ["is1"], ["cond"]),
    helper.make_node("If", ["cond"], ["Z"], name="squeeze_if_1",
                     then_branch=squeeze, else_branch=keep),
]
inputs = [
    helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", None, 3]),
    helper.make_tensor_value_info("S", TensorProto.INT64, None),
]
outputs = [
    helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", None, 3]),
    helper.make_tensor_value_info("Z", TensorProto.FLOAT, None),
]
graph = helper.make_graph(nodes, "rank_follows_size", inputs, outputs)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(model, sys.argv[1])
