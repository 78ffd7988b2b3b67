# Initializers become onnx.Constant ops: small ones as dense<...>, those of
# at least 1024 bytes as dense_resource blobs.
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx %t.onnx -o - | FileCheck %s

# An initializer that is also listed as a graph input (IR < 4 style) is a
# constant, not a function argument.
# CHECK-LABEL: func.func @main_graph
# CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32> {onnx.name = "X"})
# CHECK-SAME: -> (tensor<2x3xf32> {onnx.name = "Y"}, tensor<6xi64> {onnx.name = "I"}
# CHECK-DAG: %[[BIAS:.+]] = "onnx.Constant"() <{value = dense<[5.000000e-01, -1.000000e+00, 2.000000e+00]> : tensor<3xf32>}> : () -> tensor<3xf32>
# CHECK-DAG: %[[IOTA:.+]] = "onnx.Constant"() <{value = dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi64>}> : () -> tensor<6xi64>
# CHECK-DAG: %[[NAMES:.+]] = "onnx.Constant"() <{value = dense<["cat", "dog"]> : tensor<2x!onnx.string>}>
# CHECK-DAG: %[[MASK:.+]] = "onnx.Constant"() <{value = dense<[true, false]> : tensor<2xi1>}>
# CHECK-DAG: %[[HALF:.+]] = "onnx.Constant"() <{value = dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf16>}>
# CHECK-DAG: %[[U8:.+]] = "onnx.Constant"() <{value = dense<[0, 255]> : tensor<2xui8>}>
# CHECK-DAG: %[[ZEROS:.+]] = "onnx.Constant"() <{value = dense<0.000000e+00> : tensor<3xf32>}>
# 2 x 256 floats = 2048 bytes: a resource blob named after the initializer.
# CHECK-DAG: %[[BIG:.+]] = "onnx.Constant"() <{value = dense_resource<big> : tensor<2x256xf32>}> : () -> tensor<2x256xf32>
# 255 floats = 1020 bytes: still inline.
# CHECK-DAG: "onnx.Constant"() <{value = dense<"0x{{[0-9A-F]+}}"> : tensor<255xf32>}>
# CHECK: %[[Y:.+]] = "onnx.Add"(%[[X]], %[[BIAS]])
# CHECK: "onnx.Identity"(%[[IOTA]])
# CHECK: "onnx.ReduceSum"(%[[BIG]])
# CHECK: return %[[Y]],

# The blob holds the raw little-endian data after MLIR's 4-byte alignment
# header: 0.0, 1.0, 2.0, ...
# CHECK: dialect_resources
# CHECK-NEXT: builtin
# CHECK-NEXT: big: "0x04000000000000000000803F0000004000004040

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

initializers = [
    helper.make_tensor("bias", TensorProto.FLOAT, [3], [0.5, -1.0, 2.0]),
    numpy_helper.from_array(np.arange(6, dtype=np.int64), "iota"),
    helper.make_tensor("names", TensorProto.STRING, [2], [b"cat", b"dog"]),
    helper.make_tensor("mask", TensorProto.BOOL, [2], [True, False]),
    numpy_helper.from_array(np.array([1.0, -2.0], dtype=np.float16), "half"),
    helper.make_tensor("u8", TensorProto.UINT8, [2], [0, 255]),
    numpy_helper.from_array(np.zeros((3,), np.float32), "zeros"),
    numpy_helper.from_array(
        np.arange(512, dtype=np.float32).reshape(2, 256), "big"
    ),
    numpy_helper.from_array(np.arange(255, dtype=np.float32), "almost_big"),
]
outputs = ["Y", "I", "S", "B", "H", "U", "Z", "R", "A"]
nodes = [
    helper.make_node("Add", ["X", "bias"], ["Y"], name="add"),
    helper.make_node("Identity", ["iota"], ["I"]),
    helper.make_node("Identity", ["names"], ["S"]),
    helper.make_node("Identity", ["mask"], ["B"]),
    helper.make_node("Identity", ["half"], ["H"]),
    helper.make_node("Identity", ["u8"], ["U"]),
    helper.make_node("Identity", ["zeros"], ["Z"]),
    helper.make_node("ReduceSum", ["big"], ["R"], keepdims=0),
    helper.make_node("Identity", ["almost_big"], ["A"]),
]
graph = helper.make_graph(
    nodes,
    "initializers",
    [
        helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3]),
        helper.make_tensor_value_info("bias", TensorProto.FLOAT, [3]),
    ],
    [helper.make_empty_tensor_value_info(name) for name in outputs],
    initializers,
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(model, sys.argv[1])
