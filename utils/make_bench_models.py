#!/usr/bin/env python3
"""Benchmark models for utils/bench.py, which compares onnxc with ONNX Runtime.

  make_bench_models.py [--out DIR] [--only NAME ...]

Builds the benchmark models that are not in the backend suite (its light/
models are the rest of the benchmark set) with onnx.helper and writes them
to DIR (default build/bench-models) as NAME.onnx:

  sgemm_1024, sgemm_2048  Y = MatMul(A, B), B a weight: raw GEMM throughput.
  conv3x3_64              ResNet stage-1 3x3 conv (64 -> 64 at 56x56) + Relu.
  conv1x1_256             1x1 conv 256 -> 64 at 56x56 (bottleneck reduce).
  dwconv3x3_144           depthwise 3x3 conv, 144 channels at 56x56.
  conv3x3_24_b8           a batch of 8: 3x3 conv 24 -> 24 at 28x28 + Relu
                          (channels that are not a multiple of 16).
  shapes_cnn_b32          utils/train_example.py's CNN (12x12 grayscale, Conv 8,
                          BN, Relu, MaxPool, Conv 16, Relu, MaxPool, Gemm),
                          batch 32: a small CNN at a training batch size.
  mobilenetv2             MobileNetV2 1.0 (torchvision layout), with separate
                          BatchNormalization nodes, so BN folding is exercised.
  bert_encoder            BERT-base-class encoder (BERT_LAYERS layers), int64
                          input_ids [2, seq] with seq dynamic: the run-time
                          shape flows through Shape/Gather/Range and Reshapes.
  bert_encoder_static     the same with seq fixed at 128.
  unet_small              a 3-level UNet (ConvTranspose and Resize upsampling,
                          skip Concats), input [1, 3, 128, 128].
  resnet50_full           torchvision ResNet-50 v1.5 with all its 25.6 M fp32
                          weights (102 MB): Conv (no bias) + BatchNormalization
                          + Relu, stride on the 3x3 conv of each bottleneck.

All use opset 17 (default domain), IR version 8, float32 weights stored as
initializers with fixed-seed random values scaled (He / 1/sqrt(fan_in)) so
that inputs uniform in [-1, 1) give finite, moderate activations. Each model
passes onnx.checker.check_model(full_check=True) before it is written.
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8
SEED = 0

BERT_LAYERS = 4
BERT_HIDDEN = 768
BERT_HEADS = 12
BERT_FFN = 3072
BERT_VOCAB = 30522
BERT_MAX_POS = 512
BERT_BATCH = 2
BERT_STATIC_SEQ = 128

MOBILENETV2_SETTINGS = [  # (expand ratio t, channels c, repeats n, stride s)
    (1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
    (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


class GraphBuilder:
    """Collects nodes and initializers; names outputs after their node."""

    def __init__(self, name, seed=SEED):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.inits = []
        self.init_names = set()
        self.n_params = 0

    # -- initializers ------------------------------------------------------
    def param(self, name, arr):
        """A trained-weight initializer (counted as parameters)."""
        self._add_init(name, np.asarray(arr, np.float32))
        self.n_params += int(np.prod(np.shape(arr)))
        return name

    def const(self, name, arr):
        """A constant initializer (shape tensors, scalars): not a parameter."""
        if name not in self.init_names:
            self._add_init(name, np.asarray(arr))
        return name

    def _add_init(self, name, arr):
        assert name not in self.init_names, f"duplicate initializer {name}"
        self.init_names.add(name)
        self.inits.append(numpy_helper.from_array(arr, name))

    def normal(self, name, shape, std):
        return self.param(name, self.rng.normal(0.0, std, shape))

    def uniform(self, name, shape, lo, hi):
        return self.param(name, self.rng.uniform(lo, hi, shape))

    # -- nodes -------------------------------------------------------------
    def op(self, op_type, inputs, name, out=None, **attrs):
        """Adds one node named `name`; its single output is `out` or `name`."""
        out = out or name
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=name, **attrs))
        return out

    def conv(self, x, cin, cout, k, name, stride=1, group=1, bias=True, gain=2.0,
             out=None):
        """Conv with He-scaled weights ([cout, cin/group, k, k]), pad k//2."""
        fan_in = cin // group * k * k
        w = self.normal(f"{name}.weight", (cout, cin // group, k, k),
                        np.sqrt(gain / fan_in))
        inputs = [x, w]
        if bias:
            inputs.append(self.normal(f"{name}.bias", (cout,), 0.01))
        return self.op("Conv", inputs, name, out, kernel_shape=[k, k],
                       strides=[stride, stride], pads=[k // 2] * 4, group=group)

    def bn(self, x, c, name):
        """BatchNormalization with plausible trained statistics (var > 0)."""
        ins = [x, self.uniform(f"{name}.scale", (c,), 0.8, 1.2),
               self.normal(f"{name}.bias", (c,), 0.05),
               self.normal(f"{name}.mean", (c,), 0.05),
               self.uniform(f"{name}.var", (c,), 0.5, 1.5)]
        return self.op("BatchNormalization", ins, name, epsilon=1e-5)

    def relu6(self, x, name):
        lo = self.const("relu6.min", np.array(0.0, np.float32))
        hi = self.const("relu6.max", np.array(6.0, np.float32))
        return self.op("Clip", [x, lo, hi], name)

    def conv_bn_act(self, x, cin, cout, k, name, stride=1, group=1, act="relu6"):
        """torchvision Conv2dNormActivation: Conv (no bias) + BN, then Relu6,
        Relu or (act=None) nothing."""
        y = self.conv(x, cin, cout, k, f"{name}.conv", stride, group, bias=False,
                      gain=2.0 if act else 1.0)
        y = self.bn(y, cout, f"{name}.bn")
        if act == "relu6":
            return self.relu6(y, f"{name}.relu6")
        if act == "relu":
            return self.op("Relu", [y], f"{name}.relu")
        assert act is None, act
        return y

    def conv_relu(self, x, cin, cout, k, name):
        return self.op("Relu", [self.conv(x, cin, cout, k, f"{name}.conv")], f"{name}.relu")

    def classifier(self, x, fin, name, classes=1000):
        """GlobalAveragePool, Flatten, then Gemm by a [classes, fin] weight
        (transB, as torchvision exports Linear) into the output `logits`."""
        x = self.op("GlobalAveragePool", [x], "avgpool")
        x = self.op("Flatten", [x], "flatten", axis=1)
        w = self.normal(f"{name}.weight", (classes, fin), np.sqrt(1.0 / fin))
        b = self.normal(f"{name}.bias", (classes,), 0.01)
        return self.op("Gemm", [x, w, b], name, "logits", transB=1)

    def linear(self, x, fin, fout, name):
        """MatMul by a [fin, fout] weight (std 1/sqrt(fin)) + Add bias."""
        w = self.normal(f"{name}.weight", (fin, fout), np.sqrt(1.0 / fin))
        b = self.normal(f"{name}.bias", (fout,), 0.01)
        return self.op("Add", [self.op("MatMul", [x, w], f"{name}.matmul"), b], f"{name}.add")

    def layer_norm(self, x, c, name, out=None):
        s = self.uniform(f"{name}.scale", (c,), 0.9, 1.1)
        b = self.normal(f"{name}.bias", (c,), 0.02)
        return self.op("LayerNormalization", [x, s, b], name, out, axis=-1, epsilon=1e-12)

    # -- model -------------------------------------------------------------
    def model(self, inputs, outputs):
        """inputs/outputs: (name, elem_type, shape) triples."""
        vi = helper.make_tensor_value_info
        graph = helper.make_graph(
            self.nodes, self.name, [vi(n, t, s) for n, t, s in inputs],
            [vi(n, t, s) for n, t, s in outputs], self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="onnxc-make_bench_models")
        m.ir_version = IR_VERSION
        return m


F32, I64 = TensorProto.FLOAT, TensorProto.INT64


# -- micro-benchmarks ------------------------------------------------------
def sgemm(n):
    g = GraphBuilder(f"sgemm_{n}")
    b = g.normal("B", (n, n), 1.0 / np.sqrt(n))
    g.op("MatMul", ["A", b], "matmul", "Y")
    return g, g.model([("A", F32, [n, n])], [("Y", F32, [n, n])])


def conv3x3_64():
    g = GraphBuilder("conv3x3_64")
    g.op("Relu", [g.conv("X", 64, 64, 3, "conv")], "relu", "Y")
    return g, g.model([("X", F32, [1, 64, 56, 56])], [("Y", F32, [1, 64, 56, 56])])


def conv1x1_256():
    g = GraphBuilder("conv1x1_256")
    g.conv("X", 256, 64, 1, "conv", gain=1.0, out="Y")
    return g, g.model([("X", F32, [1, 256, 56, 56])], [("Y", F32, [1, 64, 56, 56])])


def dwconv3x3_144():
    g = GraphBuilder("dwconv3x3_144")
    g.conv("X", 144, 144, 3, "dwconv", group=144, gain=1.0, out="Y")
    return g, g.model([("X", F32, [1, 144, 56, 56])], [("Y", F32, [1, 144, 56, 56])])


def conv3x3_24_b8():
    g = GraphBuilder("conv3x3_24_b8")
    g.op("Relu", [g.conv("X", 24, 24, 3, "conv")], "relu", "Y")
    return g, g.model([("X", F32, [8, 24, 28, 28])], [("Y", F32, [8, 24, 28, 28])])


def shapes_cnn_b32():
    g = GraphBuilder("shapes_cnn_b32")
    x = g.conv("image", 1, 8, 3, "conv1")
    x = g.op("Relu", [g.bn(x, 8, "bn")], "relu1")
    x = g.op("MaxPool", [x], "pool1", kernel_shape=[2, 2], strides=[2, 2])
    x = g.conv_relu(x, 8, 16, 3, "conv2")
    x = g.op("MaxPool", [x], "pool2", kernel_shape=[2, 2], strides=[2, 2])
    x = g.op("Flatten", [x], "flatten")
    g.linear(x, 16 * 3 * 3, 4, "fc")
    return g, g.model([("image", F32, [32, 1, 12, 12])], [("fc.add", F32, [32, 4])])


# -- MobileNetV2 -----------------------------------------------------------
def mobilenetv2():
    g = GraphBuilder("mobilenetv2")
    x = g.conv_bn_act("input", 3, 32, 3, "features.0", stride=2)
    cin, idx = 32, 1
    for t, c, n, s in MOBILENETV2_SETTINGS:
        for i in range(n):
            stride, name, hidden = (s if i == 0 else 1), f"features.{idx}", cin * t
            y = x
            if t != 1:
                y = g.conv_bn_act(y, cin, hidden, 1, f"{name}.expand")
            y = g.conv_bn_act(y, hidden, hidden, 3, f"{name}.dw", stride=stride, group=hidden)
            y = g.conv_bn_act(y, hidden, c, 1, f"{name}.project", act=None)
            if stride == 1 and cin == c:
                y = g.op("Add", [x, y], f"{name}.residual")
            x, cin, idx = y, c, idx + 1
    x = g.conv_bn_act(x, cin, 1280, 1, f"features.{idx}")
    g.classifier(x, 1280, "classifier")
    return g, g.model([("input", F32, [1, 3, 224, 224])], [("logits", F32, [1, 1000])])


# -- BERT encoder ----------------------------------------------------------
def bert_encoder(seq="seq", name="bert_encoder"):
    g = GraphBuilder(name)
    h, nh = BERT_HIDDEN, BERT_HEADS
    dh = h // nh
    # Embeddings: word (Gather by ids) + position (Gather by Range(0, seq)).
    words = g.normal("embeddings.word", (BERT_VOCAB, h), 0.02)
    pos_table = g.normal("embeddings.position", (BERT_MAX_POS, h), 0.02)
    shape = g.op("Shape", ["input_ids"], "embeddings.ids_shape")
    seq_len = g.op("Gather", [shape, g.const("const.one", np.array(1, np.int64))],
                   "embeddings.seq_len", axis=0)
    pos_ids = g.op("Range", [g.const("const.zero", np.array(0, np.int64)), seq_len,
                             "const.one"], "embeddings.position_ids")
    x = g.op("Add", [g.op("Gather", [words, "input_ids"], "embeddings.word_gather", axis=0),
                     g.op("Gather", [pos_table, pos_ids], "embeddings.position_gather",
                          axis=0)], "embeddings.add")
    x = g.layer_norm(x, h, "embeddings.layernorm")
    heads_shape = g.const("const.heads_shape", np.array([0, 0, nh, dh], np.int64))
    merge_shape = g.const("const.merge_shape", np.array([0, 0, h], np.int64))
    inv_sqrt_dh = g.const("const.inv_sqrt_dh", np.array(1.0 / np.sqrt(dh), np.float32))
    half = g.const("const.half", np.array(0.5, np.float32))
    one = g.const("const.one_f", np.array(1.0, np.float32))
    sqrt2 = g.const("const.sqrt2", np.array(np.sqrt(2.0), np.float32))
    for layer in range(BERT_LAYERS):
        p = f"layer.{layer}"

        def heads(t, which, perm):
            r = g.op("Reshape", [g.linear(t, h, h, f"{p}.attn.{which}"), heads_shape],
                     f"{p}.attn.{which}.reshape")
            return g.op("Transpose", [r], f"{p}.attn.{which}.transpose", perm=perm)

        q = heads(x, "query", [0, 2, 1, 3])   # [b, nh, s, dh]
        k = heads(x, "key", [0, 2, 3, 1])     # [b, nh, dh, s] (K^T)
        v = heads(x, "value", [0, 2, 1, 3])   # [b, nh, s, dh]
        scores = g.op("MatMul", [q, k], f"{p}.attn.scores")
        scores = g.op("Mul", [scores, inv_sqrt_dh], f"{p}.attn.scale")
        probs = g.op("Softmax", [scores], f"{p}.attn.softmax", axis=-1)
        ctx = g.op("MatMul", [probs, v], f"{p}.attn.context")
        ctx = g.op("Transpose", [ctx], f"{p}.attn.context.transpose", perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge_shape], f"{p}.attn.context.reshape")
        a = g.linear(ctx, h, h, f"{p}.attn.output")
        a = g.op("Add", [a, x], f"{p}.attn.residual")
        x = g.layer_norm(a, h, f"{p}.attn.layernorm")
        f = g.linear(x, h, BERT_FFN, f"{p}.ffn.in")
        erf = g.op("Erf", [g.op("Div", [f, sqrt2], f"{p}.ffn.gelu.div")], f"{p}.ffn.gelu.erf")
        erf1 = g.op("Add", [erf, one], f"{p}.ffn.gelu.add")
        f = g.op("Mul", [g.op("Mul", [f, half], f"{p}.ffn.gelu.half"), erf1],
                 f"{p}.ffn.gelu.mul")
        f = g.linear(f, BERT_FFN, h, f"{p}.ffn.out")
        f = g.op("Add", [f, x], f"{p}.ffn.residual")
        last = layer == BERT_LAYERS - 1
        x = g.layer_norm(f, h, f"{p}.ffn.layernorm", "last_hidden_state" if last else None)
    return g, g.model([("input_ids", I64, [BERT_BATCH, seq])],
                      [("last_hidden_state", F32, [BERT_BATCH, seq, h])])


def bert_encoder_static():
    return bert_encoder(BERT_STATIC_SEQ, "bert_encoder_static")


# -- UNet ------------------------------------------------------------------
def unet_small():
    g = GraphBuilder("unet_small")

    def double_conv(x, cin, cout, name):
        return g.conv_relu(g.conv_relu(x, cin, cout, 3, f"{name}.0"), cout, cout, 3,
                           f"{name}.1")

    def maxpool(x, name):
        return g.op("MaxPool", [x], name, kernel_shape=[2, 2], strides=[2, 2])

    def up_transpose(x, cin, cout, name):
        w = g.normal(f"{name}.weight", (cin, cout, 2, 2), np.sqrt(1.0 / cin))
        b = g.normal(f"{name}.bias", (cout,), 0.01)
        return g.op("ConvTranspose", [x, w, b], name, kernel_shape=[2, 2], strides=[2, 2])

    def up_resize(x, cin, cout, name):
        scales = g.const("const.resize_scales", np.array([1, 1, 2, 2], np.float32))
        r = g.op("Resize", [x, "", scales], f"{name}.resize", mode="nearest",
                 coordinate_transformation_mode="asymmetric", nearest_mode="floor")
        return g.conv(r, cin, cout, 1, f"{name}.conv", gain=1.0)

    skips, x, cin = [], "input", 3
    for lvl, c in enumerate([32, 64, 128]):
        x = double_conv(x, cin, c, f"enc{lvl}")
        skips.append(x)
        x, cin = maxpool(x, f"enc{lvl}.pool"), c
    x = double_conv(x, 128, 256, "bottleneck")
    ups = [up_transpose, up_resize, up_transpose]
    for lvl, (c, up) in enumerate(zip([128, 64, 32], ups)):
        x = up(x, 2 * c, c, f"dec{lvl}.up")
        x = g.op("Concat", [x, skips.pop()], f"dec{lvl}.concat", axis=1)
        x = double_conv(x, 2 * c, c, f"dec{lvl}")
    g.conv(x, 32, 2, 1, "head", gain=1.0, out="output")
    return g, g.model([("input", F32, [1, 3, 128, 128])], [("output", F32, [1, 2, 128, 128])])


# -- ResNet-50 with full weights -----------------------------------------
def resnet50_full():
    g = GraphBuilder("resnet50_full")
    x = g.conv_bn_act("input", 3, 64, 7, "conv1", stride=2, act="relu")
    x = g.op("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2],
             pads=[1, 1, 1, 1])
    cin = 64
    for stage, (width, blocks, stride) in enumerate(
            [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]):
        for b in range(blocks):
            name, s = f"layer{stage + 1}.{b}", (stride if b == 0 else 1)
            y = g.conv_bn_act(x, cin, width, 1, f"{name}.a", act="relu")
            y = g.conv_bn_act(y, width, width, 3, f"{name}.b", stride=s, act="relu")
            y = g.conv_bn_act(y, width, 4 * width, 1, f"{name}.c", act=None)
            if b == 0:
                x = g.conv_bn_act(x, cin, 4 * width, 1, f"{name}.downsample",
                                  stride=s, act=None)
            x = g.op("Relu", [g.op("Add", [x, y], f"{name}.add")], f"{name}.relu")
            cin = 4 * width
    g.classifier(x, 2048, "fc")
    return g, g.model([("input", F32, [1, 3, 224, 224])], [("logits", F32, [1, 1000])])


MODELS = {
    "sgemm_1024": lambda: sgemm(1024),
    "sgemm_2048": lambda: sgemm(2048),
    "conv3x3_64": conv3x3_64,
    "conv1x1_256": conv1x1_256,
    "dwconv3x3_144": dwconv3x3_144,
    "conv3x3_24_b8": conv3x3_24_b8,
    "shapes_cnn_b32": shapes_cnn_b32,
    "mobilenetv2": mobilenetv2,
    "bert_encoder": bert_encoder,
    "bert_encoder_static": bert_encoder_static,
    "unet_small": unet_small,
    "resnet50_full": resnet50_full,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="build/bench-models", help="output folder")
    ap.add_argument("--only", nargs="+", choices=sorted(MODELS), metavar="NAME",
                    help="build only these models (default: all of %(choices)s)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.only or MODELS:
        g, model = MODELS[name]()
        try:
            onnx.checker.check_model(model, full_check=True)
        except Exception as e:  # noqa: BLE001 - re-raised with the model name
            sys.exit(f"make_bench_models: {name} fails onnx.checker: {e}")
        path = os.path.join(args.out, f"{name}.onnx")
        onnx.save(model, path)
        print(f"{name:20s} {path}  nodes={len(model.graph.node)}  params={g.n_params}")


if __name__ == "__main__":
    main()
