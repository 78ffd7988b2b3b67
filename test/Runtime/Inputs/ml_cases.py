"""scikit-learn estimators as ONNX models with ai.onnx.ml operators.

  ml_cases.py DIR    writes DIR/<case>/model.onnx and
                     DIR/<case>/test_data_set_0/{input,output}_K.pb

Each case trains a small scikit-learn estimator on generated data and writes
the graph skl2onnx would write for it (the same ai.onnx.ml nodes and
attributes, built here with onnx.helper), with the estimator's own
predict / predict_proba / decision_function / transform on a test set as the
expected outputs. Inputs are float32 (int64 or strings where the estimator
takes them); the estimators see the same values as float64.

A few cases are not skl2onnx's but the forms onnxruntime computes that
skl2onnx does not write (marked "hand-written"). Cases with a `bad` folder
hold inputs that a run-time check must refuse (see ml-sklearn.test).

No graph declares the shapes of its intermediate tensors (value_info):
libonnx 1.12's shape inference gives none for ArrayFeatureExtractor,
OneHotEncoder, Scaler, LinearClassifier, ..., so the OneHotEncoder graphs and
the Scaler -> LinearClassifier pipelines (logreg_multinomial,
logreg_strings) check onnxc's own rules for them (inferML in
lib/Dialect/ONNX/Transforms/SchemaInference.cpp).
"""

import os
import sys
import warnings

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.preprocessing import (Binarizer, LabelEncoder, MinMaxScaler,
                                   Normalizer, OneHotEncoder, StandardScaler)
from sklearn.impute import SimpleImputer
from sklearn.svm import SVC, SVR, LinearSVC, OneClassSVM

warnings.filterwarnings("ignore")

F, D, I64, S = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64, TensorProto.STRING
ML = "ai.onnx.ml"
N = 16  # test rows


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def write(out, name, nodes, inputs, outputs, inits=(), value_info=(), bad=None):
    """inputs/outputs: (name, elem, shape, array); bad: arrays for the
    inputs that a run-time check refuses."""
    graph = helper.make_graph(nodes, name, [vi(n, e, s) for n, e, s, _ in inputs],
                              [vi(n, e, s) for n, e, s, _ in outputs],
                              initializer=list(inits), value_info=list(value_info))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid(ML, 3)],
                          producer_name="ml_cases.py")
    m.ir_version = 8
    folder = os.path.join(out, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    save(m, os.path.join(folder, "model.onnx"))

    def pb(path, arr, n):
        with open(path, "wb") as f:
            f.write(numpy_helper.from_array(arr, n).SerializeToString())

    for k, (n, _, _, a) in enumerate(inputs):
        pb(os.path.join(data, f"input_{k}.pb"), a, n)
    for k, (n, _, _, a) in enumerate(outputs):
        pb(os.path.join(data, f"output_{k}.pb"), a, n)
    if bad is not None:
        os.makedirs(os.path.join(folder, "bad"), exist_ok=True)
        for k, (n, _, _, _) in enumerate(inputs):
            pb(os.path.join(folder, "bad", f"input_{k}.pb"), bad[k], n)


def f32(a):
    return np.asarray(a, dtype=np.float32)


def floats(a):
    return [float(v) for v in np.asarray(a, dtype=np.float32).ravel()]


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, domain=ML, name=op.lower(), **attrs)


def classification(classes, features=4, seed=0):
    x, y = make_classification(n_samples=120 + N, n_features=features, n_informative=3,
                               n_redundant=0, n_classes=classes, n_clusters_per_class=1,
                               class_sep=1.5, random_state=seed)
    x = f32(x)
    return x[:-N].astype(np.float64), y[:-N], x[-N:]


def labels_attr(classes):
    if isinstance(classes[0], str):
        return {"classlabels_strings": list(classes)}
    return {"classlabels_ints": [int(c) for c in classes]}


def label_elem(classes):
    return S if isinstance(classes[0], str) else I64


def label_array(values, classes):
    return np.array(values, dtype=object if isinstance(classes[0], str) else np.int64)


# --- linear models -------------------------------------------------------

def linear_regression(out):
    x, y = make_regression(n_samples=100 + N, n_features=5, noise=0.5, random_state=1)
    x = f32(x)
    for targets in (1, 2):
        yt = y if targets == 1 else np.stack([y, 0.5 * y - x[:, 0]], axis=1)
        est = LinearRegression().fit(x[:-N].astype(np.float64), yt[:-N])
        t = x[-N:]
        write(out, f"linear_regression_{targets}",
              [node("LinearRegressor", ["X"], ["variable"], coefficients=floats(est.coef_),
                    intercepts=floats(np.atleast_1d(est.intercept_)), targets=targets)],
              [("X", F, [None, 5], t)],
              [("variable", F, [None, targets],
                f32(est.predict(t.astype(np.float64))).reshape(N, targets))])


def logistic_regression(out):
    # Binary: skl2onnx writes the two rows -w, w and LOGISTIC.
    x, y, t = classification(2)
    est = LogisticRegression().fit(x, y)
    coef = list(-est.coef_.ravel()) + list(est.coef_.ravel())
    bias = [-est.intercept_[0], est.intercept_[0]]
    write(out, "logreg_binary",
          [node("LinearClassifier", ["X"], ["label", "probabilities"], coefficients=floats(coef),
                intercepts=floats(bias), multi_class=0, post_transform="LOGISTIC",
                **labels_attr(est.classes_))],
          [("X", F, [None, 4], t)],
          [("label", I64, [None], est.predict(t.astype(np.float64))),
           ("probabilities", F, [None, 2], f32(est.predict_proba(t.astype(np.float64))))])
    # Multinomial: SOFTMAX; labels that are not 0..C-1, or strings. A
    # pipeline: StandardScaler (Scaler), then the classifier, with no shape
    # declared for the scaled features.
    x, y, t = classification(3, seed=2)
    for name, classes in (("logreg_multinomial", [3, 5, 7]),
                          ("logreg_strings", ["bird", "cat", "dog"])):
        yy = np.array([classes[v] for v in y], dtype=object if name.endswith("strings") else np.int64)
        scaler = StandardScaler().fit(x)
        est = LogisticRegression().fit(scaler.transform(x), yy)
        tt = scaler.transform(t.astype(np.float64))
        write(out, name,
              [node("Scaler", ["X"], ["scaled"], offset=floats(scaler.mean_),
                    scale=floats(1 / scaler.scale_)),
               node("LinearClassifier", ["scaled"], ["label", "probabilities"],
                    coefficients=floats(est.coef_), intercepts=floats(est.intercept_),
                    multi_class=1, post_transform="SOFTMAX", **labels_attr(list(est.classes_)))],
              [("X", F, [None, 4], t)],
              [("label", label_elem(classes), [None],
                label_array(est.predict(tt), classes)),
               ("probabilities", F, [None, 3], f32(est.predict_proba(tt)))])
    # One-vs-rest: LOGISTIC per class, then a Normalizer (L1).
    est = LogisticRegression(multi_class="ovr").fit(x, y)
    write(out, "logreg_ovr",
          [node("LinearClassifier", ["X"], ["label", "scores"], coefficients=floats(est.coef_),
                intercepts=floats(est.intercept_), multi_class=0, post_transform="LOGISTIC",
                **labels_attr(est.classes_)),
           node("Normalizer", ["scores"], ["probabilities"], norm="L1")],
          [("X", F, [None, 4], t)],
          [("label", I64, [None], est.predict(t.astype(np.float64))),
           ("probabilities", F, [None, 3], f32(est.predict_proba(t.astype(np.float64))))])


def linear_svc(out):
    x, y, t = classification(2, seed=3)
    est = LinearSVC(random_state=0).fit(x, y)
    d = est.decision_function(t.astype(np.float64))
    w, b = est.coef_.ravel(), est.intercept_[0]
    # Binary: rows -w, w, NONE, the positive class's score extracted.
    write(out, "linearsvc_binary",
          [node("LinearClassifier", ["X"], ["label", "raw"], coefficients=floats(list(-w) + list(w)),
                intercepts=floats([-b, b]), multi_class=0, post_transform="NONE",
                **labels_attr(est.classes_)),
           node("ArrayFeatureExtractor", ["raw", "positive"], ["probabilities"])],
          [("X", F, [None, 4], t)],
          [("label", I64, [None], est.predict(t.astype(np.float64))),
           ("probabilities", F, [None, 1], f32(d).reshape(N, 1))],
          inits=[numpy_helper.from_array(np.array(1, dtype=np.int64), "positive")])
    # Hand-written: onnxruntime's binary form, one row of coefficients: the
    # second label where the score d > 0, Z = [1 - d, d].
    write(out, "linear_classifier_one_row",
          [node("LinearClassifier", ["X"], ["label", "scores"], coefficients=floats(w),
                intercepts=floats([b]), post_transform="NONE", classlabels_ints=[10, 20])],
          [("X", F, [None, 4], t)],
          [("label", I64, [None], np.where(d > 0, 20, 10).astype(np.int64)),
           ("scores", F, [None, 2], f32(np.stack([1 - d, d], axis=1)))])
    x, y, t = classification(3, seed=4)
    est = LinearSVC(random_state=0).fit(x, y)
    write(out, "linearsvc_multi",
          [node("LinearClassifier", ["X"], ["label", "scores"], coefficients=floats(est.coef_),
                intercepts=floats(est.intercept_), multi_class=0, post_transform="NONE",
                **labels_attr(est.classes_))],
          [("X", F, [None, 4], t)],
          [("label", I64, [None], est.predict(t.astype(np.float64))),
           ("scores", F, [None, 3], f32(est.decision_function(t.astype(np.float64))))])


# --- SVMs ----------------------------------------------------------------

KERNELS = {"linear": {}, "poly": {"degree": 3, "coef0": 1.0}, "rbf": {},
           "sigmoid": {"coef0": 0.5, "gamma": 0.1}}


def svm_attrs(est):
    return dict(kernel_type=est.kernel.upper(),
                kernel_params=floats([est._gamma, est.coef0, est.degree]),
                support_vectors=floats(est.support_vectors_))


def svc(out):
    for classes in (2, 3):
        x, y, t = classification(classes, seed=5 + classes)
        td = t.astype(np.float64)
        for kernel, params in KERNELS.items():
            for proba in (False, True):
                est = SVC(kernel=kernel, probability=proba, random_state=0,
                          decision_function_shape="ovo", **params).fit(x, y)
                attrs = svm_attrs(est)
                # skl2onnx negates the binary model (sklearn flips it).
                sign = -1 if classes == 2 else 1
                attrs.update(coefficients=floats(sign * est.dual_coef_),
                             rho=floats(sign * est.intercept_),
                             vectors_per_class=[int(v) for v in est.n_support_],
                             post_transform="NONE", **labels_attr(est.classes_))
                if proba:
                    attrs.update(prob_a=floats(est.probA_), prob_b=floats(est.probB_))
                    z = est.predict_proba(td)
                elif classes == 2:
                    # onnxruntime: [-s, s] of the pair's score s = -d.
                    d = est.decision_function(td)
                    z = np.stack([d, -d], axis=1)
                else:
                    z = est.decision_function(td)  # the pairs (ovo)
                write(out, f"svc_{kernel}_{classes}{'_proba' if proba else ''}",
                      [node("SVMClassifier", ["X"], ["label", "probabilities"], **attrs)],
                      [("X", F, [None, 4], t)],
                      [("label", I64, [None], est.predict(td)),
                       ("probabilities", F, [None, z.shape[1]], f32(z))])
    # String labels.
    x, y, t = classification(3, seed=9)
    names = np.array(["setosa", "versicolor", "virginica"], dtype=object)
    est = SVC(kernel="rbf", probability=True, random_state=0).fit(x, names[y])
    attrs = svm_attrs(est)
    attrs.update(coefficients=floats(est.dual_coef_), rho=floats(est.intercept_),
                 vectors_per_class=[int(v) for v in est.n_support_], post_transform="NONE",
                 prob_a=floats(est.probA_), prob_b=floats(est.probB_),
                 **labels_attr([str(c) for c in est.classes_]))
    td = t.astype(np.float64)
    write(out, "svc_strings",
          [node("SVMClassifier", ["X"], ["label", "probabilities"], **attrs)],
          [("X", F, [None, 4], t)],
          [("label", S, [None], np.array(est.predict(td), dtype=object)),
           ("probabilities", F, [None, 3], f32(est.predict_proba(td)))])


def svr(out):
    x, y = make_regression(n_samples=80 + N, n_features=3, noise=0.3, random_state=6)
    x = f32(x)
    y = y / np.std(y)
    t = x[-N:]
    for kernel in ("linear", "poly", "rbf"):
        est = SVR(kernel=kernel, C=3.0, **({"coef0": 1.0} if kernel == "poly" else {})).fit(
            x[:-N].astype(np.float64), y[:-N])
        attrs = svm_attrs(est)
        attrs.update(coefficients=floats(est.dual_coef_), rho=floats(est.intercept_),
                     n_supports=len(est.support_), post_transform="NONE")
        write(out, f"svr_{kernel}",
              [node("SVMRegressor", ["X"], ["variable"], **attrs)],
              [("X", F, [None, 3], t)],
              [("variable", F, [None, 1], f32(est.predict(t.astype(np.float64))).reshape(N, 1))])
    # OneClassSVM: the scores, then their sign as the label.
    est = OneClassSVM(nu=0.2, gamma="scale").fit(x[:-N].astype(np.float64))
    attrs = svm_attrs(est)
    attrs.update(coefficients=floats(est.dual_coef_), rho=floats(est.intercept_),
                 n_supports=len(est.support_), post_transform="NONE")
    td = t.astype(np.float64)
    write(out, "oneclass_svm",
          [node("SVMRegressor", ["X"], ["scores"], **attrs),
           helper.make_node("Sign", ["scores"], ["sign"]),
           helper.make_node("Cast", ["sign"], ["label"], to=I64)],
          [("X", F, [None, 3], t)],
          [("label", I64, [None, 1], est.predict(td).astype(np.int64).reshape(N, 1)),
           ("scores", F, [None, 1], f32(est.decision_function(td)).reshape(N, 1))])
    # Hand-written: one_class = 1 gives the sign as a float.
    attrs["one_class"] = 1
    write(out, "svm_one_class_attr",
          [node("SVMRegressor", ["X"], ["label"], **attrs)],
          [("X", F, [None, 3], t)],
          [("label", F, [None, 1], f32(est.predict(td)).reshape(N, 1))])


# --- preprocessing -------------------------------------------------------

def scalers(out):
    rng = np.random.RandomState(7)
    x = f32(rng.normal(2.0, 3.0, size=(60, 4)))
    t = f32(rng.normal(2.0, 3.0, size=(N, 4)))
    td = t.astype(np.float64)
    est = StandardScaler().fit(x.astype(np.float64))
    write(out, "standard_scaler",
          [node("Scaler", ["X"], ["variable"], offset=floats(est.mean_), scale=floats(1 / est.scale_))],
          [("X", F, [None, 4], t)], [("variable", F, [None, 4], f32(est.transform(td)))])
    est = MinMaxScaler().fit(x.astype(np.float64))
    write(out, "minmax_scaler",
          [node("Scaler", ["X"], ["variable"], offset=floats(-est.min_ / est.scale_),
                scale=floats(est.scale_))],
          [("X", F, [None, 4], t)], [("variable", F, [None, 4], f32(est.transform(td)))])
    for norm in ("l1", "l2", "max"):
        # sklearn's max is of |x| (onnxruntime's and the spec's of x): the
        # max case has positive rows.
        data = np.abs(t) if norm == "max" else t
        est = Normalizer(norm=norm).fit(x.astype(np.float64))
        write(out, f"normalizer_{norm}",
              [node("Normalizer", ["X"], ["variable"], norm=norm.upper())],
              [("X", F, [None, 4], data)],
              [("variable", F, [None, 4], f32(est.transform(data.astype(np.float64))))])
    est = Binarizer(threshold=2.5).fit(x.astype(np.float64))
    write(out, "binarizer",
          [node("Binarizer", ["X"], ["variable"], threshold=2.5)],
          [("X", F, [None, 4], t)], [("variable", F, [None, 4], f32(est.transform(td)))])


def imputers(out):
    rng = np.random.RandomState(8)
    x = f32(rng.normal(size=(40, 3)))
    x[rng.rand(40, 3) < 0.2] = np.nan
    t = f32(rng.normal(size=(N, 3)))
    t[rng.rand(N, 3) < 0.3] = np.nan
    est = SimpleImputer(strategy="mean").fit(x.astype(np.float64))
    write(out, "imputer_float",
          [node("Imputer", ["X"], ["variable"], imputed_value_floats=floats(est.statistics_),
                replaced_value_float=float("nan"))],
          [("X", F, [None, 3], t)],
          [("variable", F, [None, 3], f32(est.transform(t.astype(np.float64))))])
    xi = rng.randint(0, 4, size=(40, 3)).astype(np.int64)
    xi[rng.rand(40, 3) < 0.2] = -1
    ti = rng.randint(0, 4, size=(N, 3)).astype(np.int64)
    ti[rng.rand(N, 3) < 0.3] = -1
    est = SimpleImputer(missing_values=-1, strategy="most_frequent").fit(xi)
    write(out, "imputer_int",
          [node("Imputer", ["X"], ["variable"],
                imputed_value_int64s=[int(v) for v in est.statistics_], replaced_value_int64=-1)],
          [("X", I64, [None, 3], ti)],
          [("variable", I64, [None, 3], est.transform(ti).astype(np.int64))])


def one_hot(out):
    rng = np.random.RandomState(9)
    for kind in ("strings", "ints"):
        if kind == "strings":
            cats = [np.array(["red", "green", "blue"], dtype=object),
                    np.array(["S", "M", "L", "XL"], dtype=object)]
        else:
            cats = [np.array([3, 1, 4], dtype=np.int64), np.array([10, 20, 30, 40], dtype=np.int64)]
        x = np.stack([c[rng.randint(0, len(c), 50)] for c in cats], axis=1)
        t = np.stack([c[rng.randint(0, len(c), N)] for c in cats], axis=1)
        unknown = kind == "strings"
        if unknown:
            t[3, 0], t[5, 1] = "purple", "XXL"  # ignored: all zeros
        est = OneHotEncoder(handle_unknown="ignore" if unknown else "error").fit(x)
        elem = S if kind == "strings" else I64
        nodes, parts = [], []
        inits = []
        for i, c in enumerate(est.categories_):
            inits.append(numpy_helper.from_array(np.array([i], dtype=np.int64), f"index{i}"))
            attrs = ({"cats_strings": [str(v) for v in c]} if kind == "strings"
                     else {"cats_int64s": [int(v) for v in c]})
            nodes.append(helper.make_node("ArrayFeatureExtractor", ["X", f"index{i}"], [f"col{i}"],
                                          domain=ML, name=f"afe{i}"))
            nodes.append(helper.make_node("OneHotEncoder", [f"col{i}"], [f"ohe{i}"], domain=ML,
                                          name=f"ohe{i}", zeros=1 if unknown else 0, **attrs))
            parts.append(f"ohe{i}")
        total = sum(len(c) for c in est.categories_)
        nodes.append(helper.make_node("Concat", parts, ["concat"], axis=2))
        nodes.append(helper.make_node("Reshape", ["concat", "shape"], ["variable"]))
        inits.append(numpy_helper.from_array(np.array([-1, total], dtype=np.int64), "shape"))
        bad = None
        if not unknown:
            bad = [t.copy()]
            bad[0][2, 1] = 99  # not a category, zeros = 0
        write(out, f"one_hot_encoder_{kind}", nodes, [("X", elem, [None, 2], t)],
              [("variable", F, [None, total], f32(est.transform(t).toarray()))],
              inits=inits, bad=bad)


def label_maps(out):
    words = np.array(["paris", "tokyo", "amsterdam", "lima", "oslo"], dtype=object)
    est = LabelEncoder().fit(words)
    t = np.array(["oslo", "paris", "lima", "tokyo", "oslo", "amsterdam", "rome"], dtype=object)
    codes = est.transform(t[:-1]).astype(np.int64)
    # "rome" is unknown: default_int64.
    write(out, "label_encoder_string_int",
          [node("LabelEncoder", ["X"], ["Y"], keys_strings=[str(c) for c in est.classes_],
                values_int64s=list(range(len(est.classes_))), default_int64=-1)],
          [("X", S, [None], t)], [("Y", I64, [None], np.append(codes, -1).astype(np.int64))])
    ti = np.array([4, 0, 2, 2, 9, 1], dtype=np.int64)
    write(out, "label_encoder_int_string",
          [node("LabelEncoder", ["X"], ["Y"], keys_int64s=list(range(len(est.classes_))),
                values_strings=[str(c) for c in est.classes_], default_string="?")],
          [("X", I64, [None], ti)],
          [("Y", S, [None], np.array([str(est.inverse_transform([i])[0]) if i < 5 else "?"
                                      for i in ti], dtype=object))])
    # Maps given by a dict, with defaults: string -> float, int -> float,
    # float -> int (keys by their bits, so NaN is a key), float -> string.
    temps = {"cold": -5.5, "mild": 14.0, "hot": 31.25}
    ts = np.array(["hot", "mild", "warm", "cold", "hot"], dtype=object)
    write(out, "label_encoder_string_float",
          [node("LabelEncoder", ["X"], ["Y"], keys_strings=list(temps),
                values_floats=list(temps.values()), default_float=-273.0)],
          [("X", S, [None], ts)], [("Y", F, [None], f32([temps.get(s, -273.0) for s in ts]))])
    write(out, "label_encoder_int_float",
          [node("LabelEncoder", ["X"], ["Y"], keys_int64s=[7, -3, 100], values_floats=[0.5, 1.5, 2.5])],
          [("X", I64, [2, 3], np.array([[7, 8, -3], [100, 100, 0]], dtype=np.int64))],
          [("Y", F, [2, 3], f32([[0.5, -0.0, 1.5], [2.5, 2.5, -0.0]]))])
    tf = f32([0.5, np.nan, 2.0, -1.0, 0.25])
    write(out, "label_encoder_float_int",
          [node("LabelEncoder", ["X"], ["Y"], keys_floats=[0.5, float("nan"), -1.0],
                values_int64s=[1, 2, 3], default_int64=0)],
          [("X", F, [None], tf)], [("Y", I64, [None], np.array([1, 2, 0, 3, 0], dtype=np.int64))])
    write(out, "label_encoder_float_string",
          [node("LabelEncoder", ["X"], ["Y"], keys_floats=[0.5, 2.0], values_strings=["half", "two"])],
          [("X", F, [None], tf)],
          [("Y", S, [None], np.array(["half", "_Unused", "two", "_Unused", "_Unused"], dtype=object))])
    # CategoryMapper both ways.
    cats, ids = ["a", "bb", "ccc"], [11, 22, 33]
    write(out, "category_mapper_string_int",
          [node("CategoryMapper", ["X"], ["Y"], cats_strings=cats, cats_int64s=ids, default_int64=-7)],
          [("X", S, [None, 2], np.array([["bb", "a"], ["zz", "ccc"]], dtype=object))],
          [("Y", I64, [None, 2], np.array([[22, 11], [-7, 33]], dtype=np.int64))])
    write(out, "category_mapper_int_string",
          [node("CategoryMapper", ["X"], ["Y"], cats_strings=cats, cats_int64s=ids,
                default_string="none")],
          [("X", I64, [None], np.array([33, 0, 11], dtype=np.int64))],
          [("Y", S, [None], np.array(["ccc", "none", "a"], dtype=object))])


def vectorizers(out):
    rng = np.random.RandomState(10)
    a, b = f32(rng.normal(size=(N, 2))), f32(rng.normal(size=(N, 3)))
    write(out, "feature_vectorizer",
          [node("FeatureVectorizer", ["A", "B"], ["variable"], inputdimensions=[2, 3])],
          [("A", F, [None, 2], a), ("B", F, [None, 3], b)],
          [("variable", F, [None, 5], np.concatenate([a, b], axis=1))])
    # Widths other than the inputs': A zero-padded to 3, B cut to 1.
    write(out, "feature_vectorizer_pad_cut",
          [node("FeatureVectorizer", ["A", "B"], ["variable"], inputdimensions=[3, 1])],
          [("A", F, [None, 2], a), ("B", F, [None, 3], b)],
          [("variable", F, [None, 4],
            np.concatenate([a, np.zeros((N, 1), np.float32), b[:, :1]], axis=1))])
    # ArrayFeatureExtractor on strings; the bad input's index is 4 of 4.
    s = np.array([["a", "b", "c", "d"], ["e", "f", "g", "h"]], dtype=object)
    idx = np.array([3, 0, 3], dtype=np.int64)
    write(out, "array_feature_extractor_strings",
          [node("ArrayFeatureExtractor", ["X", "I"], ["Z"])],
          [("X", S, [None, 4], s), ("I", I64, [None], idx)],
          [("Z", S, [None, 3], s[:, idx])],
          bad=[s, np.array([1, 4], dtype=np.int64)])


# --- hand-written: what no estimator above reaches -----------------------

def logistic(v):
    return np.where(v < 0, 1 - 1 / (1 + np.exp(-np.abs(v))), 1 / (1 + np.exp(-np.abs(v))))


def probit(v):
    # onnxruntime's: sqrt(2) erfinv(2v - 1), erfinv approximated (a = 0.147).
    x = 2 * v - 1
    lg = np.log((1 - x) * (1 + x))
    a = 2 / (np.pi * 0.147) + 0.5 * lg
    return np.sqrt(2) * np.sign(x) * np.sqrt(-a + np.sqrt(a * a - lg / 0.147))


def hand_written(out):
    """post_transforms on LinearRegressor (the spec's, on every target),
    SVMClassifier without support vectors (liblinear), an int64 [F] input;
    the expected values from numpy versions of onnxruntime's formulas."""
    rng = np.random.RandomState(11)
    x = f32(rng.normal(size=(N, 3)))
    w, b = f32(rng.normal(size=(4, 3)) * 0.3), f32(rng.normal(size=4) * 0.3)
    # SOFTMAX_ZERO: row 0 has a score of exactly 0, which stays 0 and out
    # of the sum.
    x[0], b[1] = 0, 0
    s = x.astype(np.float64) @ w.T.astype(np.float64) + b
    zero = np.abs(s) <= 1e-7
    e = np.where(zero, 0.0, np.exp(s - s.max(1, keepdims=True)))
    write(out, "linear_regressor_softmax_zero",
          [node("LinearRegressor", ["X"], ["variable"], coefficients=floats(w),
                intercepts=floats(b), targets=4, post_transform="SOFTMAX_ZERO")],
          [("X", F, [None, 3], x)], [("variable", F, [None, 4], f32(e / e.sum(1, keepdims=True)))])
    # PROBIT takes probabilities: the identity's outputs in (0, 1), away from
    # 0.5 (where f32 cancels in the approximation, as onnxruntime's does).
    p = f32(rng.uniform(0.05, 0.4, size=(N, 4)))
    p = np.where(rng.rand(N, 4) < 0.5, 1 - p, p).astype(np.float32)
    write(out, "linear_regressor_probit",
          [node("LinearRegressor", ["X"], ["variable"], coefficients=floats(np.eye(4)),
                intercepts=[0.0] * 4, targets=4, post_transform="PROBIT")],
          [("X", F, [None, 4], p)], [("variable", F, [None, 4], f32(probit(p.astype(np.float64))))])
    xi = np.array([2, -1, 3], dtype=np.int64)
    s1 = xi @ w[0].astype(np.float64) + b[0]
    write(out, "linear_regressor_int_vector_logistic",
          [node("LinearRegressor", ["X"], ["variable"], coefficients=floats(w[0]),
                intercepts=floats(b[:1]), post_transform="LOGISTIC")],
          [("X", I64, [3], xi)], [("variable", F, [1, 1], f32(logistic(s1)).reshape(1, 1))])
    rho = 0.25
    s3 = x.astype(np.float64) @ w[:3].T.astype(np.float64) + rho
    e3 = np.exp(s3 - s3.max(1, keepdims=True))
    write(out, "svm_liblinear_3",
          [node("SVMClassifier", ["X"], ["label", "probabilities"], coefficients=floats(w[:3]),
                rho=[rho], classlabels_ints=[5, 6, 7], post_transform="SOFTMAX")],
          [("X", F, [None, 3], x)],
          [("label", I64, [None], np.array([5, 6, 7], np.int64)[s3.argmax(1)]),
           ("probabilities", F, [None, 3], f32(e3 / e3.sum(1, keepdims=True)))])
    # Two classes: the second label where the best score is > 0 (the
    # coefficients have both signs), else the best score's.
    s2 = s3[:, :2]
    second = (s2.max(1) > 0) | (s2.argmax(1) == 1)
    write(out, "svm_liblinear_2_strings",
          [node("SVMClassifier", ["X"], ["label", "scores"], coefficients=floats(w[:2]),
                rho=[rho], classlabels_strings=["no", "yes"], post_transform="NONE")],
          [("X", F, [None, 3], x)],
          [("label", S, [None], np.where(second, "yes", "no").astype(object)),
           ("scores", F, [None, 2], f32(s2))])


def main():
    out = sys.argv[1]
    for make in (linear_regression, logistic_regression, linear_svc, svc, svr, scalers,
                 imputers, one_hot, label_maps, vectorizers, hand_written):
        make(out)


if __name__ == "__main__":
    main()
