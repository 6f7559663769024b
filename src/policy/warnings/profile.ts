// Warnings on CloudProfiles and NamespacedCloudProfiles (POLICY.md "Warnings").
import type { RuleContext } from '../rule.js';

// Placeholder until implemented.
export function profileWarnings(_ctx: RuleContext): string[] {
  return [];
}
