#!/bin/bash
# The GPU check of onnxc's CUDA target, run on a lent GPU machine (the
# device tool) from the checkout's root, after utils/gpu/make_device_bundle.py
# prepared gpu-run/bundle.tar.xz (and gpu-run/ptx/bundle.tar.xz) here:
#   device run: utils/gpu/device_check.sh   (carry: gpu-run/bundle.tar.xz,
#               gpu-run/ptx/bundle.tar.xz; results in $OUT)
# BUDGET_S (default 420) bounds the whole run; CONFORMANCE_S (default 200)
# the conformance part; GRAPHS_S (default 0) a second conformance run with
# CUDA graphs; RUN_FLAGS adds device_run.py flags (--no-torch-compile).
set -u
OUT=${OUT:-/tmp/onnxc-gpu-out}
mkdir -p "$OUT"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  python3 -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)'
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  ldd --version | head -1
  nproc
} 2>&1 | tee "$OUT/machine.txt"
FALLBACK=()
[ -f gpu-run/ptx/bundle.tar.xz ] && FALLBACK=(--fallback gpu-run/ptx/bundle.tar.xz)
python3 utils/gpu/device_run.py gpu-run/bundle.tar.xz "${FALLBACK[@]}" --out "$OUT" \
  --budget-s "${BUDGET_S:-420}" --conformance-s "${CONFORMANCE_S:-200}" \
  --graph-conformance-s "${GRAPHS_S:-0}" ${RUN_FLAGS:-} \
  2>&1 | tee "$OUT/log.txt"
grep -v '^PASS' "$OUT/conformance.txt" | head -40
[ -f "$OUT/conformance-graphs.txt" ] && grep -v '^PASS' "$OUT/conformance-graphs.txt" | head -20
cat "$OUT/bench.md"
