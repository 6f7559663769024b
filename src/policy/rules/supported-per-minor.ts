// SUPPORTED-PER-MINOR: see POLICY.md.
import type { Rule } from '../rule.js';

// Placeholder until the rule is implemented.
export const supportedPerMinor: Rule = {
  id: 'SUPPORTED-PER-MINOR',
  appliesTo: () => false,
  check: () => [],
};
