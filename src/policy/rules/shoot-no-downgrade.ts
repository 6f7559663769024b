// SHOOT-NO-DOWNGRADE: see POLICY.md.
import type { Rule } from '../rule.js';

// Placeholder until the rule is implemented.
export const shootNoDowngrade: Rule = {
  id: 'SHOOT-NO-DOWNGRADE',
  appliesTo: () => false,
  check: () => [],
};
