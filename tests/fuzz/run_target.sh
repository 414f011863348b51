#!/bin/sh
# tests/fuzz/run_target.sh EXE SECONDS WORKDIR CORPUS_DIR... - one bounded
# libFuzzer run with a fixed seed (the ctest of label fuzz, and fuzz-long).
# New inputs go to WORKDIR/corpus (never into the source tree); a crash
# input is written to WORKDIR/ as crash-*, leak-*, timeout-* or oom-*, to
# be copied into tests/fuzz/regressions/<target>/.  Prints the executions
# (stat::number_of_executed_units).  Exit 77 when the target is skipped.
set -u
exe=$1 seconds=$2 work=$3
shift 3
[ -n "${OLC_FUZZ_KEEP:-}" ] || rm -rf "$work"
mkdir -p "$work/corpus" || exit 1
seed=${OLC_FUZZ_SEED:-1}
dirs=
for d in "$@"; do
  [ -d "$d" ] && dirs="$dirs $d"
done
# Leaks are checked per input; -rss_limit_mb catches runaway allocations.
# shellcheck disable=SC2086
"$exe" -seed="$seed" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -error_exitcode=1 \
  -rss_limit_mb=2048 -max_len=16384 -artifact_prefix="$work/" "$work/corpus" $dirs \
  >"$work/log.txt" 2>&1
rc=$?
tail -n 30 "$work/log.txt"
name=$(basename "$exe")
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log.txt" | tail -n 1)
echo "$name: executions ${execs:-?} in ${seconds} s (seed $seed), exit $rc"
[ "$rc" -eq 77 ] && exit 77
if [ "$rc" -ne 0 ]; then
  echo "$name: FINDING; reproducer(s):"
  ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null
fi
exit "$rc"
