// DEFAULT-GARDENER: what gardener-apiserver defaults on a v1beta1 CloudProfile, so that validation
// judges the object Gardener will store. NamespacedCloudProfiles get none of these.
import type { CloudProfile } from '../types.js';

/** Fills in Gardener's defaults in place; returns the field paths it set. */
export function applyGardenerDefaults(profile: CloudProfile): string[] {
  const set: string[] = [];
  // With spec.machineCapabilities the architectures come from the capabilities, not from a default.
  const defaultArchitectures = (profile.spec.machineCapabilities?.length ?? 0) === 0;
  profile.spec.machineImages.forEach((image, j) => {
    const path = `spec.machineImages[${j}]`;
    if (image.updateStrategy === undefined) {
      image.updateStrategy = 'major';
      set.push(`${path}.updateStrategy`);
    }
    image.versions.forEach((v, k) => {
      if ((v.cri?.length ?? 0) === 0) {
        v.cri = [{ name: 'containerd' }];
        set.push(`${path}.versions[${k}].cri`);
      }
      if (defaultArchitectures && (v.architectures?.length ?? 0) === 0) {
        v.architectures = ['amd64'];
        set.push(`${path}.versions[${k}].architectures`);
      }
    });
  });
  return set;
}
