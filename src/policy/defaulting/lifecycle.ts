// DEFAULT-LIFECYCLE: the operator's version policy, written as explicit lifecycles. It touches
// plain versions and the versions it defaulted earlier (recorded in an annotation); every other
// version is the operator's and is only read.
import type { Config } from '../../config.js';
import { parseDuration } from '../duration.js';
import type { CloudProfile, ExpirableVersion } from '../types.js';
import { classificationAt, compareVersions, hasLegacyFields, hasLifecycle, parseVersion } from '../versions.js';
import type { ListItem, ListPolicy } from './lifecycle-decision.js';
import { decideVersions } from './lifecycle-decision.js';
import type { VersionFields } from './lifecycle-stages.js';
import { fieldsFor, fieldsOf, nextLifecycle, sameFields, stagesFrom, writeFields } from './lifecycle-stages.js';
import type { Subject } from './lifecycle-warnings.js';
import { defaultedWarning, leftManagementWarning } from './lifecycle-warnings.js';
import { MANAGED_VERSIONS_ANNOTATION, noManagedVersions, readManagedVersions, writeManagedVersions } from './managed-annotation.js';

export { MANAGED_VERSIONS_ANNOTATION, managedVersions } from './managed-annotation.js';
export type { ManagedVersions } from './managed-annotation.js';

export interface LifecycleDefaultingInput {
  profile: CloudProfile;
  oldProfile?: CloudProfile;
  now: number;
  config: Config;
  lifecycleGate: boolean;
}

/**
 * Whether applyLifecycleDefaults could change anything: only plain versions and versions it
 * managed before (recorded in the annotation, on either object) are ever touched.
 */
export function lifecycleDefaultingHasWork(profile: CloudProfile, oldProfile?: CloudProfile): boolean {
  if ([profile, oldProfile].some((p) => p?.metadata.annotations?.[MANAGED_VERSIONS_ANNOTATION] !== undefined)) return true;
  const plain = (v: ExpirableVersion) => !hasLifecycle(v) && !hasLegacyFields(v);
  return profile.spec.kubernetes.versions.some(plain) || profile.spec.machineImages.some((i) => i.versions.some(plain));
}

/** Rewrites `input.profile` in place; returns one warning per defaulted version. */
export function applyLifecycleDefaults(input: LifecycleDefaultingInput): string[] {
  const { profile, oldProfile, now, config, lifecycleGate } = input;
  const settings = config.defaulting.lifecycle;
  // On UPDATE the stored object is the record: a GitOps re-apply may drop the annotation from the
  // request. On CREATE the object's own annotation (a re-created or restored profile) is all there is.
  const recorded = readManagedVersions(oldProfile ?? profile);
  const warnings: string[] = recorded.problem ? [recorded.problem] : [];
  const managed = noManagedVersions();
  const base = { now, lifecycleGate, create: !oldProfile, warnings };

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
      expiration: { maintained: parseDuration(settings.expirationMaintained), unmaintained: parseDuration(settings.expirationUnmaintained) },
    },
    subject: (version) => ({ name: version, kubernetes: true, maintainedMinors: settings.maintainedMinors }),
  });

  const imageExpiration = parseDuration(settings.machineImageExpiration);
  for (const image of profile.spec.machineImages) {
    const oldImage = oldProfile?.spec.machineImages.find((i) => i.name === image.name);
    const versions = defaultList({
      ...base,
      versions: image.versions,
      old: oldImage?.versions ?? [],
      managed: recorded.managed.machineImages.get(image.name) ?? new Set(),
      kubernetes: false,
      policy: { now, lifecycleGate, expiration: { maintained: imageExpiration, unmaintained: imageExpiration } },
      subject: (version) => ({ name: `machine image ${image.name} ${version}`, kubernetes: false, maintainedMinors: settings.maintainedMinors }),
    });
    if (versions.size > 0) managed.machineImages.set(image.name, new Set([...(managed.machineImages.get(image.name) ?? []), ...versions]));
  }

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
  now: number;
  lifecycleGate: boolean;
  create: boolean;
  warnings: string[];
}

/** A version of the list as this path sees it. */
interface Owned extends ListItem {
  /** What this path stored for a managed version before; undefined when it meets the version fresh. */
  stored?: VersionFields;
}

/** Defaults one version list in place; returns the versions this path now manages. */
function defaultList(input: ListInput): Set<string> {
  const oldByVersion = new Map(input.old.map((o) => [o.version, o]));
  const items = input.versions.map((entry) => owned(entry, input, oldByVersion));
  const verdicts = decideVersions(items, input.policy);
  const neverExpires = input.kubernetes ? kubernetesNeverExpiring(items, input) : new Set<ListItem>();
  const managed = new Set<string>();
  for (const item of items) {
    const verdict = verdicts.get(item);
    if (!verdict) continue; // unparseable: the validating rules report it
    managed.add(item.version);
    const stored = item.stored ? stagesFrom(item.stored) : undefined;
    const next = nextLifecycle(stored, verdict, input.now, neverExpires.has(item));
    // Unchanged stored fields are written back as stored, so a re-apply changes nothing; only a
    // lifecycle the gate no longer allows is rewritten in legacy form.
    const keepAsStored = next.change === 'kept' && item.stored && (input.lifecycleGate || !item.stored.lifecycle);
    writeFields(item.entry, keepAsStored ? item.stored! : fieldsFor(next.stages, input.lifecycleGate));
    if (next.change !== 'kept') input.warnings.push(defaultedWarning(input.subject(item.version), verdict, next, neverExpires.has(item)));
  }
  return managed;
}

/**
 * Who owns the version. Plain versions are this path's. A managed version stays managed while the
 * request omits its lifecycle (it keeps the stored one) or repeats the stored one unchanged; a
 * request that sets anything else takes it out of management.
 */
function owned(entry: ExpirableVersion, input: ListInput, oldByVersion: ReadonlyMap<string, ExpirableVersion>): Owned {
  const sent = fieldsOf(entry);
  const base = { version: entry.version, entry };
  if (!input.managed.has(entry.version)) return { ...base, policy: !sent };
  const before = oldByVersion.get(entry.version);
  const stored = before ? fieldsOf(before) : undefined;
  if (!sent) return { ...base, policy: true, ...(stored ? { stored } : {}) };
  if (input.create) return { ...base, policy: true, stored: sent };
  if (stored && sameFields(sent, stored)) return { ...base, policy: true, stored };
  input.warnings.push(leftManagementWarning(input.subject(entry.version).name));
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
  return items.reduce<T | undefined>((best, i) => (!best || compareVersions(i.version, best.version) > 0 ? i : best), undefined);
}
