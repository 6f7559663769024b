// PAST-EXPIRATION: see POLICY.md.
import type { Rule } from '../rule.js';

// Placeholder until the rule is implemented.
export const pastExpiration: Rule = {
  id: 'PAST-EXPIRATION',
  appliesTo: () => false,
  check: () => [],
};
