// CLASSIFICATION: see POLICY.md.
import type { Rule } from '../rule.js';

// Placeholder until the rule is implemented.
export const classification: Rule = {
  id: 'CLASSIFICATION',
  appliesTo: () => false,
  check: () => [],
};
