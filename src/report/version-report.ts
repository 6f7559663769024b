// What happens to a profile's versions, and when: per version its classification now, its next
// transition, its expiry, whether the defaulting policy manages it and how many Shoots use it;
// then what Gardener's maintenance does to the profile's Shoots, run by run, as the forecast's
// engine (src/gardener/forecast/) says: the same steps `version-policy forecast` lists. Pure: the
// profile, the cluster state, the forecast's chains and `now` in, the report out (`explain` prints it).
import type { ClusterState } from '../api/cluster-state.js';
import { type ForecastEvent } from '../gardener/forecast/index.js';
import { describeUse } from '../gardener/version-uses.js';
import { runWindowOf } from '../gardener/forecast/runs.js';
import type { UpdateStrategy } from '../gardener/update-path.js';
import type { ManagedVersions } from '../policy/defaulting/managed-annotation.js';
import { strategyOf } from '../gardener/update-path.js';
import type { Classification, CloudProfileSpec, ExpirableVersion, ProfileRef, Shoot } from '../api/types.js';
import { objectKey, profileRefKey } from '../api/types.js';
import type { ShootChain } from './step-marks.js';
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

/** A forecast step as `version-policy forecast --output json` writes it: instants as RFC 3339. */
export type EventJson = Omit<ForecastEvent, 'at' | 'windowEnd'> & { at: string; windowEnd: string };

/** One Shoot's steps, in the shape of an entry of `forecast --output json`'s `shoots`. */
export interface MaintenanceShoot {
  shoot: string;
  /** `CloudProfile/aws`, `NamespacedCloudProfile/garden-dev/aws-extended`. */
  profile: string;
  /** The window as Gardener reads it; `always (no timeWindow)` when the Shoot sets none. */
  window: string;
  events: EventJson[];
  /** As in `forecast --output json`: the late run's outcome of an uncertain window, where it differs. */
  otherwise?: EventJson[];
}

/** Gardener's maintenance of the profile's Shoots from now to `until`: every step, auto or forced, and every failure. */
export interface MaintenanceReport {
  until: string;
  /** When the fleet forecast the steps come from was made (the server's pages); null: made for this report. */
  madeAt: string | null;
  /** The Shoots with a step, in key order. */
  shoots: MaintenanceShoot[];
}

export interface ProfileReport {
  kind: ProfileRef['kind'];
  name: string;
  namespace: string | null;
  parent: string | null;
  kubernetes: VersionRow[];
  machineImages: ImageReport[];
  /** null while the server's first fleet forecast is being made. */
  maintenance: MaintenanceReport | null;
  /** The predicted failures, conclusion first. */
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
  /** The forecast of the profile's Shoots (chains.ts); null: not made yet. */
  maintenance: { until: number; madeAt: number | null; chains: readonly ShootChain[] } | null;
}

export function buildProfileReport(input: ReportInput): ProfileReport {
  const { ref, spec, state, now } = input;
  const maintenance = input.maintenance && maintenanceOf(input.maintenance, profileRefKey(ref));
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
    maintenance,
    warnings: input.maintenance ? failureWarnings(input.maintenance.chains) : [],
    notes: ref.kind === 'CloudProfile' ? uncountedNote(state, ref.name) : [],
  };
}

function maintenanceOf(m: NonNullable<ReportInput['maintenance']>, profile: string): MaintenanceReport {
  return {
    until: formatInstant(m.until),
    madeAt: m.madeAt === null ? null : formatInstant(m.madeAt),
    shoots: m.chains
      .filter((c) => c.events.length > 0)
      .map((c) => ({
        shoot: c.key,
        profile,
        window: runWindowOf(c.shoot).text,
        events: c.events.map(eventJson),
        ...(c.otherwise ? { otherwise: c.otherwise.map(eventJson) } : {}),
      })),
  };
}

export function eventJson(e: ForecastEvent): EventJson {
  return { ...e, at: formatInstant(e.at), windowEnd: formatInstant(e.windowEnd) };
}

/** Each predicted failure, soonest first: what fails, the Shoot, then why (a webhook cuts a warning at 256 characters). */
function failureWarnings(chains: readonly ShootChain[]): string[] {
  return chains
    .flatMap((c) => c.events.filter((e) => e.failure).map((e) => ({ shoot: c.key, e })))
    .sort((a, b) => a.e.at - b.e.at || (a.shoot < b.shoot ? -1 : a.shoot > b.shoot ? 1 : 0))
    .map(({ shoot, e }) => {
      const c = e.component;
      const what =
        c.kind === 'run'
          ? 'the run'
          : `${c.pool === undefined ? 'control plane' : `worker pool "${c.pool}"`}: ${describeUse({ kind: c.kind, version: e.from ?? '', ...(c.kind === 'machine-image' ? { image: c.image } : {}) })}`;
      return `${e.mode} update will fail at ${formatInstant(e.at)}: shoot '${shoot}' ${what}: ${e.failure!.message} (${e.trigger})`;
    });
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

/** Shoots being deleted are not counted. */
function live(shoot: Shoot): boolean {
  return !shoot.metadata.deletionTimestamp;
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
