"""Small ONNX models and .npy inputs for the run-time tests.

  cases.py NAME DIR    writes DIR/model.onnx and DIR/<input>_<variant>.npy

Each case has one model and named input sets: `good` runs, the others make
a run-time check fail (see the .test files for the messages).
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, save

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def f32(x):
    return np.array(x, dtype=np.float32)


def i64(x):
    return np.array(x, dtype=np.int64)


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def gather():
    m = model([helper.make_node("Gather", ["data", "indices"], ["y"], name="gather_3", axis=0)],
              [vi("data", F, [5, 3]), vi("indices", I64, ["n"])], [vi("y", F, ["n", 3])])
    data = f32(np.arange(15).reshape(5, 3))
    return m, {"data": {"all": data}, "indices": {"good": i64([0, -5, 4]), "high": i64([1, 17]),
                                                  "low": i64([-6])}}


@case
def gather_elements():
    m = model([helper.make_node("GatherElements", ["data", "indices"], ["y"], name="ge", axis=1)],
              [vi("data", F, ["r", 3]), vi("indices", I64, ["q", 2])], [vi("y", F, ["q", 2])])
    return m, {"data": {"all": f32(np.arange(6).reshape(2, 3))},
               "indices": {"good": i64([[0, 2], [-1, 1]]), "high": i64([[0, 3], [0, 0]]),
                           "rows": i64([[0, 0], [0, 0], [0, 0]])}}


@case
def gather_nd():
    m = model([helper.make_node("GatherND", ["data", "indices"], ["y"], name="gnd")],
              [vi("data", F, [2, 2]), vi("indices", I64, ["q", 2])], [vi("y", F, ["q"])])
    return m, {"data": {"all": f32([[1, 2], [3, 4]])},
               "indices": {"good": i64([[1, 0], [0, -1]]), "high": i64([[0, 2]])}}


@case
def scatter_elements():
    m = model([helper.make_node("ScatterElements", ["data", "indices", "updates"], ["y"],
                                name="se", axis=0, reduction="add")],
              [vi("data", F, [3]), vi("indices", I64, ["n"]), vi("updates", F, ["m"])],
              [vi("y", F, [3])])
    return m, {"data": {"all": f32([1, 2, 3])},
               "indices": {"good": i64([0, 2, 0]), "high": i64([5, 0, 0]), "short": i64([0, 1])},
               "updates": {"all": f32([10, 20, 30])}}


@case
def scatter_nd():
    m = model([helper.make_node("ScatterND", ["data", "indices", "updates"], ["y"], name="snd")],
              [vi("data", F, [4]), vi("indices", I64, ["n", 1]), vi("updates", F, ["n"])],
              [vi("y", F, [4])])
    return m, {"data": {"all": f32([1, 2, 3, 4])},
               "indices": {"good": i64([[3], [-4]]), "high": i64([[4], [0]])},
               "updates": {"all": f32([10, 20])}}


@case
def reshape():
    m = model([helper.make_node("Reshape", ["data", "shape"], ["y"], name="reshape")],
              [vi("data", F, ["n"]), vi("shape", I64, [2])], [vi("y", F, ["a", "b"])])
    return m, {"data": {"all": f32(np.arange(6))},
               "shape": {"good": i64([2, -1]), "count": i64([4, 2]), "inexact": i64([4, -1]),
                         "negative": i64([-2, -3])}}


@case
def broadcast():
    m = model([helper.make_node("Add", ["a", "b"], ["y"], name="add")],
              [vi("a", F, ["n"]), vi("b", F, ["m"])], [vi("y", F, ["k"])])
    return m, {"a": {"all": f32([1, 2, 3])},
               "b": {"good": f32([10]), "same": f32([1, 1, 1]), "bad": f32([1, 2, 3, 4])}}


@case
def range_():
    m = model([helper.make_node("Range", ["start", "limit", "delta"], ["y"], name="range")],
              [vi("start", F, []), vi("limit", F, []), vi("delta", F, [])], [vi("y", F, ["n"])])
    return m, {"start": {"all": f32(0)}, "limit": {"all": f32(5)},
               "delta": {"good": f32(2), "zero": f32(0)}}


@case
def slice_():
    m = model([helper.make_node("Slice", ["data", "starts", "ends", "axes", "steps"], ["y"],
                                name="slice")],
              [vi("data", F, [5]), vi("starts", I64, [1]), vi("ends", I64, [1]),
               vi("axes", I64, [1]), vi("steps", I64, [1])], [vi("y", F, ["n"])])
    return m, {"data": {"all": f32([0, 1, 2, 3, 4])}, "starts": {"all": i64([4])},
               "ends": {"all": i64([-10])}, "axes": {"good": i64([0]), "badaxis": i64([3])},
               "steps": {"good": i64([-2]), "zero": i64([0])}}


@case
def tile():
    m = model([helper.make_node("Tile", ["data", "repeats"], ["y"], name="tile")],
              [vi("data", F, [2]), vi("repeats", I64, [1])], [vi("y", F, ["n"])])
    return m, {"data": {"all": f32([1, 2])},
               "repeats": {"good": i64([2]), "negative": i64([-1])}}


@case
def pad():
    m = model([helper.make_node("Pad", ["data", "pads"], ["y"], name="pad")],
              [vi("data", F, [3]), vi("pads", I64, [2])], [vi("y", F, ["n"])])
    return m, {"data": {"all": f32([1, 2, 3])},
               "pads": {"good": i64([1, -1]), "negative": i64([-2, -2])}}


@case
def constant_of_shape():
    m = model([helper.make_node("ConstantOfShape", ["shape"], ["y"], name="cos",
                                value=helper.make_tensor("v", F, [1], [7.0]))],
              [vi("shape", I64, [2])], [vi("y", F, ["a", "b"])])
    return m, {"shape": {"good": i64([2, 2]), "negative": i64([2, -3]),
                         "overflow": i64([2**40, 2**40]), "huge": i64([2**20, 2**22])}}


@case
def topk():
    m = model([helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk")],
              [vi("x", F, ["n"]), vi("k", I64, [1])], [vi("v", F, ["k"]), vi("i", I64, ["k"])])
    return m, {"x": {"all": f32([3, 1, 4, 1, 5])}, "k": {"good": i64([2]), "big": i64([7])}}


@case
def onehot():
    m = model([helper.make_node("OneHot", ["indices", "depth", "values"], ["y"], name="onehot")],
              [vi("indices", I64, [2]), vi("depth", I64, []), vi("values", F, [2])],
              [vi("y", F, [2, "d"])])
    return m, {"indices": {"all": i64([0, 2])}, "depth": {"good": i64(3), "negative": i64(-1)},
               "values": {"all": f32([0, 1])}}


@case
def reverse_sequence():
    m = model([helper.make_node("ReverseSequence", ["x", "lens"], ["y"], name="revseq",
                                batch_axis=1, time_axis=0)],
              [vi("x", F, [3, 2]), vi("lens", I64, ["b"])], [vi("y", F, [3, 2])])
    return m, {"x": {"all": f32(np.arange(6).reshape(3, 2))},
               "lens": {"good": i64([3, 1]), "long": i64([4, 1]), "count": i64([1, 1, 1])}}


@case
def declared():
    # The graph declares z as [3]; the input's N decides at run time.
    m = model([helper.make_node("Identity", ["x"], ["z"], name="identity")],
              [vi("x", F, ["N"])], [vi("z", F, [3])])
    return m, {"x": {"good": f32([-1, 0, 2]), "bad": f32([1, 2, 3, 4])}}


@case
def parallel():
    # Tiles that onnxc-outline-parallel-loops spreads over the thread pool:
    # a 3x3 conv (blocks of filters x positions), a depthwise conv, and a
    # MatMul with a weight (cache tiles).
    rng = np.random.default_rng(0)
    w = helper.make_tensor("w", F, [128, 8, 3, 3],
                           rng.standard_normal((128, 8, 3, 3)).astype(np.float32).ravel())
    b = helper.make_tensor("b", F, [128], rng.standard_normal(128).astype(np.float32))
    dw = helper.make_tensor("dw", F, [128, 1, 3, 3],
                            rng.standard_normal((128, 1, 3, 3)).astype(np.float32).ravel())
    mw = helper.make_tensor("mw", F, [40, 96],
                            rng.standard_normal((40, 96)).astype(np.float32).ravel())
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Conv", ["r", "dw"], ["d"], name="dwconv", group=128,
                         pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Reshape", ["d", "shape"], ["flat"], name="reshape"),
        helper.make_node("MatMul", ["flat", "mw"], ["y"], name="matmul"),
    ]
    shape = helper.make_tensor("shape", I64, [2], [1280, 40])
    graph = helper.make_graph(nodes, "g", [vi("x", F, [1, 8, 40, 40])],
                              [vi("y", F, [1280, 96])], [w, b, dw, mw, shape])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m, {}


@case
def weights():
    # Weights of several shapes and element types, each read whole: a large
    # f32 one (a dense_resource blob), a small f32 one (a dense attribute),
    # an int32 one and an f64 one. Y* are their sums with the inputs, so a
    # weight stored in the wrong byte order or shape changes the output.
    rng = np.random.default_rng(1)
    big = rng.standard_normal((4, 8, 16)).astype(np.float32)
    small = rng.standard_normal((8, 16)).astype(np.float32)
    ints = rng.integers(-1000, 1000, (3, 5)).astype(np.int32)
    dbl = rng.standard_normal((2, 3, 2))
    from onnx import numpy_helper
    inits = [numpy_helper.from_array(big, "big"), numpy_helper.from_array(small, "small"),
             numpy_helper.from_array(ints, "ints"), numpy_helper.from_array(dbl, "dbl")]
    nodes = [helper.make_node("Add", ["x", "big"], ["t"], name="add_big"),
             helper.make_node("Add", ["t", "small"], ["y"], name="add_small"),
             helper.make_node("Add", ["n", "ints"], ["yi"], name="add_ints"),
             helper.make_node("Add", ["d", "dbl"], ["yd"], name="add_dbl")]
    graph = helper.make_graph(
        nodes, "g", [vi("x", F, [4, 8, 16]), vi("n", TensorProto.INT32, [3, 5]),
                     vi("d", TensorProto.DOUBLE, [2, 3, 2])],
        [vi("y", F, [4, 8, 16]), vi("yi", TensorProto.INT32, [3, 5]),
         vi("yd", TensorProto.DOUBLE, [2, 3, 2])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    x = rng.standard_normal((4, 8, 16)).astype(np.float32)
    n = rng.integers(-1000, 1000, (3, 5)).astype(np.int32)
    d = rng.standard_normal((2, 3, 2))
    return m, {"x": {"in": x}, "n": {"in": n}, "d": {"in": d},
               "y": {"expected": x + big + small}, "yi": {"expected": n + ints},
               "yd": {"expected": d + dbl}}


@case
def api():
    # For Inputs/api_test.c: Z = X + Y, X and Y float[N,3].
    m = model([helper.make_node("Add", ["X", "Y"], ["Z"], name="add")],
              [vi("X", F, ["N", 3]), vi("Y", F, ["N", 3])], [vi("Z", F, ["N", 3])])
    return m, {}


@case
def tfidf():
    # 4 unigrams, 2 bigrams; TFIDF: count * weight per column.
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], name="tfidf", mode="TFIDF",
                            min_gram_length=1, max_gram_length=2, max_skip_count=0,
                            pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8], ngram_counts=[0, 4],
                            ngram_indexes=[0, 1, 2, 3, 4, 5], weights=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    m = model([node], [vi("x", I64, [6])], [vi("y", F, [6])])
    return m, {"x": {"good": i64([2, 3, 5, 5, 6, 4])}}


@case
def tfidf_idf():
    # IDF without weights: 1 where the n-gram occurs; skips up to 1.
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], name="idf", mode="IDF",
                            min_gram_length=2, max_gram_length=2, max_skip_count=1,
                            pool_int64s=[1, 2, 1, 3, 2, 2], ngram_counts=[0, 0],
                            ngram_indexes=[0, 1, 2])
    m = model([node], [vi("x", I64, [2, 3])], [vi("y", F, [2, 3])])
    return m, {"x": {"good": i64([[1, 0, 3], [2, 1, 2]])}}


@case
def nms():
    node = helper.make_node("NonMaxSuppression", ["boxes", "scores", "max"], ["y"], name="nms")
    m = model([node], [vi("boxes", F, [1, "n", 4]), vi("scores", F, [1, 1, "m"]),
                       vi("max", I64, [1])], [vi("y", I64, ["k", 3])])
    boxes = f32([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]])
    return m, {"boxes": {"all": boxes}, "scores": {"good": f32([[[0.5, 0.9, 0.7]]]),
                                                   "short": f32([[[0.5, 0.9]]])},
               "max": {"all": i64([3])}}


@case
def unique():
    node = helper.make_node("Unique", ["x"], ["y", "idx", "inv", "counts"], name="unique")
    m = model([node], [vi("x", F, ["n"])],
              [vi("y", F, ["u"]), vi("idx", I64, ["u"]), vi("inv", I64, ["n"]),
               vi("counts", I64, ["u"])])
    return m, {"x": {"good": f32([np.nan, 1, np.nan, 0, 1])}}


@case
def random():
    # Seeded draws (and one unseeded), large enough for their statistics.
    B = TensorProto.BOOL
    nodes = [helper.make_node("RandomUniform", [], ["u"], shape=[1000, 100], low=-2.0, high=3.0,
                              seed=1.0),
             helper.make_node("RandomNormal", [], ["n"], shape=[1000, 100], mean=1.0, scale=2.0),
             helper.make_node("Bernoulli", ["p"], ["b"], seed=3.0),
             helper.make_node("Multinomial", ["logits"], ["m"], sample_size=20000, seed=2.0),
             helper.make_node("Dropout", ["x", "r", "t"], ["d", "mask"], seed=5)]
    m = model(nodes, [vi("p", F, [1000, 100]), vi("logits", F, [1, 3]), vi("x", F, [1000, 100]),
                      vi("r", F, []), vi("t", B, [])],
              [vi("u", F, None), vi("n", F, None), vi("b", F, None),
               vi("m", TensorProto.INT32, None), vi("d", F, None), vi("mask", B, None)], opset=15)
    return m, {"p": {"all": f32(np.full((1000, 100), 0.3))},
               "logits": {"all": f32(np.log([[0.2, 0.5, 0.3]]))},
               "x": {"all": f32(np.ones((1000, 100)))},
               "r": {"quarter": f32(0.25), "zero": f32(0.0)},
               "t": {"on": np.array(True), "off": np.array(False)}}


def main():
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    m, inputs = CASES[name]()
    save(m, os.path.join(out, "model.onnx"))
    for input_name, variants in inputs.items():
        for variant, value in variants.items():
            np.save(os.path.join(out, "%s_%s.npy" % (input_name, variant)), value)


if __name__ == "__main__":
    main()
