#!/usr/bin/env python3
"""Trains a small CNN with onnxc --train on images this script draws, and
times a training step against PyTorch on the CPU.

    /usr/bin/python3 utils/train_example.py [--onnxc build/bin/onnxc]
        [--work DIR] [--epochs 8] [--optimizer momentum] [--bench]

The data: 12 x 12 grayscale images of four shapes (a horizontal bar, a
vertical bar, a diagonal, a hollow square) at random places and sizes, with
noise; 4096 for training, 1024 held out. The model (an ordinary inference
ONNX model, opset 17): Conv 3x3 (8) - BatchNormalization - Relu - MaxPool 2
- Conv 3x3 (16) - Relu - MaxPool 2 - Flatten - Gemm (4), batch 32. onnxc
compiles it with --train (cross-entropy, the chosen optimizer) into a
library whose onnxc_train_step the script calls through ctypes; after
training, the library's onnxc_train_eval (the model run for inference on
the trained state) measures the held-out accuracy, and the state
(parameters and BatchNormalization's running statistics) goes back into the
ONNX model's initializers, which onnxc compiles for inference: its logits
must match (atol and rtol 1e-4). The run fails (exit 1) below --min-accuracy (default
0.95) or when the two disagree.

--bench times onnxc_train_step against the same network, batch and
optimizer in PyTorch (Debian's python3-torch, eager, the same number of
threads), median of --bench-steps steps after warm-up, and prints both and
their ratio.
"""

import argparse
import ctypes
import os
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "utils", "gpu"))
from device_run import Model, Tensor  # noqa: E402  (ctypes bindings)

BATCH, SIZE, CLASSES = 32, 12, 4


def draw(rng, n):
    """n noisy images of the four shapes and their labels."""
    images = np.zeros((n, 1, SIZE, SIZE), np.float32)
    labels = rng.integers(0, CLASSES, n)
    for img, label in zip(images[:, 0], labels):
        length = rng.integers(5, 10)
        r, c = rng.integers(0, SIZE - length + 1, 2)
        if label == 0:
            img[r + length // 2, c:c + length] = 1
        elif label == 1:
            img[r:r + length, c + length // 2] = 1
        elif label == 2:
            img[np.arange(length) + r, np.arange(length) + c] = 1
        else:
            img[r, c:c + length] = img[r + length - 1, c:c + length] = 1
            img[r:r + length, c] = img[r:r + length, c + length - 1] = 1
    images += rng.normal(0, 0.3, images.shape).astype(np.float32)
    return images, labels.astype(np.int64)


def initial_params(rng):
    def he(*shape):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))).astype(np.float32)
    return {"conv1.w": he(8, 1, 3, 3), "conv1.b": np.zeros(8, np.float32),
            "bn.scale": np.ones(8, np.float32), "bn.bias": np.zeros(8, np.float32),
            "bn.mean": np.zeros(8, np.float32), "bn.var": np.ones(8, np.float32),
            "conv2.w": he(16, 8, 3, 3), "conv2.b": np.zeros(16, np.float32),
            "fc.w": he(CLASSES, 16 * 3 * 3), "fc.b": np.zeros(CLASSES, np.float32)}


def cnn_model(params):
    nodes = [
        helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"],
                         ["n1"]),
        helper.make_node("Relu", ["n1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "conv2.w", "conv2.b"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("MaxPool", ["r2"], ["p2"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p2"], ["f"]),
        helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], transB=1),
    ]
    graph = helper.make_graph(
        nodes, "shapes_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [BATCH, 1, SIZE, SIZE])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [BATCH, CLASSES])],
        [numpy_helper.from_array(v, n) for n, v in params.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def compile_model(onnxc, model, path, flags):
    onnx.save(model, path + ".onnx")
    subprocess.run([onnxc, path + ".onnx", "-o", path + ".so"] + flags, check=True)
    return path + ".so"


class Trainer:
    """The onnxc_train_* API of a library compiled with --train (ctypes)."""

    CODES = {np.dtype(np.float32): 1, np.dtype(np.int64): 7, np.dtype(np.float64): 11}

    def __init__(self, path):
        self.lib = L = ctypes.CDLL(os.path.abspath(path), mode=os.RTLD_LOCAL | os.RTLD_NOW)
        L.onnxc_train_step.argtypes = [ctypes.POINTER(Tensor), ctypes.c_size_t,
                                       ctypes.POINTER(ctypes.c_double)]
        L.onnxc_train_last_error.restype = ctypes.c_char_p
        L.onnxc_train_state_name.restype = ctypes.c_char_p
        L.onnxc_train_state_bytes.restype = ctypes.c_size_t
        L.onnxc_train_state_bytes.argtypes = [ctypes.c_int]
        L.onnxc_train_get_state.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
        L.onnxc_train_set_state.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
        L.onnxc_train_eval.argtypes = [ctypes.POINTER(Tensor), ctypes.c_size_t,
                                       ctypes.POINTER(ctypes.POINTER(Tensor)),
                                       ctypes.POINTER(ctypes.c_size_t)]
        L.onnxc_free_outputs.argtypes = [ctypes.POINTER(Tensor), ctypes.c_size_t]

    def _tensors(self, arrays, keep):
        tensors = (Tensor * max(1, len(arrays)))()
        for i, a in enumerate(arrays):
            shape = (ctypes.c_int64 * max(1, a.ndim))(*a.shape)
            keep.append(shape)
            tensors[i] = Tensor(self.CODES[a.dtype], a.ndim, shape, a.ctypes.data)
        return tensors

    def step(self, *arrays):
        """One training step on the inputs before the state; the loss."""
        keep = []
        tensors = self._tensors(arrays, keep)
        loss = ctypes.c_double()
        if self.lib.onnxc_train_step(tensors, len(arrays), ctypes.byref(loss)):
            raise RuntimeError(self.lib.onnxc_train_last_error().decode())
        return loss.value

    def eval(self, *arrays):
        """The model's outputs for its inputs, run for inference on the
        current state (onnxc_train_eval)."""
        keep = []
        tensors = self._tensors(arrays, keep)
        out, n = ctypes.POINTER(Tensor)(), ctypes.c_size_t()
        if self.lib.onnxc_train_eval(tensors, len(arrays), ctypes.byref(out), ctypes.byref(n)):
            raise RuntimeError(self.lib.onnxc_train_last_error().decode())
        dtypes = {code: dt for dt, code in self.CODES.items()}
        results = []
        for i in range(n.value):
            t = out[i]
            shape = tuple(t.shape[d] for d in range(t.rank))
            count = int(np.prod(shape))
            dt = dtypes[t.dtype]
            raw = ctypes.string_at(t.data, count * dt.itemsize) if count else b""
            results.append(np.frombuffer(raw, dt).reshape(shape).copy())
        self.lib.onnxc_free_outputs(out, n)
        return results

    def state(self):
        """The state tensors' bytes by name."""
        out = {}
        for i in range(self.lib.onnxc_train_num_state()):
            buf = ctypes.create_string_buffer(self.lib.onnxc_train_state_bytes(i))
            if self.lib.onnxc_train_get_state(i, buf, len(buf)):
                raise RuntimeError(self.lib.onnxc_train_last_error().decode())
            out[self.lib.onnxc_train_state_name(i).decode()] = bytes(buf)
        return out


def torch_step_ms(params, images, labels, optimizer, lr, steps, threads):
    """Median ms of a PyTorch training step of the same network."""
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    t = {n: torch.tensor(v, requires_grad=not n.startswith("bn.m") and not n.startswith("bn.v"))
         for n, v in params.items()}
    trainable = [v for n, v in t.items() if v.requires_grad]
    opt = (torch.optim.SGD(trainable, lr=lr, momentum=0.9) if optimizer == "momentum"
           else torch.optim.Adam(trainable, lr=lr) if optimizer == "adam"
           else torch.optim.SGD(trainable, lr=lr))
    x, y = torch.tensor(images), torch.tensor(labels)

    def step():
        opt.zero_grad()
        h = F.conv2d(x, t["conv1.w"], t["conv1.b"], padding=1)
        h = F.batch_norm(h, t["bn.mean"].detach(), t["bn.var"].detach(), t["bn.scale"], t["bn.bias"],
                         training=True)
        h = F.max_pool2d(F.relu(h), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, t["conv2.w"], t["conv2.b"], padding=1)), 2)
        loss = F.cross_entropy(F.linear(h.flatten(1), t["fc.w"], t["fc.b"]), y)
        loss.backward()
        opt.step()
    for _ in range(10):
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", default=os.path.join(ROOT, "build", "bin", "onnxc"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "train-example"))
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--optimizer", default="momentum", choices=["sgd", "momentum", "adam"])
    ap.add_argument("--learning-rate", type=float, default=0.05)
    ap.add_argument("--min-accuracy", type=float, default=0.95)
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--bench-steps", type=int, default=200)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rng = np.random.default_rng(2026)
    train_x, train_y = draw(rng, 4096)
    test_x, test_y = draw(rng, 1024)
    params = initial_params(rng)

    flags = ["--train", "--loss=cross-entropy", "--optimizer=" + args.optimizer,
             "--learning-rate=%g" % args.learning_rate]
    trainer = Trainer(compile_model(args.onnxc, cnn_model(params), os.path.join(args.work, "train"), flags))
    print("onnxc %s: %d state tensors, inputs image, labels" % (" ".join(flags),
                                                                trainer.lib.onnxc_train_num_state()))
    start = time.perf_counter()
    steps = 0
    for epoch in range(args.epochs):
        order = rng.permutation(len(train_x))
        losses = []
        for b in range(0, len(order) - BATCH + 1, BATCH):
            idx = order[b:b + BATCH]
            losses.append(trainer.step(np.ascontiguousarray(train_x[idx]), np.ascontiguousarray(train_y[idx])))
            steps += 1
        print("epoch %d: mean loss %.4f" % (epoch + 1, np.mean(losses)))
    seconds = time.perf_counter() - start
    print("trained %d steps in %.2f s (%.3f ms per step, data handling included)"
          % (steps, seconds, seconds * 1e3 / steps))

    # Held-out accuracy from the library's own inference on the trained
    # state (onnxc_train_eval), then the state back into the inference
    # model, compiled on its own: it must predict the same.
    logits = np.concatenate([trainer.eval(np.ascontiguousarray(test_x[b:b + BATCH]))[0]
                             for b in range(0, len(test_x), BATCH)])
    predicted = logits.argmax(1)
    correct = int((predicted == test_y).sum())
    accuracy = correct / len(test_x)
    print("held-out accuracy: %.4f (%d of %d), required %.2f"
          % (accuracy, correct, len(test_x), args.min_accuracy))
    state = trainer.state()
    trained = {n: np.frombuffer(state[n], np.float32).reshape(v.shape).copy() for n, v in params.items()}
    infer = Model(compile_model(args.onnxc, cnn_model(trained), os.path.join(args.work, "trained"), []))
    exported = []
    for b in range(0, len(test_x), BATCH):
        status, out = infer.run([np.ascontiguousarray(test_x[b:b + BATCH])])
        if status:
            raise RuntimeError(out)
        exported.append(out[0])
    exported = np.concatenate(exported)
    err = float(np.max(np.abs(exported - logits) / (1e-4 + 1e-4 * np.abs(logits))))
    print("the exported model's logits match onnxc_train_eval's: %s (worst error / tolerance %.3g)"
          % (err <= 1, err))
    if err > 1:
        return 1

    if args.bench:
        images, labels = np.ascontiguousarray(train_x[:BATCH]), np.ascontiguousarray(train_y[:BATCH])
        bench = Trainer(compile_model(args.onnxc, cnn_model(params), os.path.join(args.work, "bench"), flags))
        for _ in range(10):
            bench.step(images, labels)
        times = []
        for _ in range(args.bench_steps):
            t0 = time.perf_counter()
            bench.step(images, labels)
            times.append((time.perf_counter() - t0) * 1e3)
        mine = float(np.median(times))
        threads = bench.lib.onnxc_get_num_threads()
        ref = torch_step_ms(params, images, labels, args.optimizer, args.learning_rate,
                            args.bench_steps, threads)
        print("training step, batch %d, %d threads (median of %d): onnxc %.3f ms, PyTorch %.3f ms, "
              "onnxc / PyTorch = %.2f" % (BATCH, threads, args.bench_steps, mine, ref, mine / ref))
    return 0 if accuracy >= args.min_accuracy else 1


if __name__ == "__main__":
    sys.exit(main())
