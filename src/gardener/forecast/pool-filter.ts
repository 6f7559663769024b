// Which image versions a worker pool may move to (maint/helper/helper.go, FilterMachineImageVersions):
// architecture, capabilities, CRI, kubelet version constraint and in-place minimum, in that order.
// Capabilities are read as Gardener writes them: `capabilityFlavors: [{architecture: [arm64]}]`,
// a machine type's `capabilities: {architecture: [arm64]}`, each defaulted from the profile's
// `machineCapabilities` definitions (v1beta1 types_cloudprofile.go, GetCapabilitiesWithAppliedDefaults).
import type { CloudProfileSpec, MachineImageVersion, MachineType, Worker } from '../../api/types.js';
import { compareAs, kubeletConstraint } from '../versions.js';

export type FilterName = 'architecture' | 'capabilities' | 'cri' | 'kubelet' | 'in-place';

/** A capability and its values: `architecture: [amd64, arm64]`. */
export type Capabilities = Record<string, string[]>;

/** One of the profile's `spec.machineCapabilities`. */
export interface CapabilityDefinition {
  name: string;
  values: string[];
}

export interface PoolFacts {
  architecture: string;
  cri: string;
  containerRuntimes: string[];
  inPlace: boolean;
  /** The machine type's capabilities, defaulted; only where the profile defines capabilities. */
  capabilities?: Capabilities;
}

/** The profile's capability definitions; empty when it defines none. */
export function capabilityDefinitions(profile: Pick<CloudProfileSpec, 'machineCapabilities'>): CapabilityDefinition[] {
  return (profile.machineCapabilities ?? []).flatMap((d) => {
    const def = d as { name?: unknown; values?: unknown };
    return typeof def.name === 'string' && Array.isArray(def.values)
      ? [{ name: def.name, values: def.values.map(String) }]
      : [];
  });
}

/** Each defined capability: the given values, else the definition's (GetCapabilitiesWithAppliedDefaults). */
function withDefaults(caps: unknown, defs: readonly CapabilityDefinition[]): Capabilities {
  const given = caps !== null && typeof caps === 'object' ? (caps as Record<string, unknown>) : {};
  const out: Capabilities = {};
  for (const d of defs) {
    const v = given[d.name];
    out[d.name] = Array.isArray(v) ? v.map(String) : d.values;
  }
  return out;
}

/** A machine type's architecture: its capabilities' one architecture, else its field (MachineType.GetArchitecture); CloudProfile defaulting gives amd64 without definitions. */
function machineTypeArchitecture(type: MachineType, defs: readonly CapabilityDefinition[]): string | undefined {
  const fromCaps = withDefaults(type.capabilities, defs).architecture;
  if (fromCaps?.length === 1) return fromCaps[0];
  return type.architecture ?? (defs.length === 0 ? 'amd64' : undefined);
}

/** The pool's machine type in the profile; undefined stops Gardener's image maintenance (maint/reconciler.go, maintainMachineImages). */
export function machineTypeOf(worker: Worker, profile: CloudProfileSpec): MachineType | undefined {
  const name = (worker.machine as { type?: string } | undefined)?.type;
  return profile.machineTypes?.find((m) => m.name === name);
}

/** What the filters read of a pool: `machine.architecture`, else its machine type's, else amd64 (the Shoot mutator's default). */
export function poolFacts(worker: Worker, profile: CloudProfileSpec): PoolFacts {
  const machine = worker.machine as { architecture?: string } | undefined;
  const defs = capabilityDefinitions(profile);
  const type = machineTypeOf(worker, profile);
  const cri = worker.cri as { name?: string; containerRuntimes?: Array<{ type?: string }> } | undefined;
  return {
    architecture: machine?.architecture ?? (type && machineTypeArchitecture(type, defs)) ?? 'amd64',
    // A nil CRI counts as containerd (maint/helper/helper.go, filterForCRI).
    cri: cri?.name ?? 'containerd',
    containerRuntimes: (cri?.containerRuntimes ?? []).map((r) => r.type ?? '').filter((t) => t !== ''),
    // In-place pools need inPlaceUpdates support (maint/helper/helper.go, filterForInPlaceUpdateConstraint).
    inPlace: worker.updateStrategy === 'AutoInPlaceUpdate' || worker.updateStrategy === 'ManualInPlaceUpdate',
    ...(defs.length > 0 ? { capabilities: withDefaults(type?.capabilities, defs) } : {}),
  };
}

/** The first filter a version fails for this pool, or undefined when it is a candidate. */
export function failedFilter(
  v: MachineImageVersion,
  pool: PoolFacts,
  kubelet: string,
  current: string,
  defs: readonly CapabilityDefinition[] = [],
): FilterName | undefined {
  if (!architecturesOf(v, defs).includes(pool.architecture)) return 'architecture';
  if (defs.length > 0 && !capabilitiesSupported(v, pool.capabilities ?? {}, defs)) return 'capabilities';
  // CloudProfile defaulting gives a version without `cri` containerd (v1beta1 defaults_cloudprofile.go,
  // SetDefaults_MachineImageVersion); a NamespacedCloudProfile's own versions get none (merge.ts: `cri: []`).
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
  defs: readonly CapabilityDefinition[] = [],
): { kept: MachineImageVersion[]; removed: Map<FilterName, number> } {
  const kept: MachineImageVersion[] = [];
  const removed = new Map<FilterName, number>();
  for (const v of versions) {
    const failed = failedFilter(v, pool, kubelet, current, defs);
    if (failed) removed.set(failed, (removed.get(failed) ?? 0) + 1);
    else kept.push(v);
  }
  return { kept, removed };
}

/** A version's capability flavors: each a capability map (MachineImageFlavor's JSON is the flat map). */
function flavorsOf(v: MachineImageVersion): Capabilities[] {
  return (v.capabilityFlavors ?? []).flatMap((f) => (f !== null && typeof f === 'object' ? [asCapabilities(f)] : []));
}

function asCapabilities(f: object): Capabilities {
  const out: Capabilities = {};
  for (const [k, v] of Object.entries(f)) if (Array.isArray(v)) out[k] = v.map(String);
  return out;
}

/**
 * Architectures from capability flavors first (without flavors, the definition's architecture
 * values), then the `architectures` field, which CloudProfile defaulting sets to amd64 where the
 * profile defines no capabilities (v1h/cloudprofile.go, GetArchitecturesFromImageVersion).
 */
export function architecturesOf(v: MachineImageVersion, defs: readonly CapabilityDefinition[] = []): string[] {
  const flavors = flavorsOf(v);
  if (flavors.length === 0) {
    const arch = defs.find((d) => d.name === 'architecture');
    if (arch) return arch.values;
  }
  const fromFlavors = [...new Set(flavors.flatMap((f) => f.architecture ?? []))];
  if (fromFlavors.length > 0) return fromFlavors;
  if (v.architectures && v.architectures.length > 0) return v.architectures;
  return defs.length === 0 ? ['amd64'] : [];
}

/** Some flavor shares a value with the machine type in every defined capability (v1h/cloudprofile.go, AreCapabilitiesSupportedByImageFlavors). */
function capabilitiesSupported(
  v: MachineImageVersion,
  machine: Capabilities,
  defs: readonly CapabilityDefinition[],
): boolean {
  const flavors = flavorsOf(v);
  if (flavors.length === 0) return true;
  const type = withDefaults(machine, defs);
  return flavors.some((f) => {
    const flavor = withDefaults(f, defs);
    return defs.every((d) => flavor[d.name]!.some((x) => type[d.name]!.includes(x)));
  });
}

function inPlaceReachable(v: MachineImageVersion, current: string): boolean {
  if (v.inPlaceUpdates?.supported !== true) return false;
  if (v.version === current) return true;
  const min = v.inPlaceUpdates.minVersionForUpdate;
  return min !== undefined && compareAs(min, '<=', current);
}
