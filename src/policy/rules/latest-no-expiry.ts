// LATEST-NO-EXPIRY: see POLICY.md.
import type { Rule } from '../rule.js';

// Placeholder until the rule is implemented.
export const latestNoExpiry: Rule = {
  id: 'LATEST-NO-EXPIRY',
  appliesTo: () => false,
  check: () => [],
};
