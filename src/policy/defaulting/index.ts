// The mutating path, run before validation exactly as kube-apiserver runs mutating webhooks
// before validating ones: DEFAULT-GARDENER, then DEFAULT-LIFECYCLE. Only CloudProfiles are
// mutated (Gardener defaults nothing on NamespacedCloudProfiles, and an NCP override may carry
// nothing but an expirationDate).
import type { ClusterState } from '../../api/cluster-state.js';
import type { PolicyConfig } from '../policy-config.js';
import { ruleEnabled } from '../policy-config.js';
import type { PolicyRequest } from '../rule.js';
import type { PolicedObject } from '../../api/types.js';
import type { Warning } from '../warning.js';
import { applyGardenerDefaults, lacksGardenerDefaults } from './gardener.js';
import { applyLifecycleDefaults, lifecycleDefaultingHasWork } from './lifecycle.js';
import type { JsonPatchOperation } from './patch.js';
import { copyDefaultable, defaultingPatch } from './patch.js';

export type { JsonPatchOperation } from './patch.js';

export interface MutationResult {
  object: PolicedObject;
  mutated: boolean;
  /** The RFC 6902 operations that turn the request's object into `object`; empty when not mutated. */
  patch: JsonPatchOperation[];
  warnings: Warning[];
}

export interface MutationOptions {
  /** Epoch ms. */
  now: number;
  config: PolicyConfig;
  /** Which versions Shoots run: lifecycle adoption keeps a notice before expiring those. */
  state: ClusterState;
}

export function applyMutatingPath(request: PolicyRequest, opts: MutationOptions): MutationResult | undefined {
  const { now, config } = opts;
  const original = request.object;
  if (!original || request.operation === 'DELETE' || original.kind !== 'CloudProfile') return undefined;
  const old = request.oldObject?.kind === 'CloudProfile' ? request.oldObject : undefined;
  const settings = config.defaulting.lifecycle;
  const gardener =
    config.defaulting.gardenerDefaults && ruleEnabled(config, 'DEFAULT-GARDENER') && lacksGardenerDefaults(original);
  const lifecycle =
    settings.enabled &&
    ruleEnabled(config, 'DEFAULT-LIFECYCLE') &&
    lifecycleDefaultingHasWork(original, old, settings.adoptExisting);
  if (!gardener && !lifecycle) return undefined;

  const profile = copyDefaultable(original);
  const warnings: Warning[] = [];
  if (gardener) applyGardenerDefaults(profile);
  if (lifecycle) {
    const defaulted = applyLifecycleDefaults({
      profile,
      ...(old ? { oldProfile: old } : {}),
      now,
      config,
      lifecycleGate: config.featureGates.VersionClassificationLifecycle,
      state: opts.state,
    });
    for (const w of defaulted) warnings.push(w);
  }
  const patch = defaultingPatch(original, profile);
  const mutated = patch.length > 0;
  return { object: mutated ? profile : original, mutated, patch, warnings };
}
