#!/usr/bin/env bash
# scripts/setup.sh - set up a fresh Debian machine and build olc.
#
#   scripts/setup.sh            install what is missing, build the release
#                               preset (build/release/bin/olc)
#   scripts/setup.sh --test     the same setup, then the whole test suite:
#                               the dev preset (-Werror) with ctest (with a
#                               TSan run of the threaded tests and valgrind
#                               on olc calibrate), bounded libFuzzer runs
#                               (clang), then the asan preset with ctest
#
# Options: --no-install (never call apt-get), --no-asan (skip the sanitizer
# pass of --test), --no-fuzz (skip the bounded libFuzzer runs of --test),
# --jobs N (default: the number of CPUs).
# Packages come from Debian only; nothing is downloaded at build time.  The
# one exception, in --test mode and optional: ONNX Runtime's CPU library for
# the GEMM benchmarks' peers, which Debian lacks, from the npm package
# onnxruntime-node (installed without its scripts; skipped, with a note,
# where npm is missing or fails).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODE=build
INSTALL=1
ASAN=1
FUZZ=1
JOBS=$(nproc 2>/dev/null || echo 2)

while [ $# -gt 0 ]; do
  case "$1" in
  --test) MODE="test" ;;
  --no-install) INSTALL=0 ;;
  --no-asan) ASAN=0 ;;
  --no-fuzz) FUZZ=0 ;;
  --jobs)
    shift
    JOBS=${1:?--jobs needs a number}
    ;;
  --jobs=*) JOBS=${1#--jobs=} ;;
  -h | --help)
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "setup.sh: unknown option '$1' (see --help)" >&2
    exit 2
    ;;
  esac
  shift
done

# Each step with the seconds since setup began, so a slow stage shows in CI.
say() { printf '==> [%ds] %s\n' "$SECONDS" "$*"; }

# What building and running need (the first README command installs only
# these; CUnit is small and lets the README's plain preset builds, tests
# included, work; POCL runs example_gpu on a machine without a GPU).
REQUIRED=(build-essential cmake pkg-config libcunit1-dev libinih-dev libssl-dev
  ocl-icd-opencl-dev opencl-headers)
OPTIONAL=(pocl-opencl-icd)
# What only the test suite and the benchmarks need (--test adds these;
# slurm-wlm and munge: test_fleet_slurm starts a Slurm of its own).
TEST_REQUIRED=(locales)
# The GEMM benchmarks' peers (bench/gemm/README.md): oneDNN, libxsmm,
# XNNPACK, Eigen; each one missing is skipped by the benchmarks.
# examples/onnx_runner: ONNX's backend test data (its MatMul/Gemm cases,
# skipped when missing), onnx.proto and protobuf-c to read models (the
# example is not built without them), python3-onnx for make_mlp.py.
TEST_OPTIONAL=(ninja-build libsqlite3-dev libopenblas-dev libblis-dev libclblast-dev clinfo
  strace fiu-utils libfiu-dev clang mingw-w64 wine valgrind python3 chromium slurm-wlm munge
  libdnnl-dev libxsmm-dev libxnnpack-dev libpthreadpool-dev libeigen3-dev
  libonnx-testdata libonnx-dev protobuf-c-compiler libprotobuf-c-dev python3-onnx)
# Where the benchmarks look for ONNX Runtime's npm package (peer_ort.c).
ORT_NPM_DIR="${HOME:-/root}/.cache/olc-bench/onnxruntime-node"
ORT_NPM_PACKAGE=onnxruntime-node@1.30.0

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    echo "setup.sh: need root to run: $*" >&2
    return 1
  fi
}

install_packages() {
  local missing=() p
  for p in "${REQUIRED[@]}" "${OPTIONAL[@]}"; do
    installed "$p" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    say "all Debian packages are installed"
    return 0
  fi
  if [ "$INSTALL" -eq 0 ]; then
    echo "setup.sh: missing packages (not installing): ${missing[*]}" >&2
  else
    say "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update -q
    if ! as_root apt-get install -y -q "${missing[@]}"; then
      # One unavailable optional package must not block the others.
      for p in "${missing[@]}"; do
        as_root apt-get install -y -q "$p" || echo "setup.sh: could not install $p" >&2
      done
    fi
  fi
  for p in "${REQUIRED[@]}"; do
    if ! installed "$p"; then
      echo "setup.sh: required package $p is missing" >&2
      return 1
    fi
  done
}

# ONNX Runtime for the benchmarks (optional: never fails the setup).
install_ort() {
  if compgen -G "$ORT_NPM_DIR/node_modules/onnxruntime-node/bin/napi-v*/linux/x64/libonnxruntime.so*" \
    >/dev/null; then
    return 0
  fi
  if [ "$INSTALL" -eq 0 ] || ! command -v npm >/dev/null 2>&1; then
    echo "setup.sh: ONNX Runtime (npm $ORT_NPM_PACKAGE) not installed: the benchmarks skip it" >&2
    return 0
  fi
  say "installing $ORT_NPM_PACKAGE (--ignore-scripts) into $ORT_NPM_DIR"
  mkdir -p "$ORT_NPM_DIR" &&
    (cd "$ORT_NPM_DIR" && npm install --ignore-scripts --no-audit --no-fund "$ORT_NPM_PACKAGE") ||
    echo "setup.sh: npm install $ORT_NPM_PACKAGE failed: the benchmarks skip ONNX Runtime" >&2
}

# The locale test needs de_DE.UTF-8 (a decimal comma).
setup_locale() {
  if locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
    return 0
  fi
  if [ "$INSTALL" -eq 0 ] || [ ! -f /etc/locale.gen ]; then
    echo "setup.sh: locale de_DE.UTF-8 is missing (its test will be skipped)" >&2
    return 0
  fi
  say "generating the de_DE.UTF-8 locale"
  as_root sed -i 's/^# *de_DE.UTF-8/de_DE.UTF-8/' /etc/locale.gen
  as_root locale-gen || echo "setup.sh: locale-gen failed (its test will be skipped)" >&2
}

# build_preset NAME [cmake -D options...]
build_preset() {
  local preset=$1
  shift
  say "configure and build preset $preset"
  cmake --preset "$preset" -S "$ROOT" "$@"
  cmake --build --preset "$preset" -j "$JOBS"
}

# require_tests NAME: the preset's build holds the project's own tests (a
# known test registered and built).  A build directory configured before
# without tests keeps OLC_BUILD_TESTS=OFF in its cache, whatever
# BUILD_TESTING says later: that must fail here, not pass checking nothing.
require_tests() {
  local dir="$ROOT/build/$1" n
  n=$(cd "$dir" && ctest -N -R '^test_persist$' 2>/dev/null | sed -n 's/^Total Tests: //p')
  if [ "${n:-0}" -lt 1 ] || [ ! -x "$dir/tests/test_persist" ]; then
    echo "setup.sh: preset $1 built no tests ($(grep -s '^OLC_BUILD_TESTS' "$dir/CMakeCache.txt" ||
      echo 'no CMakeCache.txt')); remove $dir and run again" >&2
    exit 1
  fi
}

# test_preset NAME [ctest options...]
test_preset() {
  local preset=$1
  shift
  say "ctest preset $preset $*"
  (cd "$ROOT" && ctest --preset "$preset" -j "$JOBS" "$@")
}

cd "$ROOT"
if [ "$MODE" = test ]; then
  REQUIRED+=("${TEST_REQUIRED[@]}")
  OPTIONAL+=("${TEST_OPTIONAL[@]}")
fi
install_packages
if [ "$MODE" = test ]; then
  setup_locale
  install_ort
fi

if [ "$MODE" = build ]; then
  # The main job needs the tool, the library and the plugins, not the tests.
  # Both switches explicitly: OLC_BUILD_TESTS is cached, and a later
  # configure of this directory must say again what it wants.
  build_preset release -DBUILD_TESTING=OFF -DOLC_BUILD_TESTS=OFF
  say "built $ROOT/build/release/bin/olc"
  exit 0
fi

# The output ends with the summary of the last ctest run.
# The dev pass also registers the ThreadSanitizer run of the threaded tests
# (a second build) and `olc calibrate` under valgrind memcheck.
TESTS_ON=(-DBUILD_TESTING=ON -DOLC_BUILD_TESTS=ON)
build_preset dev "${TESTS_ON[@]}" -DOLC_TEST_TSAN=ON -DOLC_TEST_VALGRIND=ON
require_tests dev
test_preset dev
# Optimizers warn about what -O0 does not see (format truncation, ...):
# the release presets, tests included, must build with -Werror at -O3 and -O2
# (build/release was configured without tests by the plain setup first).
build_preset release "${TESTS_ON[@]}"
require_tests release
build_preset release-o2 "${TESTS_ON[@]}"
require_tests release-o2
if [ "$FUZZ" -eq 1 ]; then
  # libFuzzer targets (clang, fixed seed, about 3 minutes in all); 77 = no clang.
  say "fuzz (bounded runs, fixed seed)"
  JOBS="$JOBS" "$ROOT/tests/fuzz/run_ci.sh" || {
    rc=$?
    [ "$rc" -eq 77 ] || exit "$rc"
  }
fi
if [ "$ASAN" -eq 1 ]; then
  build_preset asan "${TESTS_ON[@]}"
  require_tests asan
  # Benchmarks and the mingw-w64 cross-compile test run no sanitized code:
  # the dev pass covers them.
  test_preset asan -LE bench -E mingw_cross
fi
