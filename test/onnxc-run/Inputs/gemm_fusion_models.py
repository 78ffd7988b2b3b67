"""Writes argv[1]/<name>.onnx: products whose CUDA kernels absorb the ops
around them (onnxc-gpu-tiled-matmul's fusion), for onnxc
--cuda-gemm-host-check to run on the host against the CPU target's results:
  mm_bias_gelu  MatMul + Add + Erf-GELU, X float32[N, 24] (N dynamic: C's
                sizes come from its allocation once C is gone)
  gemm_relu     Gemm with transB and a bias C (broadcast into the result
                before the product), then Relu
  conv_relu     Conv with a bias, stride 2 and pads, then Relu into a new
                buffer; Conv without a bias, then Sigmoid
  mm_f16        f16 MatMul (f32 sums, cast back to f16 in the kernel), then
                Mul by a per-column f16 scale
  mm_reused     MatMul + Relu whose product is also an output: not fused
  bmm_add       batched MatMul, K = 300 (several steps), + a residual input
  mm3d_bias     MatMul of X float32[2, 7, 24] (a 14 x 24 product whose
                result is reshaped back to 2 x 7 x 40) + a bias, then Tanh
  conv_grouped  Conv in 2 groups of 16 output channels (one GEMM per image
                and group), bias, pads, stride 2, then Relu
  norm_softmax  LayerNormalization over 96 (its means fused with their
                fills and divisions) then Softmax (max and sum reductions)
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
out_dir = sys.argv[1]


def weight(name, shape, dtype=np.float32):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(dtype), name)


def save(name, nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    with open(os.path.join(out_dir, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


F, H = TensorProto.FLOAT, TensorProto.FLOAT16
info = helper.make_tensor_value_info
half = numpy_helper.from_array(np.array(0.5, np.float32), "half")
one = numpy_helper.from_array(np.array(1.0, np.float32), "one")
sqrt2 = numpy_helper.from_array(np.array(np.sqrt(0.5), np.float32), "sqrt2")
save("mm_bias_gelu", [
    helper.make_node("MatMul", ["X", "W"], ["xw"]),
    helper.make_node("Add", ["xw", "B"], ["y"]),
    helper.make_node("Mul", ["y", "sqrt2"], ["ys"]),
    helper.make_node("Erf", ["ys"], ["e"]),
    helper.make_node("Add", ["e", "one"], ["e1"]),
    helper.make_node("Mul", ["y", "e1"], ["g"]),
    helper.make_node("Mul", ["g", "half"], ["Y"]),
], [info("X", F, ["N", 24])], [info("Y", F, ["N", 40])],
    [weight("W", (24, 40)), weight("B", (40,)), half, one, sqrt2])
save("gemm_relu", [
    helper.make_node("Gemm", ["X", "W", "C"], ["g"], transB=1, alpha=0.5, beta=2.0),
    helper.make_node("Relu", ["g"], ["Y"]),
], [info("X", F, [7, 33])], [info("Y", F, [7, 70])],
    [weight("W", (70, 33)), weight("C", (70,))])
save("conv_relu", [
    helper.make_node("Conv", ["X", "W", "B"], ["c"], strides=[2, 2], pads=[1, 2, 1, 0]),
    helper.make_node("Relu", ["c"], ["Y"]),
    helper.make_node("Conv", ["X", "W2"], ["c2"], kernel_shape=[1, 1]),
    helper.make_node("Sigmoid", ["c2"], ["Z"]),
], [info("X", F, [2, 5, 11, 9])], [info("Y", F, None), info("Z", F, None)],
    [weight("W", (6, 5, 3, 3)), weight("B", (6,)), weight("W2", (4, 5, 1, 1))])
save("mm_f16", [
    helper.make_node("MatMul", ["X", "W"], ["xw"]),
    helper.make_node("Mul", ["xw", "S"], ["Y"]),
], [info("X", H, [65, 48])], [info("Y", H, [65, 72])],
    [weight("W", (48, 72), np.float16), weight("S", (72,), np.float16)])
save("mm_reused", [
    helper.make_node("MatMul", ["X", "W"], ["P"]),
    helper.make_node("Relu", ["P"], ["Y"]),
], [info("X", F, [9, 16])], [info("P", F, [9, 20]), info("Y", F, [9, 20])],
    [weight("W", (16, 20))])
save("bmm_add", [
    helper.make_node("MatMul", ["X", "W"], ["xw"]),
    helper.make_node("Add", ["xw", "R"], ["Y"]),
], [info("X", F, [3, 10, 300]), info("R", F, [3, 10, 12])], [info("Y", F, [3, 10, 12])],
    [weight("W", (3, 300, 12))])
save("norm_softmax", [
    helper.make_node("LayerNormalization", ["X", "G", "Bn"], ["n"], axis=-1, epsilon=1e-5),
    helper.make_node("Softmax", ["n"], ["Y"], axis=-1),
], [info("X", F, [3, 5, 96])], [info("Y", F, [3, 5, 96])],
    [weight("G", (96,)), weight("Bn", (96,))])
save("mm3d_bias", [
    helper.make_node("MatMul", ["X", "W"], ["xw"]),
    helper.make_node("Add", ["xw", "B"], ["y"]),
    helper.make_node("Tanh", ["y"], ["Y"]),
], [info("X", F, [2, 7, 24])], [info("Y", F, [2, 7, 40])],
    [weight("W", (24, 40)), weight("B", (40,))])
save("conv_grouped", [
    helper.make_node("Conv", ["X", "W", "B"], ["c"], group=2, pads=[1, 1, 1, 1],
                     strides=[2, 1]),
    helper.make_node("Relu", ["c"], ["Y"]),
], [info("X", F, [2, 6, 9, 7])], [info("Y", F, None)],
    [weight("W", (32, 3, 3, 3)), weight("B", (32,))])
