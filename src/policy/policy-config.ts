// What the policy reads of the config file: the port is the policy's, config.ts fills it.
import type { ReviewSettings } from './rule.js';
import type { RuleId } from './rules/index.js';

export interface LifecycleDefaultingConfig {
  enabled: boolean;
  maintainedMinors: number;
  expirationMaintained: string;
  expirationUnmaintained: string;
  machineImageExpiration: string;
  /** Also default versions the stored object already had without a classification (off: only new versions). */
  adoptExisting: boolean;
  /** The least time an adopted version that Shoots run stays usable, as a Go duration. */
  adoptionNotice: string;
}

export interface PolicyConfig extends ReviewSettings {
  rules: Record<RuleId, { enabled: boolean }>;
  defaulting: { gardenerDefaults: boolean; lifecycle: LifecycleDefaultingConfig };
}

export function ruleEnabled(config: PolicyConfig, id: RuleId): boolean {
  return config.rules[id].enabled;
}
