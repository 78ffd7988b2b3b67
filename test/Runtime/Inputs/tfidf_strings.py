"""TfIdfVectorizer on string tokens, checked against the same model on
integer tokens (the suites' case): each case is written twice, with
pool_strings and string tokens, and with pool_int64s and the tokens' ids
(a word outside the pool gets an id no pool entry has), both with their
input as a backend-test data set.

  tfidf_strings.py OUT  ->  OUT/<case>_{str,int}.onnx, OUT/<case>_{str,int}/input_0.pb
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "", "é"]
rng = np.random.default_rng(7)

# (name, shape, mode, min, max, skip, pool n-grams as words, weights)
unigrams = [["cat"], ["mat"], ["dog"], ["é"], [""]]
bigrams = [["the", "cat"], ["cat", "sat"], ["on", "the"], ["the", "mat"]]
CASES = [
    ("tf_uni_bi_batch", [3, 8], "TF", 1, 2, 0, unigrams + bigrams, None),
    ("tfidf_skip2_batch", [2, 10], "TFIDF", 1, 2, 2, unigrams + bigrams,
     [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5]),
    ("idf_bigrams_only", [12], "IDF", 2, 2, 1, unigrams + bigrams,
     [1.0, 1.0, 1.0, 1.0, 1.0, 0.25, 0.5, 0.75, 1.25]),
    ("tf_trigram", [16], "TF", 3, 3, 0,
     unigrams + bigrams + [["the", "cat", "sat"], ["sat", "on", "the"]], None),
]

for name, shape, mode, lo, hi, skip, grams, weights in CASES:
    counts, pool = [], []
    by_length = {}
    for g in grams:
        by_length.setdefault(len(g), []).append(g)
    for n in range(1, max(by_length) + 1):
        counts.append(len(pool))
        for g in by_length.get(n, []):
            pool += g
    ngrams = sum(len(v) for v in by_length.values())
    indexes = list(range(ngrams))
    ids = {w: i for i, w in enumerate(sorted(set(WORDS)))}
    tokens = rng.choice(WORDS + ["zebra"], size=shape)
    for kind in ("str", "int"):
        attrs = dict(mode=mode, min_gram_length=lo, max_gram_length=hi,
                     max_skip_count=skip, ngram_counts=counts, ngram_indexes=indexes)
        if weights:
            attrs["weights"] = weights
        if kind == "str":
            attrs["pool_strings"] = pool
            elem = TensorProto.STRING
        else:
            attrs["pool_int64s"] = [ids[w] for w in pool]
            x = np.array([ids.get(w, 1000) for w in tokens.flat],
                         dtype=np.int64).reshape(shape)
            elem = TensorProto.INT64
        node = helper.make_node("TfIdfVectorizer", ["X"], ["Y"], name="tfidf", **attrs)
        out_shape = shape[:-1] + [ngrams]
        graph = helper.make_graph(
            [node], name,
            [helper.make_tensor_value_info("X", elem, shape)],
            [helper.make_tensor_value_info("Y", TensorProto.FLOAT, out_shape)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])
        model.ir_version = 8
        onnx.save(model, os.path.join(out, "%s_%s.onnx" % (name, kind)))
        ds = os.path.join(out, "%s_%s" % (name, kind))
        os.makedirs(ds, exist_ok=True)
        t = numpy_helper.from_array(x, "X") if kind == "int" else \
            helper.make_tensor("X", TensorProto.STRING, shape,
                               [w.encode("utf-8") for w in tokens.flat])
        with open(os.path.join(ds, "input_0.pb"), "wb") as f:
            f.write(t.SerializeToString())
