#!/usr/bin/env python3
"""Prepares a run of onnxc's CUDA target on a lent GPU machine.

  make_device_bundle.py [--onnxc build/bin/onnxc] [--out gpu-run]
                        [--suite onnx-1.23] [--gpu-arch sm_90] [--jobs 2]

The GPU machine gets the checkout but neither ../shared nor LLVM, so
everything it runs is compiled here: every test of the suite's CPU pass list
(test/conformance/<suite>.passing) with `onnxc --target=cuda`, its data sets
as .npz (inputs in0.., expected out0..), and the benchmark models (sgemm
1024^3 with both operands inputs, the backend suite's light ResNet-50, the
torchvision-layout ResNet-50 and the static BERT encoder of
make_bench_models.py with each weight replaced by a constant of its shape:
the same work, a shared object that compresses to almost nothing). All of it
goes into OUT/bundle.tar.xz, which utils/gpu/device_run.py unpacks and runs
there. Host code is compiled for x86-64-v3 (the GPU machine's CPU is not
this one's).
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tarfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "utils"))
import conformance  # noqa: E402


BINARY = "fatbin"


def compile_cuda(onnxc, model, so, arch, extra=()):
    cmd = [onnxc, model, "-o", so, "-mcpu=x86-64-v3"]
    if arch != "cpu":  # cpu: to check device_run.py itself on this machine
        cmd += ["--target=cuda", "--gpu-arch=" + arch, "--gpu-binary=" + BINARY, *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    return r.returncode == 0, r.stderr.strip().splitlines()[-1:] if r.returncode else ""


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


# NAME+VARIANT: a test or model compiled with these onnxc flags too.
VARIANT_FLAGS = {"": [], "tile64": ["--gpu-gemm-tile=64"], "tile128": ["--gpu-gemm-tile=128"],
                 "tf32": ["--gpu-precision=tf32"], "nohalf": ["--gpu-half-mma=false"]}


def bundle_test(test, args, out, variant=""):
    """`variant`: "", "tile128" (compiled with --gpu-gemm-tile=128) or
    "tf32" (--gpu-precision=tf32, compared at rtol = atol = 2e-2), bundled as
    the suite SUITE+VARIANT."""
    suite = test.suite + ("+" + variant if variant else "")
    folder = os.path.join(out, "tests", suite, test.name.replace("/", "__"))
    os.makedirs(folder, exist_ok=True)
    extra = VARIANT_FLAGS[variant]
    ok, err = compile_cuda(args.onnxc, test.model, os.path.join(folder, "model.so"),
                           args.gpu_arch, extra)
    if not ok:
        return test.full_name, "compile error: %s" % err
    meta = {"name": test.full_name, "rtol": test.rtol, "atol": test.atol, "data": []}
    if variant == "tf32":
        meta["rtol"] = meta["atol"] = 2e-2
    if needs_onnxc_run(test.model):
        # Sequences, optionals, maps, strings, float8/int4/...: the data
        # sets as they are, run by onnxc-run (bundled) as conformance.py
        # runs them on the CPU.
        meta["runner"] = "onnxc-run"
        meta["device"] = "cpu" if args.gpu_arch == "cpu" else "cuda"
        for d in test.data_sets:
            shutil.copytree(d, os.path.join(folder, os.path.basename(d)))
            meta["data"].append({"dir": os.path.basename(d)})
        with open(os.path.join(folder, "meta.json"), "w") as f:
            json.dump(meta, f)
        return test.full_name, ""
    try:
        if test.light_outputs is not None:
            arrays = {"out%d" % k: read_pb(f) for k, f in enumerate(test.light_outputs)}
            np.savez(os.path.join(folder, "ramp.npz"), **arrays)
            meta["data"].append({"file": "ramp.npz", "ramp": True})
        for d in test.data_sets:
            ins = sorted(f for f in os.listdir(d) if f.startswith("input_"))
            outs = sorted(f for f in os.listdir(d) if f.startswith("output_"))
            key = lambda f: int(f.split("_")[1].split(".")[0])  # noqa: E731
            arrays = {}
            for f in sorted(ins, key=key):
                arrays["in%d" % key(f)] = read_pb(os.path.join(d, f))
            for f in sorted(outs, key=key):
                arrays["out%d" % key(f)] = read_pb(os.path.join(d, f))
            name = os.path.basename(d) + ".npz"
            np.savez(os.path.join(folder, name), **arrays)
            meta["data"].append({"file": name})
    except Exception as e:  # bf16 or sequence data numpy cannot hold
        shutil.rmtree(folder)
        return test.full_name, "data not convertible: %s" % e
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump(meta, f)
    return test.full_name, ""


# Tensor element types numpy holds as the C API's dtypes (bf16 as uint16).
NPZ_TYPES = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16}


def needs_onnxc_run(model):
    """Whether a test's inputs or outputs are anything but tensors numpy
    holds: those run through onnxc-run on the GPU machine."""
    m = onnx.load(model, load_external_data=False)
    for v in list(m.graph.input) + list(m.graph.output):
        if v.type.WhichOneof("value") != "tensor_type" or \
                v.type.tensor_type.elem_type not in NPZ_TYPES:
            return True
    return False


def bundle_tools(stage):
    """onnxc-run and the shared libraries it needs that a GPU machine may
    lack (protobuf, onnx's protos; libstdc++ as a fallback in
    bin/fallback/, used only where the machine's own is older)."""
    bin_dir = os.path.join(stage, "bin")
    os.makedirs(os.path.join(bin_dir, "fallback"), exist_ok=True)
    tool = os.path.join(ROOT, "build", "bin", "onnxc-run")
    shutil.copy(tool, bin_dir)
    out = subprocess.run(["ldd", tool], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split("=>")
        if len(parts) != 2 or not parts[1].strip().startswith("/"):
            continue
        lib = parts[1].split()[0]
        name = os.path.basename(lib)
        if name.startswith(("libprotobuf", "libonnx")):
            shutil.copy(lib, bin_dir)
        elif name.startswith("libstdc++"):
            shutil.copy(lib, os.path.join(bin_dir, "fallback"))


def constant_weights(src, dst):
    """`src` with every float initializer filled with one value (its mean
    magnitude, sign kept): the same graph and work, compressible weights."""
    m = onnx.load(src)
    for init in m.graph.initializer:
        a = numpy_helper.to_array(init)
        if a.dtype != np.float32 or a.size < 64:
            continue
        v = np.float32(np.mean(np.abs(a)) or 0.01)
        init.CopyFrom(numpy_helper.from_array(np.full(a.shape, v, np.float32), init.name))
    onnx.save(m, dst)


def sgemm_inputs(n, dst, k=None, m=None, f16=False):
    """Y = A B with A [m, k] and B [k, n] both inputs (default square); f16:
    all three float16 (f32 sums: tensor cores by default)."""
    from onnx import TensorProto, helper
    k, m = k or n, m or n
    t = TensorProto.FLOAT16 if f16 else TensorProto.FLOAT
    g = helper.make_graph(
        [helper.make_node("MatMul", ["A", "B"], ["Y"], name="matmul")], "sgemm",
        [helper.make_tensor_value_info("A", t, [m, k]),
         helper.make_tensor_value_info("B", t, [k, n])],
        [helper.make_tensor_value_info("Y", t, [m, n])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, dst)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--onnxc", default=os.path.join(ROOT, "build", "bin", "onnxc"))
    ap.add_argument("--out", default=os.path.join(ROOT, "gpu-run"))
    ap.add_argument("--suite", action="append", choices=sorted(conformance.SUITES))
    ap.add_argument("--gpu-arch", default="sm_90",
                    help="the cubin's arch; 'cpu' compiles for the CPU instead (to check "
                         "device_run.py here)")
    ap.add_argument("--gpu-binary", choices=["fatbin", "ptx"], default="fatbin",
                    help="onnxc --gpu-binary (ptx: the driver compiles at the first run)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--filter", help="only the tests whose name matches (re.search)")
    ap.add_argument("--tile128", metavar="REGEX",
                    help="the tests whose name matches also compiled with "
                         "--gpu-gemm-tile=128 (suite SUITE+tile128): the large GEMM kernel "
                         "on every product, edges included")
    ap.add_argument("--tf32", metavar="REGEX",
                    help="the tests whose name matches also compiled with "
                         "--gpu-precision=tf32 (suite SUITE+tf32, rtol = atol = 2e-2)")
    ap.add_argument("--no-bench", action="store_true")
    ap.add_argument("--bench-variants", default="tile64,tile128,tf32,nohalf",
                    help="the variants of the benchmark models to build (comma-separated; "
                         "'' for none)")
    args = ap.parse_args()
    args.onnxc = os.path.abspath(args.onnxc)
    global BINARY
    BINARY = args.gpu_binary
    stage = os.path.join(args.out, "stage")
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(stage)

    import re
    pattern = re.compile(args.filter) if args.filter else None
    tests = []
    for suite in args.suite or ["onnx-1.23"]:
        listed = set(conformance.read_list(
            os.path.join(conformance.LISTS_DIR, suite + ".passing")))
        found = conformance.find_tests(suite, conformance.SUITES[suite],
                                       conformance.DEFAULT_RTOL, conformance.DEFAULT_ATOL)
        tests += [t for t in found if t.name in listed and
                  (not pattern or pattern.search(t.full_name))]
    problems = []
    jobs = [(t, "") for t in tests]
    if args.tile128:
        large = re.compile(args.tile128)
        jobs += [(t, "tile128") for t in tests if large.search(t.full_name)]
    if args.tf32:
        tensor_cores = re.compile(args.tf32)
        jobs += [(t, "tf32") for t in tests if tensor_cores.search(t.full_name)]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, problem in pool.map(lambda j: bundle_test(j[0], args, stage, j[1]), jobs):
            if problem:
                problems.append("%s: %s" % (name, problem))
    print("tests: %d bundled, %d left out" % (len(jobs) - len(problems), len(problems)))
    bundle_tools(stage)
    for p in problems:
        print("  " + p)

    if not args.no_bench:
        bench = os.path.join(stage, "bench")
        models = os.path.join(args.out, "models")
        os.makedirs(bench, exist_ok=True)
        os.makedirs(models, exist_ok=True)
        built = os.path.join(ROOT, "build", "bench", "models")
        need = [n for n in ("resnet50_full", "bert_encoder_static")
                if not os.path.exists(os.path.join(built, n + ".onnx"))]
        if need:
            subprocess.run([sys.executable, os.path.join(ROOT, "utils", "make_bench_models.py"),
                            "--out", built, "--only", *need], check=True)
        sgemm_inputs(1024, os.path.join(models, "sgemm_1024.onnx"))
        sgemm_inputs(4096, os.path.join(models, "sgemm_4096.onnx"))
        # One 64 x 64 tile, K split into 16 slices: checked against numpy.
        sgemm_inputs(64, os.path.join(models, "matmul_64x8192x64.onnx"), k=8192, m=64)
        shutil.copy(os.path.join(conformance.SUITES["onnx-1.23"], "light",
                                 "light_resnet50.onnx"),
                    os.path.join(models, "light_resnet50.onnx"))
        for n in ("resnet50_full", "bert_encoder_static"):
            constant_weights(os.path.join(built, n + ".onnx"), os.path.join(models, n + ".onnx"))
        # Sizes that are no multiple of either tile, both kernels forced.
        sgemm_inputs(1000, os.path.join(models, "matmul_1111x777x1000.onnx"), k=777, m=1111)
        # f16 products: m16n8k16 tensor cores (edges, split K, throughput).
        sgemm_inputs(1000, os.path.join(models, "matmul_1111x777x1000_f16.onnx"), k=777,
                     m=1111, f16=True)
        sgemm_inputs(64, os.path.join(models, "matmul_64x8192x64_f16.onnx"), k=8192, m=64,
                     f16=True)
        sgemm_inputs(4096, os.path.join(models, "hgemm_4096.onnx"), f16=True)
        # (bundled name, model, onnxc flags): the default choice of kernel,
        # and each kernel forced where the default is the other.
        builds = [(n, n, []) for n in ("sgemm_1024", "sgemm_4096", "matmul_64x8192x64",
                                        "light_resnet50", "resnet50_full",
                                        "bert_encoder_static", "matmul_1111x777x1000_f16",
                                        "matmul_64x8192x64_f16", "hgemm_4096")]
        wanted = [("sgemm_4096", "tile64"), ("sgemm_1024", "tile128"),
                  ("matmul_1111x777x1000", "tile64"), ("matmul_1111x777x1000", "tile128"),
                  ("resnet50_full", "tile128"), ("bert_encoder_static", "tile128"),
                  ("sgemm_1024", "tf32"), ("sgemm_4096", "tf32"),
                  ("matmul_1111x777x1000", "tf32"), ("matmul_64x8192x64", "tf32"),
                  ("resnet50_full", "tf32"), ("bert_encoder_static", "tf32"),
                  ("matmul_1111x777x1000_f16", "nohalf"), ("hgemm_4096", "nohalf"),
                  ("matmul_1111x777x1000_f16", "tile128")]
        chosen = set(v for v in args.bench_variants.split(",") if v)
        for model, variant in [w for w in wanted if w[1] in chosen]:
            builds.append((model + "+" + variant, model, VARIANT_FLAGS[variant]))
        for n, model, flags in builds:
            ok, err = compile_cuda(args.onnxc, os.path.join(models, model + ".onnx"),
                                   os.path.join(bench, n + ".so"), args.gpu_arch, flags)
            print("bench %s: %s" % (n, "compiled" if ok else "compile error: %s" % err))

    tar = os.path.join(args.out, "bundle.tar.xz")
    if shutil.which("tar") and shutil.which("xz"):
        # xz -9's 64 MiB window finds the runtime shared by the models'
        # shared objects far apart: a third smaller than Python's preset 6.
        with open(tar, "wb") as f:
            t = subprocess.Popen(["tar", "-cf", "-", "-C", stage,
                                  "--transform", "s,^\\.,bundle,", "."],
                                 stdout=subprocess.PIPE)
            subprocess.run(["xz", "-9", "-T2"], stdin=t.stdout, stdout=f, check=True)
            t.stdout.close()
            if t.wait():
                raise SystemExit("tar failed")
    else:
        with tarfile.open(tar, "w:xz", preset=6) as t:
            t.add(stage, arcname="bundle")
    print("%s: %.1f MiB" % (tar, os.path.getsize(tar) / 2**20))


if __name__ == "__main__":
    main()
