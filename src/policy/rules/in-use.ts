// IN-USE: see POLICY.md.
import type { Rule } from '../rule.js';

// Placeholder until the rule is implemented.
export const inUse: Rule = {
  id: 'IN-USE',
  appliesTo: () => false,
  check: () => [],
};
