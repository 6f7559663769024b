// DEFAULT-GARDENER: what gardener-apiserver defaults on a v1beta1 CloudProfile, so that validation
// judges the object Gardener will store. NamespacedCloudProfiles get none of these.
import type { CloudProfile, MachineImage, MachineImageVersion } from '../../api/types.js';

// With spec.machineCapabilities the architectures come from the capabilities, not from a default.
const defaultsArchitectures = (profile: CloudProfile) => (profile.spec.machineCapabilities?.length ?? 0) === 0;
const lacksStrategy = (image: MachineImage) => image.updateStrategy === undefined;
const lacksCri = (v: MachineImageVersion) => (v.cri?.length ?? 0) === 0;
const lacksArchitectures = (v: MachineImageVersion) => (v.architectures?.length ?? 0) === 0;

/** Whether applyGardenerDefaults would set anything: lets the mutating path skip copying the object. */
export function lacksGardenerDefaults(profile: CloudProfile): boolean {
  const arch = defaultsArchitectures(profile);
  return profile.spec.machineImages.some(
    (i) => lacksStrategy(i) || i.versions.some((v) => lacksCri(v) || (arch && lacksArchitectures(v))),
  );
}

/** Fills in Gardener's defaults in place; returns the field paths it set. */
export function applyGardenerDefaults(profile: CloudProfile): string[] {
  const set: string[] = [];
  const defaultArchitectures = defaultsArchitectures(profile);
  profile.spec.machineImages.forEach((image, j) => {
    const path = `spec.machineImages[${j}]`;
    if (lacksStrategy(image)) {
      image.updateStrategy = 'major';
      set.push(`${path}.updateStrategy`);
    }
    image.versions.forEach((v, k) => {
      if (lacksCri(v)) {
        v.cri = [{ name: 'containerd' }];
        set.push(`${path}.versions[${k}].cri`);
      }
      if (defaultArchitectures && lacksArchitectures(v)) {
        v.architectures = ['amd64'];
        set.push(`${path}.versions[${k}].architectures`);
      }
    });
  });
  return set;
}
