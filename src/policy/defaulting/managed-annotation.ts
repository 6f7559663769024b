// The versions DEFAULT-LIFECYCLE manages, recorded on the CloudProfile itself. A later UPDATE
// reads them from the stored object, so the path can tell its own lifecycles from the
// operator's even when a GitOps re-apply leaves them (and this annotation) out of the request.
import { compareVersions } from '../../gardener/versions.js';

export const MANAGED_VERSIONS_ANNOTATION = 'version-policy.gardener.cloud/managed-versions';

export interface ManagedVersions {
  kubernetes: Set<string>;
  /** Image name → its managed versions. */
  machineImages: Map<string, Set<string>>;
}

interface Annotated {
  metadata: { annotations?: Record<string, string> };
}

export function noManagedVersions(): ManagedVersions {
  return { kubernetes: new Set(), machineImages: new Map() };
}

/** The managed versions recorded on an object; `problem` says why a present annotation was ignored. */
export function readManagedVersions(object: Annotated): { managed: ManagedVersions; problem?: string } {
  const text = object.metadata.annotations?.[MANAGED_VERSIONS_ANNOTATION];
  if (text === undefined) return { managed: noManagedVersions() };
  try {
    return { managed: parseManaged(text) };
  } catch (err) {
    return {
      managed: noManagedVersions(),
      problem: `annotation ${MANAGED_VERSIONS_ANNOTATION} is not valid (${(err as Error).message}): no version counts as managed by lifecycle defaulting`,
    };
  }
}

/** The versions DEFAULT-LIFECYCLE manages on this profile (none if the annotation is absent or unreadable). */
export function managedVersions(profile: Annotated): ManagedVersions {
  return readManagedVersions(profile).managed;
}

/** Records `managed` on the object; an empty set removes the annotation. */
export function writeManagedVersions(object: Annotated, managed: ManagedVersions): void {
  const images = [...managed.machineImages].filter(([, versions]) => versions.size > 0);
  if (managed.kubernetes.size === 0 && images.length === 0) {
    const annotations = object.metadata.annotations;
    if (!annotations || !(MANAGED_VERSIONS_ANNOTATION in annotations)) return;
    delete annotations[MANAGED_VERSIONS_ANNOTATION];
    if (Object.keys(annotations).length === 0) delete object.metadata.annotations;
    return;
  }
  images.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const value = JSON.stringify({
    kubernetes: sorted(managed.kubernetes),
    machineImages: Object.fromEntries(images.map(([name, versions]) => [name, sorted(versions)])),
  });
  object.metadata.annotations = { ...object.metadata.annotations, [MANAGED_VERSIONS_ANNOTATION]: value };
}

function sorted(versions: Set<string>): string[] {
  return [...versions].sort(compareVersions);
}

function parseManaged(text: string): ManagedVersions {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('not JSON');
  }
  if (!isRecord(raw)) throw new Error('not a JSON object');
  const images = raw.machineImages ?? {};
  if (!isRecord(images)) throw new Error('machineImages is not an object');
  return {
    kubernetes: new Set(stringList(raw.kubernetes ?? [], 'kubernetes')),
    machineImages: new Map(
      Object.entries(images).map(([name, list]) => [name, new Set(stringList(list, `machineImages.${name}`))]),
    ),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((x) => typeof x === 'string'))
    throw new Error(`${where} is not a list of versions`);
  return value;
}
