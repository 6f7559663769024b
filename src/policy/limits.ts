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
 * Objects read from the cluster are not held to them (see ParseOptions): they are stored already.
 */
export const LIMITS = {
  versionsPerList: 1_000,
  machineImages: 200,
  versionEntries: 10_000,
  lifecycleStages: 16,
} as const;

/** The limits `raw` exceeds, without looking at anything else (it is not checked yet). */
export function limitErrors(kind: Kind, raw: unknown): FieldError[] {
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
    if (value.length > LIMITS.versionsPerList) {
      errors.push({ field, message: `has ${count(value.length)} versions, more than the limit of ${count(LIMITS.versionsPerList)} per list` });
    }
  };
  const { kubernetes, machineImages } = spec as { kubernetes?: { versions?: unknown }; machineImages?: unknown };
  list(kubernetes?.versions, 'spec.kubernetes.versions');
  if (Array.isArray(machineImages)) {
    if (machineImages.length > LIMITS.machineImages) {
      errors.push({ field: 'spec.machineImages', message: `has ${count(machineImages.length)} machine images, more than the limit of ${count(LIMITS.machineImages)}` });
    } else {
      machineImages.forEach((image, j) => list((image as { versions?: unknown } | null)?.versions, `spec.machineImages[${j}].versions`));
    }
  }
  if (entries > LIMITS.versionEntries) {
    errors.push({ field: 'spec', message: `has ${count(entries)} version entries in all, more than the limit of ${count(LIMITS.versionEntries)} per object` });
  }
  if (errors.length > 0) return errors;
  for (const [field, versions] of lists) {
    versions.forEach((v, i) => {
      const stages = (v as { lifecycle?: unknown } | null)?.lifecycle;
      if (Array.isArray(stages) && stages.length > LIMITS.lifecycleStages) {
        errors.push({ field: `${field}[${i}].lifecycle`, message: `has ${count(stages.length)} stages, more than the limit of ${LIMITS.lifecycleStages}` });
      }
    });
  }
  return errors;
}
