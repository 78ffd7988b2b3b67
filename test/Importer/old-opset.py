# Models of old opsets are converted to opset 17 (libonnx's version
# converter), so their nodes import as the operator versions the dialect
# models.
# RUN: rm -rf %t && mkdir -p %t

# Opset 6, IR version 3: Add-6 with its `broadcast` attribute, Reshape-5, and
# an initializer that is also a graph input.
# RUN: %python %s opset6 %t/opset6.onnx
# RUN: onnxc --emit=onnx %t/opset6.onnx -o - | FileCheck %s --check-prefix=OPSET6
# OPSET6: module attributes {onnx.ir_version = 3 : i64, onnx.opset_import = {ai.onnx = 17 : i64}}
# OPSET6-LABEL: func.func @main_graph(
# OPSET6-SAME: %[[A:[^:]+]]: tensor<2x3x4xf32> {onnx.name = "A"}, %[[B:[^:]+]]: tensor<4xf32> {onnx.name = "B"})
# OPSET6-SAME: -> (tensor<3x8xf32> {onnx.name = "R"})
# OPSET6: %[[SHAPE:.+]] = "onnx.Constant"() <{value = dense<[3, 8]> : tensor<2xi64>}>
# Add-14 broadcasts without being told to.
# OPSET6: %[[SUM:.+]] = "onnx.Add"(%[[A]], %[[B]]) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
# OPSET6-NOT: broadcast
# OPSET6: "onnx.Reshape"(%[[SUM]], %[[SHAPE]]) <{allowzero = 0 : i64}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3x8xf32>

# Opset 4: Reshape-1 took the shape as an attribute; Reshape-5 and later take
# it as an input, which the conversion makes a constant.
# RUN: %python %s opset4 %t/opset4.onnx
# RUN: onnxc --emit=onnx %t/opset4.onnx -o - | FileCheck %s --check-prefix=OPSET4
# OPSET4: onnx.opset_import = {ai.onnx = 17 : i64}
# OPSET4: %[[SHAPE:.+]] = "onnx.Constant"() <{value = dense<[4, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
# OPSET4: %[[R:.+]] = "onnx.Reshape"(%{{.*}}, %[[SHAPE]]) {{.*}} -> tensor<4x6xf32>
# OPSET4: "onnx.Relu"(%[[R]]) : (tensor<4x6xf32>) -> tensor<4x6xf32>

# Opset 12: Softmax-11 (coerce to 2-D at `axis`) becomes Softmax-13 over
# the flattened input, reshaped back to the input's shape (the importer's
# expansion, which needs no static shape; libonnx's adapter asserts on
# inputs of unknown shape).
# RUN: %python %s opset12 %t/opset12.onnx
# RUN: onnxc --emit=onnx %t/opset12.onnx -o - | FileCheck %s --check-prefix=OPSET12
# OPSET12: onnx.opset_import = {ai.onnx = 17 : i64}
# OPSET12: %[[FLAT:.+]] = "onnx.Flatten"(%{{.*}}) <{axis = 1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
# OPSET12: %[[SM:.+]] = "onnx.Softmax"(%[[FLAT]]) <{axis = -1 : i64}> : (tensor<2x12xf32>) -> tensor<2x12xf32>
# OPSET12: %[[SHAPE:.+]] = "onnx.Shape"(%arg0)
# OPSET12: %[[Y:.+]] = "onnx.Reshape"(%[[SM]], %[[SHAPE]])
# OPSET12: return %[[Y]] : tensor<2x3x4xf32>

# Nodes libonnx's converter asserts on go around it and are expanded at
# their old semantics: Softmax-1 on a value of unknown shape (coerced to 2-D
# at axis 1, reshaped back to the run-time shape), Add-6 broadcasting B
# along axis 0 (B gets trailing 1s), BatchNormalization-6 with spatial = 0
# (statistics per (C, H, W), elementwise).
# RUN: %python %s legacy %t/legacy.onnx
# RUN: onnxc --emit=onnx %t/legacy.onnx -o - | FileCheck %s --check-prefix=LEGACY
# LEGACY: onnx.opset_import = {ai.onnx = 17 : i64}
# LEGACY: %[[R:.+]] = "onnx.Reshape"(%arg0, %arg1)
# LEGACY: %[[F:.+]] = "onnx.Flatten"(%[[R]]) <{axis = 1 : i64}>
# LEGACY: %[[SM:.+]] = "onnx.Softmax"(%[[F]]) <{axis = -1 : i64}>
# LEGACY: %[[SH:.+]] = "onnx.Shape"(%[[R]])
# LEGACY: %[[Y:.+]] = "onnx.Reshape"(%[[SM]], %[[SH]])
# LEGACY: %[[BU:.+]] = "onnx.Unsqueeze"(%arg2, %{{.+}}) : (tensor<2xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
# LEGACY: %[[Z:.+]] = "onnx.Add"(%[[Y]], %[[BU]])
# LEGACY: "onnx.Sqrt"
# LEGACY: "onnx.Sub"(%[[Z]], %{{.+}}) : (tensor<2x?x?xf32>, tensor<3x4xf32>)
# LEGACY-NOT: onnx.BatchNormalization

# Scan-8 ran its body per batch element: a Loop over dim 0 whose iteration
# runs a Scan-9 with the original body on element b of each input (the
# converter's adapter would only drop sequence_lens).
# RUN: %python %s scan8 %t/scan8.onnx
# RUN: onnxc --emit=onnx %t/scan8.onnx -o - | FileCheck %s --check-prefix=SCAN8
# SCAN8: %[[B:.+]] = "onnx.Squeeze"
# SCAN8: "onnx.Loop"(%[[B]])
# SCAN8: "onnx.Gather"(%arg0, %{{.+}}) <{axis = 0 : i64}> : (tensor<2x2xf32>, tensor<i64>) -> tensor<2xf32>
# SCAN8: "onnx.Gather"(%arg1, %{{.+}}) <{axis = 0 : i64}> : (tensor<2x3x2xf32>, tensor<i64>) -> tensor<3x2xf32>
# SCAN8: "onnx.Scan"{{.*}}scan_input_directions = [1]
# SCAN8: -> (tensor<2x2xf32>, tensor<2x3x2xf32>)

import sys

import onnx
from onnx import TensorProto, helper

mode, path = sys.argv[1], sys.argv[2]
if mode == "opset6":
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], [3, 8])
    graph = helper.make_graph(
        [
            helper.make_node("Add", ["A", "B"], ["C"], name="add", broadcast=1),
            helper.make_node("Reshape", ["C", "shape"], ["R"], name="reshape"),
        ],
        "opset6",
        [
            helper.make_tensor_value_info("A", TensorProto.FLOAT, [2, 3, 4]),
            helper.make_tensor_value_info("B", TensorProto.FLOAT, [4]),
            helper.make_tensor_value_info("shape", TensorProto.INT64, [2]),
        ],
        [helper.make_tensor_value_info("R", TensorProto.FLOAT, [3, 8])],
        [shape],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
    model.ir_version = 3
elif mode == "opset4":
    graph = helper.make_graph(
        [
            helper.make_node("Reshape", ["A"], ["R"], name="reshape",
                             shape=[4, 6]),
            helper.make_node("Relu", ["R"], ["Y"], name="relu"),
        ],
        "opset4",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4, 6])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 4)])
    model.ir_version = 3
elif mode == "legacy":
    F, I64 = TensorProto.FLOAT, TensorProto.INT64
    stats = [helper.make_tensor(n, F, [3, 4], [0.5] * 12) for n in ["sc", "bi", "mu", "va"]]
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "s"], ["r"]),
         helper.make_node("Softmax", ["r"], ["y"]),
         helper.make_node("Add", ["y", "b"], ["z"], broadcast=1, axis=0),
         helper.make_node("BatchNormalization", ["z", "sc", "bi", "mu", "va"], ["w"],
                          spatial=0, is_test=1)],
        "legacy",
        [helper.make_tensor_value_info("x", F, [2, 3, 4]),
         helper.make_tensor_value_info("s", I64, [3]),
         helper.make_tensor_value_info("b", F, [2])] +
        [helper.make_tensor_value_info(t.name, F, [3, 4]) for t in stats],
        [helper.make_tensor_value_info("w", F, None)], stats)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
    model.ir_version = 3
elif mode == "scan8":
    F = TensorProto.FLOAT
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "xi"], ["s2"]), helper.make_node("Mul", ["s2", "xi"], ["o"])],
        "body", [helper.make_tensor_value_info("s", F, [2]), helper.make_tensor_value_info("xi", F, [2])],
        [helper.make_tensor_value_info("s2", F, [2]), helper.make_tensor_value_info("o", F, [2])])
    graph = helper.make_graph(
        [helper.make_node("Scan", ["", "init", "x"], ["fin", "outs"], num_scan_inputs=1, body=body,
                          directions=[1])],
        "scan8", [helper.make_tensor_value_info("init", F, [2, 2]),
                  helper.make_tensor_value_info("x", F, [2, 3, 2])],
        [helper.make_tensor_value_info("fin", F, [2, 2]),
         helper.make_tensor_value_info("outs", F, [2, 3, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)])
    model.ir_version = 3
elif mode == "opset12":
    graph = helper.make_graph(
        [helper.make_node("Softmax", ["X"], ["Y"], name="softmax", axis=1)],
        "opset12",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3, 4])],
    )
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 12)])
onnx.save(model, path)
