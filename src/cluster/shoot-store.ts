// The Shoots of the cluster state and their version indexes: which Shoots use which version on
// which profile. Lookups the admission path makes cost O(answer), never O(all Shoots); how many
// Shoots use a version costs O(1).
import type { ProfileRef, Shoot } from '../api/types.js';
import { effectiveProfileRef, profileRefKey } from '../api/types.js';
import { isDeleting } from '../gardener/usage.js';
import type { VersionUse } from '../api/cluster-state.js';

const k8sKey = (version: string) => `k8s\u0000${version}`;
const imageKey = (image: string, version: string) => `img\u0000${image}\u0000${version}`;

/** Every version a Shoot uses, each with the key of its version bucket. */
function usesOf(shoot: Shoot): Array<{ bucket: string; use: VersionUse }> {
  const version = shoot.spec.kubernetes.version;
  const out = [{ bucket: k8sKey(version), use: { shoot, via: 'control-plane', version } as VersionUse }];
  for (const w of shoot.spec.provider?.workers ?? []) {
    const wk = w.kubernetes?.version;
    if (wk) out.push({ bucket: k8sKey(wk), use: { shoot, via: 'worker-kubernetes', worker: w.name, version: wk } });
    const img = w.machine?.image;
    if (img?.version) {
      out.push({
        bucket: imageKey(img.name, img.version),
        use: { shoot, via: 'machine-image', worker: w.name, image: img.name, version: img.version },
      });
    }
  }
  return out;
}

/**
 * The Shoots that use one version on one profile. A Shoot is held once, however many of its
 * pools use the version, and its uses are derived from it when asked for: the index keeps no
 * object per use (at 100,000 Shoots those were most of its memory).
 */
class Users {
  readonly shoots = new Set<Shoot>();
  /** Shoots that are not being deleted: what the warnings count. */
  live = 0;

  add(shoot: Shoot): void {
    if (this.shoots.has(shoot)) return;
    this.shoots.add(shoot);
    if (!isDeleting(shoot)) this.live++;
  }

  delete(shoot: Shoot): void {
    if (this.shoots.delete(shoot) && !isDeleting(shoot)) this.live--;
  }

  /** The uses behind bucket `key`, Shoot by Shoot, in the order the Shoots were added. */
  uses(key: string): VersionUse[] {
    const out: VersionUse[] = [];
    for (const shoot of this.shoots) for (const u of usesOf(shoot)) if (u.bucket === key) out.push(u.use);
    return out;
  }
}

export class ShootStore {
  readonly kind = 'Shoot';
  /** namespace → name → Shoot: keyed by the Shoot's own strings, so no key string per Shoot. */
  private readonly shoots = new Map<string, Map<string, Shoot>>();
  private count = 0;
  private readonly byProfile = new Map<string, Set<Shoot>>();
  /** profile key → version key → the Shoots using that version */
  private readonly users = new Map<string, Map<string, Users>>();
  /** profile key → image → versions with at least one use */
  private readonly imageVersions = new Map<string, Map<string, Set<string>>>();

  get size(): number {
    return this.count;
  }

  get(namespace: string | undefined, name: string): Shoot | undefined {
    return this.shoots.get(namespace ?? '')?.get(name);
  }

  upsert(shoot: Shoot): void {
    this.remove(shoot.metadata.namespace, shoot.metadata.name);
    this.add(shoot);
  }

  *values(): Iterable<Shoot> {
    for (const named of this.shoots.values()) yield* named.values();
  }

  private add(shoot: Shoot): void {
    const namespace = shoot.metadata.namespace ?? '';
    let named = this.shoots.get(namespace);
    if (!named) this.shoots.set(namespace, (named = new Map<string, Shoot>()));
    named.set(shoot.metadata.name, shoot);
    this.count++;
    const ref = effectiveProfileRef(shoot);
    if (!ref) return;
    const pk = profileRefKey(ref);
    let members = this.byProfile.get(pk);
    if (!members) this.byProfile.set(pk, (members = new Set<Shoot>()));
    members.add(shoot);
    let byVersion = this.users.get(pk);
    if (!byVersion) this.users.set(pk, (byVersion = new Map<string, Users>()));
    for (const { bucket: vk, use } of usesOf(shoot)) {
      let users = byVersion.get(vk);
      if (!users) byVersion.set(vk, (users = new Users()));
      users.add(shoot);
      if (use.via === 'machine-image') {
        let images = this.imageVersions.get(pk);
        if (!images) this.imageVersions.set(pk, (images = new Map<string, Set<string>>()));
        let versions = images.get(use.image);
        if (!versions) images.set(use.image, (versions = new Set<string>()));
        versions.add(use.version);
      }
    }
  }

  remove(namespace: string | undefined, name: string): void {
    const named = this.shoots.get(namespace ?? '');
    const old = named?.get(name);
    if (!named || !old) return;
    named.delete(name);
    this.count--;
    if (named.size === 0) this.shoots.delete(namespace ?? '');
    const ref = effectiveProfileRef(old);
    if (!ref) return;
    const pk = profileRefKey(ref);
    const members = this.byProfile.get(pk);
    members?.delete(old);
    if (members?.size === 0) this.byProfile.delete(pk);
    const byVersion = this.users.get(pk);
    if (!byVersion) return;
    for (const { bucket: vk, use } of usesOf(old)) {
      const users = byVersion.get(vk);
      if (!users) continue;
      users.delete(old);
      if (users.shoots.size > 0) continue;
      byVersion.delete(vk);
      if (use.via === 'machine-image') {
        const versions = this.imageVersions.get(pk)?.get(use.image);
        versions?.delete(use.version);
        if (versions?.size === 0) this.imageVersions.get(pk)?.delete(use.image);
      }
    }
    if (byVersion.size === 0) this.users.delete(pk);
  }

  // --- queries ------------------------------------------------------------------------------

  using(ref: ProfileRef): Shoot[] {
    return [...(this.byProfile.get(profileRefKey(ref)) ?? [])];
  }

  kubernetesVersionUsers(ref: ProfileRef, version: string): VersionUse[] {
    const key = k8sKey(version);
    return this.users.get(profileRefKey(ref))?.get(key)?.uses(key) ?? [];
  }

  machineImageVersionUsers(ref: ProfileRef, image: string, version: string): VersionUse[] {
    const key = imageKey(image, version);
    return this.users.get(profileRefKey(ref))?.get(key)?.uses(key) ?? [];
  }

  kubernetesVersionShootCount(ref: ProfileRef, version: string): number {
    return this.users.get(profileRefKey(ref))?.get(k8sKey(version))?.live ?? 0;
  }

  machineImageVersionShootCount(ref: ProfileRef, image: string, version: string): number {
    return this.users.get(profileRefKey(ref))?.get(imageKey(image, version))?.live ?? 0;
  }

  *versionsInUse(ref: ProfileRef): Iterable<{ image?: string; version: string }> {
    for (const key of this.users.get(profileRefKey(ref))?.keys() ?? []) {
      // The bucket keys of k8sKey and imageKey.
      if (key.startsWith('k8s\u0000')) yield { version: key.slice(4) };
      else {
        const cut = key.indexOf('\u0000', 4);
        yield { image: key.slice(4, cut), version: key.slice(cut + 1) };
      }
    }
  }

  machineImageUsers(ref: ProfileRef, image: string): VersionUse[] {
    const versions = this.imageVersions.get(profileRefKey(ref))?.get(image);
    if (!versions) return [];
    return [...versions].flatMap((v) => this.machineImageVersionUsers(ref, image, v));
  }
}
