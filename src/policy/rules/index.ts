// The rule registry: evaluate() runs every enabled rule that applies and collects all violations.
//
// Conventions every rule follows:
// - A rule is pure: it reads the RuleContext and returns Violations; it never throws on valid
//   input and never reads the clock (ctx.now) or does I/O (ctx.state is in memory).
// - For a NamespacedCloudProfile, K8S-VERSIONS, LATEST-NO-EXPIRY, SUPPORTED-PER-MINOR and
//   MACHINE-IMAGES also judge the merged profile (ctx.merged) with field paths under
//   `status.cloudProfileSpec.`, as Gardener validates the simulated status.
// - Field paths look like `spec.kubernetes.versions[3].lifecycle[1].classification`.
import type { Rule } from '../rule.js';
import { kubernetesVersions } from './k8s-versions.js';
import { machineImages } from './machine-images.js';
import { classification } from './classification.js';
import { lifecycleOrder } from './lifecycle-order.js';
import { latestNoExpiry } from './latest-no-expiry.js';
import { supportedPerMinor } from './supported-per-minor.js';
import { pastExpiration } from './past-expiration.js';
import { inUse } from './in-use.js';
import { ncpOverrides } from './ncp-overrides.js';
import { shootVersionAvailable } from './shoot-version-available.js';
import { shootNoDowngrade } from './shoot-no-downgrade.js';
import { shootNoMinorSkip } from './shoot-no-minor-skip.js';
import { bastionImage } from './bastion-image.js';

export const RULES: readonly Rule[] = [
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
];
