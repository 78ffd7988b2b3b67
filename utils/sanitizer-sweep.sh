#!/usr/bin/env bash
# sanitizer-sweep.sh - The conformance sweep on an ASan+UBSan build of onnxc.
#
#   utils/sanitizer-sweep.sh [CONFORMANCE-ARG...]
#   utils/sanitizer-sweep.sh --suite onnx-1.12 --filter 'node/test_(add|conv)'
#   utils/sanitizer-sweep.sh --zoo [ZOO-ARG...]      (the real-model zoo)
#   utils/sanitizer-sweep.sh --zoo --subset ci
#
# With --zoo it runs utils/zoo/zoo.py instead (docs/Zoo.md; its arguments
# pass through, after --jobs $ONNXC_JOBS --repeats 5 --lock '' and limits of
# 1800 s, and --no-c-api: Python cannot load a library linked with the
# sanitizers' runtimes): every data set of every model 5 times, each time at 1 and at 2
# threads (the onnxc-run wrapper runs `--threads 1`, then `--threads 2`);
# reports are named <model>.<variant>.<program>.<pid>, the zoo's rows go to
# build-asan/zoo-sanitizer.json. The models' .so files are written into the
# zoo's cache as a plain run writes them (do not run both at once).
#
# Configures build-asan/ once (Release with line tables, clang-22, lld, Ninja
# and -DONNXC_SANITIZE=address,undefined: onnxc, onnxc-run and the runtime
# archive linked into every compiled model are instrumented), builds onnxc and
# onnxc-run under `flock /tmp/onnxc-build.lock` (shared with utils/setup.sh),
# then runs utils/conformance.py with them; its arguments pass through (after
# the defaults --jobs $ONNXC_JOBS --timeout 900 --run-timeout 600, three times
# the plain limits for the sanitizers' slowdown, so they can override them).
#
# A sanitizer finding (ASan, UBSan, LeakSanitizer) aborts the process, so the
# sweep counts the test as CRASH; every report is also written to
# build-asan/sanitizer-logs/<test>.<program>.<pid>, named after the test, and
# listed at the end. "Clean" = conformance.py reports no regression against
# test/conformance/*.passing (exit 0) and there is no report file. Exit
# status: conformance.py's when non-zero, else 3 when there is a report.
#
# Environment:
#   ONNXC_ASAN_BUILD_DIR   build folder (default: <repo>/build-asan)
#   ONNXC_JOBS             ninja -j (default: 2)
#   ASAN_OPTIONS, UBSAN_OPTIONS, LSAN_OPTIONS  override the defaults below

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ONNXC_ASAN_BUILD_DIR:-$ROOT/build-asan}"
JOBS="${ONNXC_JOBS:-2}"
LOCK=/tmp/onnxc-build.lock
MODE=conformance
if [ "${1:-}" = "--zoo" ]; then
  MODE=zoo
  shift
fi

say() { echo "sanitizer-sweep: $*"; }

# The sanitizer runtimes of clang-22 (not in utils/setup.sh's list: only the
# sanitizer and fuzz builds need them).
if ! dpkg-query -W -f='${db:Status-Abbrev}' libclang-rt-22-dev 2>/dev/null |
     grep -q '^ii'; then
  say "installing libclang-rt-22-dev (sanitizer runtimes)"
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
    -DONNXC_SANITIZE=address,undefined
fi
# Up to date needs no turn at the lock (another build may hold it long).
if ! ninja -C "$BUILD_DIR" -n onnxc onnxc-run 2>/dev/null | grep -q "no work to do"; then
  flock "$LOCK" ninja -C "$BUILD_DIR" -j "$JOBS" onnxc onnxc-run
fi

# Reports go to one file per process, named after the test: conformance.py
# runs `onnxc MODEL -o WORK/model.so` and `onnxc-run WORK/model.so ...`, WORK
# being a temporary folder named <test>.<random>; these wrappers put that name
# into log_path and exec the real program (same pid, same signals; onnxc still
# finds build-asan/lib/libonnxc_runtime.a next to its own executable).
LOGS="$BUILD_DIR/sanitizer-logs"
WRAP="$BUILD_DIR/sanitizer-wrappers"
rm -rf "$LOGS"
mkdir -p "$LOGS" "$WRAP"
for prog in onnxc onnxc-run; do
  # The conformance sweep's .so lies in <test>.<random>/, the zoo's in
  # <model>/<variant>/.
  if [ "$MODE" = zoo ]; then
    tagline='d=$(dirname "$a"); tag=$(basename "$(dirname "$d")").$(basename "$d")'
  else
    tagline='tag=$(basename "$(dirname "$a")")'
  fi
  # The zoo runs each model at 1 and at 2 threads.
  run='exec "'"$BUILD_DIR/bin/$prog"'" "$@"'
  if [ "$MODE" = zoo ] && [ "$prog" = onnxc-run ]; then
    run='"'"$BUILD_DIR/bin/$prog"'" "$@" --threads 1 || exit $?
exec "'"$BUILD_DIR/bin/$prog"'" "$@" --threads 2'
  fi
  cat >"$WRAP/$prog" <<WRAPPER
#!/bin/sh
tag=unknown
for a in "\$@"; do
  case "\$a" in *.so) $tagline; break ;; esac
done
log="$LOGS/\$tag.$prog"
export ASAN_OPTIONS="\$ASAN_OPTIONS:log_path=\$log"
export UBSAN_OPTIONS="\$UBSAN_OPTIONS:log_path=\$log"
$run
WRAPPER
  chmod +x "$WRAP/$prog"
done

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}"
if [ -z "${LSAN_OPTIONS:-}" ] && [ -f "$ROOT/utils/lsan.supp" ]; then
  export LSAN_OPTIONS="suppressions=$ROOT/utils/lsan.supp:print_suppressions=0"
fi
export ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}"

say "ASAN_OPTIONS=$ASAN_OPTIONS"
say "UBSAN_OPTIONS=$UBSAN_OPTIONS"
say "LSAN_OPTIONS=${LSAN_OPTIONS:-}"
rc=0
if [ "$MODE" = zoo ]; then
  RESULTS="$BUILD_DIR/zoo-sanitizer.json"
  /usr/bin/python3 "$ROOT/utils/zoo/zoo.py" \
    --onnxc "$WRAP/onnxc" --onnxc-run "$WRAP/onnxc-run" --jobs "$JOBS" \
    --repeats 5 --lock '' --compile-timeout 1800 --run-timeout 1800 \
    --no-c-api \
    --report "$RESULTS" "$@" || rc=$?
else
  RESULTS="$BUILD_DIR/conformance-results.txt"
  /usr/bin/python3 "$ROOT/utils/conformance.py" \
    --onnxc "$WRAP/onnxc" --onnxc-run "$WRAP/onnxc-run" --jobs "$JOBS" \
    --timeout 900 --run-timeout 600 \
    --report "$RESULTS" "$@" || rc=$?
fi

reports=("$LOGS"/*)
if [ -e "${reports[0]}" ]; then
  say "${#reports[@]} sanitizer report(s) in $LOGS:"
  for f in "${reports[@]}"; do
    echo "  $(basename "$f"): $(grep -m1 -E '^SUMMARY:|runtime error:' "$f" || head -n 3 "$f" | tail -n 1)"
  done
  [ "$rc" -eq 0 ] && rc=3
else
  say "no sanitizer report"
fi
say "results: $RESULTS (exit $rc)"
exit "$rc"
