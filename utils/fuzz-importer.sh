#!/usr/bin/env bash
# fuzz-importer.sh - Builds the libFuzzer importer target and fuzzes it.
#
#   utils/fuzz-importer.sh [SECONDS] [LIBFUZZER-FLAG...]    (default: 1800 s)
#
# Configures build-fuzz/ (Release with line tables, clang-22, lld, Ninja,
# -DONNXC_FUZZ=ON: onnxc's code gets ASan+UBSan+fuzzer coverage), builds only
# onnxc-fuzz-import under `flock /tmp/onnxc-build.lock` (shared with
# utils/setup.sh), seeds build-fuzz/corpus/ with every model.onnx (and light
# model) below 64 KiB of the ONNX 1.12 (Debian) and ONNX 1.23
# (../shared/onnx-backend-tests) backend suites, then runs the fuzzer for
# SECONDS. Inputs it finds that crash, abort, time out, run out of memory or
# trip a sanitizer land in build-fuzz/crashes/ (crash-*, timeout-*, oom-*,
# leak-*); the fuzzer exits non-zero then, and so does this script.
# New coverage-increasing inputs are added to build-fuzz/corpus/. Before
# fuzzing, the inputs that crashed it earlier (test/Importer/fuzz-regressions/)
# are replayed; one that still fails stops the script.
#
# Extra arguments go to libFuzzer (e.g. -jobs=2 -workers=2, -dict=...).
# Environment:
#   ONNXC_FUZZ_BUILD_DIR   build folder (default: <repo>/build-fuzz)
#   ONNXC_JOBS             ninja -j (default: 2)
#   ONNXC_FUZZ_NO_ONNX_SHAPE_INFERENCE=1  import without ONNX's graph
#                          shape inference (read by the target)
#
# Reproduce or minimise one input:
#   build-fuzz/bin/onnxc-fuzz-import build-fuzz/crashes/crash-<sha1>
#   build-fuzz/bin/onnxc-fuzz-import -minimize_crash=1 -runs=10000 \
#       -exact_artifact_path=min.onnx build-fuzz/crashes/crash-<sha1>

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ONNXC_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
JOBS="${ONNXC_JOBS:-2}"
LOCK=/tmp/onnxc-build.lock
SECONDS_TO_RUN="${1:-1800}"
[ $# -gt 0 ] && shift
SUITES=(/usr/share/libonnx-testdata/data "$(dirname "$ROOT")/shared/onnx-backend-tests")
MAX_SEED_BYTES=65536

say() { echo "fuzz-importer: $*"; }

# libFuzzer and the sanitizer runtimes of clang-22 (not in utils/setup.sh's
# list: only the sanitizer and fuzz builds need them).
if ! dpkg-query -W -f='${db:Status-Abbrev}' libclang-rt-22-dev 2>/dev/null |
     grep -q '^ii'; then
  say "installing libclang-rt-22-dev (libFuzzer, sanitizer runtimes)"
  sudo=(); [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y \
    --no-install-recommends libclang-rt-22-dev
fi

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  say "configuring $BUILD_DIR"
  flock "$LOCK" cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DCMAKE_C_FLAGS=-gline-tables-only -DCMAKE_CXX_FLAGS=-gline-tables-only \
    -DONNXC_FUZZ=ON -DONNXC_SANITIZE=address,undefined -DONNXC_BUILD_TESTS=OFF
fi
# Up to date needs no turn at the lock (another build may hold it long).
if ! ninja -C "$BUILD_DIR" -n onnxc-fuzz-import 2>/dev/null | grep -q "no work to do"; then
  flock "$LOCK" ninja -C "$BUILD_DIR" -j "$JOBS" onnxc-fuzz-import
fi

# Seed corpus: small models of both suites, one file per model, named after
# suite, folder and test so that names are unique.
CORPUS="$BUILD_DIR/corpus"
mkdir -p "$CORPUS" "$BUILD_DIR/crashes"
seeds=0
for suite in "${SUITES[@]}"; do
  [ -d "$suite" ] || { say "warning: no suite folder $suite"; continue; }
  tag="$(basename "$(dirname "$suite")")-$(basename "$suite")"
  while IFS= read -r -d '' model; do
    rel="${model#"$suite"/}"
    name="seed-$tag-${rel//\//_}"
    [ -e "$CORPUS/$name" ] || cp "$model" "$CORPUS/$name"
    seeds=$((seeds + 1))
  done < <(find "$suite" -type f -name '*.onnx' -size -"$MAX_SEED_BYTES"c -print0)
done
say "$seeds seed models (< $MAX_SEED_BYTES bytes); corpus: $(ls "$CORPUS" | wc -l) files"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}"
export ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}"
# Inputs that crashed it before (test/Importer/fuzz-regressions): each must
# now import or be refused without a crash.
REGRESSIONS=("$ROOT"/test/Importer/fuzz-regressions/*.onnx)
if [ -e "${REGRESSIONS[0]}" ]; then
  say "replaying ${#REGRESSIONS[@]} earlier crash inputs"
  "$BUILD_DIR/bin/onnxc-fuzz-import" "${REGRESSIONS[@]}" ||
    { say "an earlier crash input fails again"; exit 1; }
fi
say "fuzzing for $SECONDS_TO_RUN s"
exec "$BUILD_DIR/bin/onnxc-fuzz-import" \
  -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=4096 -max_len=65536 \
  -timeout=30 -print_final_stats=1 \
  -artifact_prefix="$BUILD_DIR/crashes/" "$@" "$CORPUS"
