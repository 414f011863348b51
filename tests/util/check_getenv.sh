#!/bin/sh
# tests/util/check_getenv.sh SOURCE_DIR - no environment override is
# honoured in a privileged process (issue 6, section 4): every plain
# getenv() in the shipped POSIX sources (host/ and plugins/; the example
# programs of examples/ are not the host and are not checked) must be
#   - in a Windows-only branch (#if defined(_WIN32) / #ifdef _WIN32), or
#   - in test-hook code (#ifdef OLC_TEST_HOOKS), or
#   - within 12 lines after a getuid()/geteuid() comparison (the fallback
#     of libcs without secure_getenv);
# everything else must use secure_getenv.  Prints the offending lines.
# The run-time side (a setuid copy ignores OLC_PLUGIN_PATH, OLC_STORE,
# HOME, XDG_CACHE_HOME) is test_hostile_perms.
set -eu
src=${1:?usage: check_getenv.sh SOURCE_DIR}
cd "$src"
files=$(find host plugins -name '*.c' ! -name '*_win32.c' 2>/dev/null | sort)
[ -n "$files" ] || { echo "no sources under $src"; exit 1; }
# shellcheck disable=SC2086
awk '
  FNR == 1 { depth = 0; last_uid = -100 }
  /getuid\(\)|geteuid\(\)/ { last_uid = FNR }
  /^[ \t]*#[ \t]*if/ {
    depth++
    allow[depth] = ($0 ~ /_WIN32/ && $0 !~ /!/ && $0 !~ /ifndef/) || ($0 ~ /OLC_TEST_HOOKS/ && $0 !~ /ifndef/)
    next
  }
  /^[ \t]*#[ \t]*el/ { allow[depth] = 0; next }
  /^[ \t]*#[ \t]*endif/ { if (depth > 0) depth--; next }
  /[^_a-z]getenv[ \t]*\(/ {
    ok = FNR - last_uid <= 12
    for (i = 1; i <= depth; i++) if (allow[i]) ok = 1
    if (!ok) { print FILENAME ":" FNR ": plain getenv: " $0; bad++ }
    n++
  }
  END {
    printf "check_getenv: %d plain getenv call(s) checked, %d not guarded\n", n, bad
    exit bad > 0
  }' $files
