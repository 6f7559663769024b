// DEFAULT-GARDENER: what gardener-apiserver defaults on a v1beta1 CloudProfile, so that validation
// judges the object Gardener will store. NamespacedCloudProfiles get none of these.
import type { CloudProfile } from '../types.js';

/** Fills in Gardener's defaults in place; returns the field paths it set. */
export function applyGardenerDefaults(_profile: CloudProfile): string[] {
  // Placeholder: implemented by the policy-core work (issue 2).
  return [];
}
