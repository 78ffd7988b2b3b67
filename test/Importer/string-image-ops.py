# StringConcat/StringSplit/RegexFullMatch-20, ImageDecoder-20 and
# DeformConv-22 import as their dialect ops, typed by project rules
# (broadcast; one bool per element; substrings with a dynamic last dim and
# their counts; a (H, W, 3) uint8 image for RGB; Conv's window). They all
# lower (test/Conversion/ONNXToLinalg/strings.mlir,
# test/Runtime/image-decoder.test): the model compiles.
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx-inferred %t.onnx -o - | FileCheck %s
# CHECK: "onnx.StringConcat"(%arg0, %arg1) : (tensor<3x!onnx.string>, tensor<1x!onnx.string>) -> tensor<3x!onnx.string>
# CHECK: "onnx.RegexFullMatch"({{.*}}) <{pattern = "a.*"}> : (tensor<3x!onnx.string>) -> tensor<3xi1>
# CHECK: "onnx.StringSplit"({{.*}}) : (tensor<3x!onnx.string>) -> (tensor<3x?x!onnx.string>, tensor<3xi64>)
# CHECK: "onnx.ImageDecoder"({{.*}}) <{pixel_format = "RGB"}> : (tensor<100xui8>) -> tensor<?x?x3xui8>
# CHECK: "onnx.DeformConv"({{.*}}) <{{.*}}> : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<1x18x3x3xf32>) -> tensor<1x4x3x3xf32>
# RUN: onnxc %t.onnx -o %t.so

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
