// `forecast --namespace NS --shoot NAME --profile NAME`: which Shoots to forecast. Each flag is
// repeatable (any of its values), the flags together narrow (all of them). A filter that picks no
// Shoot is an input error: an empty forecast would read as "nothing happens".
import type { ClusterState } from '../api/cluster-state.js';
import { effectiveProfileRef, type Shoot } from '../api/types.js';
import { staticState } from '../cluster/static-state.js';
import { UsageError } from './errors.js';

export interface ShootFilter {
  namespace?: string[];
  shoot?: string[];
  profile?: string[];
}

/** The state with only the Shoots the filter picks (every profile kept); the state itself without a filter. */
export function shootsPicked(state: ClusterState, filter: ShootFilter): ClusterState {
  const { namespace, shoot, profile } = filter;
  if (!namespace && !shoot && !profile) return state;
  const all = [...state.allShoots()];
  const picked = all.filter(
    (s) =>
      (!namespace || namespace.includes(s.metadata.namespace)) &&
      (!shoot || shoot.some((n) => n === s.metadata.name || n === `${s.metadata.namespace}/${s.metadata.name}`)) &&
      (!profile || profile.some((p) => onProfile(state, s, p))),
  );
  if (picked.length === 0) {
    const asked = [
      ...(namespace ?? []).map((n) => `--namespace ${n}`),
      ...(shoot ?? []).map((n) => `--shoot ${n}`),
      ...(profile ?? []).map((n) => `--profile ${n}`),
    ].join(' ');
    throw new UsageError(`no Shoot of the state matches ${asked} (the state has ${all.length} Shoots)`);
  }
  return staticState([...state.allProfiles(), ...picked]);
}

/** `aws`: on CloudProfile aws or on a NamespacedCloudProfile whose parent it is; `ns/name`: on that NamespacedCloudProfile. */
function onProfile(state: ClusterState, shoot: Shoot, wanted: string): boolean {
  const ref = effectiveProfileRef(shoot);
  if (!ref) return false;
  if (ref.kind === 'CloudProfile') return ref.name === wanted;
  if (wanted === `${ref.namespace}/${ref.name}`) return true;
  const parent = state.namespacedCloudProfile(ref.namespace, ref.name)?.spec.parent;
  return parent?.kind === 'CloudProfile' && parent.name === wanted;
}
