// One profile as `explain` and the `/profiles` pages see it: a CloudProfile as stored, or a
// NamespacedCloudProfile merged with its parent from the state, then reported on at `now`.
import type { ClusterState } from '../policy/cluster-state.js';
import { managedVersions } from '../policy/defaulting/managed-annotation.js';
import { mergeNamespacedProfile } from '../policy/merge.js';
import type { CloudProfile, CloudProfileSpec, NamespacedCloudProfile } from '../policy/types.js';
import { objectKey } from '../policy/types.js';
import type { ProfileReport } from '../policy/version-report.js';
import { buildProfileReport } from '../policy/version-report.js';

export type Profile = CloudProfile | NamespacedCloudProfile;

export interface ExplainedProfile {
  /** The effective spec: what the report and the timelines are built from. */
  spec: CloudProfileSpec;
  report: ProfileReport;
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
    return { spec, report: buildProfileReport({ ref: { kind: 'CloudProfile', name: profile.metadata.name }, spec, state, now, managed: managedVersions(profile) }) };
  }
  const parentName = profile.spec.parent.name;
  const parent = profile.spec.parent.kind === 'CloudProfile' ? state.cloudProfile(parentName) : undefined;
  if (!parent) throw new MissingParentError(objectKey(profile), parentName);
  const spec = mergeNamespacedProfile(parent.spec, profile.spec);
  const report = buildProfileReport({
    ref: { kind: 'NamespacedCloudProfile', namespace: profile.metadata.namespace, name: profile.metadata.name },
    spec,
    parent: parentName,
    state,
    now,
    // The merged versions are the parent's (or NCP additions, which the defaulting never manages).
    managed: managedVersions(parent),
  });
  return { spec, report };
}
