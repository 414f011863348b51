#!/bin/sh
# mingw_cross.sh SRC BUILD - cross-compiles the store (util, record, format, persist,
# store; OLC_STORE_ONLY) for Windows with Debian's mingw-w64, then builds
# win_persist_smoke.exe from the persist layer with hooks and runs it under
# wine when wine is installed.
# Exit: 0 pass, 1 failure, 77 skipped (no cross compiler; wine present but
# unable to start).
set -u
SRC=$1
BUILD=$2
CC=x86_64-w64-mingw32-gcc
if ! command -v $CC >/dev/null 2>&1; then
  echo "skipped: $CC is not installed (apt-get install gcc-mingw-w64-x86-64)"
  exit 77
fi
mkdir -p "$BUILD"

# 1. The persist and util modules, with hooks, and the smoke program.
if ! cmake -S "$SRC" -B "$BUILD" -DCMAKE_TOOLCHAIN_FILE="$SRC/cmake/toolchain-mingw64.cmake" \
    -DOLC_STORE_ONLY=ON -DOLC_WERROR=ON -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Debug \
    >"$BUILD/configure.log" 2>&1; then
  cat "$BUILD/configure.log"
  echo "FAIL: cross configure"
  exit 1
fi
if ! cmake --build "$BUILD" -j2 --target olc_mod_util_th olc_mod_persist_th >"$BUILD/persist.log" 2>&1; then
  cat "$BUILD/persist.log"
  echo "FAIL: cross build of util+persist"
  exit 1
fi
OBJS=$(find "$BUILD/host/CMakeFiles/olc_mod_util_th.dir" "$BUILD/host/CMakeFiles/olc_mod_persist_th.dir" -name '*.obj')
if ! $CC -std=c11 -Wall -Wextra -Werror -DOLC_TEST_HOOKS -DOLC_STATIC -DOLC_BUILDING \
    -I"$SRC/host/include" -I"$SRC/host/src" -I"$SRC/plugin-api/include" \
    -o "$BUILD/win_persist_smoke.exe" "$SRC/tests/integration/win_persist_smoke.c" $OBJS -static; then
  echo "FAIL: cross build of win_persist_smoke.exe"
  exit 1
fi
echo "cross build of util+persist and win_persist_smoke.exe: ok"

# 2. Everything OLC_STORE_ONLY builds (util, record, format, persist, store; shared
# and static libraries).
status=0
if cmake --build "$BUILD" -j2 >"$BUILD/all.log" 2>&1; then
  echo "cross build of the store (OLC_STORE_ONLY): ok"
else
  grep -E "error|Error" "$BUILD/all.log" | head -40
  echo "FAIL: cross build of the store (OLC_STORE_ONLY); log: $BUILD/all.log"
  status=1
fi

# 3. Run the smoke program under wine.
if ! command -v wine >/dev/null 2>&1; then
  echo "wine is not installed: the Windows program was built but not run"
  exit $status
fi
WINEPREFIX=$(mktemp -d "${TMPDIR:-/tmp}/olc-wine-XXXXXX")
export WINEPREFIX WINEDEBUG=-all
WORK=$(mktemp -d "${TMPDIR:-/tmp}/olc-winsmoke-XXXXXX")
cleanup() { wineserver -k >/dev/null 2>&1; rm -rf "$WINEPREFIX" "$WORK"; }
trap cleanup EXIT
if ! timeout 120 wine cmd /c exit 0 >"$BUILD/wine-start.log" 2>&1; then
  cat "$BUILD/wine-start.log" | tail -5
  echo "skipped: wine does not start here"
  [ $status -ne 0 ] && exit $status
  exit 77
fi
# Z: is the prefix's link to /, so the Unix work dir is reachable.
WINWORK="Z:$(echo "$WORK" | tr / '\\')"
timeout 120 wine "$BUILD/win_persist_smoke.exe" "$WINWORK" >"$BUILD/smoke.log" 2>&1
rc=$?
tr -d '\r' <"$BUILD/smoke.log"
if [ $rc -ne 0 ]; then
  echo "FAIL: win_persist_smoke.exe exited $rc under wine"
  exit 1
fi
exit $status
