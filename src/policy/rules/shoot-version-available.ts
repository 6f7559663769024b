// SHOOT-VERSION-AVAILABLE: a Shoot's versions must be offered by its effective profile (merged for
// a NamespacedCloudProfile). On CREATE and for a new worker pool every version must be active; on
// UPDATE only a changed version is judged: it must exist and not be unavailable, and it may be
// expired only where Gardener's forced updates need it: a worker pool moving to the control
// plane's current version, or a machine image that does not go below the pool's current one.
import type { ClusterState } from '../../api/cluster-state.js';
import { fieldPath, type FieldViolation, invalid, notFound, notSupported, required } from '../../api/field.js';
import { defineRule, WRITES } from '../rule.js';
import type {
  CloudProfileSpec,
  ExpirableVersion,
  MachineImageVersion,
  ProfileRef,
  Shoot,
  Worker,
} from '../../api/types.js';
import { effectiveProfileRef } from '../../api/types.js';
import {
  classificationAt,
  compareAs,
  expiryInstant,
  formatInstant,
  kubeletConstraint,
  nextTransition,
} from '../../gardener/versions.js';
import type { ProfileEntries } from '../../gardener/version-uses.js';
import { profileEntries } from '../../gardener/version-uses.js';
import { listSome } from '../../util/text.js';
import {
  deletingUpdate,
  kubeletVersionOf,
  profileLabel,
  SHOOT,
  shootName,
  type ShootWrite,
  validChoices,
  workerPath,
  workersByName,
  workersOf,
} from './shoot-changes.js';

export const shootVersionAvailable = defineRule({
  id: 'SHOOT-VERSION-AVAILABLE',
  kinds: SHOOT,
  operations: WRITES,
  summary: "a Kubernetes or machine-image version the Shoot's profile does not offer",
  // The profile comes from the cluster state: without a synced state nothing can be judged.
  needsState: (ctx) => !deletingUpdate(ctx),
  check: (ctx) => (deletingUpdate(ctx) ? [] : checkShoot(ctx)),
});

// Built only for a violation: nearly every pool has none.
const imageField = (i: number) => workerPath(i).child('machine', 'image');

interface ShootContext {
  shoot: Shoot;
  old: Shoot | undefined;
  oldPools: ReadonlyMap<string, Worker>;
  profile: CloudProfileSpec;
  /** The profile's entries by list and version, built once per review: each pool is a lookup. */
  entries: ProfileEntries;
  /** The valid choices of a version list, built once per list and only for a denial. */
  choices(versions: readonly ExpirableVersion[]): string;
  label: string;
  now: number;
}

function checkShoot(ctx: ShootWrite): FieldViolation[] {
  const shoot = ctx.object;
  const ref = effectiveProfileRef(shoot);
  if (!ref) return [noProfile(shoot)];
  if (!ctx.profile) return [missingProfile(ctx.state, shoot, ref)];
  const old = ctx.operation === 'UPDATE' ? ctx.oldObject : undefined;
  const choices = new Map<readonly ExpirableVersion[], string>();
  const j: ShootContext = {
    shoot,
    old,
    oldPools: workersByName(old),
    profile: ctx.profile,
    entries: ctx.entries ?? profileEntries(ctx.profile),
    choices(versions) {
      let text = choices.get(versions);
      if (text === undefined) choices.set(versions, (text = validChoices(versions, ctx.now)));
      return text;
    },
    label: profileLabel(ref),
    now: ctx.now,
  };
  const out = controlPlane(j);
  workersOf(shoot).forEach((w, i) => {
    for (const v of worker(j, w, i)) out.push(v);
  });
  return out;
}

function controlPlane(j: ShootContext): FieldViolation[] {
  const version = j.shoot.spec.kubernetes.version;
  if (j.old && j.old.spec.kubernetes.version === version) return [];
  const problem = versionProblem(j.entries.entry({ kind: 'kubernetes', version }), version, j.label, j.now);
  if (!problem) return [];
  return [
    notSupported(
      fieldPath('spec', 'kubernetes', 'version'),
      `unsupported kubernetes version "${version}" (${problem.text}); supported values: ${j.choices(j.profile.kubernetes.versions)}`,
    ),
  ];
}

function worker(j: ShootContext, w: Worker, i: number): FieldViolation[] {
  const oldW = j.oldPools.get(w.name);
  return [...workerKubernetes(j, w, i, oldW), ...workerImage(j, w, i, oldW), ...kubeletFit(j, w, i, oldW)];
}

function workerKubernetes(j: ShootContext, w: Worker, i: number, oldW: Worker | undefined): FieldViolation[] {
  const version = w.kubernetes?.version;
  if (!version) return [];
  if (j.old && oldW && kubeletVersionOf(j.old, oldW) === version) return [];
  const problem = versionProblem(j.entries.entry({ kind: 'kubernetes', version }), version, j.label, j.now);
  if (!problem) return [];
  // An existing pool may follow the control plane onto its current version even when expired.
  if (problem.classification === 'expired' && j.old && oldW && version === j.old.spec.kubernetes.version) return [];
  return [
    notSupported(
      workerPath(i).child('kubernetes', 'version'),
      `worker pool "${w.name}": unsupported kubernetes version "${version}" (${problem.text}); supported values: ${j.choices(j.profile.kubernetes.versions)}`,
    ),
  ];
}

function workerImage(j: ShootContext, w: Worker, i: number, oldW: Worker | undefined): FieldViolation[] {
  const img = w.machine?.image;
  // Without a version Gardener's defaulting picks one; there is nothing to judge yet.
  if (!img || img.version === undefined) return [];
  const oldImg = oldW?.machine?.image;
  const sameImage = oldImg !== undefined && oldImg.name === img.name;
  if (sameImage && oldImg.version === img.version) return [];
  const image = j.entries.image(img.name);
  if (!image) {
    const names =
      listSome(
        j.profile.machineImages.map((m) => `"${m.name}"`),
        10,
      ) || 'none';
    return [
      notSupported(
        imageField(i),
        `worker pool "${w.name}": machine image "${img.name}" is not in ${j.label}, supported machine images are: ${names}`,
      ),
    ];
  }
  const problem = versionProblem(
    j.entries.entry({ kind: 'machine-image', image: img.name, version: img.version }),
    img.version,
    j.label,
    j.now,
  );
  if (!problem) return [];
  // Gardener's `CompareVersions(new, "<", old)`: normalised (`1.2.3-foo` is `1.2.3`); unreadable is no downgrade.
  const notLower = sameImage && oldImg.version !== undefined && !compareAs(img.version, '<', oldImg.version);
  if (problem.classification === 'expired' && notLower) return [];
  const rule =
    problem.classification === 'expired' && sameImage && oldImg.version !== undefined
      ? ` (an expired version is accepted only when it is not lower than the current "${oldImg.version}")`
      : '';
  return [
    notSupported(
      imageField(i),
      `worker pool "${w.name}": machine image version '${img.name}:${img.version}' is ${problem.text}${rule}, supported machine image versions are: ${j.choices(image.versions)}`,
    ),
  ];
}

/** Gardener filters image versions by `kubeletVersionConstraint`; judged when the image or the kubelet changes. */
function kubeletFit(j: ShootContext, w: Worker, i: number, oldW: Worker | undefined): FieldViolation[] {
  const img = w.machine?.image;
  if (!img?.version) return [];
  const kubelet = kubeletVersionOf(j.shoot, w);
  if (j.old && oldW) {
    const oldImg = oldW.machine?.image;
    if (oldImg?.name === img.name && oldImg.version === img.version && kubeletVersionOf(j.old, oldW) === kubelet)
      return [];
  }
  const entry: MachineImageVersion | undefined = j.entries.entry({
    kind: 'machine-image',
    image: img.name,
    version: img.version,
  });
  const constraint = entry?.kubeletVersionConstraint;
  if (constraint === undefined) return [];
  const verdict = kubeletConstraint(constraint, kubelet);
  if (verdict.meets) return [];
  const why = verdict.reason ? ` (${verdict.reason}: the webhook cannot judge it)` : '';
  return [
    invalid(
      imageField(i),
      `worker pool "${w.name}": machine image version '${img.name}:${img.version}' does not support kubelet version "${kubelet}", supported kubelet versions by this machine image version: '${constraint}'${why}`,
    ),
  ];
}

interface Problem {
  classification: 'missing' | 'unavailable' | 'expired';
  text: string;
}

/** Why `version` (its profile entry, if any) cannot be chosen now, or undefined when it is active. */
function versionProblem(
  entry: ExpirableVersion | undefined,
  version: string,
  label: string,
  now: number,
): Problem | undefined {
  if (!entry) return { classification: 'missing', text: `not in ${label}` };
  const c = classificationAt(entry, now);
  if (c === 'unavailable') {
    const from = nextTransition(entry, now);
    return {
      classification: 'unavailable',
      text: `unavailable in ${label}${from ? ` until ${formatInstant(from.at)}` : ''}`,
    };
  }
  if (c === 'expired') {
    const since = expiryInstant(entry);
    return {
      classification: 'expired',
      text: `expired in ${label}${since !== undefined && Number.isFinite(since) ? ` since ${formatInstant(since)}` : ''}`,
    };
  }
  return undefined;
}

function noProfile(shoot: Shoot): FieldViolation {
  const kind = shoot.spec.cloudProfile?.kind;
  if (shoot.spec.cloudProfile?.name && kind) {
    return notSupported(
      fieldPath('spec', 'cloudProfile', 'kind'),
      `unsupported value "${kind}" for the cloud profile kind of shoot ${shootName(shoot)}; supported values: "CloudProfile", "NamespacedCloudProfile"`,
    );
  }
  return required(
    fieldPath('spec', 'cloudProfile'),
    `shoot ${shootName(shoot)} references no cloud profile: set spec.cloudProfile {kind, name}`,
  );
}

function missingProfile(state: ClusterState, shoot: Shoot, ref: ProfileRef): FieldViolation {
  const by = `referenced by shoot ${shootName(shoot)}`;
  if (ref.kind === 'CloudProfile') {
    const field = shoot.spec.cloudProfile?.name
      ? fieldPath('spec', 'cloudProfile', 'name')
      : fieldPath('spec', 'cloudProfileName');
    return notFound(field, `${profileLabel(ref)} ${by} does not exist`);
  }
  const ncp = state.namespacedCloudProfile(ref.namespace, ref.name);
  if (!ncp) return notFound(fieldPath('spec', 'cloudProfile', 'name'), `${profileLabel(ref)} ${by} does not exist`);
  const parent = ncp.spec.parent;
  if (parent.kind !== 'CloudProfile') {
    return invalid(
      fieldPath('spec', 'cloudProfile', 'name'),
      `${profileLabel(ref)} ${by} has a parent of kind "${parent.kind}"; only CloudProfile is supported`,
    );
  }
  return notFound(
    fieldPath('spec', 'cloudProfile', 'name'),
    `parent CloudProfile "${parent.name}" of ${profileLabel(ref)} (${by}) does not exist`,
  );
}
