#!/usr/bin/env bash
# scripts/demo.sh - a short tour of the store with the built olc: installs
# two overrides in a throw-away store, looks them up (one selection, one
# explained rejection) and lists the store as JSON.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OLC=${OLC:-$ROOT/build/release/bin/olc}
STORE=${OLC_DEMO_STORE:-$ROOT/build/release/demo/calibration_profiles.txt}
mkdir -p "$(dirname "$STORE")"
rm -f "$STORE"
export OLC_STORE=$STORE

run() {
  printf '\n$ olc %s\n' "$*"
  "$OLC" "$@"
}

key=(--backend example_gpu --operator MatMul --implementation 3)
run override set --level exact "${key[@]}" --model-digest sha256:demo --processor "demo-cpu" \
  --threads 8 --policy "tile=16x16" --measurement median_latency=2.5:us
run override set --level portable "${key[@]}" --structure dtype=float16 \
  --structure shape=m,n,4096 --policy "tile=8x8"
run lookup "${key[@]}" --model-digest sha256:demo --processor "demo-cpu" --threads 8 \
  --structure dtype=float16 --structure shape=m,n,4096
# Another machine: the exact record is rejected with its reason, the
# portable one is selected.
run lookup "${key[@]}" --model-digest sha256:demo --processor "other-cpu" --threads 8 \
  --structure dtype=float16 --structure shape=m,n,4096
run list --json
run check
