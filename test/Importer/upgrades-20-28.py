# DFT (and Mod) at the dialect's newer versions. DFT-20: a DFT-17 node's axis attribute becomes a
# constant axis input (upgrade); a DFT-20 node whose axis is a graph input
# keeps it, typed with every signal dim the axis may change dynamic (only
# onesided changes a size here).
# RUN: %python %s 17 %t.17.onnx
# RUN: onnxc --emit=onnx %t.17.onnx -o - | FileCheck %s --check-prefix=V17
# V17: %[[AXIS:.+]] = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}>
# V17: "onnx.DFT"(%arg0, %[[AXIS]]) <{inverse = 0 : i64, onesided = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<1x4x10x1xf32>, tensor<1xi64>) -> tensor<1x4x6x2xf32>
# Mod-28 (fmod = 0 defined for floats) is the dialect's Mod; a Mod-13 node
# imports unchanged (floats then required fmod = 1).
# RUN: %python %s mod28 %t.mod28.onnx
# RUN: onnxc --emit=onnx %t.mod28.onnx -o - | FileCheck %s --check-prefix=MOD28
# MOD28: "onnx.Mod"(%arg0, %arg1) <{fmod = 0 : i64}> : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
# RUN: %python %s 20 %t.20.onnx
# RUN: onnxc --emit=onnx %t.20.onnx -o - | FileCheck %s --check-prefix=V20
# V20: "onnx.DFT"(%arg0, %arg1) {{.*}} : (tensor<1x4x10x1xf32>, tensor<i64>) -> tensor<1x?x?x2xf32>

import sys

import onnx
from onnx import TensorProto, helper

mode, path = sys.argv[1], sys.argv[2]
if mode == "mod28":
    f = TensorProto.FLOAT
    graph = helper.make_graph([helper.make_node("Mod", ["a", "b"], ["c"])], "mod",
                              [helper.make_tensor_value_info("a", f, [3]),
                               helper.make_tensor_value_info("b", f, [3])],
                              [helper.make_tensor_value_info("c", f, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 28)])
    model.ir_version = 10
    onnx.save(model, path)
    sys.exit(0)
version = int(mode)
inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 10, 1])]
if version == 17:
    node = helper.make_node("DFT", ["x"], ["y"], axis=2, onesided=1)
else:
    node = helper.make_node("DFT", ["x", "", "axis"], ["y"], onesided=1)
    inputs.append(helper.make_tensor_value_info("axis", TensorProto.INT64, []))
graph = helper.make_graph([node], "dft", inputs,
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)])
model.ir_version = 8
onnx.save(model, path)
