// The CloudProfiles and NamespacedCloudProfiles of the cluster state. Profiles are few (tens to
// hundreds); the only index beyond the name is "the NamespacedCloudProfiles of a parent".
import type { CloudProfile, NamespacedCloudProfile } from '../api/types.js';

const nsName = (namespace: string | undefined, name: string) => `${namespace ?? ''}/${name}`;

export class CloudProfileStore {
  readonly kind = 'CloudProfile';
  private readonly byName = new Map<string, CloudProfile>();

  get size(): number {
    return this.byName.size;
  }

  get(_namespace: string | undefined, name: string): CloudProfile | undefined {
    return this.byName.get(name);
  }

  upsert(profile: CloudProfile): void {
    this.byName.set(profile.metadata.name, profile);
  }

  remove(_namespace: string | undefined, name: string): void {
    this.byName.delete(name);
  }

  values(): Iterable<CloudProfile> {
    return this.byName.values();
  }
}

export class NamespacedProfileStore {
  readonly kind = 'NamespacedCloudProfile';
  private readonly byKey = new Map<string, NamespacedCloudProfile>();
  /** parent CloudProfile name → namespace/name → NamespacedCloudProfile */
  private readonly byParent = new Map<string, Map<string, NamespacedCloudProfile>>();

  get size(): number {
    return this.byKey.size;
  }

  get(namespace: string | undefined, name: string): NamespacedCloudProfile | undefined {
    return this.byKey.get(nsName(namespace, name));
  }

  upsert(ncp: NamespacedCloudProfile): void {
    const key = nsName(ncp.metadata.namespace, ncp.metadata.name);
    this.remove(ncp.metadata.namespace, ncp.metadata.name);
    this.byKey.set(key, ncp);
    let siblings = this.byParent.get(ncp.spec.parent.name);
    if (!siblings) this.byParent.set(ncp.spec.parent.name, (siblings = new Map<string, NamespacedCloudProfile>()));
    siblings.set(key, ncp);
  }

  remove(namespace: string | undefined, name: string): void {
    const key = nsName(namespace, name);
    const old = this.byKey.get(key);
    if (!old) return;
    this.byKey.delete(key);
    const siblings = this.byParent.get(old.spec.parent.name);
    siblings?.delete(key);
    if (siblings?.size === 0) this.byParent.delete(old.spec.parent.name);
  }

  values(): Iterable<NamespacedCloudProfile> {
    return this.byKey.values();
  }

  childrenOf(parentName: string): NamespacedCloudProfile[] {
    return [...(this.byParent.get(parentName)?.values() ?? [])];
  }
}
