// MACHINE-IMAGES: see POLICY.md.
import type { Rule } from '../rule.js';

// Placeholder until the rule is implemented.
export const machineImages: Rule = {
  id: 'MACHINE-IMAGES',
  appliesTo: () => false,
  check: () => [],
};
