#!/bin/sh
# tests/sanitize/tsan.sh - the threaded store, persist and loader tests under
# ThreadSanitizer (issue 6, section 3).
#
#   tests/sanitize/tsan.sh [SOURCE_DIR [BUILD_DIR]]
#
# Configures a TSan build like the `tsan` preset (RelWithDebInfo,
# OLC_TSAN=ON, -Werror) into BUILD_DIR (default SOURCE_DIR/build/tsan),
# builds only the test programs that `ctest -R "$OLC_TSAN_TESTS"` selects
# (default: the store, persist, loader and runtime tests, which use threads on one
# handle, and cpu_gemm's execute test, 8 threads on one instance; listed by
# name) and runs them.
# Any report makes the test exit non-zero (halt_on_error).  Exit 77 when no
# compiler with -fsanitize=thread is available.  JOBS (default 2) bounds
# the build.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$(cd "$here/../.." && pwd)}
bld=${2:-$src/build/tsan}
jobs=${JOBS:-2}
regex=${OLC_TSAN_TESTS:-^(test_store|test_store_threads|test_store_file|test_store_faults|test_lookup|test_persist|test_persist_faults|test_persist_path|test_loader|test_plugin_wrappers|test_host_open|test_hostile_plugins|test_diag|test_cpu_gemm_execute|test_runtime_threads|test_runtime_wait|test_runtime_constants)\$}
cc=${CC:-cc}

command -v cmake >/dev/null 2>&1 || { echo "tsan: cmake not found: skipped"; exit 77; }
# A compiler that cannot link a TSan program is a missing tool, not a pass.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int main(void){return 0;}\n' >"$probe/t.c"
if ! "$cc" -fsanitize=thread "$probe/t.c" -o "$probe/t" >/dev/null 2>&1 || ! "$probe/t"; then
  echo "tsan: $cc cannot build or run -fsanitize=thread programs: skipped"
  exit 77
fi

start=$(date +%s)
# OLC_TSAN_CMAKE_ARGS: extra configure arguments (word-split), e.g.
# "-DCMAKE_C_FLAGS=-Wno-error=tsan" while a source trips gcc's -Wtsan.
# shellcheck disable=SC2086
cmake -S "$src" -B "$bld" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOLC_TSAN=ON -DOLC_WERROR=ON \
  -DCMAKE_C_COMPILER="$cc" ${OLC_TSAN_CMAKE_ARGS:-} >"$bld.configure.log" 2>&1 ||
  { cat "$bld.configure.log"; exit 1; }
# The ctests the regex selects whose program is a target of the same name.
names=$(ctest --test-dir "$bld" -N -R "$regex" | sed -n 's/^ *Test *#[0-9]*: *//p')
[ -n "$names" ] || { echo "tsan: no test matches '$regex'"; exit 1; }
targets=olc_mock_plugins
for n in $names; do
  targets="$targets $n"
done
# shellcheck disable=SC2086
cmake --build "$bld" -j "$jobs" --target $targets
built=$(date +%s)

# halt_on_error: the first race fails the test.  second_deadlock_stack: lock
# order reports name both acquisitions.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 exitcode=66 history_size=4 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS
status=0
ctest --test-dir "$bld" -R "$regex" --output-on-failure -j "$jobs" || status=$?
end=$(date +%s)
echo "tsan: build $((built - start)) s, tests $((end - built)) s, status $status"
exit "$status"
