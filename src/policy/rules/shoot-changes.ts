// What the SHOOT-* rules and the Shoot warnings share: which Shoot requests they judge, what an
// UPDATE changed, and how a profile's valid choices are listed.
import { type FieldPath, fieldPath } from '../../api/field.js';
import type { Judged, RuleContext, ShootContext, Write } from '../rule.js';
import type { ExpirableVersion, ProfileRef, Shoot, Worker } from '../../api/types.js';
import { formatCount } from '../../util/text.js';
import { classificationAt, isActive } from '../../gardener/versions.js';

/**
 * SHOOT-* rules judge Shoot CREATE and UPDATE. An UPDATE of a Shoot that is being deleted is not
 * judged: Gardener skips it too, and denying it could keep a finalizer on a Shoot whose profile
 * is already gone.
 */
export function judgesShoot(ctx: RuleContext): ctx is ShootContext & { object: Shoot } {
  if (ctx.kind !== 'Shoot' || !ctx.object) return false;
  if (ctx.operation === 'CREATE') return true;
  return ctx.operation === 'UPDATE' && !deleting(ctx.object) && !deleting(ctx.oldObject);
}

const deleting = (shoot: Shoot | undefined) => Boolean(shoot?.metadata.deletionTimestamp);

export const SHOOT = ['Shoot'] as const;
export type ShootWrite = Judged<'Shoot', Write>;

/** An UPDATE of a Shoot that is (or was) being deleted: the SHOOT-* rules leave it alone. */
export function deletingUpdate(ctx: ShootWrite): boolean {
  return ctx.operation === 'UPDATE' && (deleting(ctx.object) || deleting(ctx.oldObject));
}

export function workersOf(shoot: Shoot): Worker[] {
  return shoot.spec.provider?.workers ?? [];
}

const WORKERS = fieldPath('spec', 'provider', 'workers');

export function workerPath(i: number): FieldPath {
  return WORKERS.index(i);
}

/** A Shoot's worker pools by name (the first of a name wins), so each pool is one lookup, not a scan. */
export function workersByName(shoot: Shoot | undefined): Map<string, Worker> {
  const out = new Map<string, Worker>();
  if (shoot) for (const w of workersOf(shoot)) if (!out.has(w.name)) out.set(w.name, w);
  return out;
}

/** A worker pool's kubelet version: its own, else the control plane's. */
export function kubeletVersionOf(shoot: Shoot, worker: Worker): string {
  return worker.kubernetes?.version ?? shoot.spec.kubernetes.version;
}

export function shootName(shoot: Shoot): string {
  return `'${shoot.metadata.namespace}/${shoot.metadata.name}'`;
}

export function profileLabel(ref: ProfileRef): string {
  return ref.kind === 'CloudProfile'
    ? `CloudProfile "${ref.name}"`
    : `NamespacedCloudProfile '${ref.namespace}/${ref.name}'`;
}

/** How many valid values a message names before it counts the rest. */
const LISTED_CHOICES = 10;

/**
 * Gardener's list of valid values: the active versions, in profile order, `(preview)` where it
 * applies; the first few, then a count.
 */
export function validChoices(versions: readonly ExpirableVersion[], now: number): string {
  const named: string[] = [];
  let active = 0;
  for (const v of versions) {
    const c = classificationAt(v, now);
    if (!isActive(c)) continue;
    if (++active <= LISTED_CHOICES) named.push(c === 'preview' ? `"${v.version} (preview)"` : `"${v.version}"`);
  }
  if (active === 0) return 'none';
  return active > LISTED_CHOICES
    ? `${named.join(', ')} and ${formatCount(active - LISTED_CHOICES)} more`
    : named.join(', ');
}
