#!/bin/sh
# tests/fuzz/run_ci.sh - the CI fuzzing step (issue 6 section 2, Z1).
#
#   tests/fuzz/run_ci.sh            configure + build the `fuzz` preset (clang,
#                                   libFuzzer, ASan+UBSan) into build/fuzz, then
#                                   run every target for a bounded time with a
#                                   fixed seed (ctest -L fuzz; <= 4 min in all)
#   tests/fuzz/run_ci.sh --long [S] the same, then the fuzz-long target: S
#                                   seconds per target (default 600)
#
# Prints the executions per target (stat::number_of_executed_units).  Exit
# 0 when every target ran clean, 1 on a finding or a build failure (the
# reproducer is under build/fuzz/fuzz-work/<target>/), 77 when clang or
# libFuzzer is unavailable (skipped).  JOBS sets the build parallelism.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
long=0
long_seconds=600
if [ "${1:-}" = "--long" ]; then
  long=1
  [ -n "${2:-}" ] && long_seconds=$2
fi

if ! command -v clang >/dev/null 2>&1; then
  echo "run_ci.sh: clang not found: fuzzing skipped"
  exit 77
fi
probe=$(mktemp -d) || exit 1
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
  'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
  'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
  >"$probe/t.c"
if ! clang -fsanitize=fuzzer,address,undefined "$probe/t.c" -o "$probe/t" >/dev/null 2>&1; then
  rm -rf "$probe"
  echo "run_ci.sh: clang cannot link libFuzzer (-fsanitize=fuzzer): fuzzing skipped"
  exit 77
fi
rm -rf "$probe"

cd "$root" || exit 1
cmake --preset fuzz -DOLC_FUZZ_LONG_SECONDS="$long_seconds" >build-fuzz-configure.log 2>&1 || {
  cat build-fuzz-configure.log
  exit 1
}
rm -f build-fuzz-configure.log
cmake --build build/fuzz -j "${JOBS:-2}" --target fuzz-all || exit 1

start=$(date +%s)
ctest --test-dir build/fuzz -L fuzz --output-on-failure
rc=$?
if [ "$long" -eq 1 ] && [ "$rc" -eq 0 ]; then
  cmake --build build/fuzz --target fuzz-long || rc=1
fi
echo "== fuzzing summary ($(($(date +%s) - start)) s)"
for log in build/fuzz/fuzz-work/*/log.txt; do
  [ -f "$log" ] || continue
  name=$(basename "$(dirname "$log")")
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  echo "$name: ${execs:-?} executions"
done
exit "$rc"
