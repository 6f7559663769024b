// Test-only, for the end-to-end suites: a webhook process started with
// `--import <this file>` and E2E_FROZEN_NOW judges at that instant, as the examples of
// docs/rules.md are written for it (their messages name "now"). The real clock cannot be set
// here, so this is the one fake: Date.now, which the server reads as its clock.
const at = Date.parse(process.env.E2E_FROZEN_NOW ?? '');
if (!Number.isFinite(at)) throw new Error(`E2E_FROZEN_NOW is not an RFC 3339 instant: ${process.env.E2E_FROZEN_NOW}`);
Date.now = () => at;
