# Models on which libonnx 1.12's graph shape inference dereferenced a null
# pointer, crashing onnxc (found by onnxc-fuzz-import). The importer hands
# ONNX inference schemas whose functions are guarded; what is wrong with each
# model is then diagnosed by the import itself. (`not` fails on a crash.)
# RUN: rm -rf %t && mkdir -p %t

# Shape's data propagation read the type of an input that has none: a name
# nothing defines, an untyped graph input, a custom op's result.
# RUN: %python %s undefined %t/undefined.onnx
# RUN: not onnxc --emit=onnx %t/undefined.onnx 2>&1 | FileCheck %s --check-prefix=UNDEFINED
# UNDEFINED: undefined.onnx: node 'shape': error: input 'nowhere' of node 'shape' (Shape) is not defined before the node
# RUN: %python %s untyped %t/untyped.onnx
# RUN: not onnxc --emit=onnx %t/untyped.onnx 2>&1 | FileCheck %s --check-prefix=UNTYPED
# UNTYPED: untyped.onnx: error: graph input 'x' has no supported type
# RUN: %python %s custom %t/custom.onnx
# RUN: not onnxc --emit=onnx %t/custom.onnx 2>&1 | FileCheck %s --check-prefix=CUSTOM
# CUSTOM: custom.onnx: error: the model uses 1 operator(s) not supported by onnxc:
# CUSTOM-NEXT: com.example::Foo-1

# Scan's inference read its required attribute num_scan_inputs unchecked
# (Scan-8 at opset 8 is now refused before the version converter, below).
# RUN: %python %s scan-no-attr %t/scan.onnx
# RUN: not onnxc --emit=onnx %t/scan.onnx 2>&1 | FileCheck %s --check-prefix=SCAN
# SCAN: scan.onnx: node 'scan': error: node 'scan' (Scan) lacks required attribute 'num_scan_inputs'

# Conv without kernel_shape takes the kernel from the weights; with weights of
# a higher rank than the data, libonnx's inference read past its vectors
# (in ONNX's graph inference and in the importer's per-node inference). The
# node now imports with an unknown result type.
# RUN: %python %s conv-ranks %t/conv.onnx
# RUN: onnxc --emit=onnx-inferred %t/conv.onnx -o - | FileCheck %s --check-prefix=CONV
# CONV: "onnx.Conv"(%{{.*}}, %{{.*}}) {{.*}} : (tensor<1x1x3xf32>, tensor<1x1x2x2xf32>) -> tensor<*xf32>

# The importer's own per-node inference (SchemaInference.cpp) handed ONNX's
# inference a null output type for a node with fewer outputs than its schema
# writes: Adam with one output (its outputs are variadic). It now imports.
# RUN: %python %s adam-one-output %t/adam.onnx
# RUN: onnxc --emit=onnx %t/adam.onnx -o - | FileCheck %s --check-prefix=ADAM
# ADAM: "onnx.preview.training.Adam"({{.*}}) -> tensor<2xf32>

# EyeLike-9 read the type of its input unchecked: here a custom op's result.
# RUN: %python %s eyelike-custom %t/eyelike.onnx
# RUN: not onnxc --emit=onnx %t/eyelike.onnx 2>&1 | FileCheck %s --check-prefix=EYELIKE
# EYELIKE: eyelike.onnx: error: the model uses 1 operator(s) not supported by onnxc:
# EYELIKE-NEXT: com.example::Foo-1

# Inference that assumed the rank the spec requires (LayerNormalization of a
# scalar, STFT of a rank-1 signal, Gemm of a vector), or divided by a stride
# of 0: the node imports without a result type, and compiling it names it.
# RUN: %python %s layernorm-scalar %t/ln.onnx
# RUN: not onnxc %t/ln.onnx -o %t/ln.so 2>&1 | FileCheck %s --check-prefix=LN
# LN: error: output 'y' has type 'tensor<*xf32>': {{.*}}; the rank is unknown from node 'ln' (LayerNormalization) on, whose operands (tensor<f32>, tensor<5xf32>) do not fit the operator
# RUN: %python %s stft-rank1 %t/stft.onnx
# RUN: not onnxc %t/stft.onnx -o %t/stft.so 2>&1 | FileCheck %s --check-prefix=STFT
# STFT: the rank is unknown from node 'stft' (STFT) on, whose operands (tensor<16xf32>, tensor<i64>)
# RUN: %python %s gemm-rank1 %t/gemm.onnx
# RUN: not onnxc %t/gemm.onnx -o %t/gemm.so 2>&1 | FileCheck %s --check-prefix=GEMM
# GEMM: the rank is unknown from node 'gemm' (Gemm) on, whose operands (tensor<3xf32>, tensor<3x4xf32>)
# RUN: %python %s pool-stride0 %t/pool.onnx
# RUN: not onnxc %t/pool.onnx -o %t/pool.so 2>&1 | FileCheck %s --check-prefix=POOL
# POOL: the rank is unknown from node 'pool' (AveragePool) on, whose operands (tensor<1x1x4x4xf32>)

# ConvTranspose's inference read dim 1 of a 1-D filter when kernel_shape was
# given (found by onnxc-fuzz-import): the filter's rank must be the data's.
# RUN: %python %s convtranspose-w-rank1 %t/convt.onnx
# RUN: not onnxc %t/convt.onnx -o %t/convt.so 2>&1 | FileCheck %s --check-prefix=CONVT
# CONVT: the rank is unknown from node 'convt' (ConvTranspose) on, whose operands (tensor<1x3x7x6xf32>, tensor<4xf32>)

# GRU-3's inference (opset 6) read dims 0 and 1 of a 1-D X (found by
# onnxc-fuzz-import): X must have rank 3, else ONNX's inference skips the
# node, and the version converter refuses GRU-3. (The out-of-bounds read
# need not crash a release build: fuzz-regressions/ replays it under ASan.)
# RUN: %python %s gru-x-rank1 %t/gru.onnx
# RUN: not onnxc %t/gru.onnx -o %t/gru.so 2>&1 | FileCheck %s --check-prefix=GRU
# GRU: cannot convert the model from opset 6 to opset 17: {{.*}}No Adapter From Version $6 for GRU

# MaxUnpool's inference read the shape of indices that have none (found by
# onnxc-fuzz-import): inference waits for it; the import goes on.
# RUN: %python %s maxunpool-no-index-shape %t/maxunpool.onnx
# RUN: onnxc --emit=onnx %t/maxunpool.onnx -o - | FileCheck %s --check-prefix=MAXUNPOOL
# MAXUNPOOL: "onnx.MaxUnpool"(%arg0, %arg1) {{.*}} : (tensor<1x1x2x2xf32>, tensor<*xi64>) -> tensor<1x1x4x4xf32>

# libonnx's Gemm 6 -> 7 adapter indexed the shapes of A and B as matrices
# (found by onnxc-fuzz-import; a scalar A crashed it).
# RUN: %python %s gemm6-scalar %t/gemm6.onnx
# RUN: not onnxc --emit=onnx %t/gemm6.onnx 2>&1 | FileCheck %s --check-prefix=GEMM6
# GEMM6: error: node 'gemm' (Gemm): converting it to opset 7 or later needs its inputs A and B of known rank 2

# ... and indices of another rank than X (found the same way).
# RUN: %python %s maxunpool-index-rank1 %t/maxunpool1.onnx
# RUN: onnxc --emit=onnx %t/maxunpool1.onnx -o - | FileCheck %s --check-prefix=MAXUNPOOL1
# MAXUNPOOL1: "onnx.MaxUnpool"(%arg0, %arg1) {{.*}} : (tensor<1x1x2x2xf32>, tensor<4xi64>) -> tensor<1x1x4x4xf32>

# Split without outputs: libonnx's inference divided the split dim by the
# number of outputs (found by onnxc-fuzz-import: SIGFPE, release builds
# too). Inference now skips a node whose output count its schema does not
# allow; such a Split computes nothing, and the model compiles.
# RUN: %python %s split-no-outputs %t/split0.onnx
# RUN: onnxc --emit=onnx %t/split0.onnx -o - | FileCheck %s --check-prefix=SPLIT0
# SPLIT0: "onnx.Split"(%arg0) <{axis = 0 : i64}> : (tensor<3xf32>) -> ()
# RUN: onnxc %t/split0.onnx -o %t/split0.so

# Sub's data propagation read the first element of the empty shape data of
# a scalar's Shape. It now imports.
# RUN: %python %s shape-data %t/shape-data.onnx
# RUN: onnxc --emit=onnx %t/shape-data.onnx -o - | FileCheck %s --check-prefix=SHAPEDATA
# SHAPEDATA: "onnx.Sub"(%{{.*}}, %{{.*}}) : (tensor<0xi64>, tensor<1xi64>) -> tensor<0xi64>

# libonnx's version converter (opset 6 -> 17) built its IR trusting node
# arity and, before IR version 4, that graph outputs are not bare
# initializers.
# RUN: %python %s convert-no-input %t/convert-no-input.onnx
# RUN: not onnxc --emit=onnx %t/convert-no-input.onnx 2>&1 | FileCheck %s --check-prefix=NOINPUT
# NOINPUT: error: node 'softmax' (Softmax) does not fit its schema: Node (softmax) has input size 0 not in range [min=1, max=1].
# RUN: %python %s convert-ir3-initializer %t/convert-ir3.onnx
# RUN: not onnxc --emit=onnx %t/convert-ir3.onnx 2>&1 | FileCheck %s --check-prefix=IR3
# IR3: error: output 'w' of graph 'g' is not produced by any node

# A typed input is unaffected: Reshape gets the shape that Shape computes.
# RUN: %python %s typed %t/typed.onnx
# RUN: onnxc --emit=onnx %t/typed.onnx -o - | FileCheck %s --check-prefix=TYPED
# TYPED: "onnx.Shape"(%{{.*}}) <{end = 3 : i64, start = 1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2xi64>
# TYPED: "onnx.Reshape"(%{{.*}}, %{{.*}}) {{.*}} -> tensor<3x4xf32>

import sys

from onnx import TensorProto, ValueInfoProto, helper, save

case, path = sys.argv[1], sys.argv[2]
opsets = [helper.make_opsetid("", 17)]
y = helper.make_tensor_value_info("y", TensorProto.INT64, [2])
if case == "undefined":
    nodes = [helper.make_node("Shape", ["nowhere"], ["y"], name="shape",
                              start=-2, end=-1)]
    inputs = []
elif case == "untyped":
    x = ValueInfoProto()
    x.name = "x"
    nodes = [helper.make_node("Shape", ["x"], ["y"], name="shape", start=-2)]
    inputs = [x]
elif case == "custom":
    nodes = [helper.make_node("Foo", ["x"], ["t"], name="foo",
                              domain="com.example"),
             helper.make_node("Shape", ["t"], ["y"], name="shape", start=-2)]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])]
    opsets.append(helper.make_opsetid("com.example", 1))
elif case == "scan-no-attr":
    body = helper.make_graph(
        [helper.make_node("Add", ["sum_in", "next"], ["sum_out"]),
         helper.make_node("Identity", ["sum_out"], ["scan_out"])],
        "body",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2])
         for n in ["sum_in", "next"]],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2])
         for n in ["sum_out", "scan_out"]])
    # Scan-16 without num_scan_inputs.
    nodes = [helper.make_node("Scan", ["init", "xs"], ["sum", "ys"],
                              name="scan", body=body)]
    inputs = [helper.make_tensor_value_info("init", TensorProto.FLOAT, [2]),
              helper.make_tensor_value_info("xs", TensorProto.FLOAT, [3, 2])]
    y = helper.make_tensor_value_info("sum", TensorProto.FLOAT, [2])
elif case == "conv-ranks":
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 3]),
              helper.make_tensor_value_info("w", TensorProto.FLOAT,
                                            [1, 1, 2, 2])]
    y = helper.make_tensor_value_info("c", TensorProto.FLOAT, None)
elif case == "adam-one-output":
    names = ["R", "T", "X1", "X2", "G1", "G2", "V1", "V2", "H1", "H2"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT,
                                            [] if n in "RT" else [2])
              for n in names]
    inputs[1] = helper.make_tensor_value_info("T", TensorProto.INT64, [])
    nodes = [helper.make_node("Adam", names, ["X1_new"], name="adam",
                              domain="ai.onnx.preview.training")]
    y = helper.make_tensor_value_info("X1_new", TensorProto.FLOAT, [2])
    opsets.append(helper.make_opsetid("ai.onnx.preview.training", 1))
elif case == "eyelike-custom":
    nodes = [helper.make_node("Foo", ["x"], ["t"], name="foo",
                              domain="com.example"),
             helper.make_node("EyeLike", ["t"], ["y"], name="eye")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    opsets = [helper.make_opsetid("", 9), helper.make_opsetid("com.example", 1)]
elif case == "layernorm-scalar":
    nodes = [helper.make_node("LayerNormalization", ["x", "w"], ["y"],
                              name="ln")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, []),
              helper.make_tensor_value_info("w", TensorProto.FLOAT, [5])]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
elif case == "stft-rank1":
    nodes = [helper.make_node("STFT", ["x", "step"], ["y"], name="stft")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16]),
              helper.make_tensor_value_info("step", TensorProto.INT64, [])]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
elif case == "pool-stride0":
    nodes = [helper.make_node("AveragePool", ["x"], ["y"], name="pool",
                              kernel_shape=[2, 1], strides=[2, 0])]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                            [1, 1, 4, 4])]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
elif case == "convtranspose-w-rank1":
    nodes = [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="convt",
                              kernel_shape=[3, 3], strides=[3, 2],
                              pads=[1, 1, 1, 1], output_padding=[1, 1])]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                            [1, 3, 7, 6]),
              helper.make_tensor_value_info("w", TensorProto.FLOAT, [4])]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
elif case == "gru-x-rank1":
    nodes = [helper.make_node("GRU", ["x", "w", "r"], ["y"], name="gru")]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1])
              for n in ["x", "w", "r"]]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    opsets = [helper.make_opsetid("", 6)]
elif case == "maxunpool-no-index-shape":
    nodes = [helper.make_node("MaxUnpool", ["x", "i"], ["y"], name="unpool",
                              kernel_shape=[2, 2], strides=[2, 2])]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                            [1, 1, 2, 2]),
              helper.make_tensor_value_info("i", TensorProto.INT64, None)]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 4, 4])
    opsets = [helper.make_opsetid("", 22)]
elif case == "gemm6-scalar":
    nodes = [helper.make_node("Gemm", ["a", "b", "c"], ["y"], name="gemm",
                              broadcast=1)]
    inputs = [helper.make_tensor_value_info("a", TensorProto.FLOAT, []),
              helper.make_tensor_value_info("b", TensorProto.FLOAT, [3, 4]),
              helper.make_tensor_value_info("c", TensorProto.FLOAT, [1])]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])
    opsets = [helper.make_opsetid("", 6)]
elif case == "maxunpool-index-rank1":
    nodes = [helper.make_node("MaxUnpool", ["x", "i"], ["y"], name="unpool",
                              kernel_shape=[2, 2], strides=[2, 2])]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                            [1, 1, 2, 2]),
              helper.make_tensor_value_info("i", TensorProto.INT64, [4])]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 4, 4])
    opsets = [helper.make_opsetid("", 11)]
elif case == "split-no-outputs":
    nodes = [helper.make_node("Split", ["x"], [], name="split", axis=0),
             helper.make_node("Neg", ["x"], ["y"], name="neg")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])
    opsets = [helper.make_opsetid("", 13)]
elif case == "gemm-rank1":
    nodes = [helper.make_node("Gemm", ["a", "b"], ["y"], name="gemm")]
    inputs = [helper.make_tensor_value_info("a", TensorProto.FLOAT, [3]),
              helper.make_tensor_value_info("b", TensorProto.FLOAT, [3, 4])]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
elif case == "shape-data":
    # Shape of a scalar is empty shape data; Sub's data propagation read its
    # first element.
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Sub", ["s", "one"], ["y"], name="sub")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, []),
              helper.make_tensor_value_info("one", TensorProto.INT64, [1])]
    y = helper.make_tensor_value_info("y", TensorProto.INT64, None)
elif case == "convert-no-input":
    nodes = [helper.make_node("Softmax", [], ["y"], name="softmax")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    opsets = [helper.make_opsetid("", 6)]
elif case == "convert-ir3-initializer":
    nodes = [helper.make_node("Neg", ["x"], ["n"], name="neg")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])]
    y = helper.make_tensor_value_info("w", TensorProto.FLOAT, [2])
    opsets = [helper.make_opsetid("", 6)]
else:  # typed
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape", start=1,
                              end=3),
             helper.make_node("Reshape", ["z", "s"], ["y"], name="reshape")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4]),
              helper.make_tensor_value_info("z", TensorProto.FLOAT, [12])]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
initializers = []
if case == "convert-ir3-initializer":
    initializers = [helper.make_tensor("w", TensorProto.FLOAT, [2], [1, 2])]
model = helper.make_model(
    helper.make_graph(nodes, "g", inputs, [y], initializer=initializers),
    opset_imports=opsets)
model.ir_version = 3 if case.startswith("convert") else 8
save(model, path)
