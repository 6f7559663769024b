// Shared by the profile rules: which specs a request puts up for judgement (the object's own spec
// and, for a NamespacedCloudProfile, the merged profile) and a walk over their version lists (the
// Kubernetes list and each machine image's list).
import { type FieldPath, fieldPath, type FieldViolation } from '../../api/field.js';
import type { Judged, NamespacedCloudProfileContext, Write } from '../rule.js';
import { preparedKey } from '../rule.js';
import type { ExpirableVersion, NamespacedCloudProfile, NamespacedMachineImage } from '../../api/types.js';
import { indexVersions, NO_VERSIONS } from './version-index.js';
import type { VersionedSpec, VersionIndex, VersionList } from './version-index.js';

export { indexVersions } from './version-index.js';
export type { VersionedSpec, VersionIndex, VersionList } from './version-index.js';

export const PROFILES = ['CloudProfile', 'NamespacedCloudProfile'] as const;

/** A CREATE or UPDATE of a CloudProfile or NamespacedCloudProfile. */
export type ProfileWrite = Judged<(typeof PROFILES)[number], Write>;

/**
 * A spec under judgement. `CloudProfile`: a CloudProfile's spec; `NamespacedCloudProfile`: an
 * NCP's own spec (overrides); `merged`: parent + overrides, under `status.cloudProfileSpec`.
 */
export interface Target {
  kind: 'CloudProfile' | 'NamespacedCloudProfile' | 'merged';
  spec: VersionedSpec;
  prefix: FieldPath;
}

const SPEC = fieldPath('spec');
const MERGED_SPEC = fieldPath('status', 'cloudProfileSpec');

export function ownTarget(ctx: ProfileWrite): Target {
  return { kind: ctx.kind, spec: ctx.object.spec, prefix: SPEC };
}

export function mergedTarget(ctx: ProfileWrite): Target | undefined {
  return ctx.kind === 'NamespacedCloudProfile' && ctx.merged
    ? { kind: 'merged', spec: ctx.merged, prefix: MERGED_SPEC }
    : undefined;
}

/** A version list whose path is built when a rule first reads it: a clean review never does. */
class ListAt implements VersionList {
  private at: FieldPath | undefined = undefined;

  constructor(
    private readonly prefix: FieldPath,
    readonly versions: readonly ExpirableVersion[],
    readonly image?: NamespacedMachineImage,
    private readonly j = 0,
  ) {}

  get path(): FieldPath {
    return (this.at ??= this.image
      ? this.prefix.child('machineImages').index(this.j).child('versions')
      : this.prefix.child('kubernetes', 'versions'));
  }
}

export function kubernetesList(t: Pick<Target, 'spec' | 'prefix'>): VersionList | undefined {
  const versions = t.spec.kubernetes?.versions;
  return versions ? new ListAt(t.prefix, versions) : undefined;
}

export function imageLists(t: Pick<Target, 'spec' | 'prefix'>): VersionList[] {
  return (t.spec.machineImages ?? []).map((image, j) => new ListAt(t.prefix, image.versions ?? [], image, j));
}

export function versionLists(t: Pick<Target, 'spec' | 'prefix'>): VersionList[] {
  const k8s = kubernetesList(t);
  return k8s ? [k8s, ...imageLists(t)] : imageLists(t);
}

/** `kubernetes version 1.31.0` or `machine image gardenlinux version 1592.1.0`. */
export function describeVersion(list: VersionList, v: ExpirableVersion): string {
  return list.image ? `machine image ${list.image.name} version ${v.version}` : `kubernetes version ${v.version}`;
}

/** How a rule names the entries of the request's own spec. */
export type VersionNamer = (list: VersionList, v: ExpirableVersion) => { text: string; override: boolean };

/**
 * On a NamespacedCloudProfile an entry that names a version of the parent is an override of it
 * (every Kubernetes entry is; an image entry when the parent has that image version), and the
 * messages call it one. Elsewhere, and for the NCP's own image versions, describeVersion.
 */
export function versionNamer(ctx: ProfileWrite): VersionNamer {
  if (ctx.kind !== 'NamespacedCloudProfile') return (list, v) => ({ text: describeVersion(list, v), override: false });
  const parent = ctx.parent ? indexVersions(ctx.parent.spec) : NO_VERSIONS;
  return (list, v) => {
    const override = !list.image || parent.matching(list)?.has(v.version) === true;
    return { text: override ? `the override of ${describeVersion(list, v)}` : describeVersion(list, v), override };
  };
}

const OLD_VERSIONS = preparedKey<VersionIndex>('old versions');

/**
 * The old object's versions on UPDATE (none on CREATE), indexed once per review and shared by the
 * rules that compare with it. It lives on the review's own context: a WeakMap keyed on the
 * context cost far more than it saved, because V8's young-generation GC keeps a WeakMap's values
 * alive, and these hold the whole old profile of a request.
 */
export function oldVersions(ctx: ProfileWrite): VersionIndex {
  if (ctx.operation !== 'UPDATE') return NO_VERSIONS;
  return ctx.prepared
    ? ctx.prepared.get(OLD_VERSIONS, () => indexVersions(ctx.oldObject?.spec))
    : indexVersions(ctx.oldObject?.spec);
}

/** Whether two entries carry the same classification fields, as written (a cheap "unchanged" test). */
export function sameClassificationFields(a: ExpirableVersion, b: ExpirableVersion): boolean {
  if (a.classification !== b.classification || a.expirationDate !== b.expirationDate) return false;
  const x = a.lifecycle ?? [];
  const y = b.lifecycle ?? [];
  return (
    x.length === y.length &&
    x.every((s, k) => s.classification === y[k]!.classification && s.startTime === y[k]!.startTime)
  );
}

const UNCHANGED = preparedKey<{ spec: boolean; metadata: boolean }>('unchanged by the update');

/**
 * Whether an UPDATE of a NamespacedCloudProfile leaves its spec, and its metadata, as stored:
 * decided once per review, by the webhook's edge on the whole stored object (request.stored)
 * or here.
 */
export function unchangedByUpdate(ctx: NamespacedCloudProfileContext & { object: NamespacedCloudProfile }): {
  spec: boolean;
  metadata: boolean;
} {
  const old = ctx.oldObject;
  if (ctx.operation !== 'UPDATE' || !old) return { spec: false, metadata: false };
  const compare = () => {
    const stored = ctx.request.stored;
    const spec = stored?.sameSpec ?? JSON.stringify(ctx.object.spec) === JSON.stringify(old.spec);
    const metadata = stored?.sameMetadata ?? JSON.stringify(ctx.object.metadata) === JSON.stringify(old.metadata);
    return { spec, metadata };
  };
  return ctx.prepared ? ctx.prepared.get(UNCHANGED, compare) : compare();
}

/**
 * Like gardener-apiserver's NamespacedCloudProfile admission, the merged profile is not judged on
 * an UPDATE that leaves the spec alone and either the metadata too or deletes the object: the
 * parent may have changed since, and that must not block, say, removing a finalizer.
 */
function mergeUnchanged(ctx: NamespacedCloudProfileContext & { object: NamespacedCloudProfile }): boolean {
  const unchanged = unchangedByUpdate(ctx);
  return unchanged.spec && (ctx.object.metadata.deletionTimestamp !== undefined || unchanged.metadata);
}

/**
 * Judges the request's own spec and, for a NamespacedCloudProfile whose parent is known, the
 * merged profile. A problem the own spec already shows (same message) is not repeated for the
 * merged profile; the others say that they come from the merge.
 */
export function judgeOwnAndMerged(ctx: ProfileWrite, judge: (t: Target) => FieldViolation[]): FieldViolation[] {
  const own = judge(ownTarget(ctx));
  const merged = mergedTarget(ctx);
  if (!merged || ctx.kind !== 'NamespacedCloudProfile' || mergeUnchanged(ctx)) return own;
  const seen = new Set(own.map((v) => v.message));
  const parent = ctx.object.spec.parent.name;
  const note = ` (in the merged profile: parent CloudProfile "${parent}" with the overrides of this NamespacedCloudProfile)`;
  const fromMerge = judge(merged)
    .filter((v) => !seen.has(v.message))
    .map((v) => ({ ...v, message: v.message + note }));
  return [...own, ...fromMerge];
}

export { listSome } from '../../util/text.js';
