# -*- Python -*-
# The onnxc lit suite: .mlir files run through onnx-mlir-opt, and .py files
# under Importer/ that build an ONNX model with onnx.helper and run onnxc on
# it. Every RUN line's output is checked with FileCheck.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "onnxc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]  # Importer/lit.local.cfg adds .py
config.excludes = [
    "CMakeLists.txt",
    "Inputs",
    "import-sweep",
    "lit.cfg.py",
    "lit.site.cfg.py",
]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.onnxc_obj_root, "test")

# FileCheck (and `| not`, `| count`), then the onnxc tools. `not` and
# split-file at the start of a RUN line come from PATH.
llvm_config.use_default_substitutions()
llvm_config.with_environment(
    "PATH", [config.onnxc_tools_dir, config.llvm_tools_dir], append_path=True
)
llvm_config.add_tool_substitutions(
    [
        ToolSubst("onnxc", unresolved="fatal"),
        ToolSubst("onnx-mlir-opt", unresolved="fatal"),
    ],
    [config.onnxc_tools_dir],
)
llvm_config.add_tool_substitutions(
    [ToolSubst("split-file", unresolved="fatal")], [config.llvm_tools_dir]
)

# %python is the interpreter that has the onnx package (Debian's
# python3-onnx), not necessarily the one running lit.
config.substitutions = [
    (key, value) for key, value in config.substitutions if key != "%python"
]
config.substitutions.append(("%python", config.python_executable))

# Keep the user's site-packages out of the way of the system onnx package,
# and the test's folder out of sys.path (test/Importer/x.py must not shadow a
# module `x`).
llvm_config.with_environment("PYTHONNOUSERSITE", "1")
llvm_config.with_environment("PYTHONSAFEPATH", "1")

# The ONNX backend tests of Debian's libonnx-testdata (utils/setup.sh
# installs it), for tests that check a few of them differently from the
# conformance sweep.
onnx_testdata = "/usr/share/libonnx-testdata/data"
if os.path.isdir(os.path.join(onnx_testdata, "node")):
    config.available_features.add("onnx-testdata")
    config.substitutions.append(("%onnx_testdata", onnx_testdata))

# PyTorch (Debian's python3-torch), the reference of the gradient tests.
import subprocess

if subprocess.run([config.python_executable, "-c", "import torch"],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("torch")
