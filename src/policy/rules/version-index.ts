// A version list of a profile spec (the Kubernetes list or one machine image's), and another
// object's versions indexed to match its entries. Types only a rule reads, and the one index
// evaluate() keeps per review (oldVersions in version-lists.ts).
import type { FieldPath } from '../../api/field.js';
import type { ExpirableVersion, NamespacedMachineImage } from '../../api/types.js';

/** The part of a CloudProfile or NamespacedCloudProfile spec that holds versions. */
export interface VersionedSpec {
  kubernetes?: { versions: ExpirableVersion[] };
  machineImages?: NamespacedMachineImage[];
  machineCapabilities?: unknown[];
}

export interface VersionList {
  /** Field path of the list, e.g. `spec.machineImages[2].versions`. */
  readonly path: FieldPath;
  /** The machine image owning the list; undefined for the Kubernetes list. */
  image?: NamespacedMachineImage;
  versions: readonly ExpirableVersion[];
}

/** Another object's versions, to match entries of a list: Kubernetes by string, images by image name and string. */
export interface VersionIndex {
  /** The other object's versions of the list's Kubernetes list or machine image, by version string. */
  matching(list: VersionList): ReadonlyMap<string, ExpirableVersion> | undefined;
}

export const NO_VERSIONS: VersionIndex = { matching: () => undefined };

function firstByVersion(
  versions: readonly ExpirableVersion[],
  into = new Map<string, ExpirableVersion>(),
): Map<string, ExpirableVersion> {
  for (const v of versions) if (!into.has(v.version)) into.set(v.version, v);
  return into;
}

export function indexVersions(spec: VersionedSpec | undefined): VersionIndex {
  if (!spec) return NO_VERSIONS;
  const kubernetes = firstByVersion(spec.kubernetes?.versions ?? []);
  const images = new Map<string, Map<string, ExpirableVersion>>();
  for (const image of spec.machineImages ?? [])
    images.set(image.name, firstByVersion(image.versions ?? [], images.get(image.name)));
  return { matching: (list) => (list.image ? images.get(list.image.name) : kubernetes) };
}
