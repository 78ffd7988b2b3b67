#!/usr/bin/env python3
"""Finite-difference checks of onnx-derive-gradients' rules, end to end.

    gradcheck.py --onnxc ONNXC --work DIR [--filter REGEX]

Each case is a small ONNX model: some ops on inputs (the values to
differentiate with respect to) giving y, then loss = sum(y * R) for a fixed
random R (so every element of y's gradient differs), and an
ai.onnx.preview.training Gradient of loss with respect to the inputs. onnxc
compiles it; the shared object runs through the C API (ctypes) once for the
analytic gradients, then twice per input element for the central finite
difference (loss(x + h) - loss(x - h)) / 2h of the same compiled forward
computation, in float64 unless the case says otherwise. Prints one line per
case, PASS or FAIL with the worst element, and exits non-zero if any failed.
"""

import argparse
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "utils", "gpu"))
from device_run import Model  # noqa: E402  (the ctypes binding of the C API)

RNG = np.random.default_rng(7)


def away_from_zero(shape, low=0.2, high=1.0):
    """Random values of both signs, none near 0 (kinks of Relu, Abs, ...)."""
    magnitude = RNG.uniform(low, high, shape)
    return np.where(RNG.random(shape) < 0.5, -magnitude, magnitude)


def positive(shape, low=0.5, high=2.0):
    return RNG.uniform(low, high, shape)


def distinct(shape):
    """A permutation of well separated values (no ties for Max, MaxPool)."""
    n = int(np.prod(shape))
    return (RNG.permutation(n).reshape(shape) - n / 2) / n * 2.0


class Case:
    def __init__(self, name, nodes, inputs, consts=None, dtype=np.float64,
                 rtol=1e-5, atol=1e-7, step=1e-6, dynamic_batch=(), opset=17, y_shape=None):
        self.name, self.nodes, self.inputs = name, nodes, inputs
        # Inputs whose dim 0 the model leaves open ("N").
        self.dynamic_batch = dynamic_batch
        self.consts = consts or {}
        self.dtype, self.rtol, self.atol, self.step = dtype, rtol, atol, step
        # Newer opsets than Debian's onnx knows give y's shape themselves.
        self.opset, self.y_shape = opset, y_shape


def N(op, inputs, outputs="y", **attrs):
    return helper.make_node(op, inputs, [outputs] if isinstance(outputs, str) else outputs,
                            **attrs)


def i64(*values):
    return np.array(values, np.int64)


def cases():
    s = lambda *shape: RNG.standard_normal(shape)  # noqa: E731
    c = []
    # Arithmetic, with broadcasting.
    c.append(Case("Add", [N("Add", ["a", "b"])], {"a": s(2, 3, 4), "b": s(3, 1)}))
    c.append(Case("Sub", [N("Sub", ["a", "b"])], {"a": s(4), "b": s(2, 3, 4)}))
    c.append(Case("Mul", [N("Mul", ["a", "b"])], {"a": s(2, 3), "b": s(2, 1)}))
    c.append(Case("Mul_same_operand", [N("Mul", ["a", "a"])], {"a": s(5)}))
    c.append(Case("Div", [N("Div", ["a", "b"])], {"a": s(2, 3), "b": positive((3,))}))
    c.append(Case("Pow", [N("Pow", ["a", "b"])], {"a": positive((2, 3)), "b": s(3)}))
    c.append(Case("Sum", [N("Sum", ["a", "b", "c"])], {"a": s(2, 3), "b": s(3), "c": s(1, 3)}))
    c.append(Case("Mean", [N("Mean", ["a", "b"])], {"a": s(2, 3), "b": s(3)}))
    c.append(Case("Max", [N("Max", ["a", "b"])], {"a": distinct((2, 3)), "b": distinct((3,)) + 0.01}))
    c.append(Case("Min", [N("Min", ["a", "b"])], {"a": distinct((2, 3)), "b": distinct((2, 3)) + 0.01}))
    # Unary math and activations.
    for op, gen, attrs in [
            ("Neg", s, {}), ("Identity", s, {}), ("Relu", away_from_zero, {}),
            ("LeakyRelu", away_from_zero, {"alpha": 0.2}), ("Elu", away_from_zero, {"alpha": 0.7}),
            ("Selu", away_from_zero, {}), ("Sigmoid", s, {}), ("Tanh", s, {}), ("Exp", s, {}),
            ("Log", positive, {}), ("Sqrt", positive, {}), ("Reciprocal", positive, {}),
            ("Abs", away_from_zero, {}), ("Erf", s, {}), ("Softplus", s, {}),
            ("Softsign", s, {}), ("Sin", s, {}), ("Cos", s, {}),
            ("HardSigmoid", lambda sh: RNG.choice([-3.0, -2.0, -1.0, -0.3, 0.4, 1.2, 2.5, 3.0], sh),
             {"alpha": 0.3, "beta": 0.4})]:
        shape = (2, 5)
        x = gen(*shape) if gen is s else gen(shape)
        c.append(Case(op, [N(op, ["x"], **attrs)], {"x": x}))
    for approximate in ["none", "tanh"]:
        c.append(Case("Gelu_" + approximate, [N("Gelu", ["x"], approximate=approximate)], {"x": s(2, 5)},
                      opset=20, y_shape=(2, 5)))
    c.append(Case("Clip", [N("Clip", ["x", "lo", "hi"])], {"x": away_from_zero((3, 4), 0.0, 2.0) + 0.05},
                  consts={"lo": np.array(-0.5), "hi": np.array(0.7)}))
    c.append(Case("PRelu", [N("PRelu", ["x", "slope"])], {"x": away_from_zero((2, 3, 2)), "slope": s(3, 1)}))
    c.append(Case("Where", [N("Where", ["cond", "a", "b"])], {"a": s(2, 3), "b": s(3)},
                  consts={"cond": RNG.random((2, 3)) < 0.5}))
    c.append(Case("Cast", [N("Cast", ["x"], "t", to=TensorProto.FLOAT), N("Cast", ["t"], to=TensorProto.DOUBLE)],
                  {"x": s(4)}, rtol=1e-4, atol=1e-5, step=1e-3))
    c.append(Case("CastLike", [N("CastLike", ["x", "like32"], "t"), N("Mul", ["t", "t"], "u"),
                               N("CastLike", ["u", "x"])],
                  {"x": s(4)}, consts={"like32": np.zeros(1, np.float32)},
                  rtol=1e-4, atol=1e-5, step=1e-3))
    # Products.
    c.append(Case("MatMul", [N("MatMul", ["a", "b"])], {"a": s(3, 4), "b": s(4, 2)}))
    c.append(Case("MatMul_batched", [N("MatMul", ["a", "b"])], {"a": s(2, 3, 4), "b": s(4, 5)}))
    c.append(Case("MatMul_vector", [N("MatMul", ["a", "b"])], {"a": s(4), "b": s(2, 4, 3)}))
    c.append(Case("MatMul_matvec", [N("MatMul", ["a", "b"])], {"a": s(3, 4), "b": s(4)}))
    for ta in (0, 1):
        for tb in (0, 1):
            a = s(4, 3) if ta else s(3, 4)
            b = s(2, 4) if tb else s(4, 2)
            c.append(Case("Gemm_transA%d_transB%d" % (ta, tb),
                          [N("Gemm", ["a", "b", "c"], alpha=0.7, beta=1.3, transA=ta, transB=tb)],
                          {"a": a, "b": b, "c": s(2)}))
    # Data movement.
    c.append(Case("Reshape", [N("Reshape", ["x", "shape"])], {"x": s(2, 6)}, consts={"shape": i64(3, -1)}))
    c.append(Case("Flatten", [N("Flatten", ["x"], axis=2)], {"x": s(2, 3, 2)}))
    c.append(Case("Squeeze", [N("Squeeze", ["x", "axes"])], {"x": s(2, 1, 3)}, consts={"axes": i64(1)}))
    c.append(Case("Unsqueeze", [N("Unsqueeze", ["x", "axes"])], {"x": s(2, 3)}, consts={"axes": i64(0, 3)}))
    c.append(Case("Transpose", [N("Transpose", ["x"], perm=[2, 0, 1])], {"x": s(2, 3, 4)}))
    c.append(Case("Expand", [N("Expand", ["x", "shape"])], {"x": s(3, 1)}, consts={"shape": i64(2, 3, 4)}))
    c.append(Case("Concat", [N("Concat", ["a", "b"], axis=1)], {"a": s(2, 3), "b": s(2, 2)}))
    c.append(Case("Split", [N("Split", ["x", "split"], ["p", "q"], axis=1), N("Mul", ["p", "p"], "pp"),
                            N("Concat", ["pp", "q"], axis=1)], {"x": s(2, 5)}, consts={"split": i64(2, 3)}))
    c.append(Case("Split_unused_output", [N("Split", ["x", "split"], ["y", "unused"], axis=0)],
                  {"x": s(5, 2)}, consts={"split": i64(2, 3)}))
    c.append(Case("Slice", [N("Slice", ["x", "starts", "ends", "axes"])], {"x": s(4, 5)},
                  consts={"starts": i64(1, -4), "ends": i64(3, 100), "axes": i64(0, 1)}))
    c.append(Case("Slice_steps", [N("Slice", ["x", "starts", "ends", "axes", "steps"])], {"x": s(5, 7)},
                  consts={"starts": i64(4, 1), "ends": i64(-100, 7), "axes": i64(0, 1),
                          "steps": i64(-2, 3)}))
    c.append(Case("Slice_dynamic", [N("Slice", ["x", "starts", "ends", "axes"])], {"x": s(3, 4)},
                  consts={"starts": i64(1), "ends": i64(3), "axes": i64(1)}, dynamic_batch=("x",)))
    c.append(Case("Pad", [N("Pad", ["x", "pads"])], {"x": s(2, 3)}, consts={"pads": i64(1, 0, 2, 1)}))
    c.append(Case("Gather", [N("Gather", ["x", "idx"], axis=1)], {"x": s(2, 4, 3)},
                  consts={"idx": np.array([[0, 3], [-1, 0]], np.int64)}))
    c.append(Case("Gather_negative_axis", [N("Gather", ["x", "idx"], axis=-1)], {"x": s(2, 3)},
                  consts={"idx": np.array(2, np.int64)}))
    c.append(Case("Gather_axis0", [N("Gather", ["x", "idx"], axis=0)], {"x": s(5, 3)},
                  consts={"idx": np.array([4, 1, 1], np.int64)}))
    c.append(Case("GatherElements", [N("GatherElements", ["x", "idx"], axis=1)], {"x": s(2, 3)},
                  consts={"idx": np.array([[0, 2, 2], [1, 1, 0]], np.int64)}))
    c.append(Case("Resize_nearest_up", [N("Resize", ["x", "", "scales"], mode="nearest")],
                  {"x": s(1, 2, 3, 2)}, consts={"scales": np.array([1, 1, 2, 1.5], np.float32)}))
    c.append(Case("Resize_nearest_down_sizes", [N("Resize", ["x", "", "", "sizes"], mode="nearest",
                                                  coordinate_transformation_mode="asymmetric")],
                  {"x": s(1, 1, 5, 4)}, consts={"sizes": i64(1, 1, 3, 2)}))
    c.append(Case("Resize_linear_up", [N("Resize", ["x", "", "scales"], mode="linear")],
                  {"x": s(1, 2, 3, 4)}, consts={"scales": np.array([1, 1, 2, 1.5], np.float32)}))
    c.append(Case("Resize_linear_align_corners_sizes",
                  [N("Resize", ["x", "", "", "sizes"], mode="linear",
                     coordinate_transformation_mode="align_corners")],
                  {"x": s(1, 1, 4, 3)}, consts={"sizes": i64(1, 1, 7, 5)}))
    c.append(Case("Resize_linear_down_antialias",
                  [N("Resize", ["x", "", "scales"], mode="linear", antialias=1)],
                  {"x": s(1, 1, 6, 5)}, consts={"scales": np.array([1, 1, 0.5, 0.6], np.float32)},
                  opset=18, y_shape=(1, 1, 3, 3)))
    c.append(Case("Resize_cubic_axes", [N("Resize", ["x", "", "scales"], mode="cubic", axes=[2, 3],
                                          coordinate_transformation_mode="pytorch_half_pixel",
                                          exclude_outside=1)],
                  {"x": s(1, 2, 4, 5)}, consts={"scales": np.array([2, 0.8], np.float32)}, opset=18,
                  y_shape=(1, 2, 8, 4)))
    # Reductions.
    c.append(Case("ReduceSum", [N("ReduceSum", ["x", "axes"], keepdims=0)], {"x": s(2, 3, 4)},
                  consts={"axes": i64(0, 2)}))
    c.append(Case("ReduceMean", [N("ReduceMean", ["x", "axes"], keepdims=1)], {"x": s(2, 3, 4)},
                  consts={"axes": i64(-1)}))
    c.append(Case("ReduceMean_all", [N("ReduceMean", ["x"], keepdims=0)], {"x": s(3, 4)}))
    c.append(Case("ReduceSumSquare", [N("ReduceSumSquare", ["x", "axes"], keepdims=0)], {"x": s(2, 3)},
                  consts={"axes": i64(1)}))
    c.append(Case("ReduceMax", [N("ReduceMax", ["x", "axes"], keepdims=0)], {"x": distinct((3, 4))},
                  consts={"axes": i64(1)}))
    c.append(Case("ReduceMin", [N("ReduceMin", ["x", "axes"], keepdims=1)], {"x": distinct((3, 4))},
                  consts={"axes": i64(0)}))
    c.append(Case("ReduceLogSumExp", [N("ReduceLogSumExp", ["x", "axes"], keepdims=0)], {"x": s(3, 4)},
                  consts={"axes": i64(1)}))
    c.append(Case("ReduceL2", [N("ReduceL2", ["x", "axes"], keepdims=0)], {"x": s(3, 4)},
                  consts={"axes": i64(1)}))
    c.append(Case("ReduceL1", [N("ReduceL1", ["x", "axes"], keepdims=0)], {"x": away_from_zero((3, 4))},
                  consts={"axes": i64(1)}))
    # Neural-network operators.
    c.append(Case("Softmax", [N("Softmax", ["x"], axis=1)], {"x": s(2, 4, 3)}))
    c.append(Case("LogSoftmax", [N("LogSoftmax", ["x"], axis=-1)], {"x": s(3, 4)}))
    c.append(Case("Conv", [N("Conv", ["x", "w", "b"], pads=[1, 0, 1, 1], strides=[2, 1])],
                  {"x": s(2, 3, 5, 4), "w": s(4, 3, 3, 2), "b": s(4)}))
    c.append(Case("Conv_dilated_same", [N("Conv", ["x", "w"], dilations=[2], auto_pad="SAME_UPPER")],
                  {"x": s(1, 2, 7), "w": s(3, 2, 3)}))
    c.append(Case("Conv_grouped", [N("Conv", ["x", "w"], group=2, strides=[2, 2], pads=[1, 1, 1, 1])],
                  {"x": s(1, 4, 5, 5), "w": s(6, 2, 3, 3)}))
    c.append(Case("Conv_depthwise", [N("Conv", ["x", "w"], group=3)], {"x": s(2, 3, 4, 4), "w": s(3, 1, 2, 2)}))
    c.append(Case("ConvTranspose", [N("ConvTranspose", ["x", "w", "b"], strides=[2, 1], pads=[1, 0, 0, 1],
                                      output_padding=[1, 0])],
                  {"x": s(2, 3, 3, 4), "w": s(3, 2, 3, 2), "b": s(2)}))
    c.append(Case("ConvTranspose_output_shape", [N("ConvTranspose", ["x", "w"], strides=[2, 2],
                                                   output_shape=[6, 7])],
                  {"x": s(1, 2, 3, 3), "w": s(2, 3, 3, 3)}))
    c.append(Case("ConvTranspose_same_upper", [N("ConvTranspose", ["x", "w"], strides=[2, 3],
                                                 auto_pad="SAME_UPPER")],
                  {"x": s(1, 2, 3, 2), "w": s(2, 1, 3, 2)}))
    c.append(Case("ConvTranspose_grouped", [N("ConvTranspose", ["x", "w"], group=2, dilations=[2])],
                  {"x": s(1, 4, 5), "w": s(4, 3, 2)}))
    c.append(Case("Conv_dynamic_batch", [N("Conv", ["x", "w", "b"], pads=[1, 1, 1, 1], strides=[2, 2])],
                  {"x": s(2, 3, 5, 5), "w": s(4, 3, 3, 3), "b": s(4)}, dynamic_batch=("x",)))
    c.append(Case("ConvTranspose_dynamic_batch", [N("ConvTranspose", ["x", "w"], strides=[2, 2])],
                  {"x": s(2, 3, 3, 3), "w": s(3, 2, 2, 2)}, dynamic_batch=("x",)))
    c.append(Case("MaxPool_dynamic_batch", [N("MaxPool", ["x"], kernel_shape=[2, 2])],
                  {"x": distinct((2, 2, 3, 3))}, dynamic_batch=("x",)))
    c.append(Case("AveragePool_dynamic_batch", [N("AveragePool", ["x"], kernel_shape=[2, 2], pads=[1, 1, 1, 1])],
                  {"x": s(2, 2, 3, 3)}, dynamic_batch=("x",)))
    c.append(Case("MaxPool", [N("MaxPool", ["x"], kernel_shape=[2, 2], strides=[1, 2], pads=[0, 1, 0, 0])],
                  {"x": distinct((2, 2, 4, 5))}))
    c.append(Case("AveragePool", [N("AveragePool", ["x"], kernel_shape=[3, 2], strides=[2, 1])],
                  {"x": s(1, 2, 5, 4)}))
    c.append(Case("AveragePool_pads_exclude", [N("AveragePool", ["x"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                                 strides=[2, 2])], {"x": s(1, 2, 5, 5)}))
    c.append(Case("AveragePool_pads_include", [N("AveragePool", ["x"], kernel_shape=[3], pads=[1, 1],
                                                 count_include_pad=1)], {"x": s(2, 2, 5)}))
    c.append(Case("GlobalAveragePool", [N("GlobalAveragePool", ["x"])], {"x": s(2, 3, 2, 2)}))
    c.append(Case("GlobalMaxPool", [N("GlobalMaxPool", ["x"])], {"x": distinct((2, 3, 2, 2))}))
    c.append(Case("BatchNormalization_inference", [N("BatchNormalization", ["x", "scale", "b", "mean", "var"])],
                  {"x": s(2, 3, 2, 2), "scale": s(3), "b": s(3), "mean": s(3), "var": positive((3,))}))
    c.append(Case("BatchNormalization_training",
                  [N("BatchNormalization", ["x", "scale", "b", "mean", "var"], ["y", "rm", "rv"],
                     training_mode=1)],
                  {"x": s(3, 2, 2, 2), "scale": s(2), "b": s(2)},
                  consts={"mean": s(2), "var": positive((2,))}))
    c.append(Case("LayerNormalization", [N("LayerNormalization", ["x", "scale", "b"], axis=-2)],
                  {"x": s(2, 3, 4), "scale": s(3, 4), "b": s(4)}))
    labels = np.array([[2, 0], [1, 2]], np.int64)
    for reduction in ("mean", "sum", "none"):
        c.append(Case("SoftmaxCrossEntropyLoss_" + reduction,
                      [N("SoftmaxCrossEntropyLoss", ["x", "labels"], reduction=reduction)],
                      {"x": s(2, 3, 2)}, consts={"labels": labels}))
        c.append(Case("SoftmaxCrossEntropyLoss_weights_ignore_" + reduction,
                      [N("SoftmaxCrossEntropyLoss", ["x", "labels", "w"], reduction=reduction,
                         ignore_index=1)],
                      {"x": s(2, 3, 2)}, consts={"labels": labels, "w": positive((3,))}))
        c.append(Case("NegativeLogLikelihoodLoss_" + reduction,
                      [N("NegativeLogLikelihoodLoss", ["x", "labels", "w"], reduction=reduction,
                         ignore_index=0)],
                      {"x": s(2, 3, 2)}, consts={"labels": labels, "w": positive((3,))}))
    c.append(Case("SoftmaxCrossEntropyLoss_log_prob",
                  [N("SoftmaxCrossEntropyLoss", ["x", "labels"], ["loss", "lp"]), N("Mul", ["lp", "loss"])],
                  {"x": s(3, 4)}, consts={"labels": np.array([3, 0, 1], np.int64)}))
    c.append(Case("Dropout_inference", [N("Dropout", ["x"])], {"x": s(3, 4)}))
    # Training mode: the mask is drawn from the node's seed, the same on
    # every run, which the finite differences rely on.
    c.append(Case("Dropout_training", [N("Dropout", ["x", "ratio", "mode"], seed=3)], {"x": s(4, 5)},
                  consts={"ratio": np.array(0.4), "mode": np.array(True)}))
    c.append(Case("Dropout_training_mask", [N("Dropout", ["x", "ratio", "mode"], ["y", "mask"], seed=5)],
                  {"x": s(4, 5)}, consts={"ratio": np.array(0.3), "mode": np.array(True)}))
    return c


ONNX_TYPES = {np.dtype(np.float64): TensorProto.DOUBLE, np.dtype(np.float32): TensorProto.FLOAT}


def build_model(case):
    tensor_type = ONNX_TYPES[np.dtype(case.dtype)]
    inputs = [helper.make_tensor_value_info(
        n, tensor_type, ["N"] + list(v.shape[1:]) if n in case.dynamic_batch else v.shape)
        for n, v in case.inputs.items()]
    inits = []
    for n, v in case.consts.items():
        v = np.asarray(v)
        if v.dtype == np.float64:  # float32 constants (scales, CastLike targets) stay
            v = v.astype(case.dtype)
        inits.append(numpy_helper.from_array(v, n))
    nodes = list(case.nodes)
    # loss = sum(y * R)
    nodes.append(N("Mul", ["y", "R"], "weighted"))
    nodes.append(N("ReduceSum", ["weighted"], "loss", keepdims=0))
    names = list(case.inputs)
    grads = ["grad_" + n for n in names]
    nodes.append(helper.make_node("Gradient", names, grads, domain="ai.onnx.preview.training",
                                  xs=names, y="loss"))
    outputs = [helper.make_tensor_value_info("loss", tensor_type, [])]
    outputs += [helper.make_tensor_value_info(g, tensor_type, None) for g in grads]
    graph = helper.make_graph(nodes, case.name, inputs, outputs, inits)
    return graph, names


def finish_model(graph, case, y_shape):
    r = RNG.standard_normal(y_shape).astype(case.dtype)
    graph.initializer.append(numpy_helper.from_array(r, "R"))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", case.opset),
                                                    helper.make_opsetid("ai.onnx.preview.training", 1)])


def y_shape_of(case):
    """y's shape, by onnx's shape inference on the forward part; a dynamic
    dim as 1 (R broadcasts along it: a dynamic dim of y that another operand
    of the Mul fixed at 2 could be a broadcast one, which the pass
    rejects)."""
    if case.y_shape:
        return list(case.y_shape)
    graph, _ = build_model(case)
    fwd = helper.make_graph(list(case.nodes), "fwd", list(graph.input),
                            [helper.make_tensor_value_info("y", ONNX_TYPES[np.dtype(case.dtype)], None)],
                            list(graph.initializer))
    model = helper.make_model(fwd, opset_imports=[helper.make_opsetid("", 17)])
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    for v in inferred.graph.output:
        if v.name == "y":
            return [d.dim_value if d.HasField("dim_value") else 1
                    for d in v.type.tensor_type.shape.dim]
    raise RuntimeError("no shape for y")


def check(case, onnxc, work):
    graph, names = build_model(case)
    model = finish_model(graph, case, y_shape_of(case))
    path = os.path.join(work, case.name + ".onnx")
    onnx.save(model, path)
    lib = os.path.join(work, case.name + ".so")
    p = subprocess.run([onnxc, path, "-o", lib], capture_output=True, text=True)
    if p.returncode != 0:
        return "onnxc failed: " + (p.stderr.strip().splitlines() or ["?"])[0]
    m = Model(lib)
    xs = [np.asarray(case.inputs[n], dtype=case.dtype) for n in names]
    status, out = m.run(xs)
    if status != 0:
        return "run failed: " + out
    analytic = out[1:]
    worst = (0.0, "")
    for k, x in enumerate(xs):
        if analytic[k].shape != x.shape:
            return "gradient of %s has shape %s, expected %s" % (names[k], analytic[k].shape, x.shape)
        for j in range(x.size):
            h = case.step * max(1.0, abs(float(x.flat[j])))
            plus = [a.copy() for a in xs]
            minus = [a.copy() for a in xs]
            plus[k].flat[j] += h
            minus[k].flat[j] -= h
            lp = m.run(plus)[1][0]
            lm = m.run(minus)[1][0]
            fd = (float(lp) - float(lm)) / (2 * h)
            got = float(analytic[k].flat[j])
            err = abs(got - fd)
            if err > case.atol + case.rtol * abs(fd):
                return "d loss / d %s[%d]: %.9g, finite difference %.9g" % (names[k], j, got, fd)
            rel = err / max(abs(fd), 1e-12)
            worst = max(worst, (rel, names[k]))
    m.close()
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--filter", default="")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    failed = 0
    selected = [c for c in cases() if re.search(args.filter, c.name)]
    for case in selected:
        problem = check(case, args.onnxc, args.work)
        print("%s %s%s" % ("FAIL" if problem else "PASS", case.name, ": " + problem if problem else ""))
        failed += bool(problem)
    print("gradient checks: %d of %d passed" % (len(selected) - failed, len(selected)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
