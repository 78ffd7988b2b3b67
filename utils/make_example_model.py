#!/usr/bin/python3
"""Writes onnxc's bundled example model: a small image classifier (CNN).

  /usr/bin/python3 utils/make_example_model.py OUT.onnx

  input [1,3,32,32] -> Conv 8x3x3 (pad 1) -> Relu -> MaxPool 2x2
                    -> Conv 16x3x3 (pad 1) -> Relu -> GlobalAveragePool
                    -> Flatten -> Gemm to 10 classes -> Softmax -> probabilities [1,10]

Opset 17 (the opset the onnx dialect models), IR version 8. The weights come
from numpy's RandomState(0), so every run writes the same bytes. Needs
Debian's python3-onnx, hence /usr/bin/python3.
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def he_normal(rng, shape, fan_in):
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


def make_model():
    rng = np.random.RandomState(0)
    w1 = he_normal(rng, (8, 3, 3, 3), 3 * 3 * 3)
    b1 = (rng.standard_normal(8) * 0.1).astype(np.float32)
    w2 = he_normal(rng, (16, 8, 3, 3), 8 * 3 * 3)
    b2 = (rng.standard_normal(16) * 0.1).astype(np.float32)
    w3 = he_normal(rng, (10, 16), 16)
    b3 = (rng.standard_normal(10) * 0.1).astype(np.float32)
    initializers = [numpy_helper.from_array(a, name) for a, name in
                    [(w1, "conv1.weight"), (b1, "conv1.bias"),
                     (w2, "conv2.weight"), (b2, "conv2.bias"),
                     (w3, "fc.weight"), (b3, "fc.bias")]]
    nodes = [
        helper.make_node("Conv", ["input", "conv1.weight", "conv1.bias"], ["conv1"],
                         name="conv1", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv1"], ["relu1"], name="relu1"),
        helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["pool1", "conv2.weight", "conv2.bias"], ["conv2"],
                         name="conv2", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv2"], ["relu2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["relu2"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["logits"],
                         name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax",
                         axis=1),
    ]
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 10])],
        initializer=initializers)
    model = helper.make_model(graph, producer_name="onnxc-example",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    model.doc_string = "onnxc example: a small CNN classifier with random weights"
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_example_model.py OUT.onnx")
    onnx.save(make_model(), sys.argv[1])


if __name__ == "__main__":
    main()
