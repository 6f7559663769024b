// adoptExisting: whether DEFAULT-LIFECYCLE takes over the plain versions a profile already has,
// and how many Shoots run each of them, so none expires at short notice.
import type { ClusterState } from '../../api/cluster-state.js';
import type { PolicyConfig } from '../policy-config.js';
import { parseDuration } from '../../gardener/duration.js';
import type { NamespacedCloudProfile } from '../../api/types.js';
import { liveChildren, sourcesOfCloudProfile } from '../../gardener/usage.js';

export interface AdoptionInput {
  config: PolicyConfig;
  /** Only an UPDATE has versions the profile already had. */
  update: boolean;
  profileName: string;
  lifecycleGate: boolean;
  state: ClusterState;
}

/**
 * Versions the stored object already had without a classification are the operator's, unless
 * adoptExisting hands them over. An adopted version that Shoots run gets at least adoptionNotice
 * before it expires, so its owners hear of it in time. Whether Shoots run it comes from the
 * cluster state; while that is not synced nothing is adopted (the versions stay as written and a
 * warning says so): adopting blind could expire versions in use at short notice, and waiting
 * costs nothing, because the next write adopts them.
 */
export interface Adoption {
  enabled: boolean;
  /** Adoption was asked for, but the state is not synced. */
  waiting: boolean;
  /** Least time an adopted version in use stays usable, in ms. */
  notice: number;
  /** Live Shoots that run a version of the list (`image` undefined: Kubernetes) and follow the parent's expiry. */
  shootsRunning(image: string | undefined, version: string): number;
  /** Versions left unadopted because the state was not synced. */
  skipped: string[];
}

export function adoptionOf(input: AdoptionInput): Adoption {
  const settings = input.config.defaulting.lifecycle;
  const wanted = settings.adoptExisting && input.update;
  const enabled = wanted && input.state.synced;
  return {
    enabled,
    notice: parseDuration(settings.adoptionNotice),
    shootsRunning: enabled ? shootCounter(input.state, input.profileName, input.lifecycleGate) : () => 0,
    waiting: wanted && !enabled,
    skipped: [],
  };
}

/**
 * Counts Shoots through the state's indexes: those on the CloudProfile and those on its live
 * child NamespacedCloudProfiles. With the gate off a child that overrides the version's
 * expirationDate keeps its own, so its Shoots are not forced by the one written here; with the
 * gate on the parent's lifecycle decides for every child.
 */
function shootCounter(
  state: ClusterState,
  name: string,
  lifecycleGate: boolean,
): (image: string | undefined, version: string) => number {
  const children = liveChildren(state, name);
  const sources = sourcesOfCloudProfile(name, children);
  const overridden = lifecycleGate ? undefined : overriddenVersions(children);
  return (image, version) => {
    let n = 0;
    for (const source of sources) {
      if (source.via && overridden?.get(source.via)?.has(versionKey(image, version))) continue;
      n +=
        image === undefined
          ? state.kubernetesVersionShootCount(source.ref, version)
          : state.machineImageVersionShootCount(source.ref, image, version);
    }
    return n;
  };
}

const versionKey = (image: string | undefined, version: string) => `${image ?? ''}\u0000${version}`;

function overriddenVersions(children: readonly NamespacedCloudProfile[]): Map<NamespacedCloudProfile, Set<string>> {
  const out = new Map<NamespacedCloudProfile, Set<string>>();
  for (const ncp of children) {
    const keys = new Set<string>();
    for (const v of ncp.spec.kubernetes?.versions ?? [])
      if (v.expirationDate !== undefined) keys.add(versionKey(undefined, v.version));
    for (const img of ncp.spec.machineImages ?? [])
      for (const v of img.versions ?? []) if (v.expirationDate !== undefined) keys.add(versionKey(img.name, v.version));
    out.set(ncp, keys);
  }
  return out;
}
