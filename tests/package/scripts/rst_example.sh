#!/bin/sh
# rst_example.sh SPEC CXX CMAKE ARGS... - runs `CMAKE -DSPEC=SPEC
# -DCXX_COMPILER=CXX ARGS...` (tests/package/scripts/rst_example.cmake), or exits 77
# (skipped) when the spec (../shared/spec/ beside the source tree, or
# OLC_SPEC_DIR) or a C++ compiler is missing.
spec=$1
cxx=$2
cmake=$3
shift 3
if [ ! -f "$spec" ]; then
  echo "skipped: no $spec (configure with -DOLC_SPEC_DIR=DIR)"
  exit 77
fi
if [ -z "$cxx" ] || ! command -v "$cxx" >/dev/null 2>&1; then
  echo "skipped: no C++ compiler"
  exit 77
fi
exec "$cmake" -DSPEC="$spec" -DCXX_COMPILER="$cxx" "$@"
