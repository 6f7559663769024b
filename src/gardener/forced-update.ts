// When and to what a Shoot's version is forcibly updated: at the version's expiry, in the Shoot's
// next maintenance window, to the target of the update path. Shared by the Shoot warnings and
// `explain`.
import type { TimeWindow } from './maintenance.js';
import { maintenanceWindowOf, nextWindowStart } from './maintenance.js';
import { firstAtOrAfter } from '../util/sorted.js';
import type { ForcedUpdate } from './update-path.js';
import { kubernetesForcedUpdate, machineImageForcedUpdate, strategyOf } from './update-path.js';
import type { CloudProfileSpec, ExpirableVersion, MachineImage, Shoot } from '../api/types.js';
import { expiryInstant, stagesOf } from './versions.js';

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

export interface ForcedUpdatePlan {
  /** The version's expiry; -Infinity when it has always been expired. */
  expiresAt: number;
  /** The Shoot's maintenance window, when it sets one. */
  window?: TimeWindow;
  /** The window the update runs in: the first one after the expiry, or after now if that passed. */
  at?: number;
  update: ForcedUpdate;
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

/**
 * The forced updates of every Shoot on one profile. Which version a forced update picks depends
 * only on the used version and on which stage starts lie before the update runs, so the answer is
 * remembered per version and per span between stage starts: the cost grows with the profile's
 * versions, not with its Shoots.
 */
export class ForcedUpdatePlanner {
  private readonly entries: ProfileEntries;
  private readonly starts: number[];
  private readonly known = new Map<string, ForcedUpdate>();

  constructor(profile: CloudProfileSpec) {
    this.entries = profileEntries(profile);
    const starts = new Set<number>();
    const collect = (versions: readonly ExpirableVersion[]) => {
      for (const v of versions) for (const s of stagesOf(v)) if (Number.isFinite(s.start)) starts.add(s.start);
    };
    collect(profile.kubernetes.versions);
    for (const image of profile.machineImages) collect(image.versions);
    this.starts = [...starts].sort((a, b) => a - b);
  }

  plan(shoot: Shoot, use: ShootVersionUse, now: number): ForcedUpdatePlan | undefined {
    return planWith(this.entries, shoot, use, now, (when) => {
      const key = `${use.kind}\u0000${use.kind === 'machine-image' ? use.image : ''}\u0000${use.version}\u0000${firstAtOrAfter(this.starts, when)}`;
      let update = this.known.get(key);
      if (!update) this.known.set(key, (update = forcedUpdate(this.entries, use, when)));
      return update;
    });
  }
}

/** The forced update ahead of a used version; undefined when the version never expires. */
export function planForcedUpdate(
  profile: CloudProfileSpec,
  shoot: Shoot,
  use: ShootVersionUse,
  now: number,
  entries = profileEntries(profile),
): ForcedUpdatePlan | undefined {
  return planWith(entries, shoot, use, now, (when) => forcedUpdate(entries, use, when));
}

function planWith(
  entries: ProfileEntries,
  shoot: Shoot,
  use: ShootVersionUse,
  now: number,
  update: (when: number) => ForcedUpdate,
): ForcedUpdatePlan | undefined {
  const entry = entries.entry(use);
  const expiresAt = entry ? expiryInstant(entry) : undefined;
  if (expiresAt === undefined || Number.isNaN(expiresAt)) return undefined;
  const window = maintenanceWindowOf(shoot);
  const after = Math.max(expiresAt, now);
  const at = window ? nextWindowStart(window, after) : undefined;
  // Candidates are classified when the update runs; without a window, at the expiry.
  const when = at ?? after;
  return { expiresAt, ...(window ? { window } : {}), ...(at !== undefined ? { at } : {}), update: update(when) };
}

function forcedUpdate(entries: ProfileEntries, use: ShootVersionUse, when: number): ForcedUpdate {
  if (use.kind === 'kubernetes') return kubernetesForcedUpdate(use.version, entries.kubernetesVersions, when);
  const image = entries.image(use.image)!;
  return machineImageForcedUpdate(use.version, image.versions, strategyOf(image), when);
}
