// The lifecycles DEFAULT-LIFECYCLE writes: a fresh one for a version it meets for the first time,
// or the next step of one it wrote earlier. A step only appends stages starting now or later, so
// stored dates never move and the stage order LIFECYCLE-ORDER demands still holds.
import type { ExpirableVersion, LifecycleStage } from '../../api/types.js';
import { formatInstant, hasLifecycle, hasLegacyFields, parseInstant } from '../../gardener/versions.js';
import type { Verdict } from './lifecycle-decision.js';

/** The fields that say a version's lifecycle. */
export type VersionFields = Pick<ExpirableVersion, 'classification' | 'expirationDate' | 'lifecycle'>;

export type Change =
  /** A first lifecycle for a version this path meets for the first time. */
  | 'fresh'
  /** The stored lifecycle already says what the policy wants. */
  | 'kept'
  /** Stages appended: superseded by a newer patch, or released from preview. */
  | 'advanced'
  /** Newest patch again (its successor was removed): the deprecation this path wrote is withdrawn. */
  | 'reverted'
  /** The expired stage is dropped: the highest Kubernetes version never expires. */
  | 'capped';

export interface NextLifecycle {
  stages: LifecycleStage[];
  change: Change;
  /** The stages that are news: all of a fresh lifecycle, the appended ones of an advanced one. */
  news: LifecycleStage[];
}

/** The version's lifecycle fields, or undefined for a plain version. */
export function fieldsOf(v: ExpirableVersion): VersionFields | undefined {
  if (hasLifecycle(v)) return { lifecycle: v.lifecycle! };
  if (!hasLegacyFields(v)) return undefined;
  return {
    ...(v.classification !== undefined ? { classification: v.classification } : {}),
    ...(v.expirationDate !== undefined ? { expirationDate: v.expirationDate } : {}),
  };
}

/** Equal lifecycle fields; an empty lifecycle equals none. Runs for every version on every request, so no serialising. */
export function sameFields(a: VersionFields | undefined, b: VersionFields | undefined): boolean {
  if (!a || !b) return !a && !b;
  if (a.classification !== b.classification || a.expirationDate !== b.expirationDate) return false;
  const la = a.lifecycle ?? [];
  const lb = b.lifecycle ?? [];
  return (
    la.length === lb.length &&
    la.every((s, i) => s.classification === lb[i]!.classification && s.startTime === lb[i]!.startTime)
  );
}

/** Stages are flat objects: a copy per stage is a deep copy. */
function copyStages(stages: readonly LifecycleStage[]): LifecycleStage[] {
  return stages.map((s) => ({ ...s }));
}

/** Stored fields as stages; legacy fields read the way Gardener reads them. */
export function stagesFrom(f: VersionFields): LifecycleStage[] {
  if (f.lifecycle && f.lifecycle.length > 0) return copyStages(f.lifecycle);
  const stages: LifecycleStage[] = [{ classification: f.classification ?? 'supported' }];
  if (f.expirationDate !== undefined) stages.push({ classification: 'expired', startTime: f.expirationDate });
  return stages;
}

/** The lifecycle the verdict asks for, given what this path stored before (undefined: nothing). */
export function nextLifecycle(
  stored: LifecycleStage[] | undefined,
  verdict: Verdict,
  now: number,
  neverExpires: boolean,
): NextLifecycle {
  const next = step(stored, verdict, now);
  if (!neverExpires || !next.stages.some(isExpired)) return next;
  return {
    stages: next.stages.filter((s) => !isExpired(s)),
    change: next.change === 'kept' ? 'capped' : next.change,
    news: next.news.filter((s) => !isExpired(s)),
  };
}

function step(stored: LifecycleStage[] | undefined, verdict: Verdict, now: number): NextLifecycle {
  if (!stored) {
    const stages =
      verdict.state === 'deprecated'
        ? [{ classification: 'deprecated' }, expiry(verdict, now)]
        : [{ classification: verdict.state }];
    return { stages, change: 'fresh', news: stages };
  }
  const kept: NextLifecycle = { stages: stored, change: 'kept', news: [] };
  // A stored stage that starts later than `now` (a clock set back, an explicit --now) must not
  // make the appended stages go backwards in time.
  const at = stored.reduce((latest, s) => {
    const start = parseInstant(s.startTime);
    return Number.isFinite(start) ? Math.max(latest, start) : latest;
  }, now);
  const advance = (news: LifecycleStage[]): NextLifecycle => ({
    stages: [...stored, ...news],
    change: 'advanced',
    news,
  });
  const phase = phaseOf(stored);
  switch (verdict.state) {
    case 'supported':
      if (phase === 'supported') return kept;
      if (phase === 'preview') return advance([{ classification: 'supported', startTime: rfc3339(at) }]);
      return { stages: withoutDeprecation(stored), change: 'reverted', news: [] };
    case 'preview':
      // Once supported, a version cannot go back to preview: the operator's supported version wins.
      return phase === 'supported'
        ? advance([{ classification: 'deprecated', startTime: rfc3339(at) }, expiry(verdict, at)])
        : kept;
    case 'deprecated':
      return phase === 'deprecated'
        ? kept
        : advance([{ classification: 'deprecated', startTime: rfc3339(at) }, expiry(verdict, at)]);
  }
}

/** Where a stored lifecycle stands in the policy: it only moves forward. */
function phaseOf(stages: readonly LifecycleStage[]): 'preview' | 'supported' | 'deprecated' {
  if (stages.some((s) => s.classification === 'deprecated' || isExpired(s))) return 'deprecated';
  return stages.some((s) => s.classification === 'supported') ? 'supported' : 'preview';
}

/** The stored lifecycle up to its supported stage, or a plain supported one if it never had one. */
function withoutDeprecation(stages: readonly LifecycleStage[]): LifecycleStage[] {
  const last = stages.map((s) => s.classification).lastIndexOf('supported');
  return last < 0 ? [{ classification: 'supported' }] : stages.slice(0, last + 1);
}

function expiry(verdict: Verdict, from: number): LifecycleStage {
  return { classification: 'expired', startTime: rfc3339(from + verdict.expiresAfter) };
}

function isExpired(s: LifecycleStage): boolean {
  return s.classification === 'expired';
}

/** RFC 3339 in whole seconds, so the written dates do not depend on the clock's milliseconds. */
export function rfc3339(ms: number): string {
  return formatInstant(Math.floor(ms / 1000) * 1000);
}

/**
 * The stages as the gate allows them: a lifecycle, or legacy `classification` + `expirationDate`.
 * The lifecycle is `stages` itself, not a copy: it is only ever handed to writeFields, which copies.
 */
export function fieldsFor(stages: LifecycleStage[], lifecycleGate: boolean): VersionFields {
  if (lifecycleGate) return { lifecycle: stages };
  const expired = stages.find(isExpired);
  const current = stages.filter((s) => !isExpired(s)).at(-1);
  return {
    classification: current?.classification ?? 'deprecated',
    ...(expired?.startTime !== undefined ? { expirationDate: expired.startTime } : {}),
  };
}

/**
 * Replaces the version's lifecycle fields; leaves the entry untouched when they already match.
 * Field by field: Object.assign of a spread copy took V8's generic path, three times the cost of
 * the whole write, once per defaulted version.
 */
export function writeFields(v: ExpirableVersion, fields: VersionFields): void {
  if (sameFields(fieldsOf(v), fields)) return;
  if ('lifecycle' in v) delete v.lifecycle;
  if ('classification' in v) delete v.classification;
  if ('expirationDate' in v) delete v.expirationDate;
  if (fields.lifecycle !== undefined) v.lifecycle = copyStages(fields.lifecycle);
  if (fields.classification !== undefined) v.classification = fields.classification;
  if (fields.expirationDate !== undefined) v.expirationDate = fields.expirationDate;
}

/** "deprecated, expires 2026-12-30T00:00:00Z", "supported from 2026-09-01T00:00:00Z". */
export function describeStages(stages: readonly LifecycleStage[]): string {
  return stages
    .map((s) =>
      isExpired(s)
        ? `expires ${s.startTime ?? 'now'}`
        : s.startTime
          ? `${s.classification} from ${s.startTime}`
          : s.classification,
    )
    .join(', ');
}
