# ONNX sequence, optional and map types become !onnx.seq, !onnx.opt and
# !onnx.map, as graph inputs and outputs and as op results; string elements
# are !onnx.string. The ai.onnx.ml ops that produce and take maps import as
# onnx.ml.*.
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx %t.onnx -o - | FileCheck %s
# Without ONNX's graph inference, the importer's per-node inference types the
# same values (Optional() needs its `type` attribute for that).
# RUN: onnxc --emit=onnx --no-onnx-shape-inference %t.onnx -o - | FileCheck %s

# CHECK: module attributes {{{.*}}onnx.opset_import = {ai.onnx = 17 : i64, ai.onnx.ml = 3 : i64}}
# CHECK-LABEL: func.func @main_graph(
# CHECK-SAME: %[[S:[^:]+]]: !onnx.seq<tensor<?xf32>> {onnx.name = "S"}
# CHECK-SAME: %[[O:[^:]+]]: !onnx.opt<tensor<2xi64>> {onnx.name = "O"}
# CHECK-SAME: %[[M:[^:]+]]: !onnx.map<!onnx.string, f64> {onnx.name = "M"}
# CHECK-SAME: %[[P:[^:]+]]: tensor<3x2xf32> {onnx.name = "P"}
# CHECK-SAME: %[[POS:[^:]+]]: tensor<i64> {onnx.name = "pos"}
# CHECK-SAME: %[[OS:[^:]+]]: !onnx.opt<!onnx.seq<tensor<?xf32>>> {onnx.name = "OS"}
# CHECK-SAME: %[[STR:[^:]+]]: tensor<2x!onnx.string> {onnx.name = "names"}
# CHECK-SAME: -> (tensor<?xf32> {onnx.name = "first"}, !onnx.seq<tensor<?xf32>> {onnx.name = "S2"},

# CHECK: %[[FIRST:.+]] = "onnx.SequenceAt"(%[[S]], %[[POS]]) : (!onnx.seq<tensor<?xf32>>, tensor<i64>) -> tensor<?xf32>
# CHECK: "onnx.SequenceInsert"(%[[S]], %[[FIRST]]) : (!onnx.seq<tensor<?xf32>>, tensor<?xf32>) -> !onnx.seq<tensor<?xf32>>
# CHECK: "onnx.OptionalHasElement"(%[[O]]) : (!onnx.opt<tensor<2xi64>>) -> tensor<i1>
# CHECK: "onnx.OptionalGetElement"(%[[O]]) : (!onnx.opt<tensor<2xi64>>) -> tensor<2xi64>
# CHECK: "onnx.Optional"(%[[FIRST]]) : (tensor<?xf32>) -> !onnx.opt<tensor<?xf32>>
# ONNX's attribute `type` is the op's `type_`.
# CHECK: "onnx.Optional"() <{type_ = tensor<*xf32>}> : () -> !onnx.opt<tensor<*xf32>>
# CHECK: "onnx.ml.DictVectorizer"(%[[M]]) <{string_vocabulary = ["a", "b"]}> : (!onnx.map<!onnx.string, f64>) -> tensor<{{.*}}xf64>
# CHECK: "onnx.ml.ZipMap"(%[[P]]) <{classlabels_int64s = [7, 9]}> : (tensor<3x2xf32>) -> !onnx.seq<!onnx.map<i64, f32>>
# CHECK: "onnx.SequenceEmpty"() <{dtype = 6 : i64}> : () -> !onnx.seq<tensor<*xi32>>
# CHECK: "onnx.ml.LabelEncoder"(%[[STR]]) <{{{.*}}keys_strings = ["cat", "dog"]{{.*}}values_int64s = [0, 1]}> : (tensor<2x!onnx.string>) -> tensor<2xi64>
# CHECK: return {{.*}}, %[[OS]] :

import sys

import onnx
from onnx import TensorProto, helper

seq_f32 = helper.make_sequence_type_proto(
    helper.make_tensor_type_proto(TensorProto.FLOAT, ["n"])
)
opt_i64 = helper.make_optional_type_proto(
    helper.make_tensor_type_proto(TensorProto.INT64, [2])
)
# A map's values are shapeless tensors in the proto (onnx.helper of ONNX
# 1.12 has no make_map_type_proto).
map_str_f64 = onnx.TypeProto()
map_str_f64.map_type.key_type = TensorProto.STRING
map_str_f64.map_type.value_type.tensor_type.elem_type = TensorProto.DOUBLE

inputs = [
    helper.make_value_info("S", seq_f32),
    helper.make_value_info("O", opt_i64),
    helper.make_value_info("M", map_str_f64),
    helper.make_tensor_value_info("P", TensorProto.FLOAT, [3, 2]),
    helper.make_tensor_value_info("pos", TensorProto.INT64, []),
    helper.make_value_info("OS", helper.make_optional_type_proto(seq_f32)),
    helper.make_tensor_value_info("names", TensorProto.STRING, [2]),
]
nodes = [
    helper.make_node("SequenceAt", ["S", "pos"], ["first"]),
    helper.make_node("SequenceInsert", ["S", "first"], ["S2"]),
    helper.make_node("OptionalHasElement", ["O"], ["has"]),
    helper.make_node("OptionalGetElement", ["O"], ["got"]),
    helper.make_node("Optional", ["first"], ["wrapped"]),
    helper.make_node(
        "Optional", [], ["none"],
        type=helper.make_tensor_type_proto(TensorProto.FLOAT, None),
    ),
    helper.make_node("DictVectorizer", ["M"], ["vec"], domain="ai.onnx.ml",
                     string_vocabulary=["a", "b"]),
    helper.make_node("ZipMap", ["P"], ["Z"], domain="ai.onnx.ml",
                     classlabels_int64s=[7, 9]),
    helper.make_node("SequenceEmpty", [], ["empty"], dtype=TensorProto.INT32),
    helper.make_node("LabelEncoder", ["names"], ["ids"], domain="ai.onnx.ml",
                     keys_strings=["cat", "dog"], values_int64s=[0, 1]),
]
outputs = ["first", "S2", "has", "got", "wrapped", "none", "vec", "Z", "empty",
           "ids", "OS"]
graph = helper.make_graph(
    nodes, "types", inputs,
    [helper.make_empty_tensor_value_info(n) for n in outputs],
)
model = helper.make_model(
    graph,
    opset_imports=[
        helper.make_opsetid("", 17),
        helper.make_opsetid("ai.onnx.ml", 3),
    ],
)
onnx.save(model, sys.argv[1])
