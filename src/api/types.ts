// The Gardener core.gardener.cloud/v1beta1 fields this project reads. Objects are checked
// against the schemas in parse.ts at the edge; inside, these types are trusted.

export const GROUP_VERSION = 'core.gardener.cloud/v1beta1';

export type Kind = 'CloudProfile' | 'NamespacedCloudProfile' | 'Shoot';
export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

/** The stages a version moves through, in their only legal order. */
export const STAGE_ORDER = ['unavailable', 'preview', 'supported', 'deprecated', 'expired'] as const;
export type Classification = (typeof STAGE_ORDER)[number];

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  deletionTimestamp?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  [key: string]: unknown;
}

export interface LifecycleStage {
  classification: string;
  startTime?: string;
}

/** A Kubernetes version entry, and the part of a machine-image version that expires. */
export interface ExpirableVersion {
  version: string;
  classification?: string;
  expirationDate?: string;
  lifecycle?: LifecycleStage[];
  [key: string]: unknown;
}

export interface ContainerRuntime {
  type: string;
  [key: string]: unknown;
}

export interface CRI {
  name: string;
  containerRuntimes?: ContainerRuntime[];
  [key: string]: unknown;
}

export interface MachineImageVersion extends ExpirableVersion {
  cri?: CRI[];
  architectures?: string[];
  kubeletVersionConstraint?: string;
  inPlaceUpdates?: { supported?: boolean; minVersionForUpdate?: string; [key: string]: unknown };
  capabilityFlavors?: unknown[];
}

/** A machine image entry as a NamespacedCloudProfile may write it: one that only overrides a parent image's updateStrategy has no versions. */
export interface NamespacedMachineImage {
  name: string;
  updateStrategy?: string;
  versions?: MachineImageVersion[];
  [key: string]: unknown;
}

export interface MachineImage extends NamespacedMachineImage {
  versions: MachineImageVersion[];
}

export interface MachineType {
  name: string;
  /** Gardener defaults it to amd64 (without spec.machineCapabilities). */
  architecture?: string;
  [key: string]: unknown;
}

/** Where Gardener starts a Shoot's bastion host: an image of the profile (a version of it, if pinned) and a machine type. */
export interface Bastion {
  machineImage?: { name: string; version?: string };
  machineType?: { name: string };
  [key: string]: unknown;
}

export interface CloudProfileSpec {
  kubernetes: { versions: ExpirableVersion[]; [key: string]: unknown };
  machineImages: MachineImage[];
  machineCapabilities?: unknown[];
  machineTypes?: MachineType[];
  bastion?: Bastion;
  [key: string]: unknown;
}

export interface CloudProfile {
  apiVersion: string;
  kind: 'CloudProfile';
  metadata: ObjectMeta;
  spec: CloudProfileSpec;
  status?: unknown;
}

export interface NamespacedCloudProfileSpec {
  parent: { kind: string; name: string };
  kubernetes?: { versions: ExpirableVersion[]; [key: string]: unknown };
  machineImages?: NamespacedMachineImage[];
  [key: string]: unknown;
}

export interface NamespacedCloudProfile {
  apiVersion: string;
  kind: 'NamespacedCloudProfile';
  metadata: ObjectMeta & { namespace: string };
  spec: NamespacedCloudProfileSpec;
  status?: { cloudProfileSpec?: CloudProfileSpec; [key: string]: unknown };
}

export interface Worker {
  name: string;
  kubernetes?: { version?: string; [key: string]: unknown };
  machine?: { type?: string; image?: { name: string; version?: string }; [key: string]: unknown };
  updateStrategy?: string;
  [key: string]: unknown;
}

export interface ShootSpec {
  cloudProfileName?: string;
  cloudProfile?: { kind?: string; name: string };
  kubernetes: { version: string; [key: string]: unknown };
  provider?: { type?: string; workers?: Worker[]; [key: string]: unknown };
  maintenance?: { timeWindow?: { begin?: string; end?: string }; [key: string]: unknown };
  [key: string]: unknown;
}

export interface Shoot {
  apiVersion: string;
  kind: 'Shoot';
  metadata: ObjectMeta & { namespace: string };
  spec: ShootSpec;
}

export type PolicedObject = CloudProfile | NamespacedCloudProfile | Shoot;

/**
 * Which profile an object resolves its versions from. A NamespacedCloudProfile reference is only
 * meaningful inside its own namespace, so it carries one.
 */
export type ProfileRef =
  { kind: 'CloudProfile'; name: string } | { kind: 'NamespacedCloudProfile'; namespace: string; name: string };

/** The Shoot's effective profile: `spec.cloudProfile` wins (empty kind = CloudProfile), else `spec.cloudProfileName`. */
export function effectiveProfileRef(shoot: Shoot): ProfileRef | undefined {
  const ref = shoot.spec.cloudProfile;
  if (ref && ref.name) {
    if (ref.kind === 'NamespacedCloudProfile') {
      return { kind: 'NamespacedCloudProfile', namespace: shoot.metadata.namespace, name: ref.name };
    }
    if (!ref.kind || ref.kind === 'CloudProfile') return { kind: 'CloudProfile', name: ref.name };
    return undefined;
  }
  if (shoot.spec.cloudProfileName) return { kind: 'CloudProfile', name: shoot.spec.cloudProfileName };
  return undefined;
}

export function profileRefKey(ref: ProfileRef): string {
  return ref.kind === 'CloudProfile'
    ? `CloudProfile/${ref.name}`
    : `NamespacedCloudProfile/${ref.namespace}/${ref.name}`;
}

export function objectKey(o: { metadata: { namespace?: string; name: string } }): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
}
