// K8S-VERSIONS: see POLICY.md.
import type { Rule } from '../rule.js';

// Placeholder until the rule is implemented.
export const kubernetesVersions: Rule = {
  id: 'K8S-VERSIONS',
  appliesTo: () => false,
  check: () => [],
};
