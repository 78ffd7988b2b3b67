"""FLOP counts of ONNX models for utils/bench.py.

Counts 2 FLOPs per multiply-accumulate of Conv, ConvTranspose, MatMul and
Gemm (the work that dominates the benchmark set), from ONNX's shape
inference with data propagation (the light models build their weights with
ConstantOfShape, whose shapes propagate). Other ops are not counted, so
GFLOP/s figures are a lower bound of the arithmetic done.
"""

import math

import onnx
from onnx import shape_inference


def _shapes(model, dims):
    """name -> static shape (list of int) for every value with one."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    for vi in model.graph.input:
        for d in vi.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in dims:
                d.dim_value = dims[d.dim_param]
    inferred = shape_inference.infer_shapes(model, data_prop=True)
    shapes = {}
    for vi in (list(inferred.graph.input) + list(inferred.graph.value_info) +
               list(inferred.graph.output)):
        t = vi.type.tensor_type
        if t.HasField("shape") and all(d.HasField("dim_value")
                                       for d in t.shape.dim):
            shapes[vi.name] = [d.dim_value for d in t.shape.dim]
    for init in inferred.graph.initializer:
        shapes[init.name] = list(init.dims)
    return inferred, shapes


def _attr(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


COUNTED_OPS = ("Conv", "ConvTranspose", "MatMul", "Gemm")


def node_flops(node, shapes):
    """2*MACs of one node: 0 for ops that are not counted, None for a
    counted op whose shapes are unknown."""
    op = node.op_type
    if op not in COUNTED_OPS:
        return 0
    ins = [shapes.get(n) for n in node.input]
    out = shapes.get(node.output[0])
    if out is None or any(s is None for s in ins[:2]):
        return None
    if op == "Conv":
        w = ins[1]  # [Cout, Cin/group, k...]
        return 2 * math.prod(out) * math.prod(w[1:])
    if op == "ConvTranspose":
        x, w = ins[0], ins[1]  # w: [Cin, Cout/group, k...]
        return 2 * math.prod(x) * math.prod(w[1:])
    a = ins[0]
    if op == "MatMul":
        return 2 * math.prod(out) * (a[-1] if a else 1)
    k = a[0] if _attr(node, "transA", 0) else a[-1]  # Gemm
    return 2 * math.prod(out) * k


def per_node_flops(model, dims=None):
    """node name -> (op type, 2*MACs or None), for every node."""
    model, shapes = _shapes(model, dims or {})
    return {node.name: (node.op_type, node_flops(node, shapes))
            for node in model.graph.node}


def count_flops(model, dims=None):
    """(flops, uncounted): 2*MACs of the counted ops, and the number of
    those ops whose shapes were unknown."""
    model, shapes = _shapes(model, dims or {})
    flops, unknown = 0, 0
    for node in model.graph.node:
        f = node_flops(node, shapes)
        if f is None:
            unknown += 1
        else:
            flops += f
    return flops, unknown
