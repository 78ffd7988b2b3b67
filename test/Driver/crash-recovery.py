# A crash inside the compiler's pipelines is one error naming the stage, the
# pass, the pattern and the ONNX node being rewritten, with exit status 1,
# never a signal (`not` fails on a crash). --testing-crash-at-node makes a
# pattern crash on purpose on one node: a trap, or an LLVM fatal error.
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t/model.onnx

# RUN: not onnxc %t/model.onnx -o %t/model.so --testing-crash-at-node=act 2>&1 | FileCheck %s --check-prefix=TRAP
# TRAP: onnxc: error: internal compiler error in stage 'onnx -> linalg', pass 'onnxc-test-crash', pattern '{{.*}}CrashAtNode', while rewriting node 'act' (onnx.Relu); this is a bug in onnxc (the input is not at fault)
# TRAP-NOT: Stack dump
# TRAP-NOT: PLEASE submit

# RUN: not onnxc %t/model.onnx -o %t/model.so --testing-crash-at-node=scale:fatal 2>&1 | FileCheck %s --check-prefix=FATAL
# FATAL: onnxc: error: internal compiler error in stage 'onnx -> linalg', pass 'onnxc-test-crash', pattern '{{.*}}CrashAtNode', while rewriting node 'scale' (onnx.Mul)

# The exit status is 1, as for any other error.
# RUN: onnxc %t/model.onnx -o %t/model.so --testing-crash-at-node=act 2>/dev/null; echo "status $?" | FileCheck %s --check-prefix=STATUS
# STATUS: status 1

# Without the crash the model compiles.
# RUN: onnxc %t/model.onnx -o %t/model.so
# RUN: test -s %t/model.so

import sys

import onnx
from onnx import TensorProto, helper

nodes = [
    helper.make_node("Relu", ["x"], ["r"], name="act"),
    helper.make_node("Mul", ["r", "x"], ["y"], name="scale"),
]
graph = helper.make_graph(
    nodes, "crash",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          sys.argv[1])
