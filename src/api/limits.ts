// The limits at the edge (issues 13 and 24): what one request may hold, so no input buys more work than
// they allow. parse.ts applies them before the schema.
import type { FieldError } from './field.js';
import { formatCount as count } from '../util/text.js';
import type { Kind } from './types.js';

/**
 * What one object may hold, checked on the raw object before the schema and the rules run, so no
 * request buys more work than these allow: every review at these limits takes well under 50 ms of
 * the event loop's CPU (`node --expose-gc bench/limit-reviews.js`, issue 24). Each is far above any
 * real object:
 * - 1,000 versions per list. Gardener's largest profiles hold a few hundred versions in their
 *   longest list (tens of Kubernetes versions, image lists of up to a few hundred).
 * - 100 machine images. Large profiles hold a few dozen. (200 took up to 90 ms: each image brings
 *   its own warnings, defaulting and patch operations.)
 * - 4,000 version entries per object, all lists together: about twice the entries of the largest
 *   real profiles. (10,000 took 58–74 ms at the median on CREATE through the mutating path, most
 *   of it the lifecycle every plain version is given and the JSON Patch that writes it.)
 * - 8 lifecycle stages per version. A valid lifecycle has at most four (each classification
 *   once); 8 leaves room for mistakes LIFECYCLE-ORDER can name, and anything longer is invalid.
 *   (16 took up to 55 ms on 1,000 versions, gate on: every stage past the fourth is a violation
 *   with its own message and path.)
 * - 1,000 worker pools per Shoot, the only list of a Shoot the rules read (each pool is checked
 *   against its profile in O(1)); real Shoots have a handful, and Gardener's quotas keep them to
 *   tens. The webhook reads no other list of a Shoot: the schema does not descend into them, and
 *   the body limit bounds their parse.
 * Objects read from the cluster, and the stored `oldObject` of a review, are not held to them (see
 * ParseOptions): they are stored already, and what is stored must stay possible to shrink and delete.
 */
export const LIMITS = {
  versionsPerList: 1_000,
  machineImages: 100,
  versionEntries: 4_000,
  lifecycleStages: 8,
  workers: 1_000,
} as const;

/** The Shoot's limits (a part of LIMITS), for those who read a Shoot's. */
export const SHOOT_LIMITS = { workers: LIMITS.workers } as const;

type Measure = keyof typeof LIMITS;

/**
 * How far an UPDATE may keep what is stored beyond LIMITS: twice each of them. An object stored
 * past this (kube-apiserver cannot store one much larger: etcd keeps objects up to 1.5 MiB) is
 * still judged when an UPDATE brings it within this, and a DELETE is judged at any size; only the
 * object a request sends is held to it. It bounds the work of judging an UPDATE to twice that at
 * the limits, whatever oldObject a client claims.
 */
export const STORED_CEILING = Object.fromEntries(Object.entries(LIMITS).map(([k, v]) => [k, 2 * v])) as {
  readonly [K in Measure]: number;
};

/** How much of each measure an object may hold: LIMITS, or more where the stored object already holds more. */
export type Allowance = { readonly [K in Measure]: number };

/** The sizes of `raw` that the limits measure: its longest list, images, entries, longest lifecycle and workers. */
export function sizesOf(kind: Kind, raw: unknown): Allowance {
  const sizes = { versionsPerList: 0, machineImages: 0, versionEntries: 0, lifecycleStages: 0, workers: 0 };
  const spec = raw === null || typeof raw !== 'object' ? undefined : (raw as { spec?: unknown }).spec;
  if (spec === null || typeof spec !== 'object') return sizes;
  if (kind === 'Shoot') {
    const workers = (spec as { provider?: { workers?: unknown } | null }).provider?.workers;
    sizes.workers = Array.isArray(workers) ? workers.length : 0;
    return sizes;
  }
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
  const out = {} as Record<Measure, number>;
  for (const k of Object.keys(LIMITS) as Measure[]) out[k] = Math.max(LIMITS[k], Math.min(had[k], STORED_CEILING[k]));
  return out;
}

/** "the limit of 1,000 per list", and the stored object's size when it allows more. */
function limitText(allowed: Allowance, measure: Measure, unit: string): string {
  const limit = LIMITS[measure];
  const ceiling = STORED_CEILING[measure];
  const base = `the limit of ${count(limit)}${unit}`;
  if (allowed[measure] <= limit) return base;
  return allowed[measure] < ceiling
    ? `${base} and the ${count(allowed[measure])} the stored object holds`
    : `${base} and the ceiling of ${count(ceiling)} for an object stored past it`;
}

/**
 * The limits `raw` exceeds, without looking at anything else (it is not checked yet). `allowed`:
 * LIMITS, or what `allowanceFor` gives an UPDATE.
 */
export function limitErrors(kind: Kind, raw: unknown, allowed: Allowance = LIMITS): FieldError[] {
  const spec = (raw as { spec?: unknown }).spec;
  if (spec === null || typeof spec !== 'object') return [];
  if (kind === 'Shoot') {
    const workers = (spec as { provider?: { workers?: unknown } | null }).provider?.workers;
    if (!Array.isArray(workers) || workers.length <= allowed.workers) return [];
    return [
      {
        field: 'spec.provider.workers',
        message: `has ${count(workers.length)} worker pools, more than ${limitText(allowed, 'workers', '')}`,
      },
    ];
  }
  const errors: FieldError[] = [];
  let entries = 0;
  const lists: Array<[string, unknown[]]> = [];
  const list = (value: unknown, field: string) => {
    if (!Array.isArray(value)) return;
    entries += value.length;
    lists.push([field, value]);
    if (value.length > allowed.versionsPerList) {
      errors.push({
        field,
        message: `has ${count(value.length)} versions, more than ${limitText(allowed, 'versionsPerList', ' per list')}`,
      });
    }
  };
  const { kubernetes, machineImages } = spec as { kubernetes?: { versions?: unknown }; machineImages?: unknown };
  list(kubernetes?.versions, 'spec.kubernetes.versions');
  if (Array.isArray(machineImages)) {
    if (machineImages.length > allowed.machineImages) {
      errors.push({
        field: 'spec.machineImages',
        message: `has ${count(machineImages.length)} machine images, more than ${limitText(allowed, 'machineImages', '')}`,
      });
    } else {
      machineImages.forEach((image, j) =>
        list((image as { versions?: unknown } | null)?.versions, `spec.machineImages[${j}].versions`),
      );
    }
  }
  if (entries > allowed.versionEntries) {
    errors.push({
      field: 'spec',
      message: `has ${count(entries)} version entries in all, more than ${limitText(allowed, 'versionEntries', ' per object')}`,
    });
  }
  if (errors.length > 0) return errors;
  for (const [field, versions] of lists) {
    versions.forEach((v, i) => {
      const stages = (v as { lifecycle?: unknown } | null)?.lifecycle;
      if (Array.isArray(stages) && stages.length > allowed.lifecycleStages) {
        errors.push({
          field: `${field}[${i}].lifecycle`,
          message: `has ${count(stages.length)} stages, more than ${limitText(allowed, 'lifecycleStages', '')}`,
        });
      }
    });
  }
  return errors;
}
