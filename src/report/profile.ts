// One profile as `explain` and the `/profiles` pages see it: a CloudProfile as stored, or a
// NamespacedCloudProfile merged with its parent from the state, with the maintenance forecast of
// its Shoots (the engine's, src/gardener/forecast/), then reported on at `now`.
import type { ClusterState } from '../api/cluster-state.js';
import { managedVersions } from '../policy/defaulting/managed-annotation.js';
import { mergeNamespacedProfile } from '../gardener/merge.js';
import type { CloudProfile, CloudProfileSpec, NamespacedCloudProfile, ProfileRef, Shoot } from '../api/types.js';
import { profileRefKey } from '../api/types.js';
import { isDeleting } from '../gardener/usage.js';
import { chainsOf, chainsUntil, type MadeForecast } from './chains.js';
import { type ExtendedExpiry, extendedExpiries } from './extended.js';
import { objectKey } from '../api/types.js';
import type { ShootChain } from './step-marks.js';
import type { ProfileReport } from './version-report.js';
import { buildProfileReport } from './version-report.js';

export type Profile = CloudProfile | NamespacedCloudProfile;

/**
 * Where a profile's maintenance forecast comes from: made here for its Shoots up to `until`
 * (`explain`), taken from a fleet forecast made before (the server's, cut to `until` and to its
 * own horizon), or `pending` while the server's first one is being made.
 */
export type ForecastSource = { until: number; made?: MadeForecast } | 'pending';

export interface ExplainedProfile {
  /** The effective spec: what the report and the timelines are built from. */
  spec: CloudProfileSpec;
  report: ProfileReport;
  /** The Shoots on the profile, not being deleted. */
  shoots: Shoot[];
  /** Their maintenance, run by run, up to `forecast.until`: what the report's steps and the page's marks are. */
  chains: ShootChain[];
  /** The forecast's end, and when the fleet forecast it comes from was made; `pending` before the first. */
  forecast: { until: number; madeAt: number | null } | 'pending';
  /** A NamespacedCloudProfile's versions whose expiry it moves later than its parent's. */
  extended: ExtendedExpiry[];
}

/** A NamespacedCloudProfile whose parent CloudProfile the state does not hold: it cannot be merged. */
export class MissingParentError extends Error {
  override name = 'MissingParentError';
  constructor(
    readonly key: string,
    readonly parent: string,
  ) {
    super(`the parent CloudProfile "${parent}" of NamespacedCloudProfile '${key}' is not in the state`);
  }
}

export function explainProfile(
  profile: Profile,
  state: ClusterState,
  now: number,
  source: ForecastSource,
): ExplainedProfile {
  if (profile.kind === 'CloudProfile') {
    const spec = profile.spec;
    const ref = { kind: 'CloudProfile' as const, name: profile.metadata.name };
    return explained(ref, spec, state, now, source, managedVersions(profile), undefined, []);
  }
  const parentName = profile.spec.parent.name;
  const parent = profile.spec.parent.kind === 'CloudProfile' ? state.cloudProfile(parentName) : undefined;
  if (!parent) throw new MissingParentError(objectKey(profile), parentName);
  const spec = mergeNamespacedProfile(parent.spec, profile.spec);
  const ref = {
    kind: 'NamespacedCloudProfile' as const,
    namespace: profile.metadata.namespace,
    name: profile.metadata.name,
  };
  // The merged versions are the parent's (or NCP additions, which the defaulting never manages).
  const managed = managedVersions(parent);
  return explained(ref, spec, state, now, source, managed, parentName, extendedExpiries(parent.spec, spec));
}

function explained(
  ref: ProfileRef,
  spec: CloudProfileSpec,
  state: ClusterState,
  now: number,
  source: ForecastSource,
  managed: ReturnType<typeof managedVersions>,
  parent: string | undefined,
  extended: ExtendedExpiry[],
): ExplainedProfile {
  const shoots = state.shootsUsing(ref).filter((s) => !isDeleting(s));
  const { chains, forecast } = forecastOf(ref, spec, shoots, now, source);
  const report = buildProfileReport({
    ref,
    spec,
    ...(parent !== undefined ? { parent } : {}),
    state,
    now,
    managed,
    maintenance: forecast === 'pending' ? null : { ...forecast, chains },
  });
  return { spec, report, shoots, chains, forecast, extended };
}

function forecastOf(
  ref: ProfileRef,
  spec: CloudProfileSpec,
  shoots: readonly Shoot[],
  now: number,
  source: ForecastSource,
): Pick<ExplainedProfile, 'chains' | 'forecast'> {
  if (source === 'pending') return { chains: [], forecast: 'pending' };
  if (!source.made)
    return { chains: chainsOf(spec, shoots, now, source.until), forecast: { until: source.until, madeAt: null } };
  const until = Math.min(source.until, source.made.until);
  return {
    chains: chainsUntil(source.made.chains.get(profileRefKey(ref)) ?? [], until),
    forecast: { until, madeAt: source.made.at },
  };
}
