"""Models and inputs for narrow-types.test: int4 through the C API (packed
two per byte) and float8e4m3fn results of Cast with and without saturate.

usage: narrow_types.py OUT_DIR
"""
import os
import sys

import onnx
from onnx import helper

INT4, FLOAT8E4M3FN = 22, 17


def value(name, elem_type, shape):
    v = onnx.ValueInfoProto()
    v.name = name
    v.type.tensor_type.elem_type = elem_type
    for d in shape:
        v.type.tensor_type.shape.dim.add().dim_value = d
    return v


def save_model(path, nodes, inputs, outputs, opset):
    graph = helper.make_graph(nodes, "narrow", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def save_tensor(path, elem_type, dims, raw):
    t = onnx.TensorProto()
    t.data_type = elem_type
    t.dims.extend(dims)
    t.raw_data = raw
    with open(path, "wb") as f:
        f.write(t.SerializeToString())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    # int4 in, float and int4 out: Z = int4(float(X) * 2), which wraps.
    two = helper.make_tensor("two", onnx.TensorProto.FLOAT, [], [2.0])
    save_model(os.path.join(out, "int4.onnx"), [
        helper.make_node("Cast", ["X"], ["Y"], to=onnx.TensorProto.FLOAT),
        helper.make_node("Constant", [], ["two"], value=two),
        helper.make_node("Mul", ["Y", "two"], ["W"]),
        helper.make_node("Cast", ["W"], ["Z"], to=INT4),
    ], [value("X", INT4, [5])],
        [value("Y", onnx.TensorProto.FLOAT, [5]), value("Z", INT4, [5])], 21)
    # X = [-8, -1, 0, 3, 7]: the first element in the low nibble.
    save_tensor(os.path.join(out, "x_int4.pb"), INT4, [5], bytes([0xF8, 0x30, 0x07]))
    # float8e4m3fn: Y saturates, N does not, Z reads Y back as float.
    save_model(os.path.join(out, "float8.onnx"), [
        helper.make_node("Cast", ["X"], ["Y"], to=FLOAT8E4M3FN),
        helper.make_node("Cast", ["X"], ["N"], to=FLOAT8E4M3FN, saturate=0),
        helper.make_node("Cast", ["Y"], ["Z"], to=onnx.TensorProto.FLOAT),
    ], [value("X", onnx.TensorProto.FLOAT, [6])],
        [value("Y", FLOAT8E4M3FN, [6]), value("N", FLOAT8E4M3FN, [6]),
         value("Z", onnx.TensorProto.FLOAT, [6])], 19)
    import struct
    xs = [0.3, -1.75, 500.0, -1e6, float("nan"), 1e-9]
    save_tensor(os.path.join(out, "x_float.pb"), onnx.TensorProto.FLOAT, [6],
                struct.pack("<6f", *xs))


if __name__ == "__main__":
    main()
