#!/usr/bin/env bash
# npm run test:e2e: the end-to-end suites against the real control plane. Builds the binaries
# once (test/e2e/build-binaries.sh, cached), builds the webhook, runs the suites with tap, and
# leaves no process behind: whatever pid a suite wrote in E2E_PID_DIR and that still runs when tap
# is done (killed, interrupted, crashed) is killed here.
#   npm run test:e2e                          # every suite
#   npm run test:e2e -- --grep "dry run"      # one scenario (tap's --grep, on the top-level tests)
#   E2E_KEEP=1 npm run test:e2e               # keep the temporary folders (logs, audit log)
set -euo pipefail
cd "$(dirname "$0")/../.."
E2E_BIN="${E2E_BIN:-$(test/e2e/build-binaries.sh)}"
export E2E_BIN
E2E_PID_DIR="$(mktemp -d)"
export E2E_PID_DIR
cleanup() {
  local pid
  for f in "$E2E_PID_DIR"/*; do
    [[ -e "$f" ]] || continue
    pid=$(basename "$f")
    if kill -0 "$pid" 2>/dev/null; then
      echo "test:e2e: killing leftover $(cat "$f") (pid $pid)" >&2
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$E2E_PID_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[[ -f dist/cli/main.js && "${E2E_SKIP_BUILD:-}" == 1 ]] || npm run --silent build
suites=()
for a in "$@"; do [[ "$a" == *.e2e.ts ]] && suites+=("$a"); done
(( ${#suites[@]} )) || suites=(test/e2e/*.e2e.ts)
args=()
for a in "$@"; do [[ "$a" == *.e2e.ts ]] || args+=("$a"); done
npx tap --disable-coverage --jobs=1 --timeout=1200 "${args[@]}" "${suites[@]}"
