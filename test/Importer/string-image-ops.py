# StringConcat/StringSplit/RegexFullMatch-20, ImageDecoder-20 and
# DeformConv-22 import as their dialect ops, typed by project rules
# (broadcast; one bool per element; substrings with a dynamic last dim and
# their counts; a (H, W, C) uint8 image; Conv's window). The string ops
# lower (test/Conversion/ONNXToLinalg/strings.mlir); ImageDecoder does not
# yet: compiling says so, naming the node.
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx-inferred %t.onnx -o - | FileCheck %s
# CHECK: "onnx.StringConcat"(%arg0, %arg1) : (tensor<3x!onnx.string>, tensor<1x!onnx.string>) -> tensor<3x!onnx.string>
# CHECK: "onnx.RegexFullMatch"({{.*}}) <{pattern = "a.*"}> : (tensor<3x!onnx.string>) -> tensor<3xi1>
# CHECK: "onnx.StringSplit"({{.*}}) : (tensor<3x!onnx.string>) -> (tensor<3x?x!onnx.string>, tensor<3xi64>)
# CHECK: "onnx.ImageDecoder"({{.*}}) <{pixel_format = "RGB"}> : (tensor<100xui8>) -> tensor<?x?x?xui8>
# CHECK: "onnx.DeformConv"({{.*}}) <{{.*}}> : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<1x18x3x3xf32>) -> tensor<1x4x3x3xf32>
# RUN: not onnxc %t.onnx -o %t.so 2>&1 | FileCheck %s --check-prefix=COMPILE
# COMPILE: node 'ImageDecoder#4': error: 'onnx.ImageDecoder' is not supported by the CPU backend

import sys

import onnx
from onnx import TensorProto, helper

S, F = TensorProto.STRING, TensorProto.FLOAT
nodes = [
    helper.make_node("StringConcat", ["a", "b"], ["ab"]),
    helper.make_node("RegexFullMatch", ["ab"], ["match"], pattern="a.*"),
    helper.make_node("StringSplit", ["ab"], ["parts", "counts"]),
    helper.make_node("ImageDecoder", ["bytes"], ["image"]),
    helper.make_node("DeformConv", ["x", "w", "offset"], ["y"]),
]
graph = helper.make_graph(
    nodes, "new_ops",
    [helper.make_tensor_value_info("a", S, [3]),
     helper.make_tensor_value_info("b", S, [1]),
     helper.make_tensor_value_info("bytes", TensorProto.UINT8, [100]),
     helper.make_tensor_value_info("x", F, [1, 2, 5, 5]),
     helper.make_tensor_value_info("w", F, [4, 2, 3, 3]),
     helper.make_tensor_value_info("offset", F, [1, 18, 3, 3])],
    [helper.make_tensor_value_info(n, t, None) for n, t in
     [("match", TensorProto.BOOL), ("parts", S), ("counts", TensorProto.INT64),
      ("image", TensorProto.UINT8), ("y", F)]])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
model.ir_version = 10
onnx.save(model, sys.argv[1])
