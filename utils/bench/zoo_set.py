"""zoo_set.py - the real-model zoo as a benchmark set for utils/bench.py.

    bench.py --zoo REGEX [--zoo-variants 17-static,17-dynamic]

Takes the models that utils/zoo/zoo.py has exported into its cache
(build/zoo/<model>/<variant>/model.onnx with export.json "ok"; run zoo.py
--export-only first for models not there yet) whose name matches REGEX.
Each benchmark entry is one model at one variant, named
"<model>/<variant>", and runs on the inputs of the variant's data set 0:
the first size of the model (docs/Zoo.md), which is also the size its static
twin was exported at, so a dynamic variant and its static twin run the same
computation and their times compare directly (`dyn/static` column).
"""

import glob
import json
import os
import re

import numpy as np
import onnx
from onnx import numpy_helper


def zoo_entries(cache, regex, variants):
    """[(name, model path)] for every exported model matching regex."""
    pattern = re.compile(regex)
    entries = []
    for model_dir in sorted(glob.glob(os.path.join(cache, "*"))):
        model = os.path.basename(model_dir)
        if not pattern.search(model):
            continue
        for variant in variants:
            vdir = os.path.join(model_dir, variant)
            try:
                with open(os.path.join(vdir, "export.json")) as f:
                    ok = json.load(f).get("ok")
            except (OSError, ValueError):
                ok = False
            if ok:
                entries.append(("%s/%s" % (model, variant),
                                os.path.join(vdir, "model.onnx")))
    return entries


def static_twin(path):
    """The static variant's model.onnx beside a dynamic variant, or None."""
    vdir = os.path.dirname(path)
    variant = os.path.basename(vdir)
    if not variant.endswith("-dynamic"):
        return None
    twin = os.path.join(os.path.dirname(vdir),
                        variant.replace("-dynamic", "-static"), "model.onnx")
    return twin if os.path.exists(twin) else None


def write_inputs(model_path, folder, data=None, names=None):
    """Converts a data set's input_*.pb (data set 0's by default) into the
    workers' inputs.json in `folder`, bound to the graph's input names (or
    `names`); returns its path and {name: shape}."""
    if data is None:
        data = os.path.join(os.path.dirname(model_path), "test_data_set_0")
    if names is None:
        model = onnx.load(model_path, load_external_data=False)
        inits = {i.name for i in model.graph.initializer}
        names = [vi.name for vi in model.graph.input if vi.name not in inits]
    os.makedirs(folder, exist_ok=True)
    specs = []
    for k, name in enumerate(names):
        tensor = onnx.TensorProto()
        with open(os.path.join(data, "input_%d.pb" % k), "rb") as f:
            tensor.ParseFromString(f.read())
        array = np.ascontiguousarray(numpy_helper.to_array(tensor))
        path = os.path.join(folder, "input_%d.bin" % k)
        array.tofile(path)
        specs.append({"name": name, "dtype": array.dtype.name,
                      "shape": list(array.shape), "file": path})
    out = os.path.join(folder, "inputs.json")
    with open(out, "w") as f:
        json.dump(specs, f)
    return out, {s["name"]: s["shape"] for s in specs}


def dims_of(model_path, shapes):
    """{dim_param: value} that the given input shapes bind."""
    model = onnx.load(model_path, load_external_data=False)
    dims = {}
    for vi in model.graph.input:
        shape = shapes.get(vi.name)
        if shape is None:
            continue
        for d, v in zip(vi.type.tensor_type.shape.dim, shape):
            if d.dim_param:
                dims[d.dim_param] = v
    return dims
