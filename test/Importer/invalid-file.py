# Files that are not ONNX models are refused with a clear error, not a crash.
# RUN: rm -rf %t && mkdir -p %t

# The first half of a valid model.
# RUN: %python %s truncated %t/truncated.onnx
# RUN: not onnxc --emit=onnx %t/truncated.onnx -o - 2>&1 | FileCheck %s --check-prefix=MALFORMED
# Random bytes (fixed seed).
# RUN: %python %s random %t/random.onnx
# RUN: not onnxc --emit=onnx %t/random.onnx -o - 2>&1 | FileCheck %s --check-prefix=MALFORMED
# MALFORMED: error: not a valid ONNX model: the protobuf is truncated or malformed
# MALFORMED-NOT: func.func

# Well-formed protobuf without a graph: an empty file, a ModelProto with
# nothing but its header fields.
# RUN: %python %s empty %t/empty.onnx
# RUN: not onnxc --emit=onnx %t/empty.onnx -o - 2>&1 | FileCheck %s --check-prefix=NOGRAPH
# RUN: %python %s no-graph %t/no-graph.onnx
# RUN: not onnxc --emit=onnx %t/no-graph.onnx -o - 2>&1 | FileCheck %s --check-prefix=NOGRAPH
# NOGRAPH: error: not a valid ONNX model: no graph

# A model without ir_version.
# RUN: %python %s no-ir-version %t/no-ir-version.onnx
# RUN: not onnxc --emit=onnx %t/no-ir-version.onnx -o - 2>&1 | FileCheck %s --check-prefix=NOIR
# NOIR: error: not a valid ONNX model: no ir_version

# RUN: not onnxc --emit=onnx %t/does-not-exist.onnx -o - 2>&1 | FileCheck %s --check-prefix=MISSING
# MISSING: error: cannot read '{{.*}}does-not-exist.onnx': No such file or directory

# The valid model itself imports.
# RUN: %python %s valid %t/valid.onnx
# RUN: onnxc --emit=onnx %t/valid.onnx -o - | FileCheck %s --check-prefix=VALID
# VALID: "onnx.Relu"

import random
import sys

import onnx
from onnx import TensorProto, helper


def valid_model():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["X"], ["Y"], name="relu")],
        "valid",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [64, 64])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [64, 64])],
        [helper.make_tensor("unused", TensorProto.FLOAT, [64],
                            [float(i) for i in range(64)])],
        doc_string="padding " * 32,
    )
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 17)])


mode, path = sys.argv[1], sys.argv[2]
if mode == "valid":
    data = valid_model().SerializeToString()
elif mode == "truncated":
    full = valid_model().SerializeToString()
    data = full[: len(full) // 2]
elif mode == "random":
    rng = random.Random(0)
    data = bytes(rng.randrange(256) for _ in range(4096))
elif mode == "empty":
    data = b""
elif mode == "no-graph":
    model = onnx.ModelProto(ir_version=8, producer_name="nothing")
    data = model.SerializeToString()
elif mode == "no-ir-version":
    model = valid_model()
    model.ClearField("ir_version")
    data = model.SerializeToString()
with open(path, "wb") as f:
    f.write(data)
