# The dialect models Resize at version 19. A Resize-13 node imports with the
# new attributes at their defaults (antialias 0, no axes, "stretch"), its
# behaviour; a Resize-19 node with `axes` or keep_aspect_ratio_policy gets
# its result shape from the project's own rule (Resize-13's cannot read
# them): named dims floor(size * scale), or round_int(size * common scale).
# RUN: %python %s %t
# RUN: onnxc --emit=onnx %t/r13.onnx -o - | FileCheck %s --check-prefix=R13
# R13: "onnx.Resize"(%{{.*}}, %{{.*}}) <{antialias = 0 : i64, coordinate_transformation_mode = "half_pixel", {{.*}}keep_aspect_ratio_policy = "stretch", mode = "linear"{{.*}}}> : (tensor<1x1x2x4xf32>, tensor<4xf32>) -> tensor<1x1x4x8xf32>
# R13-NOT: axes
# RUN: onnxc --emit=onnx %t/r19.onnx -o - | FileCheck %s --check-prefix=R19
# R19: "onnx.Resize"(%{{.*}}, %{{.*}}) <{{{.*}}axes = [3, 2]{{.*}}}> : (tensor<1x1x4x6xf32>, tensor<2xf32>) -> tensor<1x1x2x9xf32>
# R19: "onnx.Resize"(%{{.*}}, %{{.*}}) <{{{.*}}keep_aspect_ratio_policy = "not_smaller"{{.*}}}> : (tensor<1x1x4x6xf32>, tensor<2xi64>) -> tensor<1x1x5x8xf32>

import os
import sys

import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(name, nodes, inputs, outputs, inits, opset):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, name + ".onnx"))


save("r13",
     [helper.make_node("Resize", ["X", "", "scales"], ["Y"], mode="linear")],
     [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, 2, 4])],
     [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
     [helper.make_tensor("scales", TensorProto.FLOAT, [4], [1, 1, 2, 2])], 13)
# Scales for dims 3 and 2 (in that order): 6 * 1.5 = 9, 4 * 0.5 = 2. Sizes
# [5, 5] not_smaller: max(5/4, 5/6) = 1.25, so 4 -> 5 and 6 -> 7.5 -> 8.
save("r19",
     [helper.make_node("Resize", ["X", "", "scales"], ["Y"], axes=[3, 2]),
      helper.make_node("Resize", ["X", "", "", "sizes"], ["Z"], axes=[2, 3],
                       keep_aspect_ratio_policy="not_smaller")],
     [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, 4, 6])],
     [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None),
      helper.make_tensor_value_info("Z", TensorProto.FLOAT, None)],
     [helper.make_tensor("scales", TensorProto.FLOAT, [2], [1.5, 0.5]),
      helper.make_tensor("sizes", TensorProto.INT64, [2], [5, 5])], 19)
