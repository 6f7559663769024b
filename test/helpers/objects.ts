// Builders for the objects tests judge, and `decide()`, which runs the real evaluate() on them.
// Every builder returns a plain object that passes parse.ts, like one read from a file.
import { resolveConfig } from '../../src/config.js';
import type { Config } from '../../src/config.js';
import { staticState } from '../../src/cluster/static-state.js';
import { evaluate } from '../../src/policy/evaluate.js';
import type { PolicyRequest } from '../../src/policy/rule.js';
import type { Decision } from '../../src/policy/decision.js';
import type {
  CloudProfile,
  ExpirableVersion,
  MachineImage,
  MachineImageVersion,
  MachineType,
  NamespacedCloudProfile,
  NamespacedMachineImage,
  Operation,
  PolicedObject,
  Shoot,
} from '../../src/api/types.js';
import { GROUP_VERSION } from '../../src/api/types.js';

/** The fixed instant of every test (and of the public cases). */
export const NOW_ISO = '2026-09-01T00:00:00Z';
export const NOW = Date.parse(NOW_ISO);

/** An RFC 3339 instant `hours` away from NOW. */
export function hoursFromNow(hours: number): string {
  return new Date(NOW + hours * 3_600_000).toISOString().replace('.000Z', 'Z');
}

/** The machine type of every pool `shoot()` makes; `cloudProfile()` lists it. */
export const POOL_MACHINE_TYPE = 'm5.large';

type VersionInput = string | ExpirableVersion;
type ImageVersionInput = string | MachineImageVersion;

const v = (x: VersionInput): ExpirableVersion => (typeof x === 'string' ? { version: x } : x);

/** A machine-image version with Gardener's defaults already in place (containerd, amd64). */
export function imageVersion(x: ImageVersionInput): MachineImageVersion {
  const base = typeof x === 'string' ? { version: x } : x;
  return { cri: [{ name: 'containerd' }], architectures: ['amd64'], ...base };
}

export function image(name: string, versions: ImageVersionInput[], updateStrategy = 'major'): MachineImage {
  return { name, updateStrategy, versions: versions.map(imageVersion) };
}

export interface ProfileInput {
  name?: string;
  kubernetes?: VersionInput[];
  images?: MachineImage[];
  /** Default: the machine type every `shoot()` pool uses, as Gardener requires of a Shoot. */
  machineTypes?: MachineType[];
  deletionTimestamp?: string;
  annotations?: Record<string, string>;
}

export function cloudProfile(p: ProfileInput = {}): CloudProfile {
  return {
    apiVersion: GROUP_VERSION,
    kind: 'CloudProfile',
    metadata: {
      name: p.name ?? 'profile',
      ...(p.deletionTimestamp ? { deletionTimestamp: p.deletionTimestamp } : {}),
      ...(p.annotations ? { annotations: p.annotations } : {}),
    },
    spec: {
      type: 'local',
      kubernetes: { versions: (p.kubernetes ?? ['1.31.0']).map(v) },
      machineImages: p.images ?? [image('gardenlinux', ['1592.1.0'])],
      machineTypes: p.machineTypes ?? [{ name: POOL_MACHINE_TYPE, architecture: 'amd64' }],
      regions: [{ name: 'region-1' }],
    },
  };
}

export interface NamespacedProfileInput {
  name?: string;
  namespace?: string;
  parent?: string;
  kubernetes?: VersionInput[];
  images?: NamespacedMachineImage[];
  deletionTimestamp?: string;
}

export function namespacedProfile(p: NamespacedProfileInput = {}): NamespacedCloudProfile {
  return {
    apiVersion: GROUP_VERSION,
    kind: 'NamespacedCloudProfile',
    metadata: {
      name: p.name ?? 'ncp',
      namespace: p.namespace ?? 'garden-dev',
      ...(p.deletionTimestamp ? { deletionTimestamp: p.deletionTimestamp } : {}),
    },
    spec: {
      parent: { kind: 'CloudProfile', name: p.parent ?? 'profile' },
      ...(p.kubernetes ? { kubernetes: { versions: p.kubernetes.map(v) } } : {}),
      ...(p.images ? { machineImages: p.images } : {}),
    },
  };
}

export interface WorkerInput {
  name: string;
  /** [image name, image version] */
  image?: [string, string];
  kubernetes?: string;
}

export interface ShootInput {
  name?: string;
  namespace?: string;
  /** A CloudProfile name (via `spec.cloudProfile`), or a full reference. */
  profile?: string | { kind?: string; name: string };
  /** The legacy field, instead of `profile`. */
  cloudProfileName?: string;
  version?: string;
  workers?: WorkerInput[];
  deletionTimestamp?: string;
}

export function shoot(s: ShootInput = {}): Shoot {
  const ref =
    s.cloudProfileName !== undefined
      ? undefined
      : typeof s.profile === 'string' || s.profile === undefined
        ? { kind: 'CloudProfile', name: s.profile ?? 'profile' }
        : s.profile;
  return {
    apiVersion: GROUP_VERSION,
    kind: 'Shoot',
    metadata: {
      name: s.name ?? 'shoot',
      namespace: s.namespace ?? 'garden-dev',
      ...(s.deletionTimestamp ? { deletionTimestamp: s.deletionTimestamp } : {}),
    },
    spec: {
      ...(ref ? { cloudProfile: ref } : {}),
      ...(s.cloudProfileName !== undefined ? { cloudProfileName: s.cloudProfileName } : {}),
      kubernetes: { version: s.version ?? '1.31.0' },
      provider: {
        type: 'local',
        workers: (s.workers ?? [{ name: 'worker', image: ['gardenlinux', '1592.1.0'] }]).map((w) => ({
          name: w.name,
          ...(w.kubernetes ? { kubernetes: { version: w.kubernetes } } : {}),
          machine: {
            type: POOL_MACHINE_TYPE,
            ...(w.image ? { image: { name: w.image[0], version: w.image[1] } } : {}),
          },
        })),
      },
    },
  };
}

/** Config overrides in the config file's own shape; everything else is the product default. */
export type ConfigInput = Record<string, unknown>;

export function config(overrides: ConfigInput = {}, lifecycleGate = true): Config {
  const raw = structuredClone(overrides) as Record<string, unknown>;
  raw.featureGates = { VersionClassificationLifecycle: lifecycleGate, ...(raw.featureGates as object | undefined) };
  return resolveConfig(raw);
}

export interface DecideInput {
  operation: Operation;
  object?: PolicedObject;
  oldObject?: PolicedObject;
  /** Objects that exist in the cluster (profiles, NCPs, Shoots). */
  state?: PolicedObject[];
  now?: number;
  lifecycleGate?: boolean;
  config?: ConfigInput;
  /** Lifecycle defaulting is off unless a test asks for it, so rule tests judge exactly their input. */
  lifecycleDefaulting?: boolean;
  synced?: boolean;
}

export function request(input: DecideInput): PolicyRequest {
  const o = input.object ?? input.oldObject;
  if (!o) throw new Error('request needs an object or an oldObject');
  return {
    operation: input.operation,
    kind: o.kind,
    name: o.metadata.name,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
    ...(input.object ? { object: input.object } : {}),
    ...(input.oldObject ? { oldObject: input.oldObject } : {}),
    dryRun: false,
    user: 'test-user',
  };
}

/** Runs the real evaluate() with static state. */
export function decide(input: DecideInput): Decision {
  const overrides = structuredClone(input.config ?? {});
  const defaulting = (overrides.defaulting ?? {}) as Record<string, unknown>;
  overrides.defaulting = {
    ...defaulting,
    lifecycle: { enabled: input.lifecycleDefaulting ?? false, ...(defaulting.lifecycle as object | undefined) },
  };
  const state = staticState(input.state ?? []);
  if (input.synced === false) state.synced = false;
  return evaluate(request(input), {
    now: input.now ?? NOW,
    config: config(overrides, input.lifecycleGate ?? true),
    state,
  });
}

/** The rule IDs a decision reports, sorted and unique. */
export function ruleIds(d: Decision): string[] {
  return [...new Set(d.violations.map((x) => x.rule))].sort();
}
