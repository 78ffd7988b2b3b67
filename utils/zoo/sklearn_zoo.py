#!/usr/bin/python3
"""scikit-learn pipelines as ONNX, laid out the way skl2onnx writes them.

Each entry of MODELS trains a small pipeline on a seeded generated data set
(sklearn.datasets.make_classification / make_regression) and converts it
with this file's own converters (onnx.helper only; no skl2onnx): the
ai.onnx.ml operators Scaler, Normalizer, Imputer, OneHotEncoder,
ArrayFeatureExtractor, LinearClassifier, LinearRegressor, SVMClassifier,
SVMRegressor, TreeEnsembleClassifier, TreeEnsembleRegressor and ZipMap, and
ai.onnx MatMul/Add/Sub/Relu/Softmax/ArgMax/Concat/Cast/Reshape.

    MODELS: list of SklearnModel, each with
        name, rtol, atol              (float outputs; int outputs exactly)
        build(seed) -> (onnx.ModelProto, inputs: {name: ndarray},
                        expected: {output name: ndarray or list of dicts})
    expected comes from scikit-learn itself (predict / predict_proba /
    decision_function / transform).

Classifiers have the outputs `label` (int64 [N]) and `probabilities`
(float [N, C], skl2onnx's zipmap=False); `logreg_zipmap` keeps skl2onnx's
default ZipMap (`output_probability`, a sequence of int64->float maps;
onnxruntime-node returns no non-tensor output, so ORT checks its label only
and the maps are checked by onnxc-run alone).
Regressors have `variable` (float [N, 1]).

    /usr/bin/python3 utils/zoo/sklearn_zoo.py [--out DIR] [--onnxc] [--only NAME]

checks every model against scikit-learn in ONNX Runtime, writes each in the
backend-test layout (DIR/NAME/model.onnx, test_data_set_0/; default
build/zoo/sklearn) and, with --onnxc, compiles and runs it with
build/bin/onnxc and onnxc-run --expected-dir.  Prints `N passed, M failed`.
"""

import argparse
import os
import subprocess
import sys
import time
import traceback

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from derived import ROOT, ort_run, write_test_dir  # noqa: E402,F401

OPSET = 15          # ai.onnx
ML_OPSET = 3        # ai.onnx.ml
ML = "ai.onnx.ml"
N_TEST = 20


# --------------------------------------------------------------------------
# graph building
# --------------------------------------------------------------------------

class Graph:
    """Nodes, initializers and outputs of one converted pipeline."""

    def __init__(self, name, n_features, input_name="input"):
        self.name = name
        self.nodes, self.inits, self.outputs = [], [], []
        self.counter = {}
        self.input = helper.make_tensor_value_info(input_name, TensorProto.FLOAT,
                                                   [None, n_features])

    def fresh(self, base):
        k = self.counter.get(base, 0)
        self.counter[base] = k + 1
        return base if k == 0 else "%s%d" % (base, k)

    def const(self, base, arr):
        name = self.fresh(base)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(self, op, inputs, n_out=1, outputs=None, domain="", base=None, **attrs):
        base = base or op
        outs = outputs or [self.fresh(base.lower() + "_output") for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=self.fresh(base),
                                           domain=domain, **attrs))
        return outs if len(outs) > 1 else outs[0]

    def output(self, name, elem_type, shape):
        self.outputs.append(helper.make_tensor_value_info(name, elem_type, shape))

    def model(self):
        g = helper.make_graph(self.nodes, self.name, [self.input], self.outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET),
                                                helper.make_opsetid(ML, ML_OPSET)],
                              producer_name="onnxc-sklearn-zoo")
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def f32(a):
    return [float(x) for x in np.asarray(a, np.float64).ravel()]


# ---- transformers ----

def conv_standard_scaler(g, x, sc):
    return g.node("Scaler", [x], domain=ML, offset=f32(sc.mean_),
                  scale=f32(1.0 / sc.scale_))


def conv_minmax_scaler(g, x, sc):
    # X * scale_ + min_  ==  (X - (-min_ / scale_)) * scale_
    return g.node("Scaler", [x], domain=ML, offset=f32(-sc.min_ / sc.scale_),
                  scale=f32(sc.scale_))


def conv_normalizer(g, x, nz):
    return g.node("Normalizer", [x], domain=ML, norm=nz.norm.upper())


def conv_imputer(g, x, imp):
    return g.node("Imputer", [x], domain=ML, imputed_value_floats=f32(imp.statistics_),
                  replaced_value_float=float("nan"))


def conv_pca(g, x, pca):
    centered = g.node("Sub", [x, g.const("mean", pca.mean_.astype(np.float32))])
    return g.node("MatMul", [centered, g.const("transform_matrix",
                                               pca.components_.T.astype(np.float32))])


def conv_column_transformer(g, x, num_cols, scaler, cat_cols, encoder):
    """ArrayFeatureExtractor per block, Scaler on the numeric columns,
    Cast + OneHotEncoder + Reshape per categorical column, Concat."""
    parts = []
    idx = g.const("num_columns", np.array(num_cols, np.int64))
    num = g.node("ArrayFeatureExtractor", [x, idx], domain=ML)
    parts.append(conv_standard_scaler(g, num, scaler))
    for j, col in enumerate(cat_cols):
        c = g.node("ArrayFeatureExtractor", [x, g.const("cat_column", np.array([col], np.int64))],
                   domain=ML)
        ci = g.node("Cast", [c], to=TensorProto.INT64)
        cats = [int(v) for v in encoder.categories_[j]]
        oh = g.node("OneHotEncoder", [ci], domain=ML, cats_int64s=cats, zeros=1)
        parts.append(g.node("Reshape", [oh, g.const("shape", np.array([-1, len(cats)], np.int64))]))
    return g.node("Concat", parts, axis=1)


# ---- predictors ----

def _label_proba_outputs(g, n_classes):
    g.output("label", TensorProto.INT64, [None])
    g.output("probabilities", TensorProto.FLOAT, [None, n_classes])


def conv_linear_classifier(g, x, clf, post="auto", zipmap=False):
    classes = [int(c) for c in clf.classes_]
    coef, icpt = clf.coef_, np.atleast_1d(clf.intercept_)
    if len(classes) == 2:
        coef = np.vstack([-coef, coef])
        icpt = np.concatenate([-icpt, icpt])
    if post == "auto":
        post = "LOGISTIC" if len(classes) == 2 or getattr(clf, "multi_class", "") == "ovr" \
            else "SOFTMAX"
    scores = "probability_tensor" if post != "NONE" else "probabilities"
    outs = ["label", scores]
    g.node("LinearClassifier", [x], outputs=outs, domain=ML, classlabels_ints=classes,
           coefficients=f32(coef), intercepts=f32(icpt), multi_class=0,
           post_transform=post)
    if post != "NONE":
        prob = "probabilities" if not zipmap else g.fresh("probabilities")
        g.node("Normalizer", [scores], outputs=[prob], domain=ML, norm="L1")
    g.output("label", TensorProto.INT64, [None])
    if zipmap:
        g.node("ZipMap", [prob], outputs=["output_probability"], domain=ML,
               classlabels_int64s=classes)
        t = onnx.TypeProto()
        t.sequence_type.elem_type.map_type.key_type = TensorProto.INT64
        t.sequence_type.elem_type.map_type.value_type.tensor_type.elem_type = TensorProto.FLOAT
        g.outputs.append(helper.make_value_info("output_probability", t))
    else:
        g.output("probabilities", TensorProto.FLOAT, [None, len(classes)])


def conv_linear_regressor(g, x, reg):
    g.node("LinearRegressor", [x], outputs=["variable"], domain=ML,
           coefficients=f32(reg.coef_), intercepts=f32(np.atleast_1d(reg.intercept_)), targets=1)
    g.output("variable", TensorProto.FLOAT, [None, 1])


def _svm_kernel(svm, n_features, x_var):
    gamma = svm._gamma if hasattr(svm, "_gamma") else svm.gamma
    return {"kernel_type": svm.kernel.upper(),
            "kernel_params": [float(gamma), float(svm.coef0), float(svm.degree)]}


def conv_svc(g, x, svc):
    """SVC without probabilities: the label and the one-vs-one decision
    values (sklearn's decision_function for two classes)."""
    classes = [int(c) for c in svc.classes_]
    # two classes: ONNX Runtime's SVMClassifier reads a positive value as
    # the first class, scikit-learn as the second (skl2onnx negates both)
    sign = -1.0 if len(classes) == 2 else 1.0
    g.node("SVMClassifier", [x], outputs=["label", "probabilities"], domain=ML,
           classlabels_ints=classes, coefficients=f32(sign * svc.dual_coef_),
           support_vectors=f32(svc.support_vectors_), vectors_per_class=[int(v) for v in svc.n_support_],
           rho=f32(sign * svc.intercept_), post_transform="NONE",
           **_svm_kernel(svc, svc.support_vectors_.shape[1], x))
    g.output("label", TensorProto.INT64, [None])
    g.output("probabilities", TensorProto.FLOAT, [None, None])


def conv_svr(g, x, svr):
    g.node("SVMRegressor", [x], outputs=["variable"], domain=ML,
           coefficients=f32(svr.dual_coef_), support_vectors=f32(svr.support_vectors_),
           n_supports=int(svr.support_vectors_.shape[0]), rho=f32(svr.intercept_),
           post_transform="NONE", **_svm_kernel(svr, svr.support_vectors_.shape[1], x))
    g.output("variable", TensorProto.FLOAT, [None, 1])


def _tree_attrs(trees):
    a = {k: [] for k in ("nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_values",
                         "nodes_modes", "nodes_truenodeids", "nodes_falsenodeids",
                         "nodes_missing_value_tracks_true", "nodes_hitrates")}
    leaves = []
    for tid, tree in enumerate(trees):
        t = tree.tree_
        for i in range(t.node_count):
            leaf = t.children_left[i] == -1
            a["nodes_treeids"].append(tid)
            a["nodes_nodeids"].append(i)
            a["nodes_featureids"].append(0 if leaf else int(t.feature[i]))
            a["nodes_values"].append(0.0 if leaf else float(t.threshold[i]))
            a["nodes_modes"].append("LEAF" if leaf else "BRANCH_LEQ")
            a["nodes_truenodeids"].append(0 if leaf else int(t.children_left[i]))
            a["nodes_falsenodeids"].append(0 if leaf else int(t.children_right[i]))
            a["nodes_missing_value_tracks_true"].append(0)
            a["nodes_hitrates"].append(1.0)
            if leaf:
                leaves.append((tid, i, t.value[i]))
    return a, leaves


def conv_tree_classifier(g, x, trees, classes):
    attrs, leaves = _tree_attrs(trees)
    cls = {"class_treeids": [], "class_nodeids": [], "class_ids": [], "class_weights": []}
    for tid, nid, value in leaves:
        p = value[0] / value[0].sum()
        for c, w in enumerate(p):
            cls["class_treeids"].append(tid)
            cls["class_nodeids"].append(nid)
            cls["class_ids"].append(c)
            cls["class_weights"].append(float(w) / len(trees))
    g.node("TreeEnsembleClassifier", [x], outputs=["label", "probabilities"], domain=ML,
           classlabels_int64s=[int(c) for c in classes], post_transform="NONE",
           **attrs, **cls)
    _label_proba_outputs(g, len(classes))


def conv_gradient_boosting_regressor(g, x, gbr):
    trees = [e[0] for e in gbr.estimators_]
    attrs, leaves = _tree_attrs(trees)
    tgt = {"target_treeids": [], "target_nodeids": [], "target_ids": [], "target_weights": []}
    for tid, nid, value in leaves:
        tgt["target_treeids"].append(tid)
        tgt["target_nodeids"].append(nid)
        tgt["target_ids"].append(0)
        tgt["target_weights"].append(float(value[0][0]) * gbr.learning_rate)
    base = float(np.ravel(gbr.init_.constant_)[0])
    g.node("TreeEnsembleRegressor", [x], outputs=["variable"], domain=ML, n_targets=1,
           aggregate_function="SUM", post_transform="NONE", base_values=[base],
           **attrs, **tgt)
    g.output("variable", TensorProto.FLOAT, [None, 1])


def conv_mlp_classifier(g, x, mlp):
    h = x
    for k, (w, b) in enumerate(zip(mlp.coefs_, mlp.intercepts_)):
        h = g.node("MatMul", [h, g.const("coefficient", w.astype(np.float32))])
        h = g.node("Add", [h, g.const("intercepts", b.astype(np.float32))])
        if k < len(mlp.coefs_) - 1:
            assert mlp.activation == "relu"
            h = g.node("Relu", [h])
    classes = [int(c) for c in mlp.classes_]
    assert len(classes) > 2
    g.node("Softmax", [h], outputs=["probabilities"], axis=1)
    am = g.node("ArgMax", ["probabilities"], axis=1)
    cl = g.node("ArrayFeatureExtractor", [g.const("classes", np.array(classes, np.int64)), am],
                domain=ML)
    lab = g.node("Reshape", [cl, g.const("shape", np.array([-1], np.int64))])
    g.node("Cast", [lab], outputs=["label"], to=TensorProto.INT64)
    _label_proba_outputs(g, len(classes))


# --------------------------------------------------------------------------
# the pipelines
# --------------------------------------------------------------------------

class SklearnModel:
    def __init__(self, name, build, rtol=1e-4, atol=1e-5, ort_outputs=None):
        self.name, self._build, self.rtol, self.atol = name, build, rtol, atol
        # onnxruntime-node returns tensors only: the outputs ORT checks
        self.ort_outputs = ort_outputs

    def build(self, seed=0):
        return self._build(seed)

    def __repr__(self):
        return "SklearnModel(%s)" % self.name


def _classification(seed, n_classes=3, n_features=8):
    from sklearn.datasets import make_classification
    X, y = make_classification(n_samples=300 + N_TEST, n_features=n_features, n_informative=5,
                               n_redundant=1, n_classes=n_classes, random_state=seed)
    X = X.astype(np.float32)
    return X[:300], y[:300], X[300:]


def _regression(seed, n_features=8):
    from sklearn.datasets import make_regression
    X, y = make_regression(n_samples=300 + N_TEST, n_features=n_features, n_informative=6,
                           noise=0.5, random_state=seed)
    X = X.astype(np.float32)
    return X[:300], y[:300], X[300:]


def _clf_expected(pipe, Xt):
    return {"label": pipe.predict(Xt).astype(np.int64),
            "probabilities": pipe.predict_proba(Xt).astype(np.float32)}


def build_logreg(seed, zipmap=False):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    X, y, Xt = _classification(seed)
    pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)).fit(X, y)
    g = Graph("scaler_logreg", X.shape[1])
    h = conv_standard_scaler(g, "input", pipe[0])
    conv_linear_classifier(g, h, pipe[1], zipmap=zipmap)
    exp = _clf_expected(pipe, Xt)
    if zipmap:
        exp["output_probability"] = [{int(c): float(p) for c, p in zip(pipe.classes_, row)}
                                     for row in exp.pop("probabilities")]
    return g.model(), {"input": Xt}, exp


def build_svc(seed):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler
    from sklearn.svm import SVC
    X, y, Xt = _classification(seed, n_classes=2)
    pipe = make_pipeline(MinMaxScaler(), SVC(kernel="rbf", probability=False)).fit(X, y)
    g = Graph("minmax_svc", X.shape[1])
    conv_svc(g, conv_minmax_scaler(g, "input", pipe[0]), pipe[1])
    # two classes: ORT writes [-v, v] of the (negated) ovo value v
    dec = pipe.decision_function(Xt).astype(np.float32)
    return g.model(), {"input": Xt}, {"label": pipe.predict(Xt).astype(np.int64),
                                      "probabilities": np.stack([dec, -dec], axis=1)}


def build_pca_linreg(seed):
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    X, y, Xt = _regression(seed)
    pipe = make_pipeline(PCA(n_components=5, random_state=seed), LinearRegression()).fit(X, y)
    g = Graph("pca_linreg", X.shape[1])
    conv_linear_regressor(g, conv_pca(g, "input", pipe[0]), pipe[1])
    return g.model(), {"input": Xt}, {"variable": pipe.predict(Xt).astype(np.float32).reshape(-1, 1)}


def build_random_forest(seed):
    from sklearn.ensemble import RandomForestClassifier
    X, y, Xt = _classification(seed)
    rf = RandomForestClassifier(n_estimators=10, max_depth=6, random_state=seed).fit(X, y)
    g = Graph("random_forest", X.shape[1])
    conv_tree_classifier(g, "input", rf.estimators_, rf.classes_)
    return g.model(), {"input": Xt}, _clf_expected(rf, Xt)


def build_decision_tree(seed):
    from sklearn.tree import DecisionTreeClassifier
    X, y, Xt = _classification(seed)
    dt = DecisionTreeClassifier(max_depth=8, random_state=seed).fit(X, y)
    g = Graph("decision_tree", X.shape[1])
    conv_tree_classifier(g, "input", [dt], dt.classes_)
    return g.model(), {"input": Xt}, _clf_expected(dt, Xt)


def build_gbr(seed):
    from sklearn.ensemble import GradientBoostingRegressor
    X, y, Xt = _regression(seed)
    gbr = GradientBoostingRegressor(n_estimators=30, max_depth=3, random_state=seed).fit(X, y)
    g = Graph("gradient_boosting", X.shape[1])
    conv_gradient_boosting_regressor(g, "input", gbr)
    return g.model(), {"input": Xt}, {"variable": gbr.predict(Xt).astype(np.float32).reshape(-1, 1)}


def build_column_transformer(seed):
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler
    X, y, Xt = _classification(seed, n_classes=2, n_features=6)
    rng = np.random.default_rng(seed)
    cats = rng.integers(0, 4, size=(X.shape[0] + Xt.shape[0], 2)).astype(np.float32)
    y = (y + (cats[:300, 0] == 3)) % 2      # make a category matter
    X = np.hstack([X, cats[:300]])
    Xt = np.hstack([Xt, cats[300:]])
    num, cat = list(range(6)), [6, 7]
    ct = ColumnTransformer([("num", StandardScaler(), num),
                            ("cat", OneHotEncoder(handle_unknown="ignore"), cat)])
    pipe = make_pipeline(ct, LogisticRegression(max_iter=500)).fit(X, y)
    g = Graph("column_transformer_logreg", X.shape[1])
    h = conv_column_transformer(g, "input", num, pipe[0].named_transformers_["num"], cat,
                                pipe[0].named_transformers_["cat"])
    conv_linear_classifier(g, h, pipe[1])
    return g.model(), {"input": Xt}, _clf_expected(pipe, Xt)


def build_mlp(seed):
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    import warnings
    X, y, Xt = _classification(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = make_pipeline(StandardScaler(), MLPClassifier((16, 8), max_iter=300,
                                                             random_state=seed)).fit(X, y)
    g = Graph("mlp", X.shape[1])
    conv_mlp_classifier(g, conv_standard_scaler(g, "input", pipe[0]), pipe[1])
    return g.model(), {"input": Xt}, _clf_expected(pipe, Xt)


def build_normalizer_svr(seed):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import Normalizer
    from sklearn.svm import SVR
    X, y, Xt = _regression(seed)
    pipe = make_pipeline(Normalizer(), SVR(kernel="rbf", C=100.0)).fit(X, y)
    g = Graph("normalizer_svr", X.shape[1])
    conv_svr(g, conv_normalizer(g, "input", pipe[0]), pipe[1])
    return g.model(), {"input": Xt}, {"variable": pipe.predict(Xt).astype(np.float32).reshape(-1, 1)}


def build_imputer_linear_svc(seed):
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC
    X, y, Xt = _classification(seed)
    rng = np.random.default_rng(seed)
    X[rng.random(X.shape) < 0.05] = np.nan
    Xt = Xt.copy()
    Xt[rng.random(Xt.shape) < 0.1] = np.nan
    pipe = make_pipeline(SimpleImputer(strategy="mean"), LinearSVC(max_iter=5000, dual=False)).fit(X, y)
    g = Graph("imputer_linear_svc", X.shape[1])
    conv_linear_classifier(g, conv_imputer(g, "input", pipe[0]), pipe[1], post="NONE")
    return g.model(), {"input": Xt}, {"label": pipe.predict(Xt).astype(np.int64),
                                      "probabilities": pipe.decision_function(Xt).astype(np.float32)}


MODELS = [
    SklearnModel("scaler_logreg", build_logreg),
    SklearnModel("logreg_zipmap", lambda s: build_logreg(s, zipmap=True), ort_outputs=["label"]),
    SklearnModel("minmax_svc_rbf", build_svc, rtol=1e-4, atol=1e-4),
    SklearnModel("pca_linreg", build_pca_linreg, rtol=1e-4, atol=1e-3),
    SklearnModel("random_forest", build_random_forest),
    SklearnModel("decision_tree", build_decision_tree),
    SklearnModel("gradient_boosting_reg", build_gbr, rtol=1e-4, atol=1e-3),
    SklearnModel("column_transformer_logreg", build_column_transformer),
    SklearnModel("mlp_classifier", build_mlp),
    SklearnModel("normalizer_svr_rbf", build_normalizer_svr, rtol=1e-4, atol=1e-3),
    SklearnModel("imputer_linear_svc", build_imputer_linear_svc, rtol=1e-4, atol=1e-4),
]


# --------------------------------------------------------------------------
# checking
# --------------------------------------------------------------------------

def compare(got, expected, rtol, atol):
    """A list of mismatch messages (empty when every output matches)."""
    bad = []
    for name, exp in expected.items():
        if name not in got:
            bad.append("%s: missing" % name)
            continue
        g = got[name]
        if isinstance(exp, list):
            if not isinstance(g, list) or len(g) != len(exp):
                bad.append("%s: got %r" % (name, type(g)))
                continue
            for i, (a, b) in enumerate(zip(g, exp)):
                a = {int(k): float(np.ravel(v)[0] if not isinstance(v, (int, float)) else v)
                     for k, v in (a.items() if isinstance(a, dict) else [])}
                if sorted(a) != sorted(b) or any(abs(a[k] - b[k]) > atol + rtol * abs(b[k]) for k in b):
                    bad.append("%s[%d]: %r vs %r" % (name, i, a, b))
                    break
            continue
        g = np.asarray(g)
        if g.shape != exp.shape:
            bad.append("%s: shape %s vs %s" % (name, g.shape, exp.shape))
        elif exp.dtype.kind in "iub":
            n = int((g != exp).sum())
            if n:
                bad.append("%s: %d of %d differ" % (name, n, exp.size))
        else:
            err = np.abs(g.astype(np.float64) - exp)
            lim = atol + rtol * np.abs(exp)
            if (err > lim).any():
                bad.append("%s: max |err| %.3g (%d of %d over)" % (name, err.max(),
                                                                     int((err > lim).sum()), exp.size))
    return bad


def run_onnxc(test_dir, rtol, atol, onnxc=None, onnxc_run=None, timeout=600,
              data_set=0, compile=True, compile_args=()):
    """(status, first error line, compile seconds) of compiling
    test_dir/model.onnx with onnxc (unless not compile; compile_args added
    to its command) and running it on test_data_set_<data_set> with
    onnxc-run --expected-dir.  status: pass, compile-fail, compile-timeout,
    mismatch, run-fail, run-timeout."""
    onnxc = onnxc or os.path.join(ROOT, "build", "bin", "onnxc")
    onnxc_run = onnxc_run or os.path.join(ROOT, "build", "bin", "onnxc-run")
    so = os.path.join(test_dir, "model.so")
    t0 = time.time()
    p = None
    try:
        if compile:
            p = subprocess.run(["nice", "-n", "10", "flock", "-s", "/tmp/onnxc-build.lock", onnxc,
                                os.path.join(test_dir, "model.onnx"), "-o", so] + list(compile_args),
                               capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "compile-timeout", "", time.time() - t0
    secs = time.time() - t0
    if p is not None and p.returncode != 0:
        return "compile-fail", _first_error(p.stderr + p.stdout), secs
    data = os.path.join(test_dir, "test_data_set_%d" % data_set)
    try:
        r = subprocess.run(["nice", "-n", "10", onnxc_run, so, "--inputs", data, "--expected-dir", data,
                            "--rtol", str(rtol), "--atol", str(atol)],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "run-timeout", "", secs
    if r.returncode == 0:
        return "pass", "", secs
    return ("mismatch" if r.returncode == 1 else "run-fail"), _first_error(r.stderr + r.stdout), secs


def _first_error(text):
    lines = [l for l in text.splitlines() if l.strip()]
    for l in lines:
        if "error" in l.lower() or "mismatch" in l.lower() or "differ" in l.lower():
            return l.strip()[:200]
    return lines[0].strip()[:200] if lines else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "zoo", "sklearn"))
    ap.add_argument("--onnxc", action="store_true", help="also compile and run with onnxc")
    ap.add_argument("--only")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    passed = failed = 0
    table = []
    for m in MODELS:
        if args.only and m.name != args.only:
            continue
        try:
            model, inputs, expected = m.build(args.seed)
            d = write_test_dir(os.path.join(args.out, m.name), model, inputs, expected)
            ops = sorted({n.op_type for n in model.graph.node})
            got = ort_run(model, inputs, outputs=m.ort_outputs)
            bad = compare(got, {k: v for k, v in expected.items()
                                if m.ort_outputs is None or k in m.ort_outputs}, m.rtol, m.atol)
            print("%-26s ORT %s  [%s]" % (m.name, "ok" if not bad else "; ".join(bad), " ".join(ops)),
                  flush=True)
            assert not bad, bad
            passed += 1
        except Exception:
            traceback.print_exc()
            failed += 1
            continue
        if args.onnxc:
            st, err, secs = run_onnxc(d, m.rtol, m.atol)
            table.append((m.name, st, err, secs))
            print("%-26s onnxc %s %.1fs %s" % (m.name, st, secs, err), flush=True)
            if st == "pass":
                passed += 1
            else:
                failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
