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
echo "=== onnxc $MODEL --emit=onnx-inferred (weights elided) ==="
# The shared lock keeps a concurrent build from relinking onnxc meanwhile.
flock -s "$LOCK" \
  "$BUILD_DIR/bin/onnxc" "$MODEL" --emit=onnx-inferred -o - \
    --mlir-elide-elementsattrs-if-larger=16 --mlir-elide-resource-strings-if-larger=64

# ---------------------------------------------------------------------------
# NOT YET: compile to a shared library and run it. The CPU backend (lowering
# to linalg, bufferization, LLVM, the .so and the onnxc-run tool) comes with
# the next issue; then this spot becomes:
#
#   "$BUILD_DIR/bin/onnxc" "$MODEL" -o "$EXAMPLE_DIR/cnn.so"
#   "$BUILD_DIR/bin/onnxc-run" "$EXAMPLE_DIR/cnn.so" --random-inputs --iterations 100
# ---------------------------------------------------------------------------
echo
echo "example: imported and shape-inferred. Compiling to a .so and running it"
echo "example: needs the CPU backend, which is not implemented yet."
