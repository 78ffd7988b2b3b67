"""Tree-ensemble cases for test/Runtime/trees-sklearn.test: trains
scikit-learn models on generated data and writes each, as skl2onnx would
(its TreeEnsembleRegressor/Classifier attributes, without ZipMap; written
here with onnx.helper), to OUT/<case>/model.onnx with
OUT/<case>/test_data_set_0/{input_0,output_K}.pb: the expected outputs are
scikit-learn's predict / predict_proba, or, for what scikit-learn has no
model of (NaN inputs with missing-value tracks set by hand, MIN/MAX,
PROBIT, SOFTMAX_ZERO), a walk of the same trees in numpy as ONNX Runtime
does it. One model is written as TreeEnsemble-5 (ai.onnx.ml opset 5).

usage: tree_cases.py OUT   (prints the case names)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from sklearn.ensemble import (GradientBoostingClassifier,
                              GradientBoostingRegressor,
                              RandomForestClassifier, RandomForestRegressor)
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

OUT = sys.argv[1]
ROWS = 40
rng = np.random.RandomState(7)


def data(n, f, dtype=np.float32):
    return (rng.randn(n, f) * 2).astype(np.float32).astype(dtype)


def f32_threshold(th):
    """scikit-learn compares float32(x) <= th (a double): the largest float
    at or below th gives the same answers in float."""
    fy = np.float32(th)
    if float(fy) > th:
        fy = np.nextafter(fy, np.float32(-np.inf), dtype=np.float32)
    return float(fy)


def add_tree(attrs, prefix, tree, tree_id, weight_fn, float_thresholds=True,
             tracks=None):
    """Appends the nodes of a fitted sklearn tree; weight_fn(node) gives the
    leaf's [(id, weight)] votes."""
    t = tree.tree_ if hasattr(tree, "tree_") else tree
    for i in range(t.node_count):
        leaf = t.children_left[i] == -1
        attrs["nodes_treeids"].append(tree_id)
        attrs["nodes_nodeids"].append(i)
        attrs["nodes_featureids"].append(0 if leaf else int(t.feature[i]))
        attrs["nodes_modes"].append("LEAF" if leaf else "BRANCH_LEQ")
        th = 0.0 if leaf else float(t.threshold[i])
        attrs["nodes_values"].append(f32_threshold(th) if float_thresholds
                                     else th)
        attrs["nodes_truenodeids"].append(0 if leaf else int(t.children_left[i]))
        attrs["nodes_falsenodeids"].append(
            0 if leaf else int(t.children_right[i]))
        attrs["nodes_missing_value_tracks_true"].append(
            0 if tracks is None else tracks(tree_id, i, leaf))
        attrs["nodes_hitrates"].append(1.0)
        if leaf:
            for cid, w in weight_fn(t, i):
                attrs[prefix + "treeids"].append(tree_id)
                attrs[prefix + "nodeids"].append(i)
                attrs[prefix + "ids"].append(int(cid))
                attrs[prefix + "weights"].append(float(w))


def empty_attrs(prefix):
    keys = ["nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes",
            "nodes_values", "nodes_truenodeids", "nodes_falsenodeids",
            "nodes_missing_value_tracks_true", "nodes_hitrates"]
    keys += [prefix + k for k in ["treeids", "nodeids", "ids", "weights"]]
    return {k: [] for k in keys}


def save(name, node, x, outputs, out_infos, ml_opset=3, width=None):
    node.name = name
    d = os.path.join(OUT, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    elem = helper.np_dtype_to_tensor_dtype(x.dtype) if hasattr(
        helper, "np_dtype_to_tensor_dtype") else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[x.dtype]
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info(
            "input", elem, ["N", width if width is not None else x.shape[1]])],
        out_infos)
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", ml_opset)])
    model.ir_version = 8
    onnx.save(model, os.path.join(d, "model.onnx"))
    with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "input").SerializeToString())
    for k, (oname, v) in enumerate(outputs):
        with open(os.path.join(d, "test_data_set_0", "output_%d.pb" % k),
                  "wb") as f:
            f.write(numpy_helper.from_array(v, oname).SerializeToString())
    print(name)


def regressor(name, attrs, x, y, n_targets, width=None, **extra):
    attrs = dict(attrs)
    attrs.update(extra)
    node = helper.make_node("TreeEnsembleRegressor", ["input"], ["variable"],
                            domain="ai.onnx.ml", n_targets=n_targets, **attrs)
    outputs = [] if y is None else [
        ("variable", y.astype(np.float32).reshape(len(x), -1))]
    save(name, node, x, outputs,
         [helper.make_tensor_value_info("variable", TensorProto.FLOAT,
                                        ["N", n_targets])], width=width)


def classifier(name, attrs, x, labels, label, proba, **extra):
    # Rows whose two best classes are (nearly) tied could go either way.
    top = np.sort(proba, axis=1)
    keep = top[:, -1] - top[:, -2] > 1e-5
    x, label, proba = x[keep], label[keep], proba[keep]
    attrs = dict(attrs)
    attrs.update(extra)
    strings = labels.dtype.kind in "UO"
    if strings:
        attrs["classlabels_strings"] = [str(c) for c in labels]
    else:
        attrs["classlabels_int64s"] = [int(c) for c in labels]
    node = helper.make_node("TreeEnsembleClassifier", ["input"],
                            ["label", "probabilities"], domain="ai.onnx.ml",
                            **attrs)
    label = (label.astype(object) if strings else label.astype(np.int64))
    save(name, node, x,
         [("label", label), ("probabilities", proba.astype(np.float32))],
         [helper.make_tensor_value_info(
             "label", TensorProto.STRING if strings else TensorProto.INT64,
             ["N"]),
          helper.make_tensor_value_info("probabilities", TensorProto.FLOAT,
                                        ["N", len(labels)])])


def value_votes(scale=1.0, target_ids=None):
    """Regression leaves: tree.value[node] (one value per output)."""
    def votes(t, i):
        v = t.value[i].reshape(-1) * scale
        return [(k if target_ids is None else target_ids[k], w)
                for k, w in enumerate(v)]
    return votes


def proba_votes(scale, binary):
    """Classification leaves: class frequencies; skl2onnx keeps only class
    1's for two classes, as class id 0."""
    def votes(t, i):
        v = t.value[i].reshape(-1)
        v = v / v.sum() * scale
        return [(0, v[1])] if binary else list(enumerate(v))
    return votes


# --- regressors -----------------------------------------------------------
x_train = data(300, 5)
y_train = x_train[:, 0] * 2 + np.sin(x_train[:, 1]) * 3 - x_train[:, 2] ** 2
x_test = data(ROWS, 5)

dt = DecisionTreeRegressor(max_depth=6, random_state=0).fit(x_train, y_train)
a = empty_attrs("target_")
add_tree(a, "target_", dt, 0, value_votes())
regressor("dt_regressor", a, x_test, dt.predict(x_test), 1)
# X's width unknown at compile time: 4 columns where the tree reads feature
# 4 are refused at run time.
assert max(a["nodes_featureids"]) == 4
regressor("narrow_input", a, x_test[:, :4], None, 1, width="F")

rf = RandomForestRegressor(n_estimators=8, max_depth=5,
                           random_state=0).fit(x_train, y_train)
a = empty_attrs("target_")
for t, est in enumerate(rf.estimators_):
    add_tree(a, "target_", est, t, value_votes(1.0 / len(rf.estimators_)))
regressor("rf_regressor", a, x_test, rf.predict(x_test), 1)
# The same forest averaged by the operator.
a = empty_attrs("target_")
for t, est in enumerate(rf.estimators_):
    add_tree(a, "target_", est, t, value_votes())
regressor("rf_regressor_average", a, x_test, rf.predict(x_test), 1,
          aggregate_function="AVERAGE")

gb = GradientBoostingRegressor(n_estimators=25, max_depth=3, learning_rate=0.2,
                               random_state=0).fit(x_train, y_train)
a = empty_attrs("target_")
for t, est in enumerate(gb.estimators_[:, 0]):
    add_tree(a, "target_", est, t, value_votes(gb.learning_rate))
regressor("gb_regressor", a, x_test, gb.predict(x_test), 1,
          base_values=[float(gb.init_.constant_.reshape(-1)[0])])

y_multi = np.stack([y_train, x_train[:, 3] - x_train[:, 4],
                    np.abs(x_train[:, 0])], axis=1)
rfm = RandomForestRegressor(n_estimators=4, max_depth=4,
                            random_state=0).fit(x_train, y_multi)
a = empty_attrs("target_")
for t, est in enumerate(rfm.estimators_):
    add_tree(a, "target_", est, t, value_votes(1.0 / len(rfm.estimators_)))
regressor("multi_target_regressor", a, x_test, rfm.predict(x_test), 3)


# --- NaNs and missing-value tracks (set by hand), in double -----------------
def walk(t, row, track):
    i = 0
    while t.children_left[i] != -1:
        v = row[t.feature[i]]
        left = track(i) if np.isnan(v) else np.float32(v) <= t.threshold[i]
        i = t.children_left[i] if left else t.children_right[i]
    return i


x_nan = data(ROWS, 5, np.float64)
x_nan[rng.rand(*x_nan.shape) < 0.25] = np.nan
def track(tree_id, i, leaf=False):
    return 0 if leaf else int((i * 7 + tree_id) % 3 == 0)
a = empty_attrs("target_")
for t, est in enumerate(rf.estimators_[:3]):
    add_tree(a, "target_", est, t, value_votes(), float_thresholds=False,
             tracks=track)
expected = np.zeros(ROWS)
for t, est in enumerate(rf.estimators_[:3]):
    tr = est.tree_
    for r in range(ROWS):
        expected[r] += tr.value[walk(tr, x_nan[r], lambda i: track(t, i))][0, 0]
x_clean = np.nan_to_num(x_nan[:3])
assert np.allclose(
    sum(e.predict(x_clean) for e in rf.estimators_[:3]),
    [sum(est.tree_.value[walk(est.tree_, row, lambda i: 0)][0, 0]
         for est in rf.estimators_[:3]) for row in x_clean])
values = a.pop("nodes_values")
weights = a.pop("target_weights")
regressor("missing_tracks_double", a, x_nan, expected + 0.25, 1,
          nodes_values_as_tensor=numpy_helper.from_array(
              np.array(values, np.float64)),
          target_weights_as_tensor=numpy_helper.from_array(
              np.array(weights, np.float64)),
          base_values_as_tensor=numpy_helper.from_array(
              np.array([0.25], np.float64)))


# --- MIN / MAX and the other transforms (numpy, as ONNX Runtime) ------------
def leaves_of(trees, x):
    return [[est.tree_.value[walk(est.tree_, row, lambda i: 0)].reshape(-1)
             for est in trees] for row in x]


def probit(p):
    x = 2 * p - 1
    sgn = np.where(x < 0, -1.0, 1.0)
    w = (1 - x) * (1 + x)
    lg = np.log(w)
    v = 2 / (np.pi * 0.147) + 0.5 * lg
    return np.sqrt(2) * sgn * np.sqrt(-v + np.sqrt(v * v - lg / 0.147))


def softmax_zero(s):
    m = s.max(axis=1, keepdims=True)
    nz = np.abs(s) > 1e-7
    e = np.where(nz, np.exp(s - m), s * np.exp(-m))
    return e / np.where(nz, e, 0).sum(axis=1, keepdims=True)


trees = rfm.estimators_
lv = np.array(leaves_of(trees, x_test))  # rows x trees x targets
a = empty_attrs("target_")
for t, est in enumerate(trees):
    # Trees 0 and 1 vote for targets 0 and 1 only, the others for 2 only:
    # each target has trees without a vote.
    ids = [0, 1, None] if t < 2 else [None, None, 2]
    def votes(tr, i, ids=ids):
        v = tr.value[i].reshape(-1)
        return [(ids[k], v[k]) for k in range(3) if ids[k] is not None]
    add_tree(a, "target_", est, t, votes)
mask = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 1]], bool)
mx = np.where(mask, lv, -np.inf).max(axis=1)
mn = np.where(mask, lv, np.inf).min(axis=1)
base = np.array([0.5, -1.0, 0.25])
regressor("max_softmax_zero", a, x_test, softmax_zero(mx + base) , 3,
          aggregate_function="MAX", post_transform="SOFTMAX_ZERO",
          base_values=list(base))
sig = 1 / (1 + np.exp(-(mn + base)))
regressor("min_logistic", a, x_test, sig, 3, aggregate_function="MIN",
          post_transform="LOGISTIC", base_values=list(base))
# PROBIT of values in (0, 1): one tree of class frequencies.
dtc = DecisionTreeClassifier(max_depth=4, random_state=0).fit(
    x_train, (y_train > 0).astype(int))
a = empty_attrs("target_")
add_tree(a, "target_", dtc, 0,
         lambda t, i: [(0, 0.05 + 0.9 * t.value[i][0][1] / t.value[i][0].sum())])
p = 0.05 + 0.9 * dtc.predict_proba(x_test)[:, 1]
regressor("probit", a, x_test, probit(p), 1, post_transform="PROBIT")


# --- classifiers -------------------------------------------------------------
xc_train = data(400, 6)
score = xc_train[:, 0] + xc_train[:, 1] * xc_train[:, 2] - xc_train[:, 3]
yb = (score > 0).astype(np.int64)
y3 = np.digitize(score, [-1.0, 1.0])
xc_test = data(ROWS, 6)

dtb = DecisionTreeClassifier(max_depth=5, random_state=0).fit(xc_train, yb)
a = empty_attrs("class_")
add_tree(a, "class_", dtb, 0, proba_votes(1.0, True))
classifier("dt_binary", a, xc_test, dtb.classes_, dtb.predict(xc_test),
           dtb.predict_proba(xc_test))

names = np.array(["neg", "pos"])
rfb = RandomForestClassifier(n_estimators=7, max_depth=5,
                             random_state=0).fit(xc_train, names[yb])
a = empty_attrs("class_")
for t, est in enumerate(rfb.estimators_):
    add_tree(a, "class_", est, t, proba_votes(1.0 / 7, True))
classifier("rf_binary_strings", a, xc_test, rfb.classes_,
           rfb.predict(xc_test), rfb.predict_proba(xc_test))

labels3 = np.array([3, 5, 7])
rf3 = RandomForestClassifier(n_estimators=6, max_depth=6,
                             random_state=0).fit(xc_train, labels3[y3])
a = empty_attrs("class_")
for t, est in enumerate(rf3.estimators_):
    add_tree(a, "class_", est, t, proba_votes(1.0 / 6, False))
classifier("rf_multiclass", a, xc_test, rf3.classes_, rf3.predict(xc_test),
           rf3.predict_proba(xc_test))

dt3 = DecisionTreeClassifier(max_depth=6, random_state=0).fit(
    xc_train, np.array(["a", "b", "c"])[y3])
a = empty_attrs("class_")
add_tree(a, "class_", dt3, 0, proba_votes(1.0, False))
classifier("dt_multiclass_strings", a, xc_test, dt3.classes_,
           dt3.predict(xc_test), dt3.predict_proba(xc_test))

gbb = GradientBoostingClassifier(n_estimators=20, max_depth=3,
                                 random_state=0).fit(xc_train, yb)
a = empty_attrs("class_")
for t, est in enumerate(gbb.estimators_[:, 0]):
    add_tree(a, "class_", est, t,
             lambda tr, i: [(0, gbb.learning_rate * tr.value[i][0][0])])
classifier("gb_binary_logistic", a, xc_test, gbb.classes_,
           gbb.predict(xc_test), gbb.predict_proba(xc_test),
           post_transform="LOGISTIC",
           base_values=[float(gbb._raw_predict_init(xc_test[:1])[0, 0])])

gb3 = GradientBoostingClassifier(n_estimators=10, max_depth=3,
                                 random_state=0).fit(xc_train, y3)
a = empty_attrs("class_")
tid = 0
for i in range(gb3.estimators_.shape[0]):
    for k in range(3):
        add_tree(a, "class_", gb3.estimators_[i, k], tid,
                 lambda tr, n, k=k: [(k, gb3.learning_rate * tr.value[n][0][0])])
        tid += 1
classifier("gb_multiclass_softmax", a, xc_test, gb3.classes_,
           gb3.predict(xc_test), gb3.predict_proba(xc_test),
           post_transform="SOFTMAX",
           base_values=[float(v) for v in gb3._raw_predict_init(xc_test[:1])[0]])

# Integer features (int64 input): thresholds fall between integers.
xi_train = rng.randint(-5, 6, size=(300, 4)).astype(np.int64)
xi_test = rng.randint(-5, 6, size=(ROWS, 4)).astype(np.int64)
yi = ((xi_train[:, 0] + xi_train[:, 1] * xi_train[:, 2]) > 1).astype(np.int64)
dti = DecisionTreeClassifier(max_depth=5, random_state=0).fit(xi_train, yi)
a = empty_attrs("class_")
add_tree(a, "class_", dti, 0, proba_votes(1.0, True))
classifier("dt_binary_int64_input", a, xi_test, dti.classes_,
           dti.predict(xi_test), dti.predict_proba(xi_test))


# --- TreeEnsemble-5: the gradient-boosted regressor, its initial value a
# tree of one leaf ------------------------------------------------------------
nodes = {k: [] for k in ["featureids", "splits", "modes", "truenodeids",
                         "falsenodeids", "trueleafs", "falseleafs"]}
leaf_w, roots = [], []
for est in gb.estimators_[:, 0]:
    t = est.tree_
    base_node = len(nodes["featureids"])
    assert t.node_count > 1
    interior = [i for i in range(t.node_count) if t.children_left[i] != -1]
    index = {i: base_node + k for k, i in enumerate(interior)}
    leaf_index = {}
    for i in range(t.node_count):
        if t.children_left[i] == -1:
            leaf_index[i] = len(leaf_w) + len(leaf_index)
    for i in interior:
        nodes["featureids"].append(int(t.feature[i]))
        nodes["splits"].append(f32_threshold(float(t.threshold[i])))
        nodes["modes"].append(0)
        for side, child in (("true", t.children_left[i]),
                            ("false", t.children_right[i])):
            is_leaf = t.children_left[child] == -1
            nodes[side + "nodeids"].append(
                leaf_index[child] if is_leaf else index[child])
            nodes[side + "leafs"].append(int(is_leaf))
    leaf_w += [gb.learning_rate * t.value[i][0][0] for i in sorted(leaf_index)]
    roots.append(base_node)
# The initial value: a root whose two branches are the same leaf.
roots.append(len(nodes["featureids"]))
nodes["featureids"].append(0)
nodes["splits"].append(0.0)
nodes["modes"].append(0)
nodes["truenodeids"].append(len(leaf_w))
nodes["falsenodeids"].append(len(leaf_w))
nodes["trueleafs"].append(1)
nodes["falseleafs"].append(1)
leaf_w.append(float(gb.init_.constant_.reshape(-1)[0]))
node = helper.make_node(
    "TreeEnsemble", ["input"], ["variable"], domain="ai.onnx.ml",
    n_targets=1, aggregate_function=1, post_transform=0, tree_roots=roots,
    nodes_featureids=nodes["featureids"],
    nodes_splits=numpy_helper.from_array(np.array(nodes["splits"], np.float32)),
    nodes_modes=numpy_helper.from_array(np.array(nodes["modes"], np.uint8)),
    nodes_truenodeids=nodes["truenodeids"],
    nodes_falsenodeids=nodes["falsenodeids"],
    nodes_trueleafs=nodes["trueleafs"], nodes_falseleafs=nodes["falseleafs"],
    leaf_targetids=[0] * len(leaf_w),
    leaf_weights=numpy_helper.from_array(np.array(leaf_w, np.float32)))
save("tree_ensemble5_gb_regressor", node, x_test,
     [("variable", gb.predict(x_test).astype(np.float32).reshape(-1, 1))],
     [helper.make_tensor_value_info("variable", TensorProto.FLOAT, ["N", 1])],
     ml_opset=5)
