#!/usr/bin/env bash
# run-example.sh - Builds onnxc and compiles the bundled example model.
#
#   utils/run-example.sh
#
# 1. utils/setup.sh: packages, configure, incremental build.
# 2. Generates the example CNN (utils/make_example_model.py) into
#    build/example/cnn.onnx, only when it is missing or the script changed.
# 3. Imports it into the onnx dialect, runs shape inference and prints the IR.
#
# Environment: ONNXC_BUILD_DIR (default: <repo>/build), see utils/setup.sh.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ONNXC_BUILD_DIR:-$ROOT/build}"
# Debian's python3-onnx belongs to the system interpreter, not to whatever
# `python3` comes first on PATH.
PYTHON=/usr/bin/python3
LOCK=/tmp/onnxc-build.lock

"$ROOT/utils/setup.sh"

EXAMPLE_DIR="$BUILD_DIR/example"
MODEL="$EXAMPLE_DIR/cnn.onnx"
GENERATOR="$ROOT/utils/make_example_model.py"
STAMP="$MODEL.sha256"

# The stamp holds the hash of the generator that wrote the model.
mkdir -p "$EXAMPLE_DIR"
want="$(sha256sum "$GENERATOR" | cut -d' ' -f1)"
if [ ! -f "$MODEL" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$want" ]; then
  echo "example: generating $MODEL"
  "$PYTHON" "$GENERATOR" "$MODEL"
  echo "$want" > "$STAMP"
fi

echo
echo "=== onnxc $MODEL -o $EXAMPLE_DIR/cnn.so ==="
start=$(date +%s.%N)
flock -s "$LOCK" "$BUILD_DIR/bin/onnxc" "$MODEL" -o "$EXAMPLE_DIR/cnn.so"
end=$(date +%s.%N)
printf 'compiled in %.2f s; the library needs only: %s\n' \
  "$(echo "$end - $start" | bc)" \
  "$(ldd "$EXAMPLE_DIR/cnn.so" | awk '/=>/ {print $1}' | tr '\n' ' ')"

echo
echo "=== onnxc-run $EXAMPLE_DIR/cnn.so (random input, seed 1) ==="
"$BUILD_DIR/bin/onnxc-run" "$EXAMPLE_DIR/cnn.so" --random-inputs --seed 1 \
  --print-outputs 10 --warmup 5 --iterations 100
