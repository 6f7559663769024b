#!/usr/bin/env bash
# npm run test:gardener: every public case through the real gardener-apiserver, with our webhook
# and without it; writes the parity record and docs/gardener-parity.md; exits non-zero when a case's
# outcome (or rule IDs) differs from its expectation. Before that, the replay's own test
# (test/e2e/replay/shapes.e2e.ts: case files of every shape). Its last line is
#   gardener: N passed, M failed
# where a failed replay test counts as one more failure.
# Cases: ../shared/cases/public-cases.json when it exists (the shared file), else the copy in
# test/fixtures/; GARDENER_CASES=<file> picks another.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cases="${GARDENER_CASES:-}"
if [[ -z "$cases" ]]; then
  cases="$root/test/fixtures/public-cases.json"
  [[ -f "$root/../shared/cases/public-cases.json" ]] && cases="$root/../shared/cases/public-cases.json"
fi
# Built once for both (cached; build output goes to stderr).
E2E_BIN="${E2E_BIN:-$("$root/test/e2e/build-binaries.sh")}" || exit 2
E2E_GARDENER="${E2E_GARDENER:-$("$root/test/e2e/build-gardener.sh")}" || exit 2
export E2E_BIN E2E_GARDENER
(cd "$root" && npm run --silent build >&2) || exit 2

shapes=0
(cd "$root" && E2E_SKIP_BUILD=1 node scripts/tap-recap.mjs --disable-coverage --jobs=1 test/e2e/replay/shapes.e2e.ts) ||
  shapes=1

log=$(mktemp)
trap 'rm -f "$log"' EXIT
E2E_SKIP_BUILD=1 bash "$root/test/e2e/replay.sh" "$cases" --both \
  --record "$root/test/fixtures/gardener-replay.json" --parity "$root/docs/gardener-parity.md" | tee "$log"
code=${PIPESTATUS[0]}
if [[ $code -gt 1 ]]; then
  echo "gardener: 0 passed, setup failed (exit $code)"
elif [[ $shapes -ne 0 ]]; then
  read -r passed failed < <(sed -nE 's/^gardener: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$log" | tail -n 1)
  echo "gardener: ${passed:-0} passed, $((${failed:-0} + 1)) failed"
  code=1
fi
exit $code
