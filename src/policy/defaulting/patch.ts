// The JSON Patch (RFC 6902) of the mutating path, built from the levels defaulting may write and
// nothing else. Defaulting copies exactly those levels (copyDefaultable, below) and shares
// everything else with the request's object, so the difference between the two objects lies in:
//   metadata.annotations                                 (the managed-versions record)
//   spec.kubernetes.versions[i]                          (lifecycle fields)
//   spec.machineImages[j]                                (updateStrategy)
//   spec.machineImages[j].versions[k]                    (lifecycle fields, cri, architectures)
// Each of these is compared field by field, one level deep; a field whose value is a fresh array
// (a written lifecycle) is replaced whole. This walks the copied entries once, instead of cloning
// the profile and diffing it whole, and it is what decides whether the object was mutated at all.
import type { CloudProfile } from '../../api/types.js';
import { jsonEqual } from '../../util/json-equal.js';

export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

type Fields = Readonly<Record<string, unknown>>;

/**
 * Defaulting assigns fields of version entries, image entries and annotations, nothing deeper;
 * copying just those levels keeps the request's object intact without cloning the whole profile
 * (a 150 KB profile costs over a millisecond to structuredClone, more than every rule together).
 * defaultingPatch compares exactly these levels: a level copied here must be walked there.
 */
export function copyDefaultable(p: CloudProfile): CloudProfile {
  return {
    ...p,
    metadata: { ...p.metadata, ...(p.metadata.annotations ? { annotations: { ...p.metadata.annotations } } : {}) },
    spec: {
      ...p.spec,
      kubernetes: { ...p.spec.kubernetes, versions: p.spec.kubernetes.versions.map((v) => ({ ...v })) },
      machineImages: p.spec.machineImages.map((i) => ({ ...i, versions: i.versions.map((v) => ({ ...v })) })),
    },
  };
}

/** The operations that turn `original` into `defaulted`, where `defaulted` is a copyDefaultable copy. */
export function defaultingPatch(original: CloudProfile, defaulted: CloudProfile): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  const before = original.metadata.annotations;
  const after = defaulted.metadata.annotations;
  if (before !== after) {
    if (before === undefined || after === undefined) {
      if (after !== undefined) ops.push({ op: 'add', path: '/metadata/annotations', value: after });
      else ops.push({ op: 'remove', path: '/metadata/annotations' });
    } else {
      diffFields('/metadata/annotations/', before, after, undefined, ops);
    }
  }
  diffEntries('/spec/kubernetes/versions/', original.spec.kubernetes.versions, defaulted.spec.kubernetes.versions, ops);
  const images = defaulted.spec.machineImages;
  original.spec.machineImages.forEach((image, j) => {
    const copy = images[j]!;
    if (copy === image) return;
    diffFields(`/spec/machineImages/${j}/`, image, copy, 'versions', ops);
    diffEntries(`/spec/machineImages/${j}/versions/`, image.versions, copy.versions, ops);
  });
  return ops;
}

/** Defaulting never adds, removes or reorders entries: entry i of the copy is entry i's copy. */
function diffEntries(
  prefix: string,
  before: readonly object[],
  after: readonly object[],
  ops: JsonPatchOperation[],
): void {
  for (let i = 0; i < before.length; i++) {
    const a = before[i]!;
    const b = after[i]!;
    if (a !== b) diffFields(`${prefix}${i}/`, a as Fields, b as Fields, undefined, ops);
  }
}

/**
 * One level of fields: removed, replaced (equal values are not replaced) and added. A field set to
 * undefined is absent, as in the JSON the object is sent as. `skip` names a field walked separately.
 */
function diffFields(
  prefix: string,
  before: Fields,
  after: Fields,
  skip: string | undefined,
  ops: JsonPatchOperation[],
): void {
  for (const key in before) {
    if (key === skip || before[key] === undefined) continue;
    const value = after[key];
    if (value === undefined) ops.push({ op: 'remove', path: prefix + escapeKey(key) });
    else if (value !== before[key] && !jsonEqual(value, before[key]))
      ops.push({ op: 'replace', path: prefix + escapeKey(key), value });
  }
  for (const key in after) {
    if (key === skip || after[key] === undefined) continue;
    if (before[key] === undefined) ops.push({ op: 'add', path: prefix + escapeKey(key), value: after[key] });
  }
}

/** RFC 6901: `~` is `~0` and `/` is `~1` in a path segment. */
function escapeKey(key: string): string {
  return key.includes('~') || key.includes('/') ? key.replaceAll('~', '~0').replaceAll('/', '~1') : key;
}
