// The places a Shoot names a version, and a profile's versions indexed for looking them up. What
// maintenance does to those versions, and when, is the forecast's engine's alone (forecast/): the
// Shoot warnings, `explain` and the timeline pages all ask it.
import type { CloudProfileSpec, ExpirableVersion, MachineImage, Shoot } from '../api/types.js';

/** One place a Shoot names a version. A pool without its own Kubernetes version is not one. */
export type ShootVersionUse =
  | { kind: 'kubernetes'; version: string; pool?: string }
  | { kind: 'machine-image'; image: string; version: string; pool: string };

export function versionUsesOf(shoot: Shoot): ShootVersionUse[] {
  const uses: ShootVersionUse[] = [{ kind: 'kubernetes', version: shoot.spec.kubernetes.version }];
  for (const w of shoot.spec.provider?.workers ?? []) {
    if (w.kubernetes?.version) uses.push({ kind: 'kubernetes', version: w.kubernetes.version, pool: w.name });
    const img = w.machine?.image;
    if (img?.version) uses.push({ kind: 'machine-image', image: img.name, version: img.version, pool: w.name });
  }
  return uses;
}

/** `control plane`, `worker pool "a"`. */
export function placeOf(use: ShootVersionUse): string {
  return use.pool === undefined ? 'control plane' : `worker pool "${use.pool}"`;
}

/** `kubernetes version "1.30.1"`, `machine image version 'gardenlinux:1592.1.0'`. */
export function describeUse(use: { kind: ShootVersionUse['kind']; version: string; image?: string }): string {
  return use.kind === 'kubernetes'
    ? `kubernetes version "${use.version}"`
    : `machine image version '${use.image}:${use.version}'`;
}

/** A profile's versions by list and version string, built once per review instead of a scan per use. */
export interface ProfileEntries {
  readonly kubernetesVersions: readonly ExpirableVersion[];
  entry(use: Pick<ShootVersionUse, 'kind' | 'version'> & { image?: string }): ExpirableVersion | undefined;
  image(name: string): MachineImage | undefined;
}

export function profileEntries(profile: CloudProfileSpec): ProfileEntries {
  let kubernetes: Map<string, ExpirableVersion> | undefined;
  let images: Map<string, { image: MachineImage; versions?: Map<string, ExpirableVersion> }> | undefined;
  const imagesByName = () => {
    if (images) return images;
    images = new Map();
    for (const image of profile.machineImages) if (!images.has(image.name)) images.set(image.name, { image });
    return images;
  };
  return {
    kubernetesVersions: profile.kubernetes.versions,
    entry(use) {
      if (use.kind === 'kubernetes')
        return (kubernetes ??= firstByVersion(profile.kubernetes.versions)).get(use.version);
      const found = use.image === undefined ? undefined : imagesByName().get(use.image);
      if (!found) return undefined;
      found.versions ??= firstByVersion(found.image.versions);
      return found.versions.get(use.version);
    },
    image: (name) => imagesByName().get(name)?.image,
  };
}

// Keyed only on specs the cluster state holds: those live long and are replaced, never edited.
// (A WeakMap keyed on a per-request object would keep its value alive through young-generation
// GCs, see bench/NOTES.md.)
const stateEntries = new WeakMap<CloudProfileSpec, ProfileEntries>();

/**
 * The entries of a CloudProfile spec held by the cluster state, built once per profile object
 * rather than once per review: a Shoot's review then looks up its few versions and indexes nothing.
 */
export function stateProfileEntries(spec: CloudProfileSpec): ProfileEntries {
  let entries = stateEntries.get(spec);
  if (!entries) stateEntries.set(spec, (entries = profileEntries(spec)));
  return entries;
}

function firstByVersion(versions: readonly ExpirableVersion[]): Map<string, ExpirableVersion> {
  const out = new Map<string, ExpirableVersion>();
  for (const v of versions) if (!out.has(v.version)) out.set(v.version, v);
  return out;
}
