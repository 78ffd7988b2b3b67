"""zoo_common.py - the model record and registry of the real-model zoo.

Every zoo model is a `ZooModel`: how to build the torch module (random
weights, eval mode), how to make seeded example inputs for a size, the
names of its inputs and outputs, which axes the dynamic variant leaves
open, and at least two sizes: the first is the size the model is exported
at (the static variants are checked there), the second a different size the
dynamic variants must also match at. `utils/zoo/zoo.py` drives them
(docs/Zoo.md).

Models register themselves with the `zoo_model` decorator on their build
function:

    @zoo_model("resnet18", "vision-cls", inputs=image_inputs(),
               sizes=IMG_SIZES, dynamic_axes=IMG_DYN, ci=True)
    def resnet18():
        return torchvision.models.resnet18(num_classes=10)

Weights are reproducible: the driver seeds torch with `model.seed` (derived
from the name) right before `make()`, and with `input_seed(i)` before the
inputs of size i. Nothing is ever downloaded (weights=None everywhere).
"""

import hashlib
import inspect
import os
import types
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import torch

ZOO_DIR = os.path.dirname(os.path.abspath(__file__))

FAMILIES = ["vision-cls", "detection", "segmentation", "video", "flow",
            "vision-other", "audio", "language", "quantized", "sklearn", "packaged"]
VARIANTS = ["13-static", "13-dynamic", "17-static", "17-dynamic"]


def name_seed(name: str) -> int:
    """A per-model seed derived from its name (stable across runs)."""
    return int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) % (2**31)


@dataclass
class ZooModel:
    name: str
    family: str
    make: Callable[[], torch.nn.Module]
    inputs: Callable[[dict], tuple]
    input_names: List[str]
    output_names: List[str]
    sizes: List[dict]
    dynamic_axes: Dict[str, Dict[int, str]] = field(default_factory=dict)
    rtol: float = 1e-3
    atol: float = 1e-4
    ci: bool = False
    # Variants the CI subset runs for this model (the whole zoo runs all).
    ci_variants: Tuple[str, ...] = ("17-dynamic",)
    opsets: Tuple[int, ...] = (13, 17)
    note: str = ""
    # Extra keyword arguments for torch.onnx.export.
    export_kwargs: dict = field(default_factory=dict)
    # Models that are not torch modules (scikit-learn, packaged .onnx
    # files) set these two instead of relying on `make`:
    #   export_onnx(opset, dynamic, path) writes the .onnx file;
    #   reference(inputs) returns the expected outputs (numpy arrays or
    #   tensors, in graph output order) for a tuple of inputs.
    # `inputs` may return numpy arrays as well as tensors.
    export_onnx: Optional[Callable[[int, bool, str], None]] = None
    reference: Optional[Callable[[tuple], list]] = None

    @property
    def seed(self) -> int:
        return name_seed(self.name)

    def input_seed(self, index: int) -> int:
        return (self.seed + 7919 * (index + 1)) % (2**31)

    def build(self) -> torch.nn.Module:
        torch.manual_seed(self.seed)
        module = self.make()
        module.eval()
        return module

    def make_inputs(self, index: int) -> tuple:
        torch.manual_seed(self.input_seed(index))
        args = self.inputs(self.sizes[index])
        return args if isinstance(args, tuple) else (args,)

    def variants(self) -> List[str]:
        return [v for v in VARIANTS if int(v.split("-")[0]) in self.opsets]

    def definition_hash(self) -> str:
        """Hash of the model's source (its build and input functions and
        the zoo definitions they use) and its parameters: the export cache
        key (together with the variant)."""
        h = hashlib.sha256()
        roots = [f for f in (self.make, self.inputs, self.export_onnx,
                             self.reference) if f is not None]
        for part in source_closure(roots):
            h.update(part.encode())
        params = (self.name, self.family, self.input_names, self.output_names,
                  self.sizes, sorted((k, sorted(v.items()))
                                     for k, v in self.dynamic_axes.items()),
                  self.opsets, repr(sorted(self.export_kwargs.items())),
                  torch.__version__)
        h.update(repr(params).encode())
        return h.hexdigest()[:16]


REGISTRY: Dict[str, ZooModel] = {}


def register(model: ZooModel) -> ZooModel:
    if model.name in REGISTRY:
        raise ValueError("zoo: model %s registered twice" % model.name)
    if len(model.sizes) < 2:
        raise ValueError("zoo: model %s needs at least two sizes" % model.name)
    if model.family not in FAMILIES:
        raise ValueError("zoo: model %s: unknown family %s" %
                         (model.name, model.family))
    REGISTRY[model.name] = model
    return model


def zoo_model(name, family, *, inputs, sizes, input_names=None,
              output_names=None, dynamic_axes=None, **kw):
    """Decorator registering a build function as a zoo model."""
    def wrap(make):
        register(ZooModel(name=name, family=family, make=make, inputs=inputs,
                          input_names=list(input_names or ["input"]),
                          output_names=list(output_names or ["output"]),
                          sizes=list(sizes),
                          dynamic_axes=dict(dynamic_axes or {}), **kw))
        return make
    return wrap


# ---- source hashing ---------------------------------------------------------

def _is_zoo_object(obj) -> bool:
    mod = getattr(obj, "__module__", None) or ""
    if not mod:
        return False
    try:
        path = inspect.getsourcefile(obj) or ""
    except TypeError:
        return False
    return os.path.dirname(os.path.abspath(path)) == ZOO_DIR


def _code_names(code) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def source_closure(roots: Sequence) -> List[str]:
    """The sources of `roots` and of every zoo-defined function or class
    they reach through globals and closures (sorted, stable)."""
    seen, parts, stack = set(), [], list(roots)
    while stack:
        obj = stack.pop()
        if isinstance(obj, functools_partial_type()):
            parts.append(repr((obj.args, sorted(obj.keywords.items()))))
            stack.append(obj.func)
            continue
        key = id(obj)
        if key in seen:
            continue
        seen.add(key)
        if isinstance(obj, (types.FunctionType, type)):
            if not _is_zoo_object(obj):
                parts.append("%s.%s" % (obj.__module__, obj.__qualname__))
                continue
            try:
                parts.append(inspect.getsource(obj))
            except (OSError, TypeError):
                parts.append(obj.__qualname__)
            if isinstance(obj, type):
                stack.extend(obj.__bases__)
            funcs = [obj] if isinstance(obj, types.FunctionType) else [
                v for v in vars(obj).values()
                if isinstance(v, (types.FunctionType, staticmethod,
                                  classmethod, property))]
            for f in funcs:
                if isinstance(f, (staticmethod, classmethod)):
                    f = f.__func__
                if isinstance(f, property):
                    f = f.fget
                if not isinstance(f, types.FunctionType):
                    continue
                g = f.__globals__
                for n in _code_names(f.__code__):
                    if n in g:
                        v = g[n]
                        if isinstance(v, (types.FunctionType, type)) or \
                                isinstance(v, functools_partial_type()):
                            stack.append(v)
                        elif isinstance(v, (int, float, str, tuple, list,
                                            dict)):
                            parts.append("%s=%r" % (n, v))
                for cell in f.__closure__ or ():
                    try:
                        v = cell.cell_contents
                    except ValueError:
                        continue
                    if isinstance(v, (types.FunctionType, type)):
                        stack.append(v)
                    else:
                        parts.append(repr(v))
    return sorted(parts)


def functools_partial_type():
    import functools
    return functools.partial


# ---- input helpers ----------------------------------------------------------

def image_inputs(channels=3, names=("n", "h", "w")):
    """One NCHW float image batch of size {n, h, w}."""
    def make(s):
        return (torch.randn(s["n"], channels, s["h"], s["w"]),)
    return make


def image_dyn(name="input"):
    return {name: {0: "batch", 2: "height", 3: "width"}}


def batch_dyn(*names):
    return {n: {0: "batch"} for n in names}


def tokens(batch, seq, vocab, low=0):
    return torch.randint(low, vocab, (batch, seq), dtype=torch.int64)
