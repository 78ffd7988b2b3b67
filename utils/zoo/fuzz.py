#!/usr/bin/python3
"""fuzz.py - fuzz onnxc with structurally mutated zoo models (docs/Zoo.md).

    /usr/bin/python3 utils/zoo/fuzz.py [--models REGEX] [--variants LIST]
        [--count N] [--seed S] [--compile-timeout S] [--run-timeout S]
        [--mem-gb G] [--report FILE.json]

Takes the zoo's exports, build/zoo/<model>/<variant>/model.onnx (zoo.py
writes them), and makes --count mutants of each model, from one of
--variants each: seeded graph edits that keep a loadable protobuf (delete a
node, swap a node input, change/remove/add attributes, change the shape,
dtype or data of an input, output or initializer, odd or symbolic dims,
rename/duplicate outputs, a related op_type, another opset or IR version,
insert a Cast/Reshape/Transpose/..., move a node, a wrong value_info).
Mutant N depends only on --seed, the model and N.

Each is compiled by `onnxc mutant.onnx -o mutant.so`, one at a time, under
`flock -s /tmp/onnxc-build.lock` (as zoo.py) and an address space limit:
compiled, rejected (exit 1, a message; an error on an onnx op is one),
verifier (rejected by the verifier of a lowered dialect's op, linalg, tensor,
memref...: onnxc built invalid IR instead of diagnosing the model), silent
(no message), ice (internal compiler error, LLVM ERROR, an assertion),
crash (a signal, an exit status not 0/1), oom, timeout. A compiled one runs
once, `onnxc-run mutant.so --inputs D` on the original's first data set if
its inputs are the original's, else with `--random-inputs --dim D=V...`:
ok, error (exit 1/2), ice, crash, oom, timeout. Everything else than rejected, compiled/ok and
compiled/error is a finding, saved as build/zoo/fuzz/<model>-<N>/mutant.onnx
with finding.txt (class, mutation, command, output) and rerun at the end
(onnxc may have been rebuilt meanwhile). It prints the counts per model and
class, then the findings grouped by kind (the class and the first error
line without names and numbers). Exit status 1 when a crash or ICE was found.
"""

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import AttributeProto as AP, TensorProto as TP, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_MODELS = ["lenet5", "text_cnn", "kws_dscnn", "melspec_conv1d", "espcn",
                  "unet", "squeezenet1_1", "vad_lstm", "llama_block",
                  "gpt2_kv_cache", "yolo_tiny", "bert"]
DTYPES = [TP.FLOAT, TP.DOUBLE, TP.FLOAT16, TP.BFLOAT16, TP.INT64, TP.INT32,
          TP.INT8, TP.UINT8, TP.BOOL, TP.STRING, TP.COMPLEX64, TP.UNDEFINED]
ODD_DIMS = [0, 1, 1, 2, 3, 7, 1 << 20, (1 << 31) - 1, 1 << 40, -1, -5]
ODD_INTS = [-1, -2, -100, 0, 1, 5, 100, 1 << 31, 1 << 62, -(1 << 63)]
ODD_FLOATS = [float("nan"), float("inf"), -1.0, 0.0, 1e30, -1e-30]
RELATED = [g.split() for g in (
    "Add Sub Mul Div Pow Max Min Mod PRelu|Conv ConvTranspose ConvInteger|Cast CastLike|"
    "Relu Sigmoid Tanh Elu LeakyRelu Softplus Abs Neg Exp Log Sqrt Erf Reciprocal "
    "HardSigmoid Identity Not Sign Floor|MaxPool AveragePool LpPool GlobalAveragePool "
    "GlobalMaxPool|ReduceMean ReduceMax ReduceMin ReduceSum ReduceProd ReduceL2 "
    "ReduceLogSumExp ArgMax ArgMin|MatMul Gemm MatMulInteger Einsum|Softmax LogSoftmax "
    "Hardmax|Reshape Expand Tile Squeeze Unsqueeze Flatten|Concat Sum Mean Max Split|"
    "Gather GatherElements GatherND ScatterND|Equal Less Greater LessOrEqual And Or Xor|"
    "BatchNormalization InstanceNormalization LayerNormalization GroupNormalization|"
    "Shape Size NonZero|LSTM GRU RNN|Slice Pad Resize Upsample|DepthToSpace "
    "SpaceToDepth Transpose|Where Clip Range|ConstantOfShape Constant").split("|")]
NEW_ATTRS = ("axis axes keepdims perm group kernel_shape strides pads dilations "
             "auto_pad transA transB alpha beta epsilon mode to noop_with_empty_axes "
             "ceil_mode direction hidden_size layout batch_dims output_padding "
             "allowzero blocksize fuzz_unknown").split()
KINDS = {AP.INT: "int", AP.INTS: "ints", AP.FLOAT: "float", AP.FLOATS: "floats",
         AP.STRING: "str"}


# ---- mutations: each takes (model, rng), edits it, returns a description ---

def values_before(g, idx):
    vals = [v.name for v in g.input] + [t.name for t in g.initializer]
    return vals + [o for n in g.node[:idx] for o in n.output if o]


def rewire(g, old, new, start=0):
    for n in g.node[start:]:
        n.input[:] = [new if x == old else x for x in n.input]


def nd(n):
    return "node '%s' (%s)" % (n.name or n.output[0], n.op_type)


def odd_value(rng, kind=None):
    kind = kind or rng.choice(["int", "ints", "float", "str", "floats"])
    return {"int": lambda: rng.choice(ODD_INTS), "float": lambda: rng.choice(ODD_FLOATS),
            "ints": lambda: [rng.choice(ODD_INTS + [0, 1, 2]) for _ in range(rng.randrange(6))],
            "floats": lambda: [rng.choice(ODD_FLOATS) for _ in range(rng.randrange(1, 4))],
            "str": lambda: rng.choice(["", "bogus", "NOTSET", "SAME_UPPER", "x" * 300])}[kind]()


def m_delete_node(m, rng):
    g = m.graph
    i = rng.randrange(len(g.node))
    n = g.node[i]
    ins = [x for x in n.input if x]
    cands = ins if ins and rng.random() < 0.7 else [v.name for v in g.input] or ins
    if not cands:
        return None
    repl = rng.choice(cands)
    for o in n.output:
        rewire(g, o, repl)
        for out in g.output:
            out.name = repl if out.name == o else out.name
    del g.node[i]
    return "delete %s, its outputs rewired to '%s'" % (nd(n), repl)


def m_swap_input(m, rng):
    g = m.graph
    i = rng.choice([k for k, n in enumerate(g.node) if n.input] or [None])
    if i is None:
        return None
    n, r = g.node[i], rng.random()
    k = rng.randrange(len(n.input))
    new = "" if r < 0.1 else rng.choice(values_before(g, len(g.node) if r < 0.2 else i))
    old, n.input[k] = n.input[k], new
    return "%s input %d '%s' -> '%s'" % (nd(n), k, old, new)


def m_attribute(m, rng):
    n = rng.choice(m.graph.node)
    mode = rng.choice(["value", "value", "type", "remove", "add"]) if n.attribute else "add"
    if mode == "add":
        name, val = rng.choice(NEW_ATTRS), odd_value(rng)
        for a in [a for a in n.attribute if a.name == name]:
            n.attribute.remove(a)
        n.attribute.append(helper.make_attribute(name, val))
        return "%s add attribute %s=%r" % (nd(n), name, val)
    k = rng.randrange(len(n.attribute))
    a = n.attribute[k]
    if mode == "remove":
        del n.attribute[k]
        return "%s remove attribute %s" % (nd(n), a.name)
    if mode == "type" or a.type not in KINDS and a.type != AP.TENSOR:
        kind = rng.choice([x for x in KINDS.values() if x != KINDS.get(a.type)])
        val = odd_value(rng, kind)
        n.attribute[k].CopyFrom(helper.make_attribute(a.name, val))
        return "%s attribute %s retyped to %s %r" % (nd(n), a.name, kind, val)
    if a.type == AP.TENSOR:
        return "%s attribute %s: %s" % (nd(n), a.name, mutate_tensor(a.t, rng))
    old = helper.get_attribute_value(a)
    new = odd_value(rng, KINDS[a.type])
    if a.type == AP.INTS and a.ints and rng.random() < 0.7:   # an edit of the list
        new, j = list(a.ints), rng.randrange(len(a.ints))
        op = rng.choice(["neg", "huge", "drop", "extend"])
        if op in ("drop", "extend"):
            new = new[:j] + new[j + 1:] if op == "drop" else new + [rng.choice([0, 1, -1])]
        else:
            new[j] = rng.choice(ODD_INTS) if op == "huge" else -abs(new[j]) - 1
    n.attribute[k].CopyFrom(helper.make_attribute(a.name, new))
    return "%s attribute %s %r -> %r" % (nd(n), a.name, old, new)


def mutate_tensor(t, rng):
    """Edits a TensorProto (an initializer or a Constant's value) in place."""
    mode = rng.choice(["dims", "dims", "dtype", "truncate", "extend", "dims0"])
    if mode in ("dims", "dims0"):
        old, new = list(t.dims), list(t.dims)
        op = "zero" if mode == "dims0" else rng.choice(["add", "drop", "swap", "double", "neg"])
        j = rng.randrange(len(new) + 1)
        if op == "add" or not new:
            new.insert(j, rng.choice([1, 2]))
        elif op == "drop":
            new.pop(j % len(new))
        elif op == "swap":
            new.reverse()
        else:
            new[j % len(new)] = {"zero": 0, "double": new[j % len(new)] * 2, "neg": -1}[op]
        t.dims[:] = new
        return "dims %s -> %s" % (old, new)
    if mode == "dtype":
        old, t.data_type = t.data_type, rng.choice([d for d in DTYPES if d != t.data_type])
        return "data_type %s -> %s (data unchanged)" % (
            TP.DataType.Name(old), TP.DataType.Name(t.data_type))
    f = rng.choice([f for f in ("raw_data", "float_data", "int64_data", "int32_data",
                                "double_data") if len(getattr(t, f))] or ["raw_data"])
    data = getattr(t, f)
    size, extra = len(data), rng.choice([1, 3, 8])
    keep = rng.choice([0, size // 2, max(size - 1, 0)])
    if f == "raw_data":
        t.raw_data = data[:keep] if mode == "truncate" else data + b"\x7f" * extra
    elif mode == "truncate":
        del data[keep:]
    else:
        data.extend([1] * extra)
    return "%s (%d) %s" % (f, size, "truncated to %d" % keep if mode == "truncate"
                           else "extended by %d" % extra)


def m_initializer(m, rng):
    g = m.graph
    if not g.initializer:
        return None
    k, r = rng.randrange(len(g.initializer)), rng.random()
    t = g.initializer[k]
    if r < 0.08:
        del g.initializer[k]
        return "remove initializer '%s'" % t.name
    if r < 0.16:
        g.input.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
        return "initializer '%s' also declared a graph input" % t.name
    return "initializer '%s' %s" % (t.name, mutate_tensor(t, rng))


def mutate_type(vi, rng, what):
    """Edits the type of a graph input or output."""
    tt, name = vi.type.tensor_type, "%s '%s'" % (what, vi.name)
    mode = rng.choice(["dim", "dim", "symbolic", "rank", "dtype", "noshape"])
    if mode == "dtype":
        old = tt.elem_type
        tt.elem_type = rng.choice([d for d in DTYPES if d != old])
        return "%s dtype %s -> %s" % (name, TP.DataType.Name(old), TP.DataType.Name(tt.elem_type))
    if mode == "noshape":
        tt.ClearField("shape")
        return "%s shape removed (unknown rank)" % name
    dims = tt.shape.dim
    if mode == "rank" or not len(dims):
        if len(dims) and rng.random() < 0.5:
            del dims[rng.randrange(len(dims))]
            return "%s one dim removed" % name
        dims.add().dim_value = rng.choice([1, 2])
        return "%s dim %d appended" % (name, dims[-1].dim_value)
    d = dims[rng.randrange(len(dims))]
    old = d.dim_param or d.dim_value
    if mode == "symbolic" and not d.dim_param:
        d.dim_param = rng.choice(["fz_sym", "batch", "seq", ""])
    else:
        d.dim_value = rng.choice(ODD_DIMS)
    return "%s dim %r -> %r" % (name, old, d.dim_param or d.dim_value)


def m_io(m, rng):
    """An input's or output's type, or the outputs' list."""
    g, inits = m.graph, {t.name for t in m.graph.initializer}
    ins = [v for v in g.input if v.name not in inits]
    mode = rng.choice(["in", "in", "in", "out", "out", "dup", "rename", "extra", "remove"])
    if mode == "in" and ins:
        return mutate_type(rng.choice(ins), rng, "input")
    v = rng.choice(values_before(g, len(g.node)))
    o, mode = (rng.choice(g.output), mode) if len(g.output) else (None, "extra")
    if mode in ("in", "out"):
        return mutate_type(o, rng, "output")
    if mode == "dup":
        g.output.add().CopyFrom(o)
        return "output '%s' listed twice" % o.name
    if mode == "remove":
        g.output.remove(o)
        return "output '%s' removed" % o.name
    if mode == "extra":
        g.output.add().name = v
        return "value '%s' added as an output (no type)" % v
    old, o.name = o.name, v
    return "output '%s' renamed to '%s'" % (old, v)


def m_misc(m, rng):
    """Rename a node output, move a node, or add a wrong value_info."""
    g, r = m.graph, rng.random()
    i = rng.randrange(len(g.node))
    n = g.node[i]
    if r < 0.4:
        old = n.output[0]
        n.output[0] = rng.choice(values_before(g, len(g.node))) if r < 0.25 else old + "_fz"
        return "%s output '%s' renamed to '%s' (consumers not rewired)" % (nd(n), old, n.output[0])
    if r < 0.7:
        vi = helper.make_tensor_value_info(n.output[0], rng.choice(DTYPES[:-1]), [
            rng.choice(ODD_DIMS[:6]) for _ in range(rng.randrange(0, 4))])
        g.value_info.append(vi)
        return "value_info for '%s': %s" % (n.output[0], helper.printable_type(vi.type))
    n = onnx.NodeProto()
    n.CopyFrom(g.node[i])
    del g.node[i]
    j = rng.choice([0, len(g.node), rng.randrange(len(g.node) + 1)])
    g.node.insert(j, n)
    return "%s moved from position %d to %d" % (nd(n), i, j)


def m_op_type(m, rng):
    n = rng.choice(m.graph.node)
    groups = [grp for grp in RELATED if n.op_type in grp]
    if groups and rng.random() < 0.85:
        new = rng.choice([x for x in rng.choice(groups) if x != n.op_type])
    else:
        new = rng.choice(sorted({s.name for s in onnx.defs.get_all_schemas() if s.domain == ""}))
    old, n.op_type = n.op_type, new
    return "node '%s' op_type %s -> %s" % (n.name or n.output[0], old, new)


def m_opset(m, rng):
    r = rng.random()
    if r < 0.15:
        old, m.ir_version = m.ir_version, rng.choice([1, 3, 4, 7, 11, 99])
        return "ir_version %d -> %d" % (old, m.ir_version)
    if r < 0.25:
        n = rng.choice(m.graph.node)
        n.domain = rng.choice(["com.microsoft", "ai.onnx.ml", "bogus.domain"])
        return "%s domain set to %s" % (nd(n), n.domain)
    imp = [o for o in m.opset_import if o.domain in ("", "ai.onnx")]
    if r < 0.32:
        for o in imp:
            m.opset_import.remove(o)
        return "default opset import removed"
    new = rng.choice([1, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 100])
    if r < 0.4 or not imp:
        m.opset_import.add().CopyFrom(helper.make_opsetid("", new))
        return "second default opset import (version %d) added" % new
    old, imp[0].version = imp[0].version, new
    return "opset %s -> %d" % (old, new)


def m_insert(m, rng):
    g = m.graph
    i = rng.randrange(len(g.node) + 1)
    inits = {t.name for t in g.initializer}
    v = rng.choice([x for x in values_before(g, i) if x not in inits] or values_before(g, i))
    out = v + "_fz%d" % rng.randrange(1000)
    op = rng.choice("Cast Identity Reshape Reshape Transpose Unsqueeze Squeeze Flatten "
                    "Expand Slice Concat Softmax ReduceSum Neg".split())
    ins, attrs, consts = [v], {}, []

    def const(vals):
        consts.append(numpy_helper.from_array(np.array(vals, np.int64), "%s_c%d" % (out, len(consts))))
        ins.append(consts[-1].name)
    if op == "Cast":
        attrs["to"] = rng.choice(DTYPES[:-1])
    elif op in ("Reshape", "Expand"):
        const([rng.choice([-1, 0, 1, 2, 3, 5, 64, 1 << 20]) for _ in range(rng.randrange(0, 5))])
    elif op == "Transpose":
        perm = list(range(rng.randrange(1, 5)))
        rng.shuffle(perm)
        attrs["perm"] = perm if rng.random() < 0.8 else perm + [rng.choice(perm)]
    elif op in ("Unsqueeze", "Squeeze", "ReduceSum"):
        const([rng.choice([-5, -1, 0, 1, 2, 7]) for _ in range(rng.randrange(1, 3))])
    elif op in ("Flatten", "Softmax", "Concat"):
        attrs["axis"] = rng.choice([-3, -1, 0, 1, 2, 9])
        ins += [v] if op == "Concat" else []
    elif op == "Slice":
        const([rng.choice([0, 1, -1, -(1 << 62)])])
        const([rng.choice([0, 1, 3, -1, 1 << 62])])
        const([rng.choice([-1, 0, 1, 3])])
    rewire(g, v, out, i)
    for o in g.output:
        o.name = out if o.name == v and rng.random() < 0.5 else o.name
    g.node.insert(i, helper.make_node(op, ins, [out], name="fuzz_" + op, **attrs))
    g.initializer.extend(consts)
    desc = ", ".join(["%s=%s" % kv for kv in attrs.items()] +
                     [str(numpy_helper.to_array(c).tolist()) for c in consts])
    return "insert %s(%s) on '%s' before node %d, consumers rewired" % (op, desc, v, i)


MUTATIONS = [(m_delete_node, 3), (m_swap_input, 3), (m_attribute, 5),
             (m_initializer, 3), (m_io, 5), (m_op_type, 4), (m_opset, 2),
             (m_insert, 4), (m_misc, 3)]


def mutate(base, rng):
    """A copy of base with one mutation (a quarter of the time 2 or 3)."""
    m, descs = onnx.ModelProto(), []
    m.CopyFrom(base)
    want = 1 if rng.random() < 0.75 else rng.choice([2, 3])
    for _ in range(20):
        f = rng.choices([f for f, _ in MUTATIONS], [w for _, w in MUTATIONS])[0]
        d = f(m, rng) if len(m.graph.node) and len(descs) < want else None
        descs += [d] if d else []
    return m, "; ".join(descs)


# ---- running the tools ----------------------------------------------------

ICE_RE = re.compile(r"internal compiler error|LLVM ERROR|PLEASE submit a bug|"
                    r"Assertion .* failed|terminate called|Stack dump|UNREACHABLE|"
                    r"Sanitizer", re.I)
OOM_RE = re.compile(r"bad_alloc|out of memory|Cannot allocate memory", re.I)
# An error on a lowered dialect's op (linalg, tensor, memref...): invalid IR
# that onnxc built. One on an onnx op names the model's contradiction (the
# onnx dialect's verifiers, the lowering's shape checks): a rejection.
VERIFIER_RE = re.compile(r"error: '(?!onnx\.)\w+\.[\w.]+' op ")


def tool(args, cmd, timeout):
    """Runs cmd under the lock, timeout and memory limit: (rc, output, seconds)."""
    lim = args.mem_gb << 30
    full = (["flock", "-s", args.lock] if args.lock else []) + [
        "timeout", "-k", "5", str(timeout)] + cmd
    t = time.time()
    p = subprocess.run(full, capture_output=True, text=True, errors="replace", cwd=ROOT,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (lim, lim)))
    return p.returncode, p.stdout + p.stderr, time.time() - t


def classify(rc, out, compile_, timed_out):
    sig = -rc if rc < 0 else rc - 128 if rc > 128 else 0
    if rc == 124 or (rc == 137 and timed_out):
        return "timeout"
    if (sig or rc not in (0, 1, 2)) and OOM_RE.search(out):
        return "oom"
    if sig or rc not in ((0, 1) if compile_ else (0, 1, 2)):
        return "crash"
    if ICE_RE.search(out):
        return "ice"
    if rc == 0:
        return "compiled" if compile_ else "ok"
    if not compile_:
        return "error"
    return "silent" if not out.strip() else "verifier" if VERIFIER_RE.search(out) else "rejected"


def kind_of(cls, rc, out):
    """A finding's dedup key: its class and first error line, without the
    names, numbers, types and (for the onnx dialect) op in it."""
    lines = out.splitlines()
    line = next((ln for ln in lines if ICE_RE.search(ln) or VERIFIER_RE.search(ln)), None) or next(
        (ln for ln in lines if re.search(r"error|signal|abort", ln, re.I)),
        lines[0] if out.strip() else "(no output)")
    line = re.sub(r"^\S*\.onnx: (node '[^']*': )?", "", line.strip())
    line = re.sub(r"(node|value|input|output|initializer) '[^']*'", r"\1 _", line)
    m = VERIFIER_RE.search(line)
    if m:   # 'dialect.op' op ...: keep the op of a lowering, not the quoted types
        line = line[:m.end()] + re.sub(r"'[^']*'", "_", re.sub(
            r"must be .* values", "must be _ values", line[m.end():]))
        line = re.sub(r"'onnx\.\w+' op", "'onnx._' op", line)
    return "%s rc=%d: %s" % (cls, rc, re.sub(r"\b\d+\b", "N", line)[:200])


def run_args(vdir, base, mutant):
    """onnxc-run's inputs: the original's first data set when the mutant's
    inputs are the original's, else random ones, the symbolic dims sized as
    in that data set (2 for a new one)."""
    inits = {t.name for t in base.graph.initializer}
    ins = [v for v in base.graph.input if v.name not in inits]
    data = os.path.join(vdir, "test_data_set_0")
    if [(v.name, v.type) for v in mutant.graph.input if v.name not in inits] == \
            [(v.name, v.type) for v in ins] and os.path.isdir(data):
        return ["--inputs", os.path.relpath(data, ROOT)]
    sizes, want = {}, {d.dim_param for v in mutant.graph.input
                       for d in v.type.tensor_type.shape.dim if d.dim_param}
    for k, vi in enumerate(ins):
        if os.path.exists(os.path.join(data, "input_%d.pb" % k)):
            t = onnx.load_tensor(os.path.join(data, "input_%d.pb" % k))
            sizes.update({d.dim_param: s for d, s in zip(vi.type.tensor_type.shape.dim, t.dims)})
    return ["--random-inputs", "--seed", "0"] + sum(
        [["--dim", "%s=%d" % (d, sizes.get(d, 2))] for d in sorted(want)], [])


def compile_and_run(args, mpath, so, run):
    """(compile class, run class or None, exit status, output, compile seconds)."""
    if os.path.exists(so):
        os.remove(so)
    rc, out, secs = tool(args, [args.onnxc, mpath, "-o", so], args.compile_timeout)
    cls = classify(rc, out, True, secs >= args.compile_timeout)
    if cls == "compiled" and not os.path.exists(so):
        cls, out = "crash", out + "\n(onnxc exited with 0 but wrote no library)"
    if cls != "compiled":
        return cls, None, rc, out, secs
    rrc, rout, rsecs = tool(args, [args.onnxc_run, so] + run, args.run_timeout)
    rcls = classify(rrc, rout, False, rsecs >= args.run_timeout)
    return cls, rcls, rrc, out + rout, secs


def fuzz_one(args, name, n, vdir, base, work):
    rng = random.Random("%d:%s:%d" % (args.seed, name, n))
    mutant, desc = mutate(base, rng)
    mpath, so = os.path.join(work, "mutant.onnx"), os.path.join(work, "mutant.so")
    onnx.save(mutant, mpath)
    run = run_args(vdir, base, mutant)
    cls, rcls, rc, out, secs = compile_and_run(args, mpath, so, run)
    row = dict(model=name, n=n, variant=os.path.basename(vdir), mutation=desc, compile=cls,
               compile_s=round(secs, 1), run=rcls, rc=rc, out=out, run_args=run)
    print("fuzz: %s-%d %s %s%s %.1fs: %s" % (name, n, row["variant"], cls, "/" + rcls
          if rcls else "", secs, desc[:150]), file=sys.stderr, flush=True)
    if cls in ("compiled", "rejected") and rcls in (None, "ok", "error"):
        return row
    rel = lambda x: os.path.relpath(x, ROOT)
    d = os.path.join(args.cache, "fuzz", "%s-%d" % (name, n))
    row["cmd"] = "%s %s -o /tmp/mutant.so" % (rel(args.onnxc), rel(os.path.join(d, "mutant.onnx")))
    if rcls:
        row["cmd"] += " && %s /tmp/mutant.so %s" % (rel(args.onnxc_run), " ".join(run))
    row["finding"] = "run-" + rcls if rcls else cls
    row["kind"], row["dir"] = kind_of(row["finding"], rc, out), rel(d)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    shutil.copy(mpath, os.path.join(d, "mutant.onnx"))
    with open(os.path.join(d, "finding.txt"), "w") as f:
        f.write("%s\nmodel: %s/%s (seed %d, mutant %d)\nmutation: %s\ncommand: %s\n"
                "exit status %d; output:\n%s\n" % (
                    row["kind"], name, row["variant"], args.seed, n, desc, row["cmd"],
                    rc, "\n".join(out.splitlines()[:60])))
    return row


def recheck(args, r, work):
    """Compiles (and runs) a finding again: onnxc may have been rebuilt."""
    cls, rcls, rc, out, _ = compile_and_run(args, os.path.join(ROOT, r["dir"], "mutant.onnx"),
                                            os.path.join(work, "re.so"), r["run_args"])
    kind = kind_of("run-" + rcls if rcls else cls, rc, out)
    r["again"] = kind == r["kind"]
    with open(os.path.join(ROOT, r["dir"], "finding.txt"), "a") as f:
        f.write("\nrerun at the end: %s\n" % ("the same" if r["again"] else "DIFFERENT: %s\n%s"
                                              % (kind, "\n".join(out.splitlines()[:10]))))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", help="regex on the cache's model names (default: %s)"
                   % ",".join(DEFAULT_MODELS))
    p.add_argument("--variants", default="13-static,17-dynamic",
                   help="each mutant starts from one of these, at random")
    p.add_argument("--count", type=int, default=30, help="mutants per model (30)")
    p.add_argument("--seed", type=int, default=0)
    for opt, default in [("cache", "zoo"), ("onnxc", "bin/onnxc"), ("onnxc-run", "bin/onnxc-run")]:
        p.add_argument("--" + opt, default=os.path.join(ROOT, "build", default))
    for opt in ("--compile-timeout", "--run-timeout"):
        p.add_argument(opt, type=int, default=60, help="seconds (60)")
    p.add_argument("--mem-gb", type=int, default=8, help="address space limit (8)")
    p.add_argument("--lock", default="/tmp/onnxc-build.lock", help="'' for none")
    p.add_argument("--report", help="every mutant's outcome as JSON")
    args = p.parse_args()
    names = DEFAULT_MODELS if not args.models else sorted(
        d for d in os.listdir(args.cache) if re.search(args.models, d) and d != "fuzz")
    work = os.path.join(args.cache, "fuzz", "work")
    os.makedirs(work, exist_ok=True)
    rows, t0 = [], time.time()
    for name in names:
        vdirs = [os.path.join(args.cache, name, v) for v in args.variants.split(",")]
        vdirs = [v for v in vdirs if os.path.exists(os.path.join(v, "model.onnx"))]
        if not vdirs:
            print("fuzz: %s: no export of %s, skipped" % (name, args.variants), file=sys.stderr)
        bases = {v: onnx.load(os.path.join(v, "model.onnx")) for v in vdirs}
        for n in range(args.count if vdirs else 0):
            v = random.Random("%d:%s:%d:variant" % (args.seed, name, n)).choice(vdirs)
            rows.append(fuzz_one(args, name, n, v, bases[v], work))
    findings = [r for r in rows if "finding" in r]
    for r in findings:
        recheck(args, r, work)
    classes = ["compiled rejected verifier silent ice crash oom timeout".split(),
               "ok error ice crash oom timeout".split()]
    print("\n%-15s %5s " % ("model", "tried") + " ".join("%8s" % c for c in classes[0]) +
          "  | run: " + " ".join("%6s" % c for c in classes[1]))
    for name in [x for x in names if any(r["model"] == x for r in rows)] + ["total"]:
        rs = [r for r in rows if name in ("total", r["model"])]
        print("%-15s %5d " % (name, len(rs)) + " ".join(
            "%8d" % sum(r["compile"] == c for r in rs) for c in classes[0]) + "  |      " +
            " ".join("%6d" % sum(r["run"] == c for r in rs) for c in classes[1]))
    kinds = {}
    for r in findings:
        kinds.setdefault(r["kind"], []).append(r)
    print("\nfuzz: %d mutants in %.0f s, %d findings of %d kinds" % (
        len(rows), time.time() - t0, len(findings), len(kinds)))
    for k, rs in sorted(kinds.items()):
        print("\n* %s  (%d)\n" % (k, len(rs)) + "\n".join("    %s [%s]%s: %s" % (
            r["dir"], r["variant"], "" if r["again"] else " (different at the rerun)",
            r["mutation"][:160]) for r in rs))
    if args.report:
        with open(args.report, "w") as f:
            json.dump(rows, f, indent=1)
    return int(any(re.match(r"(run-)?(crash|ice)$", r["finding"]) for r in findings))


if __name__ == "__main__":
    sys.exit(main())
