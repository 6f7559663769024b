#!/usr/bin/env bash
# The tap suite, RUNS times in a row, while LOAD busy loops keep the machine's cores loaded (a shared
# CI runner's neighbours): a flaky test fails one of the runs. Prints each run's counts and time,
# the load average while it ran, and exits 1 if any run failed. Run after `npm run build`.
#   bash bench/suite-under-load.sh [RUNS=10] [LOAD=2]
set -uo pipefail
runs=${1:-10}
load=${2:-2}
cd "$(dirname "$0")/.."
out=$(mktemp -d)
pids=()
for _ in $(seq "$load"); do node -e 'for (;;);' & pids+=($!); done
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$out"' EXIT
failed=0
for i in $(seq "$runs"); do
  start=$(date +%s)
  npx tap -R tap > "$out/run-$i.tap" 2>&1
  code=$?
  counts=$(grep -E '^# \{ total' "$out/run-$i.tap" | tail -1)
  printf 'run %2d: exit %d, %3d s, load %s, %s\n' "$i" "$code" "$(( $(date +%s) - start ))" "$(cut -d' ' -f1 /proc/loadavg)" "${counts:-no summary}"
  if [ "$code" -ne 0 ]; then
    failed=1
    grep -E '^(not ok|    not ok)' "$out/run-$i.tap" | head -20
  fi
done
exit "$failed"
