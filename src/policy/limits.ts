// The limits at the edge (issue 13): what one request may hold, so no input buys more work than
// they allow. parse.ts applies them before the schema.
import type { FieldError } from './parse.js';
import { formatCount as count } from './text.js';
import type { Kind } from './types.js';

/**
 * What one profile may hold, checked on the raw object before the schema and the rules run, so
 * no request buys more work than these allow. Each is far above any real profile:
 * - 1,000 versions per list. Gardener's largest profiles hold a few hundred versions in their
 *   longest list (tens of Kubernetes versions, image lists of up to a few hundred).
 * - 200 machine images. Large profiles hold a few dozen.
 * - 10,000 version entries per object, all lists together: ten full lists, about five times the
 *   entries of the largest real profiles.
 * - 16 lifecycle stages per version. A valid lifecycle has at most four (each classification
 *   once); 16 leaves room for mistakes LIFECYCLE-ORDER can name, and anything longer is invalid.
 * Objects read from the cluster, and the stored `oldObject` of a review, are not held to them (see
 * ParseOptions): they are stored already, and what is stored must stay possible to shrink and delete.
 */
export const LIMITS = {
  versionsPerList: 1_000,
  machineImages: 200,
  versionEntries: 10_000,
  lifecycleStages: 16,
} as const;

/**
 * How far an UPDATE may keep what is stored beyond LIMITS: twice each of them. An object stored
 * past this (kube-apiserver cannot store one much larger: etcd keeps objects up to 1.5 MiB) is
 * still judged when an UPDATE brings it within this, and a DELETE is judged at any size; only the
 * object a request sends is held to it. It bounds the work of judging an UPDATE to twice that at
 * the limits, whatever oldObject a client claims.
 */
export const STORED_CEILING = {
  versionsPerList: 2 * LIMITS.versionsPerList,
  machineImages: 2 * LIMITS.machineImages,
  versionEntries: 2 * LIMITS.versionEntries,
  lifecycleStages: 2 * LIMITS.lifecycleStages,
} as const;

/** How much of each measure an object may hold: LIMITS, or more where the stored object already holds more. */
export type Allowance = { readonly [K in keyof typeof LIMITS]: number };

/** The sizes of `raw` that the limits measure: its longest list, images, entries and longest lifecycle. */
export function sizesOf(kind: Kind, raw: unknown): Allowance {
  const sizes = { versionsPerList: 0, machineImages: 0, versionEntries: 0, lifecycleStages: 0 };
  const spec = kind === 'Shoot' || raw === null || typeof raw !== 'object' ? undefined : (raw as { spec?: unknown }).spec;
  if (spec === null || typeof spec !== 'object') return sizes;
  const list = (value: unknown) => {
    if (!Array.isArray(value)) return;
    sizes.versionEntries += value.length;
    sizes.versionsPerList = Math.max(sizes.versionsPerList, value.length);
    for (const v of value) {
      const stages = (v as { lifecycle?: unknown } | null)?.lifecycle;
      if (Array.isArray(stages)) sizes.lifecycleStages = Math.max(sizes.lifecycleStages, stages.length);
    }
  };
  const { kubernetes, machineImages } = spec as { kubernetes?: { versions?: unknown }; machineImages?: unknown };
  list(kubernetes?.versions);
  if (Array.isArray(machineImages)) {
    sizes.machineImages = machineImages.length;
    for (const image of machineImages) list((image as { versions?: unknown } | null)?.versions);
  }
  return sizes;
}

/**
 * What a request may hold when it replaces `stored`: the limits apply to what a request adds,
 * never to what is already stored. A profile written before the webhook was installed (or while
 * it was off) may be over them; an UPDATE may keep what it has, or shrink it, but not grow past
 * both the limit and what is stored, and not past STORED_CEILING.
 */
export function allowanceFor(kind: Kind, stored: unknown): Allowance {
  if (stored === undefined || stored === null) return LIMITS;
  const had = sizesOf(kind, stored);
  return {
    versionsPerList: Math.max(LIMITS.versionsPerList, Math.min(had.versionsPerList, STORED_CEILING.versionsPerList)),
    machineImages: Math.max(LIMITS.machineImages, Math.min(had.machineImages, STORED_CEILING.machineImages)),
    versionEntries: Math.max(LIMITS.versionEntries, Math.min(had.versionEntries, STORED_CEILING.versionEntries)),
    lifecycleStages: Math.max(LIMITS.lifecycleStages, Math.min(had.lifecycleStages, STORED_CEILING.lifecycleStages)),
  };
}

/** "the limit of 1,000 per list", and the stored object's size when it allows more. */
function limitText(allowed: number, limit: number, ceiling: number, unit: string): string {
  const base = `the limit of ${count(limit)}${unit}`;
  if (allowed <= limit) return base;
  return allowed < ceiling ? `${base} and the ${count(allowed)} the stored object holds` : `${base} and the ceiling of ${count(ceiling)} for an object stored past it`;
}

/**
 * The limits `raw` exceeds, without looking at anything else (it is not checked yet). `allowed`:
 * LIMITS, or what `allowanceFor` gives an UPDATE.
 */
export function limitErrors(kind: Kind, raw: unknown, allowed: Allowance = LIMITS): FieldError[] {
  if (kind === 'Shoot') return [];
  const spec = (raw as { spec?: unknown }).spec;
  if (spec === null || typeof spec !== 'object') return [];
  const errors: FieldError[] = [];
  let entries = 0;
  const lists: Array<[string, unknown[]]> = [];
  const list = (value: unknown, field: string) => {
    if (!Array.isArray(value)) return;
    entries += value.length;
    lists.push([field, value]);
    if (value.length > allowed.versionsPerList) {
      errors.push({ field, message: `has ${count(value.length)} versions, more than ${limitText(allowed.versionsPerList, LIMITS.versionsPerList, STORED_CEILING.versionsPerList, ' per list')}` });
    }
  };
  const { kubernetes, machineImages } = spec as { kubernetes?: { versions?: unknown }; machineImages?: unknown };
  list(kubernetes?.versions, 'spec.kubernetes.versions');
  if (Array.isArray(machineImages)) {
    if (machineImages.length > allowed.machineImages) {
      errors.push({ field: 'spec.machineImages', message: `has ${count(machineImages.length)} machine images, more than ${limitText(allowed.machineImages, LIMITS.machineImages, STORED_CEILING.machineImages, '')}` });
    } else {
      machineImages.forEach((image, j) => list((image as { versions?: unknown } | null)?.versions, `spec.machineImages[${j}].versions`));
    }
  }
  if (entries > allowed.versionEntries) {
    errors.push({ field: 'spec', message: `has ${count(entries)} version entries in all, more than ${limitText(allowed.versionEntries, LIMITS.versionEntries, STORED_CEILING.versionEntries, ' per object')}` });
  }
  if (errors.length > 0) return errors;
  for (const [field, versions] of lists) {
    versions.forEach((v, i) => {
      const stages = (v as { lifecycle?: unknown } | null)?.lifecycle;
      if (Array.isArray(stages) && stages.length > allowed.lifecycleStages) {
        errors.push({ field: `${field}[${i}].lifecycle`, message: `has ${count(stages.length)} stages, more than ${limitText(allowed.lifecycleStages, LIMITS.lifecycleStages, STORED_CEILING.lifecycleStages, '')}` });
      }
    });
  }
  return errors;
}
