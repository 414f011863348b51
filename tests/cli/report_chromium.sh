#!/bin/sh
# tests/cli/report_chromium.sh OLC MOCK_PLUGIN_DIR PNG_CHECK - renders an
# olc calibrate --report in headless Chromium (Debian's chromium package):
# the page must log nothing to the console (no error, no refused load: the
# report carries a Content-Security-Policy that allows no script and no
# fetch), its DOM must hold the plot (circles) and no script, and the
# screenshot must not be blank (png_check.py).  Exits 77 (skipped) without
# chromium or python3.  One calibration and one Chromium run (about 10 s
# on 2 busy cores).
set -eu
olc=$1
plugins=$2
png_check=$3

command -v chromium >/dev/null 2>&1 || { echo "skipped: no chromium"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/olc_report_chromium.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM

cat >"$dir/olc.ini" <<INI
[host]
plugin_dirs = $plugins
threads = 2
[store]
path = store.txt
[calibration]
min_seconds = 0.01
[plugin.mock_det]
candidates = 300,130,100,110,120,600
[workload.mm]
backend = mock_det
operator = MatMul
m = 8
n = 4
k = 2
[workload.conv]
backend = mock_det
operator = Conv
c = 3
INI

HOME=$dir XDG_CACHE_HOME=$dir/cache "$olc" calibrate --config "$dir/olc.ini" \
  --report "$dir/report.html" >"$dir/out.txt"

# A profile of its own: nothing of the user's Chromium is read or written.
chrome() {
  HOME=$dir chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --no-first-run --user-data-dir="$dir/profile" --enable-logging=stderr --v=0 \
    --window-size=1000,1600 "$@"
}

# One run: the screenshot, the DOM on stdout, the console on stderr.
chrome --screenshot="$dir/shot.png" --dump-dom "file://$dir/report.html" \
  >"$dir/dom.html" 2>"$dir/chromium.log" ||
  { cat "$dir/chromium.log"; echo "FAIL: chromium failed"; exit 1; }

fail=0
# Console messages, uncaught exceptions and loads the policy refused.
if grep -E 'CONSOLE|Uncaught|Refused to' "$dir/chromium.log"; then
  echo "FAIL: the page logged to the console"
  fail=1
fi
[ -s "$dir/shot.png" ] || { echo "FAIL: no screenshot"; exit 1; }
circles=$(grep -o '<circle' "$dir/dom.html" | wc -l)
sections=$(grep -o '<section class="workload"' "$dir/dom.html" | wc -l)
echo "dom: $sections workload sections, $circles circles"
[ "$circles" -ge 10 ] || { echo "FAIL: the plot has no runs"; fail=1; }
[ "$sections" -eq 2 ] || { echo "FAIL: expected 2 workload sections"; fail=1; }
if grep -q '<script' "$dir/dom.html"; then
  echo "FAIL: a script in the DOM"
  fail=1
fi
python3 "$png_check" "$dir/shot.png" || { echo "FAIL: the screenshot looks blank"; fail=1; }
[ -n "${OLC_REPORT_KEEP:-}" ] && cp "$dir/shot.png" "$dir/report.html" "$OLC_REPORT_KEEP/"
exit $fail
