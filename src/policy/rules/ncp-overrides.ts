// NCP-OVERRIDES: what a NamespacedCloudProfile may say about its parent's versions (docs/rules.md;
// Gardener's namespacedcloudprofile.go validation and admission). An override extends a parent
// version's expirationDate and nothing else: merge.ts takes only that field, so anything more
// would be silently ignored. The merged profile's own validity is judged by K8S-VERSIONS,
// LATEST-NO-EXPIRY, SUPPORTED-PER-MINOR and MACHINE-IMAGES; the one merged conflict they do not
// cover (a parent lifecycle combined with an override's expirationDate) is judged here.
import {
  type FieldPath,
  fieldPath,
  type FieldViolation,
  forbidden,
  invalid,
  notFound,
  notSupported,
  required,
} from '../../api/field.js';
import type { Judged } from '../rule.js';
import { defineRule, WRITES } from '../rule.js';
import type {
  CloudProfile,
  MachineImage,
  MachineImageVersion,
  NamespacedCloudProfile,
  NamespacedMachineImage,
} from '../../api/types.js';
import { hasLifecycle } from '../../gardener/versions.js';
import { unchangedByUpdate } from './version-lists.js';

type NcpWrite = Judged<'NamespacedCloudProfile', 'CREATE' | 'UPDATE'>;

const isSet = (x: unknown) => x !== undefined && x !== null;

const PARENT = fieldPath('spec', 'parent');
const KUBERNETES_VERSIONS = fieldPath('spec', 'kubernetes', 'versions');
const MACHINE_IMAGES = fieldPath('spec', 'machineImages');

/**
 * Gardener skips the check for an UPDATE that leaves the spec alone on an object being deleted,
 * so finalizers can be removed even after the parent is gone.
 */
function skipped(ctx: NcpWrite): boolean {
  return ctx.object.metadata.deletionTimestamp !== undefined && unchangedByUpdate(ctx).spec;
}

function checkParent(
  ncp: NamespacedCloudProfile,
  old: NamespacedCloudProfile | undefined,
  ctx: NcpWrite,
): { out: FieldViolation[]; parent?: CloudProfile } {
  const out: FieldViolation[] = [];
  const { kind, name } = ncp.spec.parent;
  if (kind !== 'CloudProfile')
    out.push(
      notSupported(PARENT.child('kind'), `parent kind "${kind}" is not supported: supported values: "CloudProfile"`),
    );
  if (!name) out.push(required(PARENT.child('name'), 'must provide a parent name'));
  if (old && (old.spec.parent.kind !== kind || old.spec.parent.name !== name)) {
    out.push(
      invalid(
        PARENT,
        `field is immutable: the parent cannot change from ${old.spec.parent.kind} "${old.spec.parent.name}" to ${kind} "${name}"; create a new NamespacedCloudProfile instead`,
      ),
    );
  }
  if (kind !== 'CloudProfile' || !name) return { out };
  const parent = ctx.state.cloudProfile(name);
  if (!parent)
    out.push(
      notFound(
        PARENT.child('name'),
        `parent CloudProfile "${name}" could not be found; create it first or name an existing CloudProfile`,
      ),
    );
  return parent ? { out, parent } : { out };
}

function checkKubernetes(ncp: NamespacedCloudProfile, parent: CloudProfile | undefined): FieldViolation[] {
  const out: FieldViolation[] = [];
  const parentVersions = new Map((parent?.spec.kubernetes.versions ?? []).map((x) => [x.version, x]));
  (ncp.spec.kubernetes?.versions ?? []).forEach((o, i) => {
    const path = KUBERNETES_VERSIONS.index(i);
    if (isSet(o.classification))
      out.push(
        forbidden(
          path.child('classification'),
          'must not provide a classification to a Kubernetes version in NamespacedCloudProfile',
        ),
      );
    if (isSet(o.lifecycle)) {
      out.push(
        forbidden(
          path.child('lifecycle'),
          `must not provide a lifecycle to Kubernetes version "${o.version}" in NamespacedCloudProfile: an override only extends the parent's expirationDate`,
        ),
      );
    }
    if (!isSet(o.expirationDate))
      out.push(
        required(
          path.child('expirationDate'),
          `specified version '${o.version}' does not set expiration date; an override exists to extend it`,
        ),
      );
    if (!parent) return;
    const p = parentVersions.get(o.version);
    if (!p) {
      out.push(
        invalid(
          path.child('version'),
          `invalid kubernetes version specified: '${o.version}' does not exist in parent CloudProfile "${parent.metadata.name}" and thus cannot be overridden`,
        ),
      );
    } else if (hasLifecycle(p)) {
      out.push(lifecycleParent(path, `Kubernetes version "${o.version}"`, parent));
    }
  });
  return out;
}

/** The merged entry would carry the parent's lifecycle and the override's expirationDate, which no version may combine. */
function lifecycleParent(path: FieldPath, what: string, parent: CloudProfile): FieldViolation {
  return forbidden(
    path.child('expirationDate'),
    `cannot extend the expiration date of ${what}: the parent CloudProfile "${parent.metadata.name}" gives it a lifecycle, and an expirationDate cannot be combined with a lifecycle; ask for a later expired stage in the parent instead`,
  );
}

/** Gardener's message for each field an override of a parent image version must not set. */
const FORBIDDEN_IMAGE_FIELDS: ReadonlyArray<[keyof MachineImageVersion & string, string]> = [
  ['classification', 'must not provide a classification to an extended machine image in NamespacedCloudProfile'],
  ['lifecycle', 'must not provide a lifecycle to an extended machine image in NamespacedCloudProfile'],
  ['cri', 'must not provide a cri to an extended machine image in NamespacedCloudProfile'],
  ['architectures', 'must not provide an architecture to an extended machine image in NamespacedCloudProfile'],
  [
    'kubeletVersionConstraint',
    'must not provide a kubelet version constraint to an extended machine image in NamespacedCloudProfile',
  ],
  ['inPlaceUpdates', 'must not provide inPlaceUpdates to an extended machine image in NamespacedCloudProfile'],
  ['capabilityFlavors', 'must not provide capabilities to an extended machine image in NamespacedCloudProfile'],
];

/** The entry as JSON with sorted keys and without its expirationDate, for an order-blind comparison. */
function withoutExpiration(x: MachineImageVersion): string {
  const { expirationDate: _ignored, ...rest } = x;
  return JSON.stringify(rest, (_k, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)))
      : value,
  );
}

function checkImages(
  ncp: NamespacedCloudProfile,
  old: NamespacedCloudProfile | undefined,
  parent: CloudProfile,
): FieldViolation[] {
  const out: FieldViolation[] = [];
  const parentImages = new Map(parent.spec.machineImages.map((img) => [img.name, img]));
  const oldImages = new Map((old?.spec.machineImages ?? []).map((img) => [img.name, img]));
  (ncp.spec.machineImages ?? []).forEach((img, j) => {
    const parentImage = parentImages.get(img.name);
    if (!parentImage) return; // an image of its own: MACHINE-IMAGES judges it
    const oldImage = oldImages.get(img.name);
    if (oldImage && (oldImage.updateStrategy ?? '') !== (img.updateStrategy ?? '')) {
      out.push(
        forbidden(
          MACHINE_IMAGES.index(j).child('updateStrategy'),
          `cannot update the machine image update strategy of "${img.name}", as this image is also defined by the parent CloudProfile "${parent.metadata.name}"; it was "${oldImage.updateStrategy ?? ''}"`,
        ),
      );
    }
    for (const problem of checkImageVersions(img, j, parentImage, oldImage, parent)) out.push(problem);
  });
  return out;
}

function checkImageVersions(
  img: NamespacedMachineImage,
  j: number,
  parentImage: MachineImage,
  oldImage: NamespacedMachineImage | undefined,
  parent: CloudProfile,
): FieldViolation[] {
  const out: FieldViolation[] = [];
  const parentVersions = new Map((parentImage.versions ?? []).map((x) => [x.version, x]));
  const oldVersions = new Map((oldImage?.versions ?? []).map((x) => [x.version, x]));
  (img.versions ?? []).forEach((o, i) => {
    const p = parentVersions.get(o.version);
    if (!p) return; // a version of its own: MACHINE-IMAGES judges it
    const path = MACHINE_IMAGES.index(j).child('versions').index(i);
    const before = oldVersions.get(o.version);
    if (before) {
      // An override that exists may have been an own version before the parent added it; only
      // its expirationDate may change from now on.
      if (withoutExpiration(before) !== withoutExpiration(o)) {
        out.push(
          forbidden(
            path,
            `cannot update the machine image version spec (except for the expiration date) of "${img.name}@${o.version}", as this version has been added to the parent CloudProfile by now`,
          ),
        );
      }
    } else {
      for (const [field, message] of FORBIDDEN_IMAGE_FIELDS) {
        if (isSet(o[field]))
          out.push(
            forbidden(
              path.child(field),
              `${message} ("${img.name}@${o.version}"): an override of a parent version may only set expirationDate`,
            ),
          );
      }
      if (!isSet(o.expirationDate))
        out.push(
          required(
            path.child('expirationDate'),
            `expiration date for version "${o.version}" must be set; an override of a parent version only extends its expiration date`,
          ),
        );
    }
    if (isSet(o.expirationDate) && hasLifecycle(p))
      out.push(lifecycleParent(path, `machine image version "${img.name}@${o.version}"`, parent));
  });
  return out;
}

export const ncpOverrides = defineRule({
  id: 'NCP-OVERRIDES',
  kinds: ['NamespacedCloudProfile'],
  operations: WRITES,
  summary:
    'overrides Gardener refuses: of a version the parent lacks, without `expirationDate`, with more than `expirationDate`',
  needsState: (ctx) => !skipped(ctx),
  check(ctx) {
    if (skipped(ctx)) return [];
    const ncp = ctx.object;
    const old = ctx.operation === 'UPDATE' ? ctx.oldObject : undefined;
    const { out, parent } = checkParent(ncp, old, ctx);
    const found = [...out, ...checkKubernetes(ncp, parent)];
    return parent ? [...found, ...checkImages(ncp, old, parent)] : found;
  },
});
