// Who still uses a version or a profile, read through the ClusterState indexes, and how a denial
// names them. Objects with a deletionTimestamp never count: they are on their way out, and a
// Shoot that reaches a CloudProfile only through a deleting NamespacedCloudProfile goes with it.
import type { ClusterState, VersionUse } from '../api/cluster-state.js';
import type { NamespacedCloudProfile, ProfileRef } from '../api/types.js';
import { formatCount, listSome, smallest } from '../util/text.js';
import { objectKey } from '../api/types.js';

/** How many users a message names before it only counts the rest. */
export const LISTED_USERS = 10;

export function isDeleting(o: { metadata: { deletionTimestamp?: string } }): boolean {
  return o.metadata.deletionTimestamp !== undefined;
}

/** A profile reference Shoots use, and the child NamespacedCloudProfile it goes through, if any. */
export interface UserSource {
  ref: ProfileRef;
  via?: NamespacedCloudProfile;
}

export type SourcedUse = VersionUse & { ncp?: NamespacedCloudProfile };

/** The live NamespacedCloudProfiles whose parent is the CloudProfile `name`. */
export function liveChildren(state: ClusterState, name: string): NamespacedCloudProfile[] {
  return state.namespacedProfilesOf(name).filter((n) => n.spec.parent.kind === 'CloudProfile' && !isDeleting(n));
}

/** The CloudProfile itself and each live child NamespacedCloudProfile (its Shoots sit in its namespace). */
export function sourcesOfCloudProfile(name: string, children: readonly NamespacedCloudProfile[]): UserSource[] {
  return [
    { ref: { kind: 'CloudProfile', name } },
    ...children.map((via): UserSource => ({
      ref: { kind: 'NamespacedCloudProfile', namespace: via.metadata.namespace, name: via.metadata.name },
      via,
    })),
  ];
}

/** The uses `lookup` finds on every source, without deleting Shoots. */
export function liveUses(sources: readonly UserSource[], lookup: (ref: ProfileRef) => VersionUse[]): SourcedUse[] {
  const out: SourcedUse[] = [];
  for (const source of sources) {
    for (const use of lookup(source.ref)) {
      if (!isDeleting(use.shoot)) out.push(source.via ? { ...use, ncp: source.via } : use);
    }
  }
  return out;
}

/** At most `LISTED_USERS` of the items named, smallest key first, the rest counted; text is built only for the named ones. */
export function cappedList<T>(items: readonly T[], key: (item: T) => string, text: (item: T) => string): string {
  const named = smallest(items, LISTED_USERS, key).map(text).join(', ');
  const rest = items.length - LISTED_USERS;
  return rest > 0 ? `${named} and ${formatCount(rest)} more (${formatCount(items.length)} in total)` : named;
}

/**
 * One entry per Shoot, in Gardener's words: `shoot 'ns/name'` for a control plane,
 * `… by worker "pool"` for worker pools, and the child NamespacedCloudProfile it goes through.
 */
export function describeShootUses(uses: readonly SourcedUse[]): string {
  const byShoot = new Map<string, { controlPlane: boolean; workers: Set<string>; via?: NamespacedCloudProfile }>();
  for (const use of uses) {
    const key = objectKey(use.shoot);
    let entry = byShoot.get(key);
    if (!entry)
      byShoot.set(key, (entry = { controlPlane: false, workers: new Set(), ...(use.ncp ? { via: use.ncp } : {}) }));
    if (use.via === 'control-plane') entry.controlPlane = true;
    else entry.workers.add(use.worker);
  }
  return cappedList(
    [...byShoot],
    ([key]) => key,
    ([key, e]) => {
      const workers = [...e.workers].sort();
      let text = `shoot '${key}'`;
      if (workers.length > 0) {
        const pools = `${workers.length === 1 ? 'worker' : 'workers'} ${listSome(
          workers.map((w) => `"${w}"`),
          5,
        )}`;
        text += e.controlPlane ? ` by its control plane and ${pools}` : ` by ${pools}`;
      }
      if (e.via) text += ` (via NamespacedCloudProfile '${objectKey(e.via)}')`;
      return text;
    },
  );
}
