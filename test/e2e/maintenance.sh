#!/usr/bin/env bash
# npm run test:maintenance: the forecast against Gardener's own maintenance controller, on every
# scenario of test/fixtures/maintenance/. Builds gardener-maintenance once (cached, see
# test/e2e/build-maintenance.sh), then compares (test/e2e/forecast-diff/main.ts). Its last line is
#   maintenance: N passed, M failed
#   npm run test:maintenance -- [--json FILE] [SCENARIO…]
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
E2E_MAINTENANCE="${E2E_MAINTENANCE:-$("$root/test/e2e/build-maintenance.sh")}" || {
  echo "maintenance: 0 passed, setup failed (building gardener-maintenance)"
  exit 2
}
export E2E_MAINTENANCE
node --import tsx "$root/test/e2e/forecast-diff/main.ts" "$@"
