#!/usr/bin/env bash
# ci.sh - The real-model zoo's CI subset (docs/Zoo.md), as utils/run-tests.sh
# runs it: the torch models of `zoo.py --subset ci` (every family, static
# and dynamic dims, both opsets; exported from a seed, cached under
# build/zoo), the scikit-learn pipelines, the QDQ/dynamic-int8/fp16 variants
# of small models (test_derived.py) and the OCR and voice-activity models
# that npm packages ship. Each part compiles with onnxc, runs every data set
# three times and compares with the framework's (or ONNX Runtime's) outputs.
# Last, a short fuzz run (fuzz.py, seed 1: 6 mutants of each of 6 CI models'
# exports) fails the part on any crash or internal compiler error.
# Exits non-zero when any part fails; each part prints `N passed, M failed`.
#
# Environment: ONNXC_BUILD_DIR (default <repo>/build), ONNXC_JOBS (default 2).

set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${ONNXC_BUILD_DIR:-$ROOT/build}"
JOBS="${ONNXC_JOBS:-2}"
PYTHON=/usr/bin/python3
status=0

part() {
  echo "--- zoo: $1"
  shift
  "$@" || status=1
}

part "torch models (zoo.py --subset ci)" \
  "$PYTHON" "$ROOT/utils/zoo/zoo.py" --subset ci --jobs "$JOBS" \
  --onnxc "$BUILD_DIR/bin/onnxc" --onnxc-run "$BUILD_DIR/bin/onnxc-run" \
  --report "$BUILD_DIR/zoo/ci-report.json"
part "scikit-learn pipelines" "$PYTHON" "$ROOT/utils/zoo/sklearn_zoo.py" --onnxc
part "quantized and fp16 variants" "$PYTHON" "$ROOT/utils/zoo/test_derived.py" --onnxc
part "ONNX files shipped in npm packages" \
  "$PYTHON" "$ROOT/utils/zoo/packaged.py" --onnxc \
  --only '^(ocr_cls|ocr_det|ocr_rec|silero_vad)'
part "fuzz: mutants of CI zoo models (no crash, no ICE)" \
  "$PYTHON" "$ROOT/utils/zoo/fuzz.py" --seed 1 --count 6 \
  --models '^(squeezenet1_1|vad_lstm|melspec_conv1d|llama_block|gpt2_kv_cache|yolo_tiny)$' \
  --variants 13-static,13-dynamic,17-static,17-dynamic \
  --onnxc "$BUILD_DIR/bin/onnxc" --onnxc-run "$BUILD_DIR/bin/onnxc-run" \
  --report "$BUILD_DIR/zoo/ci-fuzz.json"
exit "$status"
