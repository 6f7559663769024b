// When and to what a Shoot's version is forcibly updated: at the version's expiry, in the Shoot's
// next maintenance window, to the target of the update path. Shared by the Shoot warnings and
// `explain`.
import type { TimeWindow } from './maintenance.js';
import { maintenanceWindowOf, nextWindowStart } from './maintenance.js';
import type { ForcedUpdate } from './update-path.js';
import { kubernetesForcedUpdate, machineImageForcedUpdate, strategyOf } from './update-path.js';
import type { CloudProfileSpec, ExpirableVersion, Shoot } from './types.js';
import { expiryInstant } from './versions.js';

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
  return use.kind === 'kubernetes' ? `kubernetes version "${use.version}"` : `machine image version '${use.image}:${use.version}'`;
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

/** The profile entry of a used version, or undefined when the profile does not offer it. */
export function entryOf(profile: CloudProfileSpec, use: Pick<ShootVersionUse, 'kind' | 'version'> & { image?: string }): ExpirableVersion | undefined {
  const versions = use.kind === 'kubernetes' ? profile.kubernetes.versions : profile.machineImages.find((m) => m.name === use.image)?.versions;
  return versions?.find((v) => v.version === use.version);
}

/** The forced update ahead of a used version; undefined when the version never expires. */
export function planForcedUpdate(profile: CloudProfileSpec, shoot: Shoot, use: ShootVersionUse, now: number): ForcedUpdatePlan | undefined {
  const entry = entryOf(profile, use);
  const expiresAt = entry ? expiryInstant(entry) : undefined;
  if (expiresAt === undefined || Number.isNaN(expiresAt)) return undefined;
  const window = maintenanceWindowOf(shoot);
  const after = Math.max(expiresAt, now);
  const at = window ? nextWindowStart(window, after) : undefined;
  // Candidates are classified when the update runs; without a window, at the expiry.
  const when = at ?? after;
  let update: ForcedUpdate;
  if (use.kind === 'kubernetes') {
    update = kubernetesForcedUpdate(use.version, profile.kubernetes.versions, when);
  } else {
    const image = profile.machineImages.find((m) => m.name === use.image)!;
    update = machineImageForcedUpdate(use.version, image.versions, strategyOf(image), when);
  }
  return { expiresAt, ...(window ? { window } : {}), ...(at !== undefined ? { at } : {}), update };
}
