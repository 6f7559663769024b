// DEFAULT-LIFECYCLE: the operator's version policy, written as explicit lifecycles. It touches
// plain versions new to the profile and the versions it defaulted earlier (recorded in an
// annotation), and, only with adoptExisting, plain versions the profile already had; every other
// version is the operator's and is only read.
import type { ClusterState } from '../../api/cluster-state.js';
import type { PolicyConfig } from '../policy-config.js';
import { parseDuration } from '../../gardener/duration.js';
import type { CloudProfile, ExpirableVersion } from '../../api/types.js';
import type { Warning } from '../warning.js';
import { textWarning } from '../warning.js';
import {
  classificationAt,
  compareVersions,
  hasLegacyFields,
  hasLifecycle,
  parseVersion,
  versionsNotIn,
} from '../../gardener/versions.js';
import type { Adoption } from './adoption.js';
import { adoptionOf } from './adoption.js';
import type { ListItem, ListPolicy } from './lifecycle-decision.js';
import { decideVersions } from './lifecycle-decision.js';
import type { VersionFields } from './lifecycle-stages.js';
import { fieldsFor, fieldsOf, nextLifecycle, sameFields, stagesFrom, writeFields } from './lifecycle-stages.js';
import type { Subject } from './lifecycle-warnings.js';
import { adoptionSkippedWarning, defaultedWarning, leftManagementWarning } from './lifecycle-warnings.js';
import {
  MANAGED_VERSIONS_ANNOTATION,
  noManagedVersions,
  readManagedVersions,
  writeManagedVersions,
} from './managed-annotation.js';

export { MANAGED_VERSIONS_ANNOTATION, managedVersions } from './managed-annotation.js';
export type { ManagedVersions } from './managed-annotation.js';

export interface LifecycleDefaultingInput {
  profile: CloudProfile;
  oldProfile?: CloudProfile;
  now: number;
  config: PolicyConfig;
  lifecycleGate: boolean;
  /** Which versions Shoots run, for adoptExisting; read only when adoption is on. */
  state: ClusterState;
}

/**
 * Whether applyLifecycleDefaults could change anything, so the mutating path can skip copying the
 * profile: versions it managed before (the annotation, on either object), plain versions the old
 * object did not have, and with `adoptExisting` any plain version.
 */
export function lifecycleDefaultingHasWork(
  profile: CloudProfile,
  oldProfile: CloudProfile | undefined,
  adoptExisting: boolean,
): boolean {
  if ([profile, oldProfile].some((p) => p?.metadata.annotations?.[MANAGED_VERSIONS_ANNOTATION] !== undefined))
    return true;
  if (!oldProfile || adoptExisting)
    return (
      profile.spec.kubernetes.versions.some(isPlain) || profile.spec.machineImages.some((i) => i.versions.some(isPlain))
    );
  const oldImages = new Map(oldProfile.spec.machineImages.map((i) => [i.name, i.versions]));
  return (
    newPlain(profile.spec.kubernetes.versions, oldProfile.spec.kubernetes.versions) ||
    profile.spec.machineImages.some((i) => newPlain(i.versions, oldImages.get(i.name) ?? []))
  );
}

function newPlain(versions: readonly ExpirableVersion[], old: readonly ExpirableVersion[]): boolean {
  if (!versions.some(isPlain)) return false;
  const added = versionsNotIn(versions, old);
  if (added.length === 0) return false;
  const fresh = new Set(added);
  return versions.some((v) => isPlain(v) && fresh.has(v.version));
}

const isPlain = (v: ExpirableVersion) => !hasLifecycle(v) && !hasLegacyFields(v);

/** Rewrites `input.profile` in place; returns one warning per version whose lifecycle it set. */
export function applyLifecycleDefaults(input: LifecycleDefaultingInput): Warning[] {
  const { profile, oldProfile, now, config, lifecycleGate } = input;
  const settings = config.defaulting.lifecycle;
  // On UPDATE the stored object is the record: a GitOps re-apply may drop the annotation from the
  // request. On CREATE the object's own annotation (a re-created or restored profile) is all there is.
  const recorded = readManagedVersions(oldProfile ?? profile);
  const warnings: Warning[] = recorded.problem ? [textWarning(recorded.problem)] : [];
  const managed = noManagedVersions();
  const adoption = adoptionOf({
    config,
    update: oldProfile !== undefined,
    profileName: profile.metadata.name,
    lifecycleGate,
    state: input.state,
  });
  const base = { now, lifecycleGate, create: !oldProfile, warnings, adoption };

  managed.kubernetes = defaultList({
    ...base,
    versions: profile.spec.kubernetes.versions,
    old: oldProfile?.spec.kubernetes.versions ?? [],
    managed: recorded.managed.kubernetes,
    kubernetes: true,
    policy: {
      now,
      lifecycleGate,
      maintainedMinors: settings.maintainedMinors,
      expiration: {
        maintained: parseDuration(settings.expirationMaintained),
        unmaintained: parseDuration(settings.expirationUnmaintained),
      },
    },
    subject: (version) => ({ version, maintainedMinors: settings.maintainedMinors }),
  });

  const imageExpiration = parseDuration(settings.machineImageExpiration);
  const oldImages = new Map((oldProfile?.spec.machineImages ?? []).map((i) => [i.name, i]));
  for (const image of profile.spec.machineImages) {
    const versions = defaultList({
      ...base,
      versions: image.versions,
      old: oldImages.get(image.name)?.versions ?? [],
      managed: recorded.managed.machineImages.get(image.name) ?? new Set(),
      kubernetes: false,
      image: image.name,
      policy: { now, lifecycleGate, expiration: { maintained: imageExpiration, unmaintained: imageExpiration } },
      subject: (version) => ({ version, image: image.name, maintainedMinors: settings.maintainedMinors }),
    });
    if (versions.size > 0)
      managed.machineImages.set(image.name, new Set([...(managed.machineImages.get(image.name) ?? []), ...versions]));
  }

  if (adoption.skipped.length > 0)
    warnings.push(adoptionSkippedWarning(adoption.skipped, input.state.notReadyReason ?? 'not synced'));
  writeManagedVersions(profile, managed);
  return warnings;
}

interface ListInput {
  versions: ExpirableVersion[];
  old: readonly ExpirableVersion[];
  managed: ReadonlySet<string>;
  policy: ListPolicy;
  subject: (version: string) => Subject;
  /** Only the Kubernetes list has a highest version that must never expire. */
  kubernetes: boolean;
  /** The machine image the list belongs to; undefined for the Kubernetes list. */
  image?: string;
  now: number;
  lifecycleGate: boolean;
  create: boolean;
  warnings: Warning[];
  adoption: Adoption;
}

/** A version of the list as this path sees it. */
interface Owned extends ListItem {
  /** What this path stored for a managed version before; undefined when it meets the version fresh. */
  stored?: VersionFields;
  /** A plain version the old object had, taken over because adoptExisting is on. */
  adopted?: boolean;
}

/** Defaults one version list in place; returns the versions this path now manages. */
function defaultList(input: ListInput): Set<string> {
  const oldByVersion = new Map(input.old.map((o) => [o.version, o]));
  const items = input.versions.map((entry) => owned(entry, input, oldByVersion));
  const verdicts = decideVersions(items, input.policy);
  const neverExpires = input.kubernetes ? kubernetesNeverExpiring(items, input) : new Set<ListItem>();
  const managed = new Set<string>();
  for (const item of items) {
    let verdict = verdicts.get(item);
    if (!verdict) continue; // unparseable: the validating rules report it
    managed.add(item.version);
    const shoots = item.adopted ? input.adoption.shootsRunning(input.image, item.version) : 0;
    if (shoots > 0) verdict = { ...verdict, expiresAfter: Math.max(verdict.expiresAfter, input.adoption.notice) };
    const stored = item.stored ? stagesFrom(item.stored) : undefined;
    const next = nextLifecycle(stored, verdict, input.now, neverExpires.has(item));
    // Unchanged stored fields are written back as stored, so a re-apply changes nothing; only a
    // lifecycle the gate no longer allows is rewritten in legacy form.
    const keepAsStored = next.change === 'kept' && item.stored && (input.lifecycleGate || !item.stored.lifecycle);
    writeFields(item.entry, keepAsStored ? item.stored! : fieldsFor(next.stages, input.lifecycleGate));
    if (next.change !== 'kept') {
      input.warnings.push(
        defaultedWarning(
          input.subject(item.version),
          verdict,
          next,
          neverExpires.has(item),
          item.adopted ? { shoots } : undefined,
        ),
      );
    }
  }
  return managed;
}

/**
 * Who owns the version. A version the old object did not have (every version on CREATE) is this
 * path's when it is plain. A plain version the old object had stays the operator's, exactly as
 * written, unless adoptExisting is on. A managed version stays managed while the request omits
 * its lifecycle (it keeps the stored one) or repeats the stored one unchanged; a request that sets
 * anything else takes it out of management.
 */
function owned(entry: ExpirableVersion, input: ListInput, oldByVersion: ReadonlyMap<string, ExpirableVersion>): Owned {
  const sent = fieldsOf(entry);
  const base = { version: entry.version, entry };
  if (!input.managed.has(entry.version)) {
    if (sent) return { ...base, policy: false };
    if (input.create || !oldByVersion.has(entry.version)) return { ...base, policy: true };
    if (input.adoption.enabled) return { ...base, policy: true, adopted: true };
    if (input.adoption.waiting)
      input.adoption.skipped.push(input.image === undefined ? entry.version : `${input.image} ${entry.version}`);
    return { ...base, policy: false };
  }
  const before = oldByVersion.get(entry.version);
  const stored = before ? fieldsOf(before) : undefined;
  if (!sent) return { ...base, policy: true, ...(stored ? { stored } : {}) };
  if (input.create) return { ...base, policy: true, stored: sent };
  if (stored && sameFields(sent, stored)) return { ...base, policy: true, stored };
  input.warnings.push(leftManagementWarning(input.subject(entry.version)));
  return { ...base, policy: false };
}

/**
 * The Kubernetes versions that must not get an expired stage (LATEST-NO-EXPIRY): the highest one,
 * and on CREATE the highest one that is not `unavailable`, because gardener-apiserver drops
 * unavailable versions before it looks for the latest.
 */
function kubernetesNeverExpiring(items: readonly Owned[], input: ListInput): Set<ListItem> {
  const parseable = items.filter((i) => parseVersion(i.version));
  const out = new Set<ListItem>();
  const highest = highestOf(parseable);
  if (highest) out.add(highest);
  if (input.create) {
    const available = highestOf(parseable.filter((i) => availableNow(i, input.now)));
    if (available) out.add(available);
  }
  return out;
}

function availableNow(item: Owned, now: number): boolean {
  if (!item.policy) return classificationAt(item.entry, now) !== 'unavailable';
  // Every lifecycle this path writes starts without a start time; only a stored one can differ.
  return !item.stored || classificationAt({ version: item.version, ...item.stored }, now) !== 'unavailable';
}

function highestOf<T extends ListItem>(items: readonly T[]): T | undefined {
  return items.reduce<T | undefined>(
    (best, i) => (!best || compareVersions(i.version, best.version) > 0 ? i : best),
    undefined,
  );
}
