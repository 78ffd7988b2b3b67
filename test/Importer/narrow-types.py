# The narrow element types import as MLIR's: float8 (f8E4M3FN, ...), int4 as
# i4 and uint2 as ui2; packed initializers (raw_data two or four per byte,
# or one packed byte per int32_data entry) unpack to one element each. Cast,
# CastLike, QuantizeLinear and DequantizeLinear are modelled at their newest
# versions (saturate, round_mode, block_size, output_dtype): older nodes
# import unchanged and take the defaults; the result types come from `to`,
# output_dtype or the zero point.
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx %t.onnx -o - | FileCheck %s
# CHECK-LABEL: func.func @main_graph(
# CHECK-SAME: %{{.*}}: tensor<4xf32>
# CHECK-SAME: -> (tensor<4xf8E4M3FN> {{.*}}, tensor<5xi4> {{.*}}, tensor<4xf32> {{.*}}, tensor<4xi4> {{.*}}, tensor<3xui2>
# CHECK-DAG: dense<[-8, -1, 0, 3, 7]> : tensor<5xi4>
# CHECK-DAG: dense<[1, 2, 3]> : tensor<3xui2>
# CHECK-DAG: "onnx.Cast"(%{{.*}}) <{round_mode = "up", saturate = 0 : i64, to = 17 : i64}> : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
# CHECK-DAG: "onnx.DequantizeLinear"(%{{.*}}, %{{.*}}) <{axis = 0 : i64, block_size = 2 : i64, output_dtype = 0 : i64}> : (tensor<4xi4>, tensor<2xf32>) -> tensor<4xf32>
# CHECK-DAG: "onnx.QuantizeLinear"(%{{.*}}, %{{.*}}) <{axis = 1 : i64, block_size = 0 : i64, output_dtype = 22 : i64, precision = 0 : i64, saturate = 1 : i64}> : (tensor<4xf32>, tensor<f32>) -> tensor<4xi4>

import sys

import onnx
from onnx import TensorProto, helper

INT4, UINT2, FLOAT8E4M3FN = 22, 25, 17


def value(name, elem_type, shape):
    v = onnx.ValueInfoProto()
    v.name = name
    v.type.tensor_type.elem_type = elem_type
    for d in shape:
        v.type.tensor_type.shape.dim.add().dim_value = d
    return v


packed = TensorProto(name="P", data_type=INT4, dims=[5], raw_data=bytes([0xF8, 0x30, 0x07]))
# uint2 [1, 2, 3]: 0b00_11_10_01, in int32_data.
small = TensorProto(name="S", data_type=UINT2, dims=[3], int32_data=[0x39])
w = TensorProto(name="W", data_type=INT4, dims=[4], raw_data=bytes([0x21, 0x43]))
scale = helper.make_tensor("scale", TensorProto.FLOAT, [2], [0.5, 2.0])
one = helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])
graph = helper.make_graph(
    [
        helper.make_node("Cast", ["X"], ["F8"], to=FLOAT8E4M3FN, saturate=0),
        helper.make_node("Identity", ["P"], ["Pout"]),
        helper.make_node("DequantizeLinear", ["W", "scale"], ["D"], axis=0, block_size=2),
        helper.make_node("QuantizeLinear", ["X", "one"], ["Q"], output_dtype=INT4),
        helper.make_node("Identity", ["S"], ["Sout"]),
    ],
    "narrow",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4])],
    [value("F8", FLOAT8E4M3FN, [4]), value("Pout", INT4, [5]),
     value("D", TensorProto.FLOAT, [4]), value("Q", INT4, [4]), value("Sout", UINT2, [3])],
    initializer=[packed, small, w, scale, one],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
model.ir_version = 11
onnx.save(model, sys.argv[1])
