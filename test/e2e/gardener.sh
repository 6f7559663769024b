#!/usr/bin/env bash
# npm run test:gardener: every public case through the real gardener-apiserver, with our webhook
# and without it; writes the parity record and docs/gardener-parity.md; exits non-zero when a case's
# outcome (or rule IDs) differs from its expectation. Its last line is
#   gardener: N passed, M failed
# Cases: ../shared/cases/public-cases.json when it exists (the shared file), else the copy in
# test/fixtures/; GARDENER_CASES=<file> picks another.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cases="${GARDENER_CASES:-}"
if [[ -z "$cases" ]]; then
  cases="$root/test/fixtures/public-cases.json"
  [[ -f "$root/../shared/cases/public-cases.json" ]] && cases="$root/../shared/cases/public-cases.json"
fi
bash "$root/test/e2e/replay.sh" "$cases" --both \
  --record "$root/test/fixtures/gardener-replay.json" --parity "$root/docs/gardener-parity.md"
code=$?
if [[ $code -gt 1 ]]; then echo "gardener: 0 passed, setup failed (exit $code)"; fi
exit $code
