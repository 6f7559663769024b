// What happens to a profile's versions, and when: per version its classification now, its next
// transition, its expiry, whether the defaulting policy manages it and how many Shoots use it;
// then the Shoots that will be forcibly updated, when and to which version. Pure: the profile,
// the cluster state and `now` in, the report out (`explain` prints it).
import type { ClusterState } from '../api/cluster-state.js';
import type { ShootVersionUse } from '../gardener/forced-update.js';
import { describeUse, ForcedUpdatePlanner, placeOf, versionUsesOf } from '../gardener/forced-update.js';
import type { TimeWindow } from '../gardener/maintenance.js';
import type { UpdateStrategy } from '../gardener/update-path.js';
import type { ManagedVersions } from '../policy/defaulting/managed-annotation.js';
import { strategyOf } from '../gardener/update-path.js';
import type { Classification, CloudProfileSpec, ExpirableVersion, ProfileRef, Shoot } from '../api/types.js';
import { objectKey } from '../api/types.js';
import {
  classificationAt,
  compareVersions,
  expiryInstant,
  formatInstant,
  nextTransition,
} from '../gardener/versions.js';

export interface VersionRow {
  version: string;
  classification: Classification;
  next: { classification: Classification; at: string } | null;
  /** null: no expiry, or expired from the start. */
  expiresAt: string | null;
  managed: boolean;
  /** Shoots (not being deleted) that use the version anywhere. */
  shoots: number;
}

export interface ImageReport {
  name: string;
  updateStrategy: UpdateStrategy;
  versions: VersionRow[];
}

export interface ForcedUpdateRow {
  shoot: string;
  /** `control plane` or `worker pool "<name>"`. */
  place: string;
  kind: 'kubernetes' | 'machine-image';
  image: string | null;
  from: string;
  /** null: no version to update to; the maintenance will fail. */
  to: string | null;
  /** The target is expired too: the next window updates again. */
  toExpired: boolean;
  /** Why there is no target. */
  problem: string | null;
  /** null when the version has been expired from the start. */
  expiresAt: string | null;
  maintenanceWindow: TimeWindow | null;
  /** The maintenance window the update runs in, when the Shoot sets one. */
  at: string | null;
}

export interface ProfileReport {
  kind: ProfileRef['kind'];
  name: string;
  namespace: string | null;
  parent: string | null;
  kubernetes: VersionRow[];
  machineImages: ImageReport[];
  forcedUpdates: ForcedUpdateRow[];
  warnings: string[];
  notes: string[];
}

export interface ReportInput {
  ref: ProfileRef;
  /** The effective spec: the CloudProfile's, or a NamespacedCloudProfile merged with its parent. */
  spec: CloudProfileSpec;
  parent?: string;
  state: ClusterState;
  now: number;
  managed: ManagedVersions;
}

export function buildProfileReport(input: ReportInput): ProfileReport {
  const { ref, spec, state, now } = input;
  const shoots = state.shootsUsing(ref).filter(live).sort(byKey);
  const planner = new ForcedUpdatePlanner(spec);
  const forcedUpdates: ForcedUpdateRow[] = [];
  for (const s of shoots) for (const use of versionUsesOf(s)) forcedUpdateRow(forcedUpdates, planner, s, use, now);
  forcedUpdates.sort(
    (a, b) => whenOf(a, now) - whenOf(b, now) || a.shoot.localeCompare(b.shoot) || a.place.localeCompare(b.place),
  );
  return {
    kind: ref.kind,
    name: ref.name,
    namespace: ref.kind === 'NamespacedCloudProfile' ? ref.namespace : null,
    parent: input.parent ?? null,
    kubernetes: rows(spec.kubernetes.versions, now, input.managed.kubernetes, (v) =>
      state.kubernetesVersionShootCount(ref, v),
    ),
    machineImages: spec.machineImages.map((image) => ({
      name: image.name,
      updateStrategy: strategyOf(image),
      versions: rows(image.versions, now, input.managed.machineImages.get(image.name) ?? NONE, (v) =>
        state.machineImageVersionShootCount(ref, image.name, v),
      ),
    })),
    forcedUpdates,
    warnings: forcedUpdates.filter((f) => f.to === null).map((f) => failureWarning(f, now)),
    notes: ref.kind === 'CloudProfile' ? uncountedNote(state, ref.name) : [],
  };
}

const NONE: ReadonlySet<string> = new Set();

function rows(
  versions: readonly ExpirableVersion[],
  now: number,
  managed: ReadonlySet<string>,
  users: (version: string) => number,
): VersionRow[] {
  return [...versions]
    .sort((a, b) => compareVersions(b.version, a.version))
    .map((v) => {
      const next = nextTransition(v, now);
      const expiry = expiryInstant(v);
      return {
        version: v.version,
        classification: classificationAt(v, now),
        next: next ? { classification: next.classification, at: formatInstant(next.at) } : null,
        expiresAt: expiry !== undefined && Number.isFinite(expiry) ? formatInstant(expiry) : null,
        managed: managed.has(v.version),
        shoots: users(v.version),
      };
    });
}

function forcedUpdateRow(
  out: ForcedUpdateRow[],
  planner: ForcedUpdatePlanner,
  shoot: Shoot,
  use: ShootVersionUse,
  now: number,
): void {
  const plan = planner.plan(shoot, use, now);
  if (!plan) return;
  const u = plan.update;
  out.push({
    shoot: objectKey(shoot),
    place: placeOf(use),
    kind: use.kind,
    image: use.kind === 'machine-image' ? use.image : null,
    from: use.version,
    to: u.found ? u.version : null,
    toExpired: u.found && u.expired,
    problem: u.found ? null : u.reason,
    expiresAt: Number.isFinite(plan.expiresAt) ? formatInstant(plan.expiresAt) : null,
    maintenanceWindow: plan.window ?? null,
    at: plan.at !== undefined ? formatInstant(plan.at) : null,
  });
}

/** When the update runs, for ordering: the window if known, else the expiry (or now, if passed). */
function whenOf(f: ForcedUpdateRow, now: number): number {
  if (f.at) return Date.parse(f.at);
  return f.expiresAt ? Math.max(Date.parse(f.expiresAt), now) : now;
}

function failureWarning(f: ForcedUpdateRow, now: number): string {
  const use = describeUse({ kind: f.kind, version: f.from, ...(f.image ? { image: f.image } : {}) });
  const expiry =
    f.expiresAt === null
      ? 'is expired'
      : Date.parse(f.expiresAt) < now
        ? `expired at ${f.expiresAt}`
        : `expires at ${f.expiresAt}`;
  // The conclusion and the Shoot first: the webhook's budget cuts a warning at 256 characters, and the reason is what may go.
  return `forced update will fail: shoot '${f.shoot}' ${f.place}: ${use} ${expiry} and no version to update to exists (${f.problem})`;
}

/** Shoots being deleted are neither counted nor updated. */
function live(shoot: Shoot): boolean {
  return !shoot.metadata.deletionTimestamp;
}

function byKey(a: Shoot, b: Shoot): number {
  return objectKey(a).localeCompare(objectKey(b));
}

/** Shoots on child NamespacedCloudProfiles see their own expiries, so they are explained there. */
function uncountedNote(state: ClusterState, parent: string): string[] {
  return state
    .namespacedProfilesOf(parent)
    .map((ncp) => ({
      ncp,
      count: state
        .shootsUsing({ kind: 'NamespacedCloudProfile', namespace: ncp.metadata.namespace, name: ncp.metadata.name })
        .filter(live).length,
    }))
    .filter((x) => x.count > 0)
    .sort((a, b) => objectKey(a.ncp).localeCompare(objectKey(b.ncp)))
    .map(
      ({ ncp, count }) =>
        `${count} shoot${count === 1 ? '' : 's'} on NamespacedCloudProfile '${objectKey(ncp)}' ${count === 1 ? 'is' : 'are'} not counted here: explain that profile to see ${count === 1 ? 'it' : 'them'}`,
    );
}

/** What `explain` prints: one report per profile of the file, at one instant. */
export interface ExplainReport {
  now: string;
  profiles: ProfileReport[];
}
