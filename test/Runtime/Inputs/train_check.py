#!/usr/bin/env python3
"""onnxc --train against PyTorch's optimizers, and the training C API.

    train_check.py --onnxc ONNXC --work DIR

An MLP (Gemm, Relu, Gemm; float32 initializers) is compiled with
`onnxc --train --loss=cross-entropy` for each optimizer; 5 steps on fixed
batches through onnxc_train_step must leave the same parameters as
torch.optim (SGD, SGD with momentum / Nesterov, Adam, Adagrad; weight decay
on one of them) after the same steps, to rtol 1e-4 (atol 1e-6; 1e-5 for Adam, whose m / sqrt(v) amplifies the
rounding of gradients near zero into steps of lr size); the losses
too. Then: a checkpoint saved, reset, loaded gives the state back; a
checkpoint of another model is refused and changes nothing; a CNN with
BatchNormalization (its running statistics are state) and an `mse` loss
trains, and onnxc_train_eval then runs it for inference on the trained state
as PyTorch does; Dropout draws a new mask every step; an inference library reports
-1 state tensors and no evaluation function.
"""

import argparse
import ctypes
import os
import subprocess
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "utils", "gpu"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "utils"))
from train_example import Trainer as TrainLib  # noqa: E402  (the ctypes binding)

RNG = np.random.default_rng(5)


def compile_model(onnxc, model, path, *flags):
    onnx.save(model, path + ".onnx")
    p = subprocess.run([onnxc, path + ".onnx", "-o", path + ".so"] + list(flags),
                       capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError("onnxc: " + p.stderr)
    return path + ".so"


def mlp_model(params):
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"]),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "w2", "b2"], ["logits"])]
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6, 5])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [6, 3])],
        [numpy_helper.from_array(v, n) for n, v in params.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


OPTIMIZERS = [
    ("sgd", ["--optimizer=sgd", "--learning-rate=0.1"],
     lambda p: torch.optim.SGD(p, lr=0.1)),
    ("sgd-weight-decay", ["--optimizer=sgd", "--learning-rate=0.1", "--weight-decay=0.01"],
     lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=0.01)),
    ("momentum", ["--optimizer=momentum", "--learning-rate=0.05", "--momentum=0.8"],
     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.8)),
    ("nesterov", ["--optimizer=nesterov", "--learning-rate=0.05", "--momentum=0.8"],
     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.8, nesterov=True)),
    ("adam", ["--optimizer=adam", "--learning-rate=0.01"],
     lambda p: torch.optim.Adam(p, lr=0.01, eps=1e-8)),
    ("adagrad", ["--optimizer=adagrad", "--learning-rate=0.1", "--epsilon=1e-10"],
     lambda p: torch.optim.Adagrad(p, lr=0.1, eps=1e-10)),
]


def check_optimizers(onnxc, work):
    params = {"w1": RNG.standard_normal((5, 8)).astype(np.float32) * 0.5,
              "b1": RNG.standard_normal(8).astype(np.float32) * 0.1,
              "w2": RNG.standard_normal((8, 3)).astype(np.float32) * 0.5,
              "b2": RNG.standard_normal(3).astype(np.float32) * 0.1}
    batches = [(RNG.standard_normal((6, 5)).astype(np.float32), RNG.integers(0, 3, 6).astype(np.int64))
               for _ in range(5)]
    ok = True
    for name, flags, make in OPTIMIZERS:
        lib = TrainLib(compile_model(onnxc, mlp_model(params), os.path.join(work, "mlp-" + name),
                                     "--train", *flags))
        t = {n: torch.tensor(v, requires_grad=True) for n, v in params.items()}
        opt = make(list(t.values()))
        problems = []
        for x, y in batches:
            got = lib.step(x, y)
            opt.zero_grad()
            h = F.relu(torch.tensor(x) @ t["w1"] + t["b1"])
            loss = F.cross_entropy(h @ t["w2"] + t["b2"], torch.tensor(y))
            loss.backward()
            opt.step()
            if abs(got - loss.item()) > 1e-6 + 1e-4 * abs(loss.item()):
                problems.append("loss %.7g, PyTorch %.7g" % (got, loss.item()))
        state = lib.state()
        for n in params:
            mine = np.frombuffer(state[n], np.float32).reshape(params[n].shape)
            ref = t[n].detach().numpy()
            atol = 1e-5 if name == "adam" else 1e-6
            if not np.allclose(mine, ref, rtol=1e-4, atol=atol):
                problems.append("%s differs by %.2g" % (n, np.abs(mine - ref).max()))
        print("%s optimizer %s: %s" % ("FAIL" if problems else "PASS", name,
                                        "; ".join(problems) or "5 steps match PyTorch"))
        ok &= not problems
    return ok


def check_api(onnxc, work):
    """Checkpoints, reset, a foreign checkpoint, an inference library."""
    params = {"w1": RNG.standard_normal((5, 8)).astype(np.float32),
              "b1": np.zeros(8, np.float32), "w2": RNG.standard_normal((8, 3)).astype(np.float32),
              "b2": np.zeros(3, np.float32)}
    lib = TrainLib(compile_model(onnxc, mlp_model(params), os.path.join(work, "api"), "--train",
                                 "--optimizer=adam"))
    L = lib.lib
    x, y = RNG.standard_normal((6, 5)).astype(np.float32), RNG.integers(0, 3, 6).astype(np.int64)
    initial = lib.state()
    lib.step(x, y)
    trained = lib.state()
    checkpoint = os.path.join(work, "api.ckpt").encode()
    problems = []
    if L.onnxc_train_save(checkpoint) or L.onnxc_train_reset() or lib.state() != initial:
        problems.append("save/reset")
    if L.onnxc_train_load(checkpoint) or lib.state() != trained:
        problems.append("load")
    # A checkpoint of another model (the sgd one has no Adam state).
    other = TrainLib(compile_model(onnxc, mlp_model(params), os.path.join(work, "api-sgd"), "--train"))
    foreign = os.path.join(work, "sgd.ckpt").encode()
    other.lib.onnxc_train_save(foreign)
    if L.onnxc_train_load(foreign) == 0 or lib.state() != trained:
        problems.append("a foreign checkpoint was accepted or changed the state")
    inference = ctypes.CDLL(compile_model(onnxc, mlp_model(params), os.path.join(work, "infer")))
    inference.onnxc_train_step.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    if inference.onnxc_train_num_state() != -1 or inference.onnxc_train_step(None, 0, None) == 0:
        problems.append("an inference library claims training state")
    inference.onnxc_train_eval.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]
    out, n = ctypes.c_void_p(), ctypes.c_size_t()
    if (inference.onnxc_train_eval_num_inputs() != -1 or
            inference.onnxc_train_eval(None, 0, ctypes.byref(out), ctypes.byref(n)) == 0):
        problems.append("an inference library claims an evaluation function")
    print("%s training API: %s" % ("FAIL" if problems else "PASS",
                                   ", ".join(problems) or "checkpoint, reset, foreign checkpoint refused, "
                                   "inference library reports no state"))
    return not problems


def check_cnn(onnxc, work):
    """A CNN with BatchNormalization (inference mode in the model: trained in
    training mode, its running statistics state) and an mse loss."""
    c1 = RNG.standard_normal((4, 1, 3, 3)).astype(np.float32) * 0.3
    nodes = [helper.make_node("Conv", ["x", "c1"], ["a"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["a", "s", "b", "m", "v"], ["n"]),
             helper.make_node("Relu", ["n"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1)]
    inits = {"c1": c1, "s": np.ones(4, np.float32), "b": np.zeros(4, np.float32),
             "m": np.zeros(4, np.float32), "v": np.ones(4, np.float32),
             "fc": RNG.standard_normal((2, 4)).astype(np.float32) * 0.3}
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 1, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 2])],
                              [numpy_helper.from_array(v, n) for n, v in inits.items()])
    lib = TrainLib(compile_model(onnxc, helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                                 os.path.join(work, "cnn"), "--train", "--loss=mse", "--optimizer=momentum",
                                 "--learning-rate=0.05"))
    names = [lib.lib.onnxc_train_state_name(i).decode() for i in range(lib.lib.onnxc_train_num_state())]
    x = RNG.standard_normal((8, 1, 6, 6)).astype(np.float32)
    target = np.stack([x.mean((1, 2, 3)), x.std((1, 2, 3))], 1).astype(np.float32)
    losses = [lib.step(x, target) for _ in range(60)]
    mean = np.frombuffer(lib.state()["m"], np.float32)
    problems = []
    if names[:6] != ["c1", "s", "b", "m", "v", "fc"]:
        problems.append("state %s" % names)
    if not losses[-1] < 0.5 * losses[0]:
        problems.append("loss %.4f -> %.4f" % (losses[0], losses[-1]))
    if not np.any(mean != 0):
        problems.append("running mean not updated")
    # onnxc_train_eval: the model for inference (BatchNormalization with the
    # running statistics) on the trained state, against PyTorch's.
    state = {n: torch.tensor(np.frombuffer(b, np.float32).reshape(inits[n].shape))
             for n, b in lib.state().items() if n in inits}
    with torch.no_grad():
        h = F.conv2d(torch.tensor(x), state["c1"], padding=1)
        h = F.batch_norm(h, state["m"], state["v"], state["s"], state["b"], training=False, eps=1e-5)
        ref = (F.relu(h).mean((2, 3)) @ state["fc"].T).numpy()
    y = lib.eval(x)[0]
    if y.shape != ref.shape or not np.allclose(y, ref, rtol=1e-4, atol=1e-5):
        problems.append("eval differs from PyTorch's inference: %s" % np.max(np.abs(y - ref)))
    try:
        lib.eval(x, target)
        problems.append("eval took the labels")
    except RuntimeError as e:
        if "onnxc_train_eval takes the model's inputs" not in str(e):
            problems.append("eval with the labels: %s" % e)
    print("%s cnn: %s" % ("FAIL" if problems else "PASS",
                          "; ".join(problems) or "state %s, loss %.4f -> %.4f, running mean updated, "
                          "eval matches PyTorch's inference" % (",".join(names), losses[0], losses[-1])))
    return not problems


def check_dropout(onnxc, work):
    """Dropout in a training library: a new mask every step, kept elements
    scaled by 1 / (1 - ratio). The trained value is a 100 x 100 initializer
    of ones; the loss (the model's output) is the mean of Dropout(w, 0.3),
    i.e. the kept fraction / 0.7: about 1 at every step, never twice the
    same; learning rate 0 keeps w."""
    nodes = [helper.make_node("Dropout", ["w", "ratio"], ["d"]),
             helper.make_node("ReduceMean", ["d"], ["y"], keepdims=0)]
    inits = [numpy_helper.from_array(np.ones((100, 100), np.float32), "w"),
             numpy_helper.from_array(np.array(0.3, np.float32), "ratio")]
    graph = helper.make_graph(nodes, "drop", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
                              inits)
    lib = TrainLib(compile_model(onnxc, helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                                 os.path.join(work, "dropout"), "--train", "--loss=output",
                                 "--learning-rate=0"))
    losses = [lib.step() for _ in range(5)]
    state = lib.state()
    step = int(np.frombuffer(state["dropout.step"], np.int64)[0])
    bound = 5 * np.sqrt(0.3 * 0.7 / 10000) / 0.7
    problems = []
    if any(abs(v - 1) > bound for v in losses):
        problems.append("mean kept / 0.7 not about 1: %s" % losses)
    if len(set(losses)) != len(losses):
        problems.append("a mask repeated: %s" % losses)
    if step != 5:
        problems.append("dropout.step %d after 5 steps" % step)
    print("%s dropout: %s" % ("FAIL" if problems else "PASS", "; ".join(problems) or
                              "5 different masks, kept fraction / 0.7 within %.3f of 1, dropout.step 5" % bound))
    return not problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    torch.manual_seed(0)
    ok = check_optimizers(args.onnxc, args.work)
    ok &= check_api(args.onnxc, args.work)
    ok &= check_cnn(args.onnxc, args.work)
    ok &= check_dropout(args.onnxc, args.work)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
