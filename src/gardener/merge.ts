// The merged profile of a NamespacedCloudProfile: the parent's spec with the NCP's overrides.
// As Gardener's MergeCloudProfiles (docs/rules.md NCP-OVERRIDES): for a parent version only
// `expirationDate` is taken (set or unset); NCP-only Kubernetes versions are ignored; NCP-only
// images and image versions are appended; a non-empty NCP `updateStrategy` overrides the parent
// image's; machine types are merged by name. An image version of the NCP's own is kept as
// Gardener stores it: nothing defaults its `cri` (CloudProfile defaulting never runs on it), so one
// without is written `cri: []`, which Gardener's maintenance filters out for every pool.
import type {
  CloudProfileSpec,
  ExpirableVersion,
  MachineImage,
  MachineImageVersion,
  MachineType,
  NamespacedCloudProfileSpec,
  NamespacedMachineImage,
} from '../api/types.js';

/** A parent entry as an override leaves it: the override's expirationDate (set or unset), nothing else. */
export function withExpiration<T extends ExpirableVersion>(parent: T, override: ExpirableVersion): T {
  const merged = { ...parent };
  if (override.expirationDate === undefined) delete merged.expirationDate;
  else merged.expirationDate = override.expirationDate;
  return merged;
}

function mergeVersions<T extends ExpirableVersion>(
  parent: readonly T[],
  overrides: readonly T[],
  appendNew: boolean,
): T[] {
  const byVersion = new Map(overrides.map((o) => [o.version, o]));
  const merged = parent.map((p) => {
    const o = byVersion.get(p.version);
    return o ? withExpiration(p, o) : p;
  });
  if (appendNew) {
    const inParent = new Set(parent.map((p) => p.version));
    for (const o of overrides) if (!inParent.has(o.version)) merged.push(o);
  }
  return merged;
}

/** A NamespacedCloudProfile's own image versions as the merged profile holds them: no CRI unless they name one. */
function undefaulted(versions: readonly MachineImageVersion[]): MachineImageVersion[] {
  return versions.map((v) => (v.cri === undefined ? { ...v, cri: [] } : v));
}

function mergeImages(parent: readonly MachineImage[], overrides: readonly NamespacedMachineImage[]): MachineImage[] {
  const byName = new Map(overrides.map((o) => [o.name, o]));
  const merged = parent.map((p): MachineImage => {
    const o = byName.get(p.name);
    if (!o) return p;
    return {
      ...p,
      ...(o.updateStrategy ? { updateStrategy: o.updateStrategy } : {}),
      versions: mergeVersions<MachineImageVersion>(p.versions, undefaulted(o.versions ?? []), true),
    };
  });
  const inParent = new Set(parent.map((p) => p.name));
  // An image of the NCP's own without versions is MACHINE-IMAGES' to report; merged, it has none.
  for (const o of overrides) if (!inParent.has(o.name)) merged.push({ ...o, versions: undefaulted(o.versions ?? []) });
  return merged;
}

export function mergeNamespacedProfile(parent: CloudProfileSpec, ncp: NamespacedCloudProfileSpec): CloudProfileSpec {
  return {
    ...parent,
    kubernetes: {
      ...parent.kubernetes,
      versions: mergeVersions(parent.kubernetes.versions, ncp.kubernetes?.versions ?? [], false),
    },
    machineImages: mergeImages(parent.machineImages, ncp.machineImages ?? []),
    ...(ncp.machineTypes
      ? { machineTypes: mergeByName(parent.machineTypes ?? [], ncp.machineTypes as MachineType[]) }
      : {}),
  };
}

function mergeByName<T extends { name: string }>(parent: readonly T[], overrides: readonly T[]): T[] {
  const byName = new Map(overrides.map((o) => [o.name, o]));
  const inParent = new Set(parent.map((p) => p.name));
  return [...parent.map((p) => byName.get(p.name) ?? p), ...overrides.filter((o) => !inParent.has(o.name))];
}
