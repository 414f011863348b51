#!/bin/sh
# check_symbols.sh NM PLUGIN - the plugin imports no file-system function
# and exports exactly one function, olc_plugin_entry.
nm=$1
plugin=$2
[ -x "$nm" ] || command -v "$nm" >/dev/null 2>&1 || { echo "no nm: skipped"; exit 77; }
[ -f "$plugin" ] || { echo "missing $plugin"; exit 1; }
fs='open|open64|openat|openat64|fopen|fopen64|freopen|creat|creat64|unlink|unlinkat|rename|renameat|renameat2|mkdir|mkdirat|rmdir|opendir|fdopendir|readdir|readdir64|stat|stat64|lstat|fstatat|__xstat|__lxstat|statx|truncate|ftruncate|fsync|fdatasync|flock|link|symlink|chmod|fchmod|remove|tmpfile|mkstemp|mkostemp|access|faccessat|realpath|dlopen'
undef=$("$nm" -D --undefined-only "$plugin" | awk '{print $NF}' | sed 's/@.*//')
[ -n "$undef" ] || { echo "nm listed no imports: cannot check"; exit 1; }
bad=$(printf '%s\n' "$undef" | grep -E -x "($fs)" || true)
if [ -n "$bad" ]; then
  echo "file-system imports in $plugin:"
  echo "$bad"
  exit 1
fi
funcs=$("$nm" -D --defined-only "$plugin" | awk '$2 == "T" || $2 == "W" || $2 == "i" {print $3}' | sed 's/@.*//')
if [ "$funcs" != "olc_plugin_entry" ]; then
  echo "exported functions are not exactly olc_plugin_entry:"
  echo "$funcs"
  exit 1
fi
echo "ok: $(printf '%s\n' "$undef" | wc -l) imports, none file-system; exports olc_plugin_entry"
