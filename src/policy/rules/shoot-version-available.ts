// SHOOT-VERSION-AVAILABLE: see POLICY.md.
import type { Rule } from '../rule.js';

// Placeholder until the rule is implemented.
export const shootVersionAvailable: Rule = {
  id: 'SHOOT-VERSION-AVAILABLE',
  appliesTo: () => false,
  check: () => [],
};
