// NCP-OVERRIDES: see POLICY.md.
import type { Rule } from '../rule.js';

// Placeholder until the rule is implemented.
export const ncpOverrides: Rule = {
  id: 'NCP-OVERRIDES',
  appliesTo: () => false,
  check: () => [],
};
