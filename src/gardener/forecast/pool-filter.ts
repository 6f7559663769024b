// Which image versions a worker pool may move to (maint/helper/helper.go, FilterMachineImageVersions):
// architecture, CRI, kubelet version constraint and in-place minimum, in that order. Capability
// flavors are not modelled beyond their architecture values (docs/forecast.md says so).
import type { CloudProfileSpec, MachineImageVersion, Worker } from '../../api/types.js';
import { compareAs, kubeletConstraint } from '../versions.js';

export type FilterName = 'architecture' | 'cri' | 'kubelet' | 'in-place';

export interface PoolFacts {
  architecture: string;
  cri: string;
  containerRuntimes: string[];
  inPlace: boolean;
}

/** What the filters read of a pool: `machine.architecture`, else its machine type's, else amd64 (Gardener's default). */
export function poolFacts(worker: Worker, profile: CloudProfileSpec): PoolFacts {
  const machine = worker.machine as { type?: string; architecture?: string } | undefined;
  const type = profile.machineTypes?.find((m) => m.name === machine?.type);
  const cri = worker.cri as { name?: string; containerRuntimes?: Array<{ type?: string }> } | undefined;
  return {
    architecture: machine?.architecture ?? type?.architecture ?? 'amd64',
    // A nil CRI counts as containerd (maint/helper/helper.go, filterForCRI).
    cri: cri?.name ?? 'containerd',
    containerRuntimes: (cri?.containerRuntimes ?? []).map((r) => r.type ?? '').filter((t) => t !== ''),
    // In-place pools need inPlaceUpdates support (maint/helper/helper.go, filterForInPlaceUpdateConstraint).
    inPlace: worker.updateStrategy === 'AutoInPlaceUpdate' || worker.updateStrategy === 'ManualInPlaceUpdate',
  };
}

/** The first filter a version fails for this pool, or undefined when it is a candidate. */
export function failedFilter(
  v: MachineImageVersion,
  pool: PoolFacts,
  kubelet: string,
  current: string,
): FilterName | undefined {
  if (!architecturesOf(v).includes(pool.architecture)) return 'architecture';
  // CloudProfile defaulting gives a version without `cri` containerd (maint/helper/helper.go, filterForCRI).
  const cris = v.cri ?? [{ name: 'containerd' }];
  const cri = cris.find((c) => c.name === pool.cri);
  if (!cri) return 'cri';
  const runtimes = new Set((cri.containerRuntimes ?? []).map((r) => r.type));
  if (pool.containerRuntimes.some((r) => !runtimes.has(r))) return 'cri';
  // The admission's judgement too (SHOOT-VERSION-AVAILABLE); an unreadable side filters the version out.
  if (v.kubeletVersionConstraint !== undefined && !kubeletConstraint(v.kubeletVersionConstraint, kubelet).meets)
    return 'kubelet';
  if (pool.inPlace && !inPlaceReachable(v, current)) return 'in-place';
  return undefined;
}

/** The versions the pool may use; `removed` says which filter dropped how many. */
export function poolCandidates(
  versions: readonly MachineImageVersion[],
  pool: PoolFacts,
  kubelet: string,
  current: string,
): { kept: MachineImageVersion[]; removed: Map<FilterName, number> } {
  const kept: MachineImageVersion[] = [];
  const removed = new Map<FilterName, number>();
  for (const v of versions) {
    const failed = failedFilter(v, pool, kubelet, current);
    if (failed) removed.set(failed, (removed.get(failed) ?? 0) + 1);
    else kept.push(v);
  }
  return { kept, removed };
}

/** Architectures from capability flavors first, then the `architectures` field; CloudProfile defaulting gives amd64 (v1h/cloudprofile.go, GetArchitecturesFromImageVersion). */
export function architecturesOf(v: MachineImageVersion): string[] {
  const fromFlavors = (v.capabilityFlavors ?? []).flatMap((f) => {
    const arch = (f as { capabilities?: { architecture?: unknown } }).capabilities?.architecture;
    return Array.isArray(arch) ? arch.map(String) : [];
  });
  if (fromFlavors.length > 0) return fromFlavors;
  return v.architectures && v.architectures.length > 0 ? v.architectures : ['amd64'];
}

function inPlaceReachable(v: MachineImageVersion, current: string): boolean {
  if (v.inPlaceUpdates?.supported !== true) return false;
  if (v.version === current) return true;
  const min = v.inPlaceUpdates.minVersionForUpdate;
  return min !== undefined && compareAs(min, '<=', current);
}
