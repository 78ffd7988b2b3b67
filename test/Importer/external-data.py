# Initializers stored as external data are read relative to the model's
# folder; locations that leave it, and data files that are missing or too
# short, are refused with an error naming the tensor.
# RUN: rm -rf %t && mkdir -p %t

# A model saved by onnx.save(..., save_as_external_data=True).
# RUN: %python %s ok %t/ok/model.onnx
# RUN: onnxc --emit=onnx %t/ok/model.onnx -o - | FileCheck %s --check-prefix=OK
# The file can be named from anywhere: locations are relative to the model.
# RUN: cd %t && onnxc --emit=onnx ok/model.onnx -o - | FileCheck %s --check-prefix=OK
# OK-LABEL: func.func @main_graph
# OK-DAG: %[[SMALL:.+]] = "onnx.Constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}>
# OK-DAG: %[[BIG:.+]] = "onnx.Constant"() <{value = dense_resource<big> : tensor<16x32xf32>}>
# OK: "onnx.MatMul"(%{{.*}}, %[[BIG]])
# OK: "onnx.Mul"(%{{.*}}, %[[SMALL]])
# OK: dialect_resources
# OK: big: "0x04000000000000000000803F000000400000404000008040

# Locations in a subfolder are fine.
# RUN: %python %s subdir %t/subdir/model.onnx
# RUN: onnxc --emit=onnx %t/subdir/model.onnx -o - | FileCheck %s --check-prefix=OK

# An absolute location is refused even when it points into the folder.
# RUN: %python %s absolute %t/absolute/model.onnx
# RUN: test -f %t/absolute/weights.bin
# RUN: not onnxc --emit=onnx %t/absolute/model.onnx -o - 2>&1 | FileCheck %s --check-prefix=ABSOLUTE
# ABSOLUTE: error: initializer: tensor 'small': external data location '{{.*}}/absolute/weights.bin' must be a path relative to the model's folder
# ABSOLUTE-NOT: func.func

# So is '..', even when the file it names exists.
# RUN: %python %s dotdot %t/dotdot/model.onnx
# RUN: test -f %t/weights.bin
# RUN: not onnxc --emit=onnx %t/dotdot/model.onnx -o - 2>&1 | FileCheck %s --check-prefix=DOTDOT
# DOTDOT: error: initializer: tensor 'small': external data location '../weights.bin' leaves the model's folder

# RUN: %python %s missing %t/missing/model.onnx
# RUN: not onnxc --emit=onnx %t/missing/model.onnx -o - 2>&1 | FileCheck %s --check-prefix=MISSING
# MISSING: error: initializer: tensor 'small': external data file '{{.*}}/missing/weights.bin' not found

# The data file ends in the middle of the second tensor.
# RUN: %python %s short %t/short/model.onnx
# RUN: not onnxc --emit=onnx %t/short/model.onnx -o - 2>&1 | FileCheck %s --check-prefix=SHORT
# SHORT: error: initializer: tensor 'big': external data range [{{[0-9]+}}, {{[0-9]+}}) is outside '{{.*}}/short/weights.bin' of 1040 bytes

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def make_model():
    small = numpy_helper.from_array(np.arange(1, 5, dtype=np.float32), "small")
    big = numpy_helper.from_array(
        np.arange(16 * 32, dtype=np.float32).reshape(16, 32), "big"
    )
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["A", "big"], ["M"], name="matmul"),
            helper.make_node("Mul", ["B", "small"], ["Y"], name="mul"),
        ],
        "external",
        [
            helper.make_tensor_value_info("A", TensorProto.FLOAT, [4, 16]),
            helper.make_tensor_value_info("B", TensorProto.FLOAT, [4, 4]),
        ],
        [
            helper.make_tensor_value_info("M", TensorProto.FLOAT, [4, 32]),
            helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4, 4]),
        ],
        [small, big],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


mode, path = sys.argv[1], sys.argv[2]
folder = os.path.dirname(path)
os.makedirs(folder, exist_ok=True)
location = {
    "ok": "weights.bin",
    "subdir": os.path.join("data", "weights.bin"),
    "absolute": os.path.join(os.path.abspath(folder), "weights.bin"),
    "dotdot": os.path.join("..", "weights.bin"),
    "missing": "weights.bin",
    "short": "weights.bin",
}[mode]
if mode == "subdir":
    os.makedirs(os.path.join(folder, "data"), exist_ok=True)

model = make_model()
onnx.save(
    model,
    path,
    save_as_external_data=True,
    all_tensors_to_one_file=True,
    location=location,
    size_threshold=0,
)

data = os.path.join(folder, location)
if mode == "missing":
    os.remove(data)
elif mode == "short":
    # 16 bytes of `small`, then 1024 of the 2048 bytes of `big`.
    with open(data, "r+b") as f:
        f.truncate(16 + 1024)
