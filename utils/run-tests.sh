#!/usr/bin/env bash
# run-tests.sh - Builds onnxc and runs every test suite.
#
#   utils/run-tests.sh
#
# Runs utils/setup.sh (packages, configure, build), then each suite in turn,
# even after one failed, and prints a summary. Exits non-zero when the build
# or any suite fails. Each suite's output is also kept in
# build/test-logs/<suite>.log.
#
# Environment: ONNXC_BUILD_DIR (default: <repo>/build), ONNXC_JOBS (default 2).

set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ONNXC_BUILD_DIR:-$ROOT/build}"
JOBS="${ONNXC_JOBS:-2}"
LOCK=/tmp/onnxc-build.lock
# Debian's python3-onnx belongs to the system interpreter.
PYTHON=/usr/bin/python3
LOG_DIR="$BUILD_DIR/test-logs"

if ! "$ROOT/utils/setup.sh"; then
  echo "run-tests: FAILED: setup/build (utils/setup.sh)" >&2
  exit 1
fi
mkdir -p "$LOG_DIR"

SUMMARY=()
FAILED=0
NUM_PASSED=0
NUM_FAILED=0

# suite NAME SUMMARY-REGEX COMMAND...
# Runs COMMAND, logs its output to $LOG_DIR/NAME.log and records PASS/FAIL;
# the log lines matching SUMMARY-REGEX are repeated in the summary.
suite() {
  local name=$1 pattern=$2 start=$SECONDS status
  shift 2
  echo
  echo "=== $name: $* ==="
  "$@" 2>&1 | tee "$LOG_DIR/$name.log"
  if [ "${PIPESTATUS[0]}" -eq 0 ]; then
    status=PASS
    NUM_PASSED=$((NUM_PASSED + 1))
  else
    status=FAIL
    FAILED=1
    NUM_FAILED=$((NUM_FAILED + 1))
  fi
  SUMMARY+=("$(printf '%-14s %s  (%ds, log: %s)' "$name" "$status" \
                $((SECONDS - start)) "$LOG_DIR/$name.log")")
  if [ -n "$pattern" ]; then
    while IFS= read -r line; do
      SUMMARY+=("                 $line")
    done < <(grep -E "$pattern" "$LOG_DIR/$name.log" | sed -E 's/^ +//; s/ +/ /g')
  fi
}

# fail NAME REASON: records a suite that could not run as a failure.
fail() {
  SUMMARY+=("$(printf '%-14s FAIL  (%s)' "$1" "$2")")
  FAILED=1
  NUM_FAILED=$((NUM_FAILED + 1))
}

#===------------------------------------------------------------------------===#
# The suites. A new suite is one more `suite` line.
#===------------------------------------------------------------------------===#

# lit (FileCheck tests of onnxc and onnx-mlir-opt) and the GoogleTest unit
# tests; check-onnxc builds what they need first, hence the build lock.
if ninja -C "$BUILD_DIR" -t query check-onnxc >/dev/null 2>&1; then
  suite check-onnxc '^ *(Passed|Failed|Unsupported|Expectedly Failed|Unresolved|Timed Out)[^:]*: |^ +onnxc[-a-z]* :: ' \
    flock "$LOCK" ninja -C "$BUILD_DIR" -j "$JOBS" check-onnxc
else
  echo "run-tests: $BUILD_DIR has no check-onnxc target: lit and unit tests not run" >&2
  fail check-onnxc "not run: $BUILD_DIR has no check-onnxc target"
fi

# The sweep drivers themselves (a fake suite and fake onnxc/onnxc-run; no
# build needed): a missing suite folder, a listed test that did not run and
# a determinism failure must each make a sweep fail.
suite sweep-drivers '^Ran [0-9]+ tests|^(OK|FAILED)' \
  "$PYTHON" "$ROOT/utils/test_sweep_drivers.py" -v

# The checked-in ODS and op metadata are what utils/gen_onnx_ops.py makes of
# the ONNX schemas in ../shared (never edited by hand, never stale).
suite generated-dialect '^(up to date|out of date)' \
  "$PYTHON" "$ROOT/utils/gen_onnx_ops.py" --check

# Every model of both ONNX backend suites imports and verifies; a model
# listed in test/import-sweep/*.passing that fails or did not run fails the
# suite, and so does a missing suite folder. The shared lock keeps builds
# from relinking onnxc while the sweep runs it.
suite import-sweep '^onnx-[0-9.]+ |^ *total |^REGRESSIONS|^NOT RUN|^error:' \
  flock -s "$LOCK" \
  "$PYTHON" "$ROOT/utils/import_sweep.py" --onnxc "$BUILD_DIR/bin/onnxc" \
  --report "$LOG_DIR/import-sweep-results.txt"

# Numerical conformance: compile, run (checking determinism) and compare
# every backend test; a test listed in test/conformance/*.passing that fails
# or did not run fails the suite, and so does a missing suite folder.
suite conformance '^onnx-[0-9.]+ |^ *total |^REGRESSIONS|^NOT RUN|^error:' \
  flock -s "$LOCK" \
  "$PYTHON" "$ROOT/utils/conformance.py" --onnxc "$BUILD_DIR/bin/onnxc" \
  --onnxc-run "$BUILD_DIR/bin/onnxc-run" --jobs "$JOBS" \
  --report "$LOG_DIR/conformance-results.txt"

# The CUDA target without a GPU: every test of those lists compiles with
# --target=cuda and its PTX assembles with CUDA's ptxas (skipped, passing,
# where ptxas is absent), and its host side runs against a stand-in
# libcuda.so.1 whose device memory the host cannot touch (--fake-driver:
# only a crash or a hang fails). docs/CUDA.md says how to run them on a GPU.
suite conformance-cuda '^onnx-[0-9.]+ |^ *total |^REGRESSIONS|^NOT RUN|^error:|^skipped' \
  flock -s "$LOCK" \
  "$PYTHON" "$ROOT/utils/conformance.py" --onnxc "$BUILD_DIR/bin/onnxc" \
  --onnxc-run "$BUILD_DIR/bin/onnxc-run" --jobs "$JOBS" \
  --target cuda --compile-only --fake-driver \
  --report "$LOG_DIR/conformance-cuda-results.txt"

# The CUDA target's matmul, convolution and reduction views and the ops
# its GEMM and reduction kernels absorb, run on the host as scalar loop
# nests (onnxc --cuda-gemm-host-check) against the expected outputs: every
# test of the CPU lists must pass this way too.
suite conformance-cuda-host '^onnx-[0-9.]+ |^ *total |^REGRESSIONS|^NOT RUN|^error:' \
  flock -s "$LOCK" \
  "$PYTHON" "$ROOT/utils/conformance.py" --onnxc "$BUILD_DIR/bin/onnxc" \
  --onnxc-run "$BUILD_DIR/bin/onnxc-run" --jobs "$JOBS" \
  --target cuda-host-check \
  --report "$LOG_DIR/conformance-cuda-host-results.txt"

# The real-model zoo's CI subset (docs/Zoo.md): torch models of every
# family with static and dynamic dims at opsets 13 and 17, scikit-learn
# pipelines, quantized and fp16 variants and packaged OCR/VAD models, each
# compiled, run three times and compared with its framework's outputs.
suite zoo '^zoo: |^[0-9]+ passed, [0-9]+ failed|^--- zoo' \
  bash "$ROOT/utils/zoo/ci.sh"

#===------------------------------------------------------------------------===#

echo
echo "=== Summary ==="
printf '%s\n' "${SUMMARY[@]}"
if [ "$FAILED" -ne 0 ]; then
  echo "run-tests: FAILED"
else
  echo "run-tests: all suites passed"
fi
echo "suites: $NUM_PASSED passed, $NUM_FAILED failed"
exit "$FAILED"
