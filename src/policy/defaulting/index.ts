// The mutating path, run before validation exactly as kube-apiserver runs mutating webhooks
// before validating ones: DEFAULT-GARDENER, then DEFAULT-LIFECYCLE. Only CloudProfiles are
// mutated (Gardener defaults nothing on NamespacedCloudProfiles, and an NCP override may carry
// nothing but an expirationDate).
import type { Config } from '../../config.js';
import { ruleEnabled } from '../../config.js';
import type { PolicyRequest } from '../rule.js';
import type { PolicedObject } from '../types.js';
import { applyGardenerDefaults } from './gardener.js';
import { applyLifecycleDefaults } from './lifecycle.js';

export interface MutationResult {
  object: PolicedObject;
  mutated: boolean;
  warnings: string[];
}

export function applyMutatingPath(request: PolicyRequest, now: number, config: Config): MutationResult | undefined {
  const original = request.object;
  if (!original || request.operation === 'DELETE' || original.kind !== 'CloudProfile') return undefined;
  const gardener = config.defaulting.gardenerDefaults && ruleEnabled(config, 'DEFAULT-GARDENER');
  const lifecycle = config.defaulting.lifecycle.enabled && ruleEnabled(config, 'DEFAULT-LIFECYCLE');
  if (!gardener && !lifecycle) return undefined;

  const profile = structuredClone(original);
  const warnings: string[] = [];
  let mutated = false;
  if (gardener) mutated = applyGardenerDefaults(profile).length > 0 || mutated;
  if (lifecycle) {
    const old = request.oldObject?.kind === 'CloudProfile' ? request.oldObject : undefined;
    const said = applyLifecycleDefaults({
      profile,
      ...(old ? { oldProfile: old } : {}),
      now,
      config,
      lifecycleGate: config.featureGates.VersionClassificationLifecycle,
    });
    warnings.push(...said);
  }
  mutated = mutated || JSON.stringify(profile) !== JSON.stringify(original);
  return { object: mutated ? profile : original, mutated, warnings };
}
