// Warnings on Shoot admission: deprecated, expiring soon, expired (forced update ahead).
import type { RuleContext } from '../rule.js';

// Placeholder until implemented.
export function shootWarnings(_ctx: RuleContext): string[] {
  return [];
}
