// The steps of a profile's maintenance report in time order, and their wording, shared by
// `explain`'s text and the timeline page so that both say the same thing about the same step.
import type { EventJson, ProfileReport } from './version-report.js';

/** A step of the profile's maintenance, with the expiry of the version it leaves. */
export interface StepRow {
  shoot: string;
  event: EventJson;
  /** When the version the step leaves expires; null: never, or it has always been expired. */
  expires: string | null;
}

/** Every step and failure of the profile's Shoots, in time order (a run's steps in Gardener's order). */
export function stepsOf(p: ProfileReport): StepRow[] {
  const expiries = new Map<string, string | null>();
  for (const r of p.kubernetes) expiries.set(`\u0000${r.version}`, r.expiresAt);
  for (const i of p.machineImages) for (const r of i.versions) expiries.set(`${i.name}\u0000${r.version}`, r.expiresAt);
  const all = (p.maintenance?.shoots ?? []).flatMap((s) =>
    s.events.map((event) => {
      const c = event.component;
      const image = c.kind === 'machine-image' ? c.image : '';
      const expires = c.kind === 'run' ? null : (expiries.get(`${image}\u0000${event.from ?? ''}`) ?? null);
      return { shoot: s.shoot, event, expires };
    }),
  );
  // Stable: Shoots stay in key order within an instant, a run's steps in order.
  return all.sort((a, b) => Date.parse(a.event.at) - Date.parse(b.event.at));
}

/** `control plane`, `worker pool "a"`, `the run` (a rejected run discards all its steps). */
export function placeOf(e: EventJson): string {
  const c = e.component;
  if (c.kind === 'run') return 'the run';
  return c.pool === undefined ? 'control plane' : `worker pool "${c.pool}"`;
}

/** `kubernetes 1.31.7`, `gardenlinux 1592.9.0`; `-` for a rejected run. */
export function fromOf(e: EventJson): string {
  const c = e.component;
  if (c.kind === 'run') return '-';
  return `${c.kind === 'machine-image' ? c.image : 'kubernetes'} ${e.from ?? ''}`;
}

export function targetOf(e: EventJson): string {
  return e.to ?? `none: fails (${e.failure?.kind ?? 'unknown'})`;
}

/**
 * Why the step comes, as the engine says; where the version it leaves expires later, that it
 * comes first (an expiry is never a forced update when an earlier step moves the Shoot off).
 */
export function whyOf(s: StepRow): string {
  const e = s.event;
  const first = s.expires !== null && s.expires > e.at ? ` (${e.from} expires ${s.expires}, after this step)` : '';
  const trap = e.trap ? `; trap ${e.trap.issue}: ${e.trap.detail}` : '';
  return `${e.trigger}${first}${trap}`;
}
