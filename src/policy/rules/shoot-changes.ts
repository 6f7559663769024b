// What the SHOOT-* rules and the Shoot warnings share: which Shoot requests they judge, what an
// UPDATE changed, and how a profile's valid choices are listed.
import type { RuleContext, ShootContext } from '../rule.js';
import type { ExpirableVersion, ProfileRef, Shoot, Worker } from '../types.js';
import { classificationAt, isActive } from '../versions.js';

/**
 * SHOOT-* rules judge Shoot CREATE and UPDATE. An UPDATE of a Shoot that is being deleted is not
 * judged: Gardener skips it too, and denying it could keep a finalizer on a Shoot whose profile
 * is already gone.
 */
export function judgesShoot(ctx: RuleContext): ctx is ShootContext & { object: Shoot } {
  if (ctx.kind !== 'Shoot' || !ctx.object) return false;
  if (ctx.operation === 'CREATE') return true;
  if (ctx.operation !== 'UPDATE') return false;
  return !ctx.object.metadata.deletionTimestamp && !ctx.oldObject?.metadata.deletionTimestamp;
}

export function workersOf(shoot: Shoot): Worker[] {
  return shoot.spec.provider?.workers ?? [];
}

export function workerPath(i: number): string {
  return `spec.provider.workers[${i}]`;
}

/** The old object's worker pool of the same name; undefined on CREATE or for a new pool. */
export function oldWorkerOf(old: Shoot | undefined, name: string): Worker | undefined {
  return old ? workersOf(old).find((w) => w.name === name) : undefined;
}

/** A worker pool's kubelet version: its own, else the control plane's. */
export function kubeletVersionOf(shoot: Shoot, worker: Worker): string {
  return worker.kubernetes?.version ?? shoot.spec.kubernetes.version;
}

export function shootName(shoot: Shoot): string {
  return `'${shoot.metadata.namespace}/${shoot.metadata.name}'`;
}

export function profileLabel(ref: ProfileRef): string {
  return ref.kind === 'CloudProfile' ? `CloudProfile "${ref.name}"` : `NamespacedCloudProfile '${ref.namespace}/${ref.name}'`;
}

/** Gardener's list of valid values: the active versions, in profile order, `(preview)` where it applies. */
export function validChoices(versions: readonly ExpirableVersion[], now: number): string {
  const choices = versions.flatMap((v) => {
    const c = classificationAt(v, now);
    if (!isActive(c)) return [];
    return [c === 'preview' ? `"${v.version} (preview)"` : `"${v.version}"`];
  });
  return choices.length > 0 ? choices.join(', ') : 'none';
}
