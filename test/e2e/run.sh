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
# The OpenReports CRDs that test/e2e/reports.e2e.ts installs, from their Go module (cached).
E2E_REPORT_CRDS="${E2E_REPORT_CRDS:-$(test/e2e/build-report-crds.sh)}"
export E2E_REPORT_CRDS
# shellcheck source=lib/pids.sh
source test/e2e/lib/pids.sh test:e2e
[[ -f dist/cli/main.js && "${E2E_SKIP_BUILD:-}" == 1 ]] || npm run --silent build
suites=()
for a in "$@"; do [[ "$a" == *.e2e.ts ]] && suites+=("$a"); done
(( ${#suites[@]} )) || suites=(test/e2e/*.e2e.ts)
args=()
for a in "$@"; do [[ "$a" == *.e2e.ts ]] || args+=("$a"); done
# tap runs in a process group of its own, so that a signal to this script (Ctrl-C, or a CI
# runner's kill) reaches tap and the suites: each suite kills its children on SIGTERM, and the
# EXIT trap kills whatever is still listed after that.
setsid npx tap --disable-coverage --jobs=1 --timeout=1200 "${args[@]}" "${suites[@]}" &
tap_pid=$!
trap 'kill -TERM -- "-$tap_pid" 2>/dev/null || true' INT TERM
status=0
wait "$tap_pid" || status=$?
# A trapped signal ends the first wait early; wait again for tap's group to finish its shutdown.
while kill -0 "$tap_pid" 2>/dev/null; do wait "$tap_pid" || true; done
exit "$status"
