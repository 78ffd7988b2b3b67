#!/usr/bin/python3
"""Generates the ODS definitions and the op metadata table of the `onnx` dialect.

Reads ONNX 1.23.1's operator schemas (../shared/onnx-schemas/
onnx-1.23.1-schemas.json, dumped from ONNX's registry; --schemas names
another copy), picks for each operator the version the dialect models
(VERSIONS below) and writes:

  include/onnxc/Dialect/ONNX/IR/ONNXOps.gen.td   one ODS op per ONNX operator
  lib/Dialect/ONNX/IR/ONNXOpInfo.gen.inc         per-op metadata for the importer,
                                                 the type-variable verifier and the
                                                 schema-driven shape inference

Both outputs are checked in and never edited by hand; rerun this script
(`/usr/bin/python3 utils/gen_onnx_ops.py`) after changing it. Hand-written
behaviour (verifiers, folders, shape functions) is declared through the EXTRAS
table below and lives in lib/Dialect/ONNX/IR/*.cpp.
"""

import argparse
import json
import re
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(os.path.dirname(ROOT), "shared", "onnx-schemas",
                       "onnx-1.23.1-schemas.json")
TD_OUT = os.path.join(ROOT, "include/onnxc/Dialect/ONNX/IR/ONNXOps.gen.td")
INFO_OUT = os.path.join(ROOT, "lib/Dialect/ONNX/IR/ONNXOpInfo.gen.inc")

# Domain -> (mnemonic prefix, C++ class prefix, newest opset modelled). The
# schemas file names the default domain "ai.onnx"; the dialect's tables "".
DOMAINS = {
    "": ("", "ONNX", 17),
    "ai.onnx.ml": ("ml.", "ONNXML", 3),
    "ai.onnx.preview.training": ("preview.training.", "ONNXTraining", 1),
}

# Operators the dialect models at a version newer than its domain's opset
# above: the newest version up to the one given. The importer upgrades older
# versions' nodes to it (lib/Importer/NodeAdapters.cpp).
VERSIONS = {
    # 18: `axes` an optional input instead of an attribute, and
    # noop_with_empty_axes (ReduceSum made the same change in 13); 20: Max and
    # Min take bool.
    "ReduceL1": 18, "ReduceL2": 18, "ReduceLogSum": 18, "ReduceLogSumExp": 18,
    "ReduceMax": 20, "ReduceMean": 18, "ReduceMin": 20, "ReduceProd": 18,
    "ReduceSumSquare": 18,
    # 18: num_outputs (equal parts, the last smaller).
    "Split": 18,
    # 27: stash_type (f16/bf16 computed in f32 by default) and bfloat16.
    "Range": 27,
    # 19: saturate (float8 results); 24: round_mode (float8e8m0 results);
    # 21-28: int4/uint4, float4e2m1, int2/uint2, float6 types.
    "Cast": 28, "CastLike": 25,
    # 19-28: saturate, block_size (blocked quantization), output_dtype,
    # precision (QuantizeLinear's y_scale of its own type) and the narrow
    # types; the defaults are the older versions' behaviour.
    "QuantizeLinear": 28, "DequantizeLinear": 28,
    # 18: antialias, axes, keep_aspect_ratio_policy; 19: half_pixel_symmetric.
    "Resize": 19,
    # 18: optional `axes` input; 19: 'wrap' mode; 21-25: narrow types.
    "Pad": 25,
    # 19 (AveragePool) / 18 (LpPool): dilations, LpPool's ceil_mode; 22:
    # bfloat16.
    "AveragePool": 22, "LpPool": 22,
    # 18: reduction 'max' and 'min'.
    "ScatterElements": 18, "ScatterND": 18,
    # 18: the input optional, and plain tensors/sequences accepted.
    "OptionalHasElement": 28,
    # 20: modes renamed linear/cubic, N-D grids; 22: bfloat16 grids.
    "GridSample": 22,
    # Operators new after opset 17.
    "BitwiseAnd": 18, "BitwiseNot": 18, "BitwiseOr": 18, "BitwiseXor": 18,
    "BitCast": 26, "CumProd": 26, "TensorScatter": 24,
    "Gelu": 20, "Mish": 22, "RMSNormalization": 23, "Swish": 24,
    "LinearAttention": 27, "Col2Im": 18, "AffineGrid": 20,
    # 20: the axis attribute became an optional input (a run-time scalar).
    "DFT": 20,
    "StringConcat": 20, "StringSplit": 20, "RegexFullMatch": 20,
    "ImageDecoder": 20, "DeformConv": 22,
    # 28: fmod=0 defined for floats (floored modulus, IEEE special cases).
    "Mod": 28,
}

# The same for ai.onnx.ml (modelled at opset 3, libonnx 1.12's): operators
# new after it, which the importer takes at their version (ModelImporter.cpp,
# isModelledMLVersion). TreeEnsemble-5 replaces TreeEnsembleRegressor and
# TreeEnsembleClassifier (deprecated at 5, modelled at 3).
ML_VERSIONS = {
    "TreeEnsemble": 5,
    "LabelEncoder": 4,
}

OPSET_CHANGES = os.path.join(ROOT, "lib/Importer/OpsetChanges.def")


def read_opset_changes(path=OPSET_CHANGES):
    """OpsetChanges.def -> {op: [(version, kind)]}, the ai.onnx versions of
    opsets 18-28 and how they differ from the one before."""
    changes = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"ONNX_OPSET_CHANGE\((\w+), (\d+), (\w+)\)", line)
            if m:
                changes.setdefault(m.group(1), []).append((int(m.group(2)), m.group(3)))
    return changes


def types_only_version(name, changes, cap):
    """The newest version of ai.onnx operator `name` that differs from its
    version at opset `cap` only in type constraints (OpsetChanges.def's
    TypesOnly entries, in a row), or None when there is none newer."""
    newest = None
    for version, kind in sorted(changes.get(name, [])):
        if version <= cap:
            continue
        if kind != "TypesOnly":
            break
        newest = version
    return newest


# Ops with side effects or non-determinism: not Pure.
NOT_PURE = {
    "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
    "Multinomial", "Bernoulli", "Dropout",
}

# Hand-written extras: op name -> ODS lines added to the generated def.
EXTRAS = {
    "Constant": ["let hasVerifier = 1;", "let hasFolder = 1;"],
}

# Extra traits per op.
EXTRA_TRAITS = {
    "Constant": ["ConstantLike"],
}

ELEM = {
    "float": "F32", "double": "F64", "float16": "F16", "bfloat16": "BF16",
    "int8": "I8", "int16": "I16", "int32": "I32", "int64": "I64",
    "uint8": "UI8", "uint16": "UI16", "uint32": "UI32", "uint64": "UI64",
    "bool": "I1", "string": "ONNX_String",
    "complex64": "Complex<F32>", "complex128": "Complex<F64>",
    # ONNX >= 1.13's narrow types. Sub-byte integers are signless like int8.
    "float8e4m3fn": "F8E4M3FN", "float8e4m3fnuz": "F8E4M3FNUZ",
    "float8e5m2": "F8E5M2", "float8e5m2fnuz": "F8E5M2FNUZ",
    "float8e8m0": "F8E8M0FNU", "float4e2m1": "F4E2M1FN",
    "float6e2m3": "F6E2M3FN", "float6e3m2": "F6E3M2FN",
    "int4": "I<4>", "uint4": "UI<4>", "int2": "I<2>", "uint2": "UI<2>",
}

# onnx::AttributeProto::AttributeType values.
ATTR_CODES = {
    "FLOAT": 1, "INT": 2, "STRING": 3, "TENSOR": 4, "GRAPH": 5,
    "SPARSE_TENSOR": 11, "TYPE_PROTO": 13, "FLOATS": 6, "INTS": 7,
    "STRINGS": 8, "TENSORS": 9, "GRAPHS": 10, "SPARSE_TENSORS": 12,
    "TYPE_PROTOS": 14,
}

# Accessor names that clash with members of mlir::Op.
RESERVED = {"type", "operation", "context", "loc", "properties", "attributes",
            "operands", "results", "regions", "name"}


def split_top(s):
    """Splits 'a, b(c, d)' at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def ods_type(ts):
    """ONNX type string -> ODS type constraint."""
    head, _, rest = ts.partition("(")
    inner = rest[:-1]
    if head == "tensor":
        return "TensorOf<[%s]>" % ELEM[inner]
    if head == "seq":
        return "ONNX_SeqOf<[%s]>" % ods_type(inner)
    if head == "optional":
        return "ONNX_OptOf<[%s]>" % ods_type(inner)
    if head == "map":
        k, v = split_top(inner)
        return "ONNX_MapOf<[%s], [%s]>" % (ELEM[k], ods_map_value(v))
    raise ValueError("unknown ONNX type string " + ts)


def ods_map_value(v):
    if v in ELEM:
        return ELEM[v]
    return ods_type(v)


def ods_constraint(type_strs):
    """A list of ONNX type strings -> one ODS constraint, tensors merged."""
    tensor_elems, others = [], []
    for ts in type_strs:
        if ts.startswith("tensor("):
            tensor_elems.append(ELEM[ts[len("tensor("):-1]])
        else:
            others.append(ods_type(ts))
    parts = []
    if tensor_elems:
        parts.append("TensorOf<[%s]>" % ", ".join(tensor_elems))
    parts += others
    if len(parts) == 1:
        return parts[0]
    return "AnyTypeOf<[%s]>" % ", ".join(parts)


def fmt_float(x):
    s = str(np.float32(x))
    if s in ("inf", "-inf", "nan"):
        raise ValueError("non-finite default")
    if "." not in s and "e" not in s:
        s += ".0"
    return s


def ods_attr(attr):
    t = attr["type"]
    dv = attr["default"]
    base = {
        "FLOAT": "F32Attr", "INT": "I64Attr", "STRING": "StrAttr",
        "TENSOR": "ElementsAttr", "SPARSE_TENSOR": "ElementsAttr",
        "TYPE_PROTO": "TypeAttr", "FLOATS": "F32ArrayAttr",
        "INTS": "I64ArrayAttr", "STRINGS": "StrArrayAttr",
        "TENSORS": "TypedArrayAttrBase<ElementsAttr, \"tensors\">",
    }[t]
    if dv is not None:
        if t == "FLOAT":
            return 'DefaultValuedAttr<%s, "%s">' % (base, fmt_float(dv))
        if t == "INT":
            return 'DefaultValuedAttr<%s, "%d">' % (base, dv)
        if t == "STRING":
            return 'DefaultValuedStrAttr<%s, "%s">' % (base, dv)
        if t == "INTS":
            return 'DefaultValuedAttr<%s, "{%s}">' % (base, ", ".join(str(i) for i in dv))
        if t == "FLOATS":
            return 'DefaultValuedAttr<%s, "{%s}">' % (
                base, ", ".join("%sf" % fmt_float(f) for f in dv))
        if t == "STRINGS":
            return 'DefaultValuedAttr<%s, "{%s}">' % (
                base, ", ".join('\\"%s\\"' % x for x in dv))
        raise ValueError("unsupported default of type %s" % t)
    if attr["required"]:
        return base
    return "OptionalAttr<%s>" % base


def ods_name(n):
    return n + "_" if n.lower() in RESERVED else n


def param_constraint(schema, p):
    tcs = {tc["param"]: tc["allowed"] for tc in schema["type_constraints"]}
    if p["type"] in tcs:
        return ods_constraint(tcs[p["type"]])
    return ods_constraint([p["type"]])


OPT = {"Single": 0, "Optional": 1, "Variadic": 2}


def wrap(c, p):
    o = OPT[p["option"]]
    return {0: c, 1: "Optional<%s>" % c, 2: "Variadic<%s>" % c}[o]


def signature(s):
    """What type constraints do not cover: inputs, outputs, attributes."""
    return ([(p["name"], p["option"]) for p in s["inputs"]],
            [(p["name"], p["option"]) for p in s["outputs"]],
            sorted((a["name"], a["type"], str(a["default"]), a["required"])
                   for a in s["attributes"]))


def select_schemas(all_schemas, changes):
    """The version of each operator the dialect models, sorted by domain and
    name, each with `inference_version`: for an ai.onnx version newer than
    opset 17 that only widened the types of its opset-17 version, that
    version (libonnx 1.12's inference covers it), else 0."""
    versions = {}
    for s in all_schemas:
        domain = "" if s["domain"] == "ai.onnx" else s["domain"]
        if domain in DOMAINS:
            versions.setdefault((domain, s["name"]), {})[s["since_version"]] = s
    for (domain, name), by_version in versions.items():
        missing = [v for v in by_version if domain == "" and v > DOMAINS[""][2]
                   and v not in dict(changes.get(name, []))]
        if missing:
            raise SystemExit("OpsetChanges.def lacks %s-%s" % (name, missing))
    chosen = {}
    for (domain, name), by_version in versions.items():
        cap = DOMAINS[domain][2]
        base = max((v for v in by_version if v <= cap), default=0)
        types_only = None
        if domain == "" and base:
            types_only = types_only_version(name, changes, cap)
        if domain == "" and name in VERSIONS:
            cap = VERSIONS[name]
        elif domain == "ai.onnx.ml" and name in ML_VERSIONS:
            cap = ML_VERSIONS[name]
        elif types_only:
            cap = types_only
        picked = max((v for v in by_version if v <= cap), default=0)
        if not picked:
            continue
        s = dict(by_version[picked], domain=domain, inference_version=0)
        if picked > DOMAINS[domain][2] and types_only and picked <= types_only:
            # OpsetChanges.def says TypesOnly: the schemas must agree.
            if signature(s) != signature(by_version[base]):
                raise SystemExit("OpsetChanges.def calls %s-%d TypesOnly, but its "
                                 "inputs/outputs/attributes differ from %s-%d"
                                 % (name, picked, name, base))
            s["inference_version"] = base
        chosen[(domain, name)] = s
    return [chosen[k] for k in sorted(chosen, key=lambda k: (list(DOMAINS).index(k[0]), k[1]))]


def doc_text(schema):
    doc = (schema["doc"] or "").strip()
    return doc.replace("[{", "[ {").replace("}]", "} ]")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--schemas", default=SCHEMAS,
                    help="the ONNX schemas JSON (default: %(default)s)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 when the checked-in files differ "
                    "from what would be written")
    opts = ap.parse_args(argv)
    with open(opts.schemas) as f:
        registry = json.load(f)
    version = registry["onnx_version"]
    schemas = select_schemas(registry["schemas"], read_opset_changes())
    td = [
        "//===- ONNXOps.gen.td - ONNX operators (generated) --------*- tablegen -*-===//",
        "//",
        "// GENERATED by utils/gen_onnx_ops.py from the ONNX %s schemas." % version,
        "// Do not edit by hand.",
        "//",
        "//===----------------------------------------------------------------------===//",
        "",
        "#ifndef ONNXC_DIALECT_ONNX_IR_ONNXOPS_GEN_TD",
        "#define ONNXC_DIALECT_ONNX_IR_ONNXOPS_GEN_TD",
        "",
    ]
    info = [
        "// GENERATED by utils/gen_onnx_ops.py from the ONNX %s schemas." % version,
        "// Do not edit by hand. Included once, by lib/Dialect/ONNX/IR/ONNXOpInfo.cpp.",
        "",
    ]
    entries = []
    for s in schemas:
        prefix, cls, _ = DOMAINS[s["domain"]]
        mnemonic = prefix + s["name"]
        cname = "%s%sOp" % (cls, s["name"])
        ins_c = [p for p in s["inputs"] if OPT[p["option"]] != 0]
        outs_c = [p for p in s["outputs"] if OPT[p["option"]] != 0]
        traits = []
        if s["name"] not in NOT_PURE:
            traits.append("RecursiveMemoryEffects" if any(
                a["type"] == "GRAPH" for a in s["attributes"]) else "Pure")
        if len(ins_c) > 1:
            traits.append("AttrSizedOperandSegments")
        if len(outs_c) > 1:
            traits.append("AttrSizedResultSegments")
        traits += EXTRA_TRAITS.get(s["name"], [])
        args = []
        for p in s["inputs"]:
            args.append("%s:$%s" % (wrap(param_constraint(s, p), p), ods_name(p["name"])))
        regions = []
        attr_list = sorted(s["attributes"], key=lambda a: a["name"])
        for a in attr_list:
            if a["type"] == "GRAPH":
                regions.append("SizedRegion<1>:$%s" % ods_name(a["name"]))
            else:
                args.append("%s:$%s" % (ods_attr(a), ods_name(a["name"])))
        results = ["%s:$%s" % (wrap(param_constraint(s, p), p), ods_name(p["name"]))
                   for p in s["outputs"]]
        td.append("def %s : ONNX_Op<\"%s\", %d, [%s]> {" % (
            cname, mnemonic, s["since_version"], ", ".join(traits)))
        td.append('  let summary = "ONNX %s operation (%s version %d)";' % (
            s["name"], s["domain"] or "ai.onnx", s["since_version"]))
        td.append("  let description = [{")
        td += ["    " + l if l else "" for l in doc_text(s).splitlines()]
        td.append("  }];")
        td.append("  let arguments = (ins%s);" % "".join(
            "\n    " + a + ("," if i + 1 < len(args) else "") for i, a in enumerate(args)))
        td.append("  let results = (outs%s);" % "".join(
            "\n    " + r + ("," if i + 1 < len(results) else "") for i, r in enumerate(results)))
        if regions:
            td.append("  let regions = (region %s);" % ", ".join(regions))
        for line in EXTRAS.get(s["name"], []):
            td.append("  " + line)
        td.append("}")
        td.append("")

        # Metadata.
        ident = cname
        tvars = {tc["param"] for tc in s["type_constraints"]}

        def params(ps, kind):
            rows = []
            for p in ps:
                tv = p["type"] if p["type"] in tvars else ""
                rows.append('{"%s", "%s", %d, %s, %d}' % (
                    p["name"], tv, OPT[p["option"]], "true" if p["homogeneous"] else "false",
                    p["min_arity"]))
            if not rows:
                return "", "{}"
            info.append("static const ONNXParamInfo %s_%s[] = {%s};" % (
                ident, kind, ", ".join(rows)))
            return "", "%s_%s" % (ident, kind)

        _, ins = params(s["inputs"], "in")
        _, outs = params(s["outputs"], "out")
        arows = ['{"%s", %d, %s}' % (a["name"], ATTR_CODES[a["type"]],
                                     "true" if a["required"] else "false") for a in attr_list]
        if arows:
            info.append("static const ONNXAttrInfo %s_attrs[] = {%s};" % (ident, ", ".join(arows)))
            attrs = "%s_attrs" % ident
        else:
            attrs = "{}"
        entries.append('{"%s", "%s", "%s", %d, %s, %s, %s, %s, %s, %d}' % (
            mnemonic, s["name"], s["domain"], s["since_version"], ins, outs, attrs,
            "true" if len(ins_c) > 1 else "false", "true" if len(outs_c) > 1 else "false",
            s["inference_version"]))
    td.append("#endif // ONNXC_DIALECT_ONNX_IR_ONNXOPS_GEN_TD")
    info.append("")
    info.append("static const ONNXOpInfo kGeneratedOpInfos[] = {")
    info += ["    " + e + "," for e in entries]
    info.append("};")
    outputs = {TD_OUT: "\n".join(td) + "\n", INFO_OUT: "\n".join(info) + "\n"}
    if opts.check:
        stale = []
        for path, text in outputs.items():
            with open(path) as f:
                if f.read() != text:
                    stale.append(os.path.relpath(path, ROOT))
        if stale:
            print("out of date (rerun utils/gen_onnx_ops.py): " + ", ".join(stale),
                  file=sys.stderr)
            return 1
        print("up to date: %d ops" % len(schemas), file=sys.stderr)
        return 0
    for path, text in outputs.items():
        with open(path, "w") as f:
            f.write(text)
    print("wrote %d ops" % len(schemas), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
