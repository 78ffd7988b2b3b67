# Calls of model-local functions (FunctionProto) are inlined: the body's
# nodes are imported in place of the call, with the formal inputs and outputs
# bound to the caller's values, internal values renamed apart, and attribute
# references bound to the caller's attributes (or left out when the caller
# does not set them, so the schema default applies).
# RUN: %python %s %t.onnx
# RUN: onnxc --emit=onnx %t.onnx -o - | FileCheck %s
# RUN: onnxc --emit=onnx %t.onnx -o - --mlir-print-debuginfo --mlir-print-local-scope \
# RUN:   | FileCheck %s --check-prefix=LOC

# CHECK: onnx.opset_import = {ai.onnx = 17 : i64, com.example = 1 : i64}
# CHECK-LABEL: func.func @main_graph(
# CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>
# CHECK-NOT: com.example
# First call, alpha = 0.5.
# CHECK: %[[L1:.+]] = "onnx.LeakyRelu"(%[[X]]) <{alpha = 5.000000e-01 : f32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK: %[[TWO1:.+]] = "onnx.Constant"() <{value = dense<2.000000e+00> : tensor<f32>}>
# CHECK: %[[Y1:.+]] = "onnx.Mul"(%[[L1]], %[[TWO1]])
# Second call, on the first's result, without alpha: LeakyRelu's default.
# CHECK: %[[L2:.+]] = "onnx.LeakyRelu"(%[[Y1]]) <{alpha = 0.00999999977 : f32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK: %[[TWO2:.+]] = "onnx.Constant"()
# CHECK: %[[Y2:.+]] = "onnx.Mul"(%[[L2]], %[[TWO2]])
# A function calling another function.
# CHECK: %[[L3:.+]] = "onnx.LeakyRelu"(%[[Y2]]) <{alpha = 1.000000e-01 : f32}>
# CHECK: %[[TWO3:.+]] = "onnx.Constant"()
# CHECK: %[[Y3:.+]] = "onnx.Mul"(%[[L3]], %[[TWO3]])
# CHECK: %[[N:.+]] = "onnx.Neg"(%[[Y3]])
# CHECK: return %[[Y1]], %[[Y2]], %[[N]]
# CHECK-NOT: com.example

# Inlined nodes are named after the call, so diagnostics can name them.
# LOC: "onnx.LeakyRelu"{{.*}} loc("call1/0/leaky"(
# LOC: "onnx.Mul"{{.*}} loc("call1/0/scale"(
# LOC: "onnx.LeakyRelu"{{.*}} loc("call2/1/leaky"(
# LOC: "onnx.LeakyRelu"{{.*}} loc("call3/2/outer/3/leaky"(
# LOC: "onnx.Neg"{{.*}} loc("call3/2/negate"(

import sys

import onnx
from onnx import AttributeProto, TensorProto, helper


def attribute_ref(name, ref, attr_type):
    attr = AttributeProto()
    attr.name = name
    attr.ref_attr_name = ref
    attr.type = attr_type
    return attr


# ScaledLeakyRelu(x) = 2 * LeakyRelu(x, alpha=<caller's alpha>)
leaky = helper.make_node("LeakyRelu", ["x"], ["t"], name="leaky")
leaky.attribute.append(attribute_ref("alpha", "alpha", AttributeProto.FLOAT))
scaled = helper.make_function(
    "com.example",
    "ScaledLeakyRelu",
    ["x"],
    ["y"],
    [
        leaky,
        helper.make_node("Constant", [], ["two"], name="two", value_float=2.0),
        helper.make_node("Mul", ["t", "two"], ["y"], name="scale"),
    ],
    [helper.make_opsetid("", 17)],
    ["alpha"],
)
# NegScaled(x) = -ScaledLeakyRelu(x, alpha=<caller's slope>)
outer = helper.make_node("ScaledLeakyRelu", ["x"], ["s"], name="outer",
                         domain="com.example")
outer.attribute.append(attribute_ref("alpha", "slope", AttributeProto.FLOAT))
neg_scaled = helper.make_function(
    "com.example",
    "NegScaled",
    ["x"],
    ["y"],
    [outer, helper.make_node("Neg", ["s"], ["y"], name="negate")],
    [helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)],
    ["slope"],
)

graph = helper.make_graph(
    [
        helper.make_node("ScaledLeakyRelu", ["X"], ["Y1"], name="call1",
                         domain="com.example", alpha=0.5),
        helper.make_node("ScaledLeakyRelu", ["Y1"], ["Y2"], name="call2",
                         domain="com.example"),
        helper.make_node("NegScaled", ["Y2"], ["Y3"], name="call3",
                         domain="com.example", slope=0.1),
    ],
    "functions",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
    [helper.make_empty_tensor_value_info(n) for n in ["Y1", "Y2", "Y3"]],
)
model = helper.make_model(
    graph,
    opset_imports=[helper.make_opsetid("", 17),
                   helper.make_opsetid("com.example", 1)],
    functions=[scaled, neg_scaled],
)
onnx.save(model, sys.argv[1])
