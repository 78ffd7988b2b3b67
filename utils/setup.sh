#!/usr/bin/env bash
# setup.sh - Installs what onnxc needs, configures build/ and builds it.
#
#   utils/setup.sh [NINJA-TARGET...]     (default: every target)
#
# Idempotent and quick when nothing changed: missing Debian packages are
# installed (apt-get update only runs when one is missing), build/ is
# configured once (Release, clang-22, lld, Ninja; CMake picks up ccache
# itself), then ninja brings the build up to date. Configure and build run
# under `flock /tmp/onnxc-build.lock`, so builds started from several shells
# or checkouts take turns on the machine's cores.
#
# Environment:
#   ONNXC_BUILD_DIR        build folder (default: <repo>/build)
#   ONNXC_JOBS             ninja -j (default: 2)
#   ONNXC_SETUP_DRY_RUN=1  print the commands that would change something
#                          (apt-get, cmake, ninja) instead of running them
#   ONNXC_SETUP_ASSUME_MISSING="pkg ..."
#                          treat these packages as not installed (to try the
#                          install path; combine with ONNXC_SETUP_DRY_RUN=1)

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ONNXC_BUILD_DIR:-$ROOT/build}"
JOBS="${ONNXC_JOBS:-2}"
LOCK=/tmp/onnxc-build.lock
DRY_RUN="${ONNXC_SETUP_DRY_RUN:-0}"

# Debian 12 packages (LLVM/MLIR 22 from apt.llvm.org's bookworm repository).
PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
  libprotobuf-dev protobuf-compiler libonnx-dev libgtest-dev
  libonnx-testdata python3-onnx python3-numpy python3-sklearn python3-torch
  python3-torchvision python3-torchaudio python3-pil fonts-dejavu-core
  cmake ninja-build ccache
)

say() { echo "setup: $*"; }

# Runs a command, or only prints it under ONNXC_SETUP_DRY_RUN=1.
run() {
  if [ "$DRY_RUN" = 1 ]; then
    echo "setup: [dry run] $*"
  else
    "$@"
  fi
}

missing_packages() {
  local installed pkg
  # One dpkg-query for all packages; "ii" = installed and configured. It
  # exits non-zero when one is unknown but still lists the others.
  installed="$( { dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' \
                    "${PACKAGES[@]}" 2>/dev/null || true; } |
               awk '$2 == "ii" { print $1 }')"
  for pkg in "${PACKAGES[@]}"; do
    if ! grep -qxF -- "$pkg" <<<"$installed" ||
       [[ " ${ONNXC_SETUP_ASSUME_MISSING:-} " == *" $pkg "* ]]; then
      echo "$pkg"
    fi
  done
}

install_packages() {
  local out missing
  out="$(missing_packages)"
  [ -z "$out" ] && return 0
  mapfile -t missing <<<"$out"
  say "installing missing packages: ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
      say "error: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2
      exit 1
    fi
    sudo=(sudo)
  fi
  run "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  run "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
}

configure() {
  # A build.ninja means configured: ninja re-runs CMake itself when a
  # CMakeLists.txt changes.
  [ -f "$BUILD_DIR/build.ninja" ] && return 0
  say "configuring $BUILD_DIR"
  run flock "$LOCK" cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld
}

build() {
  run flock "$LOCK" ninja -C "$BUILD_DIR" -j "$JOBS" "$@"
}

install_packages
configure
build "$@"
