// What the policy may know about the cluster: the port the rules read, owned here and implemented
// in cluster/ (static-state.ts, informers). The indexes make a removal check cost
// O(removed versions × users), never O(all Shoots).
import type { CloudProfile, NamespacedCloudProfile, ProfileRef, Shoot } from './types.js';

/** One place a Shoot uses a version. */
export type VersionUse =
  | { shoot: Shoot; via: 'control-plane'; version: string }
  | { shoot: Shoot; via: 'worker-kubernetes'; worker: string; version: string }
  | { shoot: Shoot; via: 'machine-image'; worker: string; image: string; version: string };

export interface ClusterState {
  /**
   * True while the state can be judged against: every source has been read completely at least
   * once and none has fallen further behind than its staleness bound. Static state always is.
   */
  readonly synced: boolean;
  /**
   * Why the state cannot be judged against now (never synced, stale, or not configured), in words a
   * denial can carry; undefined while `synced`.
   */
  readonly notReadyReason?: string;

  cloudProfile(name: string): CloudProfile | undefined;
  namespacedCloudProfile(namespace: string, name: string): NamespacedCloudProfile | undefined;
  /** NamespacedCloudProfiles whose `spec.parent` is the CloudProfile `parentName` (deleting ones included). */
  namespacedProfilesOf(parentName: string): NamespacedCloudProfile[];

  /** Shoots whose effective profile is `ref` (deleting ones included; rules decide). */
  shootsUsing(ref: ProfileRef): Shoot[];
  /** Uses of a Kubernetes version by Shoots on `ref`: control plane and worker pools. */
  kubernetesVersionUsers(ref: ProfileRef, version: string): VersionUse[];
  /** Uses of a machine-image version by workers of Shoots on `ref`. */
  machineImageVersionUsers(ref: ProfileRef, image: string, version: string): VersionUse[];
  /** Every machine-image version of `image` used on `ref`, with its users (for a removed image). */
  machineImageUsers(ref: ProfileRef, image: string): VersionUse[];
  /** How many Shoots on `ref` use a Kubernetes version (control plane or a pool), not counting deleting ones. O(1). */
  kubernetesVersionShootCount(ref: ProfileRef, version: string): number;
  /** How many Shoots on `ref` use a machine-image version in some pool, not counting deleting ones. O(1). */
  machineImageVersionShootCount(ref: ProfileRef, image: string, version: string): number;

  /**
   * Every version Shoots on `ref` use (deleting ones included): a Kubernetes version, or an image's
   * version. O(answer): what a removal too long to walk is checked against (IN-USE).
   */
  versionsInUse(ref: ProfileRef): Iterable<{ image?: string; version: string }>;

  /** Every Shoot, for whole-state reports (`explain`); not for the admission path. */
  allShoots(): Iterable<Shoot>;
  /** Every CloudProfile and NamespacedCloudProfile, for whole-state reports. */
  allProfiles(): Iterable<CloudProfile | NamespacedCloudProfile>;
}

const none = (): never[] => [];

/** A state that knows nothing and says so: synced, with no profile and no Shoot. */
export const EMPTY_STATE: ClusterState = {
  synced: true,
  cloudProfile: () => undefined,
  namespacedCloudProfile: () => undefined,
  namespacedProfilesOf: none,
  shootsUsing: none,
  kubernetesVersionUsers: none,
  machineImageVersionUsers: none,
  machineImageUsers: none,
  kubernetesVersionShootCount: () => 0,
  machineImageVersionShootCount: () => 0,
  versionsInUse: none,
  allShoots: none,
  allProfiles: none,
};
