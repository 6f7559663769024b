// IN-USE: a version still used cannot be removed, and a profile still referenced cannot be
// deleted (docs/rules.md; Gardener's ResourceReferenceManager). Stricter than Gardener: worker-pool Kubernetes
// versions count, and DELETE is denied with the referrers instead of waiting on a finalizer.
// Every lookup goes through the ClusterState indexes, so a check costs O(removed versions × users).
import type { VersionUse } from '../../api/cluster-state.js';
import { fieldPath, type FieldViolation, forbidden } from '../../api/field.js';
import type { Judged, RemovedVersions } from '../rule.js';
import { defineRule } from '../rule.js';
import type {
  CloudProfileSpec,
  ExpirableVersion,
  NamespacedCloudProfile,
  NamespacedCloudProfileSpec,
  NamespacedMachineImage,
  ProfileRef,
} from '../../api/types.js';
import { objectKey } from '../../api/types.js';
import {
  cappedList,
  describeShootUses,
  isDeleting,
  liveChildren,
  liveUses,
  sourcesOfCloudProfile,
} from '../../gardener/usage.js';
import type { SourcedUse } from '../../gardener/usage.js';
import { classificationAt, expiryInstant, formatInstant, versionsNotIn } from '../../gardener/versions.js';

type ProfileContext = Judged<'CloudProfile' | 'NamespacedCloudProfile', 'UPDATE' | 'DELETE'>;
type ProfileUpdate = Extract<ProfileContext, { operation: 'UPDATE' }>;

const KUBERNETES_VERSIONS = fieldPath('spec', 'kubernetes', 'versions');
const MACHINE_IMAGES = fieldPath('spec', 'machineImages');

const SHOOT_HINT =
  'move those Shoots to another version first (an expirationDate retires a version without removing it)';

// --- what an UPDATE removes --------------------------------------------------------------

interface RemovedImage {
  name: string;
  /** Index in the new object, when the image itself stays. */
  index?: number;
  versions: string[];
}

interface Removals {
  kubernetes: string[];
  images: RemovedImage[];
  /** Images the new object adds (CloudProfile only). */
  added: Array<{ name: string; index: number }>;
  /** What the UPDATE removes past what the webhook reads whole, by name only (request.stored). */
  byName?: RemovedVersions;
}

function removedImages(old: readonly NamespacedMachineImage[], cur: readonly NamespacedMachineImage[]): RemovedImage[] {
  const index = new Map(cur.map((img, i) => [img.name, i]));
  const out: RemovedImage[] = [];
  for (const img of old) {
    const i = index.get(img.name);
    const versions = versionsNotIn(img.versions ?? [], i === undefined ? [] : (cur[i]?.versions ?? []));
    if (i === undefined) out.push({ name: img.name, versions });
    else if (versions.length > 0) out.push({ name: img.name, index: i, versions });
  }
  return out;
}

function removals(
  old: CloudProfileSpec | NamespacedCloudProfileSpec,
  cur: CloudProfileSpec | NamespacedCloudProfileSpec,
): Removals {
  const known = new Set((old.machineImages ?? []).map((img) => img.name));
  return {
    kubernetes: versionsNotIn(old.kubernetes?.versions ?? [], cur.kubernetes?.versions ?? []),
    images: removedImages(old.machineImages ?? [], cur.machineImages ?? []),
    added: (cur.machineImages ?? []).flatMap((img, index) => (known.has(img.name) ? [] : [{ name: img.name, index }])),
  };
}

/** An UPDATE of a profile that is already being deleted is not checked (Gardener parity). */
function beingDeleted(ctx: ProfileUpdate): boolean {
  return isDeleting(ctx.object) || (ctx.oldObject !== undefined && isDeleting(ctx.oldObject));
}

function updateRemovals(ctx: ProfileUpdate): Removals | undefined {
  if (!ctx.oldObject || beingDeleted(ctx)) return undefined;
  const r = removals(ctx.oldObject.spec, ctx.object.spec);
  const byName = ctx.request.stored?.removed;
  if (byName) r.byName = byName;
  return r;
}

/** Whether the update changes anything other objects may depend on. */
function matters(ctx: ProfileContext, r: Removals | undefined): r is Removals {
  return (
    r !== undefined &&
    (r.kubernetes.length > 0 ||
      r.images.length > 0 ||
      (r.byName?.count ?? 0) > 0 ||
      (ctx.kind === 'CloudProfile' && r.added.length > 0))
  );
}

/**
 * Of the removals read by name only (too many to walk), those that can matter, as removals: the
 * versions Shoots on `refs` use and the `listed` keys (children's entries) that the update removes,
 * in code-unit order. What it costs grows with what is in use, never with what is removed.
 */
function relevantByName(
  byName: RemovedVersions,
  refs: readonly ProfileRef[],
  ctx: ProfileUpdate,
  listed: ReadonlyMap<string, unknown> = new Map(),
): Pick<Removals, 'kubernetes' | 'images'> {
  const k8s = new Set<string>();
  const images = new Map<string, Set<string>>();
  const image = (name: string) => images.get(name) ?? images.set(name, new Set()).get(name)!;
  const note = (name: string | undefined, version: string) => {
    if (name === undefined) {
      if (byName.kubernetes.has(version)) k8s.add(version);
    } else if (byName.imageVersions.has(`${name}\u0000${version}`)) image(name).add(version);
  };
  for (const ref of refs) for (const u of ctx.state.versionsInUse(ref)) note(u.image, u.version);
  for (const key of listed.keys()) {
    const [kind, a = '', b] = key.split('\u0000');
    if (kind === 'k8s') note(undefined, a);
    else if (b !== undefined) note(a, b);
    else if (byName.images.has(a)) image(a);
  }
  const index = new Map((ctx.object.spec.machineImages ?? []).map((img, i) => [img.name, i]));
  const order = (xs: Iterable<string>) => [...xs].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  return {
    kubernetes: order(k8s),
    images: order(images.keys()).map((name): RemovedImage => {
      const i = byName.images.has(name) ? undefined : index.get(name);
      return { name, ...(i === undefined ? {} : { index: i }), versions: order(images.get(name)!) };
    }),
  };
}

function needsUsers(ctx: ProfileContext): boolean {
  return ctx.operation === 'DELETE' || matters(ctx, updateRemovals(ctx));
}

// --- CloudProfile UPDATE -----------------------------------------------------------------

function checkCloudProfileUpdate(ctx: Judged<'CloudProfile', 'UPDATE'>, r: Removals): FieldViolation[] {
  const name = ctx.object.metadata.name;
  const children = liveChildren(ctx.state, name);
  const sources = sourcesOfCloudProfile(name, children);
  const out: FieldViolation[] = [];
  const shootsOn = (lookup: (ref: ProfileRef) => VersionUse[]) => liveUses(sources, lookup);
  const listed = listedByChildren(children);
  const ncpsListing = (key: string) =>
    cappedList(listed.get(key) ?? [], objectKey, (n) => `NamespacedCloudProfile '${objectKey(n)}'`);
  if (r.byName) {
    const more = relevantByName(
      r.byName,
      sources.map((s) => s.ref),
      ctx,
      listed,
    );
    r = { ...r, kubernetes: [...r.kubernetes, ...more.kubernetes], images: [...r.images, ...more.images] };
  }

  for (const version of r.kubernetes) {
    const uses = shootsOn((ref) => ctx.state.kubernetesVersionUsers(ref, version));
    if (uses.length > 0) {
      out.push(
        forbidden(
          KUBERNETES_VERSIONS,
          `unable to delete Kubernetes version "${version}" from CloudProfile "${name}" - version is still in use by ${describeShootUses(uses)}; ${SHOOT_HINT}`,
        ),
      );
    }
    const ncps = ncpsListing(k8sKey(version));
    if (ncps) {
      out.push(
        forbidden(
          KUBERNETES_VERSIONS,
          `unable to delete Kubernetes version "${version}" from CloudProfile "${name}" - version is still in use by ${ncps}; remove it from those NamespacedCloudProfiles first`,
        ),
      );
    }
  }

  for (const img of r.images) {
    const field = img.index === undefined ? MACHINE_IMAGES : MACHINE_IMAGES.index(img.index).child('versions');
    for (const [version, uses] of imageUses(img, shootsOn, ctx)) {
      out.push(
        forbidden(
          field,
          `unable to delete Machine image version '${img.name}/${version}' from CloudProfile "${name}" - version is still in use by ${describeShootUses(uses)}; ${SHOOT_HINT}`,
        ),
      );
    }
    if (img.index === undefined) {
      const ncps = ncpsListing(imageKey(img.name));
      if (ncps)
        out.push(
          forbidden(
            field,
            `unable to delete MachineImage "${img.name}" from CloudProfile "${name}" - MachineImage is still in use by ${ncps}; remove it from those NamespacedCloudProfiles first`,
          ),
        );
      continue;
    }
    for (const version of img.versions) {
      const ncps = ncpsListing(imageKey(img.name, version));
      if (ncps) {
        out.push(
          forbidden(
            field,
            `unable to delete MachineImage version '${img.name}/${version}' from CloudProfile "${name}" - version is still in use by ${ncps}; remove it from those NamespacedCloudProfiles first`,
          ),
        );
      }
    }
  }

  for (const added of r.added) {
    const ncps = ncpsListing(imageKey(added.name));
    if (ncps) {
      out.push(
        forbidden(
          MACHINE_IMAGES.index(added.index),
          `unable to add MachineImage "${added.name}" to CloudProfile "${name}" - MachineImage is already defined by ${ncps}; remove it from those NamespacedCloudProfiles first`,
        ),
      );
    }
  }
  return out;
}

const k8sKey = (version: string) => `k8s\u0000${version}`;
const imageKey = (image: string, version?: string) =>
  version === undefined ? `img\u0000${image}` : `img\u0000${image}\u0000${version}`;

/** Which child NamespacedCloudProfiles list each Kubernetes version, image and image version: read once per request. */
function listedByChildren(children: readonly NamespacedCloudProfile[]): Map<string, NamespacedCloudProfile[]> {
  const out = new Map<string, NamespacedCloudProfile[]>();
  const add = (key: string, ncp: NamespacedCloudProfile) => {
    const list = out.get(key);
    if (!list) out.set(key, [ncp]);
    else if (list[list.length - 1] !== ncp) list.push(ncp);
  };
  for (const ncp of children) {
    for (const x of ncp.spec.kubernetes?.versions ?? []) add(k8sKey(x.version), ncp);
    for (const img of ncp.spec.machineImages ?? []) {
      add(imageKey(img.name), ncp);
      for (const x of img.versions ?? []) add(imageKey(img.name, x.version), ncp);
    }
  }
  return out;
}

/** Live uses of each removed version of an image, in the old profile's order. */
function imageUses(
  img: RemovedImage,
  shootsOn: (lookup: (ref: ProfileRef) => VersionUse[]) => SourcedUse[],
  ctx: Judged<'CloudProfile', 'UPDATE'>,
): Array<[string, SourcedUse[]]> {
  if (img.index !== undefined) {
    return img.versions
      .map((version): [string, SourcedUse[]] => [
        version,
        shootsOn((ref) => ctx.state.machineImageVersionUsers(ref, img.name, version)),
      ])
      .filter(([, uses]) => uses.length > 0);
  }
  // A whole image is gone: one lookup for all its users, then grouped by the versions it had.
  const byVersion = new Map<string, SourcedUse[]>(img.versions.map((x) => [x, []]));
  for (const use of shootsOn((ref) => ctx.state.machineImageUsers(ref, img.name))) {
    if (use.via === 'machine-image') byVersion.get(use.version)?.push(use);
  }
  return [...byVersion].filter(([, uses]) => uses.length > 0);
}

// --- NamespacedCloudProfile UPDATE --------------------------------------------------------

function checkNamespacedUpdate(ctx: Judged<'NamespacedCloudProfile', 'UPDATE'>, r: Removals): FieldViolation[] {
  const ncp = ctx.object;
  const id = objectKey(ncp);
  const ref: ProfileRef = {
    kind: 'NamespacedCloudProfile',
    namespace: ncp.metadata.namespace,
    name: ncp.metadata.name,
  };
  const parentName = ncp.spec.parent.name;
  const out: FieldViolation[] = [];
  const live = (uses: VersionUse[]) => uses.filter((u) => !isDeleting(u.shoot));

  // With the override gone, the new merged profile holds the parent's entry (or nothing). Its
  // entries are indexed once, so each removed version is one lookup.
  const merged = mergedEntries(ctx.merged);
  if (r.byName) {
    const more = relevantByName(r.byName, [ref], ctx);
    r = { ...r, kubernetes: [...r.kubernetes, ...more.kubernetes], images: [...r.images, ...more.images] };
  }
  for (const version of r.kubernetes) {
    const parentEntry = merged.kubernetes.get(version);
    if (!parentEntry || classificationAt(parentEntry, ctx.now) !== 'expired') continue;
    const uses = live(ctx.state.kubernetesVersionUsers(ref, version));
    if (uses.length === 0) continue;
    out.push(
      forbidden(
        KUBERNETES_VERSIONS,
        `unable to delete Kubernetes version "${version}" from NamespacedCloudProfile '${id}' - version with extended expiration date is still in use by ${describeShootUses(uses)}; ` +
          `the parent CloudProfile "${parentName}" has it expired${expiredSince(parentEntry)}, so keep the override until those Shoots moved on`,
      ),
    );
  }

  for (const img of r.images) {
    const mergedImage = merged.images.get(img.name);
    for (const version of img.versions) {
      const parentEntry = mergedImage?.get(version);
      if (parentEntry && classificationAt(parentEntry, ctx.now) !== 'expired') continue;
      const uses = live(ctx.state.machineImageVersionUsers(ref, img.name, version));
      if (uses.length === 0) continue;
      const why = parentEntry ? `has it expired${expiredSince(parentEntry)}` : 'does not offer it';
      out.push(
        forbidden(
          img.index === undefined ? MACHINE_IMAGES : MACHINE_IMAGES.index(img.index).child('versions'),
          `unable to delete Machine image version '${img.name}/${version}' from NamespacedCloudProfile '${id}' - version is still in use by ${describeShootUses(uses)}; ` +
            `the parent CloudProfile "${parentName}" ${why}, so keep it until those Shoots moved on`,
        ),
      );
    }
  }
  return out;
}

function mergedEntries(spec: CloudProfileSpec | undefined): {
  kubernetes: Map<string, ExpirableVersion>;
  images: Map<string, Map<string, ExpirableVersion>>;
} {
  const byVersion = (versions: readonly ExpirableVersion[]) => {
    const out = new Map<string, ExpirableVersion>();
    for (const x of versions) if (!out.has(x.version)) out.set(x.version, x);
    return out;
  };
  const images = new Map<string, Map<string, ExpirableVersion>>();
  for (const img of spec?.machineImages ?? []) if (!images.has(img.name)) images.set(img.name, byVersion(img.versions));
  return { kubernetes: byVersion(spec?.kubernetes.versions ?? []), images };
}

function expiredSince(entry: ExpirableVersion): string {
  const at = expiryInstant(entry);
  return at !== undefined && Number.isFinite(at) ? ` since ${formatInstant(at)}` : '';
}

// --- DELETE -------------------------------------------------------------------------------

function checkDelete(ctx: ProfileContext): FieldViolation[] {
  const name = ctx.request.name;
  if (ctx.kind === 'CloudProfile') {
    const out: FieldViolation[] = [];
    const shoots = ctx.state.shootsUsing({ kind: 'CloudProfile', name }).filter((s) => !isDeleting(s));
    if (shoots.length > 0) {
      const list = cappedList(shoots, objectKey, (s) => `'${objectKey(s)}'`);
      out.push(
        forbidden(
          fieldPath(),
          `cannot delete CloudProfile "${name}", because the following Shoots are still referencing it: ${list}; move or delete them first`,
        ),
      );
    }
    const ncps = liveChildren(ctx.state, name);
    if (ncps.length > 0) {
      const list = cappedList(ncps, objectKey, (n) => `'${objectKey(n)}'`);
      out.push(
        forbidden(
          fieldPath(),
          `cannot delete CloudProfile "${name}", because the following NamespacedCloudProfiles are still referencing it: ${list}; delete them first`,
        ),
      );
    }
    return out;
  }
  const namespace = ctx.request.namespace ?? ctx.oldObject?.metadata.namespace ?? '';
  const shoots = ctx.state
    .shootsUsing({ kind: 'NamespacedCloudProfile', namespace, name })
    .filter((s) => !isDeleting(s));
  if (shoots.length === 0) return [];
  const list = cappedList(shoots, objectKey, (s) => `'${objectKey(s)}'`);
  return [
    forbidden(
      fieldPath(),
      `cannot delete NamespacedCloudProfile '${namespace}/${name}', because the following Shoots are still referencing it: ${list}; move or delete them first`,
    ),
  ];
}

export const inUse = defineRule({
  id: 'IN-USE',
  kinds: ['CloudProfile', 'NamespacedCloudProfile'],
  operations: ['UPDATE', 'DELETE'],
  summary:
    'removing a version (or image) that Shoots or child NamespacedCloudProfiles still use; deleting a profile that is still referenced',
  needsState: needsUsers,
  check(ctx) {
    if (ctx.operation === 'DELETE') return checkDelete(ctx);
    const r = updateRemovals(ctx);
    if (!matters(ctx, r)) return []; // nothing removed: no reason to read the state
    return ctx.kind === 'CloudProfile' ? checkCloudProfileUpdate(ctx, r) : checkNamespacedUpdate(ctx, r);
  },
});
