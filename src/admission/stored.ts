// The stored object of a review (oldObject), read for what the rules need of it and no more
// (issue 34). kube-apiserver sends it whole, but nothing bounds what a client claims there: the
// limits hold the object a request sends (api/limits.ts), while the stored one may be past them
// and must stay possible to repair or delete. It is checked whole against the schema first
// (request.ts: a malformed one refuses the review, whichever field is wrong); what the rules then
// get of it is bounded by the object the request sends and STORED_READ, whatever it claims:
// - DELETE: nothing here; its name and namespace (request.ts), by which IN-USE finds the referrers.
// - Shoot UPDATE: the control plane's version and the worker pools the object still has, the first
//   of each name (the rules match pools by name, the first one; a pool the object drops is not judged).
// - Profile UPDATE: its version lists, each entry once (the first and last of a repeated version,
//   the two the rules read; the first and last image of a repeated name), each lifecycle up to
//   STORED_READ.lifecycleStages stages. Past STORED_READ.removedWhole entries removed (or
//   removedImages images), what the UPDATE removes is read as names only: IN-USE needs no more,
//   and the maintenance forecast, which would step Shoots through all of them, is not made.
// - Metadata: name, namespace, deletionTimestamp and the managed-versions annotation. For a
//   NamespacedCloudProfile, whether the stored spec and metadata equal the object's is decided here
//   on the whole (NCP-OVERRIDES and the merged-profile check ask it).
// Stored objects Gardener itself could not hold are the only ones read differently from whole.
import { LIMITS, STORED_CEILING } from '../api/limits.js';
import type { Kind, PolicedObject } from '../api/types.js';
import { MANAGED_VERSIONS_ANNOTATION } from '../policy/defaulting/managed-annotation.js';
import type { RemovedVersions, StoredRead } from '../policy/rule.js';
import { jsonEqual } from '../util/json-equal.js';
import { SortedStrings } from '../util/sorted-strings.js';

/**
 * How much of a stored profile is read whole:
 * - removedWhole: entries an UPDATE removes (the limit of entries per object: removing every
 *   version of a profile at the limits is judged in full, forecast included);
 * - removedImages: whole images it removes (the limit of images);
 * - lifecycleStages: stages of each stored lifecycle (the ceiling an UPDATE may keep, 16; a valid
 *   one has four), so a stored lifecycle an UPDATE keeps is read as it is kept.
 */
export const STORED_READ = {
  removedWhole: LIMITS.versionEntries,
  removedImages: LIMITS.machineImages,
  lifecycleStages: STORED_CEILING.lifecycleStages,
} as const;

type Raw = Record<string, unknown>;

const isRecord = (v: unknown): v is Raw => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface StoredReading {
  /** What the rules read of the stored object: part of it, so still well-formed. */
  oldObject: PolicedObject;
  stored?: StoredRead;
}

/** What the rules read of `stored`, the stored object of an UPDATE of `object` (both checked whole already). */
export function readStored(kind: Kind, object: PolicedObject, stored: PolicedObject): StoredReading {
  const old = stored as unknown as Raw & { spec: Raw };
  const out: Raw = { apiVersion: old.apiVersion, kind: old.kind, metadata: readMetadata(old.metadata) };
  const typed = (o: Raw) => o as unknown as PolicedObject;
  if (kind === 'Shoot') return { oldObject: typed({ ...out, spec: readShootSpec(old.spec, object) }) };
  const lists = readLists(old.spec, object.spec);
  if (kind === 'NamespacedCloudProfile' && 'parent' in old.spec) lists.spec.parent = old.spec.parent;
  out.spec = lists.spec;
  const decided: StoredRead = {};
  if (kind === 'NamespacedCloudProfile') {
    decided.sameSpec = jsonEqual(old.spec, object.spec);
    decided.sameMetadata = jsonEqual(old.metadata, object.metadata);
  }
  if (lists.removed) decided.removed = lists.removed;
  return Object.keys(decided).length > 0 ? { oldObject: typed(out), stored: decided } : { oldObject: typed(out) };
}

function readMetadata(meta: unknown): unknown {
  if (!isRecord(meta)) return meta;
  const out: Raw = {};
  for (const key of ['name', 'namespace', 'deletionTimestamp'] as const) if (key in meta) out[key] = meta[key];
  const annotations = meta.annotations;
  if (isRecord(annotations) && MANAGED_VERSIONS_ANNOTATION in annotations)
    out.annotations = { [MANAGED_VERSIONS_ANNOTATION]: annotations[MANAGED_VERSIONS_ANNOTATION] };
  else if (annotations !== undefined && !isRecord(annotations)) out.annotations = annotations;
  return out;
}

function readShootSpec(spec: Raw, object: PolicedObject): Raw {
  const out: Raw = {};
  if ('kubernetes' in spec) {
    const k = spec.kubernetes;
    out.kubernetes = isRecord(k) && 'version' in k ? { version: k.version } : k;
  }
  const provider = spec.provider;
  if (!isRecord(provider) || !('workers' in provider)) return out;
  const workers = provider.workers;
  if (!Array.isArray(workers)) {
    out.provider = { workers };
    return out;
  }
  const wanted = new Set<unknown>();
  for (const w of (object.spec as { provider?: { workers?: Array<{ name: string }> } }).provider?.workers ?? [])
    wanted.add(w.name);
  const kept: unknown[] = [];
  for (const w of workers) {
    const name = isRecord(w) ? w.name : undefined;
    if (!wanted.delete(name)) continue;
    kept.push(w);
  }
  out.provider = { workers: kept };
  return out;
}

// --- a profile's version lists -------------------------------------------------------------

const textOf = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? null));
const nameOf = (x: unknown): unknown => (isRecord(x) ? x.name : undefined);
const versionOf = (x: unknown): unknown => (isRecord(x) ? x.version : undefined);

/** The items of `list`, each key's first and last only (items without a string key all stay). */
function firstAndLast(list: readonly unknown[], key: (x: unknown) => unknown): unknown[] {
  const last = new Map<string, number>();
  list.forEach((x, i) => {
    const k = key(x);
    if (typeof k === 'string') last.set(k, i);
  });
  if (last.size === list.length) return list as unknown[];
  const seen = new Set<string>();
  return list.filter((x, i) => {
    const k = key(x);
    if (typeof k !== 'string' || last.get(k) === i || !seen.has(k)) {
      if (typeof k === 'string') seen.add(k);
      return true;
    }
    return false;
  });
}

/** The entry with its lifecycle cut to STORED_READ.lifecycleStages. */
function cut(entry: unknown): unknown {
  if (!isRecord(entry) || !Array.isArray(entry.lifecycle) || entry.lifecycle.length <= STORED_READ.lifecycleStages)
    return entry;
  return { ...entry, lifecycle: entry.lifecycle.slice(0, STORED_READ.lifecycleStages) };
}

function stagesFit(list: unknown): boolean {
  if (!Array.isArray(list)) return true;
  for (const e of list)
    if (isRecord(e) && Array.isArray(e.lifecycle) && e.lifecycle.length > STORED_READ.lifecycleStages) return false;
  return true;
}

/** Whether a profile's lists are small enough to read as they are: no more entries and images than could be removed whole. */
function fitsWhole(kubernetes: unknown, images: unknown): boolean {
  let entries = Array.isArray(kubernetes) ? kubernetes.length : 0;
  if (!stagesFit(kubernetes)) return false;
  if (Array.isArray(images)) {
    if (images.length > STORED_READ.removedImages) return false;
    for (const image of images) {
      const versions = isRecord(image) ? image.versions : undefined;
      if (Array.isArray(versions)) entries += versions.length;
      if (entries > STORED_READ.removedWhole || !stagesFit(versions)) return false;
    }
  }
  return entries <= STORED_READ.removedWhole;
}

/** A stored list split by whether the object still lists each version; `removed` names the others. */
interface SplitList {
  all: unknown[];
  kept: unknown[];
}

/** The stored spec's version lists as the rules read them (see the head of this file). */
function readLists(spec: Raw, now: Raw): { spec: Raw; removed?: RemovedVersions } {
  const out: Raw = {};
  const oldK8s = isRecord(spec.kubernetes) ? spec.kubernetes : undefined;
  const oldImages = spec.machineImages;
  if ('kubernetes' in spec)
    out.kubernetes = oldK8s && 'versions' in oldK8s ? { versions: oldK8s.versions } : spec.kubernetes;
  if ('machineImages' in spec) out.machineImages = oldImages;
  if (fitsWhole(oldK8s?.versions, oldImages)) return { spec: out };

  const removed = { kubernetes: [] as string[], imageVersions: [] as string[], images: [] as string[] };
  let removedEntries = 0;
  const split = (versions: unknown, listed: ReadonlySet<unknown>, image?: string): SplitList | undefined => {
    if (!Array.isArray(versions)) return undefined;
    const list: SplitList = { all: [], kept: [] };
    for (const entry of firstAndLast(versions, versionOf)) {
      const e = cut(entry);
      list.all.push(e);
      const version = versionOf(entry);
      if (listed.has(version)) {
        list.kept.push(e);
        continue;
      }
      removedEntries++;
      if (image === undefined) removed.kubernetes.push(textOf(version));
      else removed.imageVersions.push(`${image}\u0000${textOf(version)}`);
    }
    return list;
  };

  const newK8s = isRecord(now.kubernetes) && Array.isArray(now.kubernetes.versions) ? now.kubernetes.versions : [];
  const k8s = oldK8s ? split(oldK8s.versions, new Set(newK8s.map(versionOf))) : undefined;
  const images: Array<{ image: Raw; versions?: SplitList; gone: boolean }> = [];
  if (Array.isArray(oldImages)) {
    const listed = new Map<unknown, Set<unknown>>();
    for (const image of Array.isArray(now.machineImages) ? (now.machineImages as unknown[]) : []) {
      const set = listed.get(nameOf(image)) ?? new Set<unknown>();
      const versions = isRecord(image) && Array.isArray(image.versions) ? image.versions : [];
      for (const v of versions) set.add(versionOf(v));
      listed.set(nameOf(image), set);
    }
    for (const image of firstAndLast(oldImages, nameOf)) {
      if (!isRecord(image)) {
        images.push({ image: image as Raw, gone: false });
        continue;
      }
      const set = listed.get(image.name);
      const gone = set === undefined;
      if (gone) removed.images.push(textOf(image.name));
      const versions = split(image.versions, set ?? new Set(), textOf(image.name));
      images.push({ image, gone, ...(versions ? { versions } : {}) });
    }
  }

  const whole = removedEntries <= STORED_READ.removedWhole && removed.images.length <= STORED_READ.removedImages;
  const pick = (l: SplitList) => (whole ? l.all : l.kept);
  if (k8s) out.kubernetes = { versions: pick(k8s) };
  if (Array.isArray(oldImages)) {
    out.machineImages = images.flatMap(({ image, versions, gone }) => {
      if (gone && !whole) return [];
      if (!isRecord(image) || !versions) return [image];
      return [{ ...image, versions: pick(versions) }];
    });
  }
  if (whole) return { spec: out };
  return {
    spec: out,
    removed: {
      count: removedEntries + removed.images.length,
      kubernetes: SortedStrings.of(removed.kubernetes),
      imageVersions: SortedStrings.of(removed.imageVersions),
      images: SortedStrings.of(removed.images),
    },
  };
}
