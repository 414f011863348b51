#!/bin/sh
# mingw_cross.sh SRC BUILD - the Windows build with Debian's mingw-w64, run
# under wine.
#
# 1. Cross-compiles every module but config (OLC_WITHOUT_CONFIG: inih and
#    OpenSSL have no mingw builds here) with the project's warnings and
#    -Werror: util, record, format, persist, store, plugins (the loader),
#    calibrate, host, the static library; config's *_win32.c files as
#    objects; cpu_gemm.dll and the four mock plugins the test loads as
#    .dll files; win_platform_smoke.exe, win_persist_smoke.exe and
#    win_host_smoke.exe
#    (tests/windows).
# 2. Checks that every host/src/*/*_win32.c was compiled, and that the
#    plugin DLLs import no file-system function and no DLL of the mingw
#    runtime, and export only olc_plugin_entry.
# 3. Runs the programs under wine when wine is installed:
#    win_platform_smoke.exe the platform layer: locks, condition variable,
#                           once, clocks, sleep, the executable's directory
#    win_persist_smoke.exe  the persistence layer with its fault hooks
#    win_host_smoke.exe     the loader (LoadLibraryExW) on the mock plugins
#                           and cpu_gemm, calibration into a store on the
#                           Windows write path, a second host selecting
#                           from the file
# Exit: 0 pass, 1 failure, 77 skipped (no cross compiler; wine present but
# unable to start).
set -u
SRC=$1
BUILD=$2
TRIPLET=x86_64-w64-mingw32
CC=$TRIPLET-gcc
OBJDUMP=$TRIPLET-objdump
if ! command -v $CC >/dev/null 2>&1; then
  echo "skipped: $CC is not installed (apt-get install gcc-mingw-w64-x86-64)"
  exit 77
fi
mkdir -p "$BUILD"
# cpu: CPU seconds used so far by the programs this script waited for: the
# compilers and linkers, not wineserver and the Windows processes it starts
# in the background.  On a shared machine the wall-clock time says more
# about the other users than about the build.
# times runs in this shell (not in $(...), a subshell with no children).
cpu() {
  awk 'NR == 2 { split($1, u, "m"); split($2, s, "m"); printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' \
    "$BUILD/times.txt"
}
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
t0=$(date +%s)

# 1. The cross build.
if ! cmake -S "$SRC" -B "$BUILD" -DCMAKE_TOOLCHAIN_FILE="$SRC/cmake/toolchain-mingw64.cmake" \
    -DOLC_WITHOUT_CONFIG=ON -DOLC_STORE_ONLY=OFF -DOLC_WERROR=ON -DBUILD_TESTING=ON \
    -DCMAKE_BUILD_TYPE=Debug \
    >"$BUILD/configure.log" 2>&1; then
  cat "$BUILD/configure.log"
  echo "FAIL: cross configure"
  exit 1
fi
# Only what the checks and the programs use (not the other mock plugins).
if ! cmake --build "$BUILD" -j2 --target win_platform_smoke win_persist_smoke win_host_smoke \
    olc_config_win32 \
    >"$BUILD/build.log" 2>&1; then
  grep -E "error|Error|undefined reference" "$BUILD/build.log" | head -40
  echo "FAIL: cross build; log: $BUILD/build.log"
  exit 1
fi
t1=$(date +%s)
times >"$BUILD/times.txt"
c1=$(cpu)
echo "cross build without config (every module but config, cpu_gemm.dll, mock plugins," \
  "win_platform_smoke.exe, win_persist_smoke.exe, win_host_smoke.exe): ok, $((t1 - t0)) s, CPU $c1 s, load $(load)"

# 2. What the build must contain.
status=0
count=0
for f in "$SRC"/host/src/*/*_win32.c; do
  rel=${f#"$SRC"/host/}
  if [ -z "$(find "$BUILD/host/CMakeFiles" -path "*/$rel.obj" | head -1)" ]; then
    echo "FAIL: $rel was not compiled by the cross build"
    status=1
  fi
  count=$((count + 1))
done
echo "every host/src/*/*_win32.c compiled with -Werror: $count files"
# The imports of the plugins (CRT stream output of the runtime aside):
# nothing that opens, lists, moves or deletes a file or loads a library.
fs='CreateFile[AW2]?|OpenFile|DeleteFile[AW]|MoveFile(Ex)?[AW]|CopyFile(Ex)?[AW]|ReplaceFile[AW]'
fs="$fs|CreateDirectory(Ex)?[AW]|RemoveDirectory[AW]|FindFirstFile(Ex)?[AW]|GetFileAttributes(Ex)?[AW]"
fs="$fs|SetFileAttributes[AW]|GetFullPathName[AW]|LoadLibrary(Ex)?[AW]|_w?fopen|_w?open|fopen"
fs="$fs|_w?unlink|remove|rename|_w?rename|_w?mkdir|_w?rmdir|_w?stat(32|64|i64)?|_w?findfirst(64)?"
for dll in "$BUILD/plugins/cpu_gemm.dll" "$BUILD/tests/plugins/good/mock_det.dll"; do
  imports=$($OBJDUMP -p "$dll" | awk '/DLL Name:/ {dlls = dlls " " $3} /^\t[0-9a-f]+\t +[0-9]+ +[A-Za-z_]/ {print $3} END {print "DLLS" dlls}')
  bad=$(printf '%s\n' "$imports" | grep -E -x "($fs)" || true)
  exports=$($OBJDUMP -p "$dll" | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' |
    grep -E '^[[:space:]]*\[ *[0-9]+\]' | awk '{print $NF}')
  # A DLL of the mingw runtime (libwinpthread-1.dll from a <pthread.h>,
  # libgcc_s_seh-1.dll) is not installed where a plugin is loaded.
  runtime=$(printf '%s\n' "$imports" | sed -n 's/^DLLS//p' | tr ' ' '\n' | grep -i '^lib' || true)
  if [ -n "$bad" ] || [ "$exports" != "olc_plugin_entry" ] || [ -n "$runtime" ]; then
    echo "FAIL: $dll imports file-system functions [$bad], mingw runtime DLLs [$runtime]" \
      "or exports [$exports]"
    status=1
  else
    echo "$(basename "$dll"): imports from$(printf '%s\n' "$imports" | sed -n 's/^DLLS//p')," \
      "none of them file-system; exports olc_plugin_entry only"
  fi
done

# 3. Under wine.
if ! command -v wine >/dev/null 2>&1; then
  echo "wine is not installed: the Windows programs were built but not run"
  exit $status
fi
WINEPREFIX=$(mktemp -d "${TMPDIR:-/tmp}/olc-wine-XXXXXX")
export WINEPREFIX WINEDEBUG=-all
# wine maps Windows names to Unix ones through the locale's charset: in the
# POSIX locale (an empty environment, some CI runners) the smoke tests'
# non-ASCII names (café) cannot be created.  C.UTF-8 is always there on
# Debian.
if [ "$(locale charmap 2>/dev/null)" != UTF-8 ]; then
  export LC_ALL=C.UTF-8
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/olc-winsmoke-XXXXXX")
cleanup() { wineserver -k >/dev/null 2>&1; rm -rf "$WINEPREFIX" "$WORK"; }
trap cleanup EXIT
if ! timeout 120 wine cmd /c exit 0 >"$BUILD/wine-start.log" 2>&1; then
  tail -5 "$BUILD/wine-start.log"
  echo "skipped: wine does not start here"
  [ $status -ne 0 ] && exit $status
  exit 77
fi
# Z: is the prefix's link to /, so Unix paths are reachable.
winpath() { printf 'Z:%s' "$(printf '%s' "$1" | tr / '\\')"; }
mkdir "$WORK/persist" "$WORK/host"
# run NAME all|count ARGS...: the program's lines, or (count) only how many
# checks passed unless one failed.
run() {
  name=$1
  show=$2
  shift 2
  timeout 120 wine "$BUILD/tests/windows/$name.exe" "$@" >"$BUILD/$name.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ] || [ "$show" = all ]; then
    tr -d '\r' <"$BUILD/$name.log"
  else
    echo "$name.exe: $(grep -c '^ok' "$BUILD/$name.log") checks passed"
  fi
  if [ $rc -ne 0 ]; then
    echo "FAIL: $name.exe exited $rc under wine"
    status=1
  elif ! tr -d '\r' <"$BUILD/$name.log" | grep -q '^PASS: 0 failure(s)$'; then
    # A crash under wine's debugger can end with status 0: only the
    # program's own last line says it ran to the end.
    echo "FAIL: $name.exe did not finish (no 'PASS: 0 failure(s)'; log $BUILD/$name.log)"
    status=1
  fi
}
run win_platform_smoke count
run win_persist_smoke count "$(winpath "$WORK/persist")"
# cpu_gemm's folder with '/' separators: the loader makes every path
# absolute with '\' (its report says so).
run win_host_smoke all "$(winpath "$WORK/host")" "$(winpath "$BUILD/tests/plugins")" \
  "Z:$BUILD/plugins"
t2=$(date +%s)
times >"$BUILD/times.txt"
c2=$(cpu)
echo "under wine ($(wine --version 2>/dev/null)): $((t2 - t1)) s, CPU $((c2 - c1)) s;" \
  "in all $((t2 - t0)) s, CPU $c2 s, load $(load)"
exit $status
