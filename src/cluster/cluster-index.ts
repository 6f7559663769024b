// The in-memory cluster state: one store per kind (profile-stores.ts, shoot-store.ts), updated one
// object at a time. Static state (files) fills it once; the informers apply every watch event to
// it, and a relist builds a fresh store beside the serving one and swaps it in with one
// assignment, so a request sees the old snapshot or the new one, never a half-built one. Every
// change is told to the observers (the server's worker mirror, server/workers/state-feed.ts).
import type { CloudProfile, Kind, NamespacedCloudProfile, PolicedObject, ProfileRef, Shoot } from '../api/types.js';
import { CloudProfileStore, NamespacedProfileStore } from './profile-stores.js';
import { ShootStore } from './shoot-store.js';
import type { ClusterState, VersionUse } from '../api/cluster-state.js';

export interface StoreOf {
  CloudProfile: CloudProfileStore;
  NamespacedCloudProfile: NamespacedProfileStore;
  Shoot: ShootStore;
}
export type KindStore = StoreOf[Kind];

export function emptyStore<K extends Kind>(kind: K): StoreOf[K] {
  const stores: { [k in Kind]: () => StoreOf[k] } = {
    CloudProfile: () => new CloudProfileStore(),
    NamespacedCloudProfile: () => new NamespacedProfileStore(),
    Shoot: () => new ShootStore(),
  };
  return stores[kind]();
}

/** Puts `obj` into `store`; an object of another kind is a programming error. */
export function upsertInto(store: KindStore, obj: PolicedObject): void {
  if (store.kind === 'Shoot' && obj.kind === 'Shoot') store.upsert(obj);
  else if (store.kind === 'CloudProfile' && obj.kind === 'CloudProfile') store.upsert(obj);
  else if (store.kind === 'NamespacedCloudProfile' && obj.kind === 'NamespacedCloudProfile') store.upsert(obj);
  else throw new Error(`a ${obj.kind} does not belong in the ${store.kind} store`);
}

/** One change of the index, as its observers see it: a swap hands over both stores, for a diff by identity. */
export type IndexChange =
  | { op: 'upsert'; object: PolicedObject }
  | { op: 'remove'; kind: Kind; namespace: string | undefined; name: string }
  | { op: 'swap'; kind: Kind; before: KindStore; after: KindStore };

export class ClusterIndex implements ClusterState {
  private cloudProfiles = new CloudProfileStore();
  private ncps = new NamespacedProfileStore();
  private shoots = new ShootStore();
  private unsynced: boolean;
  private notReady: (() => string | undefined) | undefined;
  private observers: Array<(change: IndexChange) => void> = [];

  constructor(synced = true) {
    this.unsynced = !synced;
  }

  // --- whether it can be judged against ---------------------------------------------------

  get synced(): boolean {
    return !this.unsynced && this.notReadyReason === undefined;
  }

  /** Marks the index synced or not, without a reason (static state, tests). */
  set synced(value: boolean) {
    this.unsynced = !value;
  }

  get notReadyReason(): string | undefined {
    return this.notReady?.();
  }

  /**
   * Hands the judgement to whoever feeds the index: `why()` returns why it cannot be judged
   * against now (never synced, stale, no state by choice), or undefined when it can. Asked on
   * every read of `synced`, so it must be cheap. Replaces what `synced = false` said.
   */
  reportNotReadyBy(why: () => string | undefined): void {
    this.notReady = why;
    this.unsynced = false;
  }

  // --- writes -----------------------------------------------------------------------------

  upsert(obj: PolicedObject): void {
    upsertInto(this.store(obj.kind), obj);
    for (const o of this.observers) o({ op: 'upsert', object: obj });
  }

  remove(kind: Kind, namespace: string | undefined, name: string): void {
    this.store(kind).remove(namespace, name);
    for (const o of this.observers) o({ op: 'remove', kind, namespace, name });
  }

  /** Tells `observer` every later change, in order; returns the call that stops it. */
  observe(observer: (change: IndexChange) => void): () => void {
    this.observers.push(observer);
    return () => {
      this.observers = this.observers.filter((o) => o !== observer);
    };
  }

  /** The store currently serving `kind`. */
  store<K extends Kind>(kind: K): StoreOf[K];
  store(kind: Kind): KindStore {
    return kind === 'CloudProfile' ? this.cloudProfiles : kind === 'NamespacedCloudProfile' ? this.ncps : this.shoots;
  }

  /** Serves `store` from now on, in place of the current store of its kind: O(1). */
  swap(store: KindStore): void {
    const before = this.store(store.kind);
    if (store.kind === 'CloudProfile') this.cloudProfiles = store;
    else if (store.kind === 'NamespacedCloudProfile') this.ncps = store;
    else this.shoots = store;
    for (const o of this.observers) o({ op: 'swap', kind: store.kind, before, after: store });
  }

  /** Drops every object of a kind. */
  clear(kind: Kind): void {
    this.swap(emptyStore(kind));
  }

  count(kind: Kind): number {
    return this.store(kind).size;
  }

  // --- ClusterState -----------------------------------------------------------------------

  cloudProfile(name: string): CloudProfile | undefined {
    return this.cloudProfiles.get(undefined, name);
  }

  namespacedCloudProfile(namespace: string, name: string): NamespacedCloudProfile | undefined {
    return this.ncps.get(namespace, name);
  }

  namespacedProfilesOf(parentName: string): NamespacedCloudProfile[] {
    return this.ncps.childrenOf(parentName);
  }

  shootsUsing(ref: ProfileRef): Shoot[] {
    return this.shoots.using(ref);
  }

  kubernetesVersionUsers(ref: ProfileRef, version: string): VersionUse[] {
    return this.shoots.kubernetesVersionUsers(ref, version);
  }

  machineImageVersionUsers(ref: ProfileRef, image: string, version: string): VersionUse[] {
    return this.shoots.machineImageVersionUsers(ref, image, version);
  }

  kubernetesVersionShootCount(ref: ProfileRef, version: string): number {
    return this.shoots.kubernetesVersionShootCount(ref, version);
  }

  machineImageVersionShootCount(ref: ProfileRef, image: string, version: string): number {
    return this.shoots.machineImageVersionShootCount(ref, image, version);
  }

  versionsInUse(ref: ProfileRef): Iterable<{ image?: string; version: string }> {
    return this.shoots.versionsInUse(ref);
  }

  machineImageUsers(ref: ProfileRef, image: string): VersionUse[] {
    return this.shoots.machineImageUsers(ref, image);
  }

  allShoots(): Iterable<Shoot> {
    return this.shoots.values();
  }

  *allProfiles(): Iterable<CloudProfile | NamespacedCloudProfile> {
    yield* this.cloudProfiles.values();
    yield* this.ncps.values();
  }
}
