// SHOOT-NO-MINOR-SKIP: see POLICY.md.
import type { Rule } from '../rule.js';

// Placeholder until the rule is implemented.
export const shootNoMinorSkip: Rule = {
  id: 'SHOOT-NO-MINOR-SKIP',
  appliesTo: () => false,
  check: () => [],
};
