// LIFECYCLE-ORDER: see POLICY.md.
import type { Rule } from '../rule.js';

// Placeholder until the rule is implemented.
export const lifecycleOrder: Rule = {
  id: 'LIFECYCLE-ORDER',
  appliesTo: () => false,
  check: () => [],
};
