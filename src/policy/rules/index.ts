// The rule list: every validating rule, declared once (its ID, kinds, operations, summary, whether
// it needs the cluster state, and its check). evaluate() runs them in this order, the rule IDs'
// type derives from it, and `npm run generate` writes the copies the config schema, the chart, the
// README and docs/configuration.md keep (docs/development.md, "Adding a rule").
//
// Conventions every rule follows:
// - A rule is pure: it reads the RuleContext and returns field violations (../field.ts); it never
//   throws on valid input, never reads the clock (ctx.now) and does no I/O (ctx.state is in memory).
// - For a NamespacedCloudProfile, K8S-VERSIONS, LATEST-NO-EXPIRY, SUPPORTED-PER-MINOR and
//   MACHINE-IMAGES also judge the merged profile (ctx.merged) with field paths under
//   `status.cloudProfileSpec.`, as Gardener validates the simulated status.
import { MUTATING_RULES } from '../mutating-rules.js';
import type { MutatingRuleId } from '../mutating-rules.js';
import { bastionImage } from './bastion-image.js';
import { classification } from './classification.js';
import { forecast } from './forecast.js';
import { inUse } from './in-use.js';
import { kubernetesVersions } from './k8s-versions.js';
import { latestNoExpiry } from './latest-no-expiry.js';
import { lifecycleOrder } from './lifecycle-order.js';
import { machineImages } from './machine-images.js';
import { ncpOverrides } from './ncp-overrides.js';
import { pastExpiration } from './past-expiration.js';
import { shootNoDowngrade } from './shoot-no-downgrade.js';
import { shootNoMinorSkip } from './shoot-no-minor-skip.js';
import { shootVersionAvailable } from './shoot-version-available.js';
import { supportedPerMinor } from './supported-per-minor.js';

export const RULES = [
  kubernetesVersions,
  machineImages,
  classification,
  lifecycleOrder,
  latestNoExpiry,
  supportedPerMinor,
  pastExpiration,
  inUse,
  ncpOverrides,
  shootVersionAvailable,
  shootNoDowngrade,
  shootNoMinorSkip,
  bastionImage,
  forecast,
] as const;

/** Every rule ID of docs/rules.md: the label in messages, metrics, config and tests. */
export type RuleId = (typeof RULES)[number]['id'] | MutatingRuleId;

export const RULE_IDS: readonly RuleId[] = [...RULES.map((r) => r.id), ...MUTATING_RULES.map((r) => r.id)];
