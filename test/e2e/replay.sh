#!/usr/bin/env bash
# npm run replay -- <cases.json> [--without-webhook] [--output json] …: builds what the replay needs
# (the control-plane binaries and gardener-envtest, both cached; the webhook's dist/), then runs it.
# Any process the replay started and that outlives it (killed, interrupted) is killed here.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
replay=(node --import tsx "$root/test/e2e/replay/main.ts")
for a in "$@"; do
  [[ "$a" == -h || "$a" == --help ]] && exec "${replay[@]}" --help
  [[ "$a" == --from-record ]] && exec "${replay[@]}" "$@"  # starts nothing
done
# Build output goes to stderr: stdout is the replay's (one JSON object with --output json).
E2E_BIN="${E2E_BIN:-$("$root/test/e2e/build-binaries.sh")}"
E2E_GARDENER="${E2E_GARDENER:-$("$root/test/e2e/build-gardener.sh")}"
export E2E_BIN E2E_GARDENER
if [[ "${E2E_SKIP_BUILD:-}" != 1 || ! -f "$root/dist/cli/main.js" ]]; then (cd "$root" && npm run --silent build >&2); fi
# shellcheck source=lib/pids.sh
source "$root/test/e2e/lib/pids.sh" replay
trap 'exit 130' INT TERM
"${replay[@]}" "$@"
