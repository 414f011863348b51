#!/bin/sh
# tests/sanitize/valgrind_calibrate.sh - `olc calibrate` on the default
# configuration under valgrind memcheck (issue 6, section 3).
#
#   tests/sanitize/valgrind_calibrate.sh BUILD_DIR
#
# BUILD_DIR is a configured and built tree without sanitizers (valgrind
# cannot run ASan/TSan programs).  Every error and every definite or
# indirect leak fails (--error-exitcode=1); valgrind.supp (next to this
# script) holds the suppressions for third-party drivers only.
#
# When the CLI has no `calibrate` command yet, the store commands (path,
# override set, list, lookup, check, export, import, override remove) and
# the calibrate-loop test program run under valgrind instead.  With
# OLC_VALGRIND_GPU=1 the example_gpu host test (OpenCL through the ICD
# loader, POCL here) runs too; it takes minutes under valgrind.
#
# Exit 77 (skipped) without valgrind or on a sanitizer build.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bld=${1:?usage: valgrind_calibrate.sh BUILD_DIR}
bld=$(cd "$bld" && pwd)
olc=$bld/bin/olc
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found: skipped"; exit 77; }
if grep -Eq '^OLC_(SANITIZE|TSAN):BOOL=ON' "$bld/CMakeCache.txt" 2>/dev/null; then
  echo "sanitizer build: valgrind cannot run it: skipped"
  exit 77
fi
[ -x "$olc" ] || { echo "no $olc (build the olc_cli target)"; exit 1; }

# fd 3: the script's own output (valgrind reports go there even while a
# program's output is captured).
exec 3>&1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The default store path comes from XDG_CACHE_HOME: keep it in $work.
XDG_CACHE_HOME=$work/cache
OLC_STORE=$work/store.txt
export XDG_CACHE_HOME OLC_STORE
unset OLC_CONFIG OLC_PLUGIN_PATH  # the embedded default configuration, nothing else

vg() {
  # --trace-children: the calibrate loop's measuring worker (olc-worker) is
  # host code and is checked too.  Not the system linker that POCL's
  # embedded clang driver runs to link OpenCL kernels: a third-party tool
  # that frees nothing before exiting (valgrind's exit code 1 for its
  # leaks made the link "fail" and POCL abort() the host).  Only definite
  # and indirect leaks count: "still reachable" memory of the C runtime and
  # of drivers that keep global state until exit is not a leak of ours.
  valgrind -q --error-exitcode=1 --leak-check=full --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --track-origins=yes --trace-children=yes \
    --child-silent-after-fork=yes --num-callers=64 \
    --trace-children-skip='*/ld,*/ld.bfd,*/ld.gold,*/ld.lld,*-ld,*-ld.bfd,*-ld.gold' \
    --suppressions="$here/valgrind.supp" \
    --log-file="$work/vg.%p.log" "$@"
  rc=$?
  # Print whatever valgrind said (with -q: only errors), whatever the
  # program's status; vg_reported tells a valgrind report from a program
  # that exits 1 by design.
  vg_reported=0
  for f in "$work"/vg.*.log; do
    if [ -s "$f" ]; then
      echo "--- valgrind: $*" >&3
      cat "$f" >&3
      vg_reported=1
    fi
    rm -f "$f"
  done
  return $rc
}

status=0
run() {
  name=$1
  shift
  start=$(date +%s)
  vg "$@" >"$work/out" 2>&1
  rc=$?
  end=$(date +%s)
  echo "valgrind $name: exit $rc ($((end - start)) s)"
  if [ $rc -ne 0 ]; then
    tail -40 "$work/out"
    status=1
  fi
}

if "$olc" calibrate --help >/dev/null 2>&1; then
  # Every workload of the default configuration, measured in this process:
  # under valgrind one OpenCL run through POCL takes longer than the
  # worker's 60 s per-candidate timeout (the worker would be killed and the
  # workload fail), and in-process it still runs the whole plugin code.
  run "olc calibrate --in-process (default config)" "$olc" calibrate --in-process
  # Again: everything is selected from the store (key, lookup, validate).
  run "olc calibrate (selects from the store)" "$olc" calibrate --in-process
  # The measuring worker (olc-worker, host code) on one CPU workload of the
  # default configuration.
  wl=$(sed -n 's/^\[workload\.\(gemm_256\)\]$/\1/p' "$here/../../config/default.ini" 2>/dev/null)
  if [ -n "$wl" ]; then
    run "olc calibrate --recalibrate --workload $wl (worker)" "$olc" calibrate --recalibrate \
      --workload "$wl"
  fi
  run "olc list" "$olc" list
else
  echo "olc has no calibrate command yet: store commands and test_calibrate instead"
  key="--backend cpu_gemm --operator MatMul --implementation 1 --structure dtype=float32 --structure m=256"
  # shellcheck disable=SC2086
  run "olc path" "$olc" path
  # shellcheck disable=SC2086
  run "olc override set" "$olc" override set --level portable $key --policy 'mc=64 "quoted"' \
    --measurement median_latency=1.5:us
  run "olc list" "$olc" list
  run "olc list --json" "$olc" list --json
  # shellcheck disable=SC2086
  run "olc lookup" "$olc" lookup $key --all-candidates
  run "olc check" "$olc" check "$OLC_STORE"
  run "olc export" "$olc" export "$work/exported.txt"
  run "olc import" "$olc" import "$work/exported.txt"
  # shellcheck disable=SC2086
  run "olc override remove" "$olc" override remove --level portable $key
  printf 'not a store\n' >"$work/bad.txt"
  vg "$olc" check "$work/bad.txt" >"$work/out" 2>&1
  rc=$?
  # check of a bad file exits 1 by design: only a valgrind report fails.
  echo "valgrind olc check (malformed file): exit $rc, valgrind report: $vg_reported"
  [ $vg_reported -eq 0 ] && [ $rc -ne 0 ] || status=1
  if [ -x "$bld/tests/test_calibrate" ]; then
    run "test_calibrate" "$bld/tests/test_calibrate"
  else
    echo "no $bld/tests/test_calibrate (build it): not run"
    status=1
  fi
fi
if [ "${OLC_VALGRIND_GPU:-0}" = 1 ] && [ -x "$bld/tests/test_example_gpu_host" ]; then
  run "test_example_gpu_host (OpenCL)" "$bld/tests/test_example_gpu_host" host
fi
exit $status
