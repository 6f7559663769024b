// One profile as `explain` and the `/profiles` pages see it: a CloudProfile as stored, or a
// NamespacedCloudProfile merged with its parent from the state, then reported on at `now`.
import type { ClusterState } from '../api/cluster-state.js';
import { managedVersions } from '../policy/defaulting/managed-annotation.js';
import { mergeNamespacedProfile } from '../gardener/merge.js';
import type { CloudProfile, CloudProfileSpec, NamespacedCloudProfile, ProfileRef, Shoot } from '../api/types.js';
import { isDeleting } from '../gardener/usage.js';
import { type ExtendedExpiry, extendedExpiries } from './extended.js';
import { objectKey } from '../api/types.js';
import type { ProfileReport } from './version-report.js';
import { buildProfileReport } from './version-report.js';

export type Profile = CloudProfile | NamespacedCloudProfile;

export interface ExplainedProfile {
  /** The effective spec: what the report and the timelines are built from. */
  spec: CloudProfileSpec;
  report: ProfileReport;
  /** The Shoots on the profile, not being deleted: what the page's forecast runs over. */
  shoots: Shoot[];
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

export function explainProfile(profile: Profile, state: ClusterState, now: number): ExplainedProfile {
  if (profile.kind === 'CloudProfile') {
    const spec = profile.spec;
    const ref = { kind: 'CloudProfile' as const, name: profile.metadata.name };
    return {
      spec,
      report: buildProfileReport({ ref, spec, state, now, managed: managedVersions(profile) }),
      shoots: liveShoots(state, ref),
      extended: [],
    };
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
  const report = buildProfileReport({
    ref,
    spec,
    parent: parentName,
    state,
    now,
    // The merged versions are the parent's (or NCP additions, which the defaulting never manages).
    managed: managedVersions(parent),
  });
  return { spec, report, shoots: liveShoots(state, ref), extended: extendedExpiries(parent.spec, spec) };
}

function liveShoots(state: ClusterState, ref: ProfileRef): Shoot[] {
  return state.shootsUsing(ref).filter((s) => !isDeleting(s));
}
