// Versions and time, Gardener's reading of both: parsing, ordering and constraints (Masterminds
// semver, in semver/), classification at an instant, supported windows. Every instant is epoch
// milliseconds; an instant counts as reached only when strictly before `now`.
import { instantOf } from '../api/instant.js';
import type { Classification, ExpirableVersion, LifecycleStage } from '../api/types.js';
import { memo } from '../util/memo.js';
import { STAGE_ORDER } from '../api/types.js';
import { compareVersions, parseVersion } from './semver/helpers.js';

export {
  beyondKubeletSkew,
  compareAs,
  compareVersions,
  kubeletConstraint,
  type KubeletVerdict,
  MAX_KUBELET_SKEW_MINORS,
  meetsConstraint,
  minorKey,
  normalize,
  parseConstraint,
  parseVersion,
  versionError,
} from './semver/helpers.js';
export type { Semver } from './semver/version.js';

/** Gardener's Kubernetes version format: strictly X.Y.Z, no `v`, no suffix. */
export const K8S_VERSION_PATTERN = /^([0-9]+\.){2}[0-9]+$/;

export function isStrictKubernetesVersion(version: string): boolean {
  return K8S_VERSION_PATTERN.test(version);
}

/**
 * The versions of `from` that `into` does not list, in `from`'s order. Most UPDATEs keep every
 * version where it was (a label, a new version at the end): one pass over the lists answers that
 * with nothing allocated; otherwise a set of `into`'s versions does.
 */
export function versionsNotIn(from: readonly { version: string }[], into: readonly { version: string }[]): string[] {
  if (from.length <= into.length) {
    let i = 0;
    while (i < from.length && from[i]!.version === into[i]!.version) i++;
    if (i === from.length) return [];
  }
  const listed = new Set<string>();
  for (const x of into) listed.add(x.version);
  const out: string[] = [];
  for (const x of from) if (!listed.has(x.version)) out.push(x.version);
  return out;
}

/** The highest version of a list by semver, or undefined for an empty list or an unparseable entry. */
export function latestVersion<T extends { version: string }>(versions: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const v of versions) {
    if (!parseVersion(v.version)) return undefined;
    if (!best || compareVersions(v.version, best.version) > 0) best = v;
  }
  return best;
}

/** RFC 3339 → epoch ms as Gardener decodes it (Go's time.Parse); NaN when absent or refused. */
export function parseInstant(value: string | undefined): number {
  if (value === undefined) return Number.NaN;
  const ms = instantOf(value);
  return typeof ms === 'number' ? ms : Number.NaN;
}

/** Epoch ms → RFC 3339 (`2026-11-26T00:00:00Z`; milliseconds only when there are some); remembered, as a review formats the same few dates per version. */
export const formatInstant: (ms: number) => string = memo(10_000, (ms: number) =>
  new Date(ms).toISOString().replace('.000Z', 'Z'),
);

/** When a lifecycle stage starts: -Infinity without a startTime ("always started"), NaN for an unparseable one. */
export function stageStart(s: LifecycleStage): number {
  return s.startTime === undefined ? Number.NEGATIVE_INFINITY : parseInstant(s.startTime);
}

export interface Stage {
  classification: string;
  /** -Infinity when the stage has no start ("always started"). */
  start: number;
}

export function hasLifecycle(v: ExpirableVersion): boolean {
  return Array.isArray(v.lifecycle) && v.lifecycle.length > 0;
}

export function hasLegacyFields(v: ExpirableVersion): boolean {
  return v.classification !== undefined || v.expirationDate !== undefined;
}

/**
 * The version's stages. A lifecycle is taken as written; legacy fields are read as a lifecycle
 * (classification or `supported` with no start, then `expired` at expirationDate). A plain
 * version has no stages.
 */
export function stagesOf(v: ExpirableVersion): Stage[] {
  if (hasLifecycle(v)) {
    return v.lifecycle!.map((s) => ({
      classification: s.classification,
      start: stageStart(s),
    }));
  }
  if (!hasLegacyFields(v)) return [];
  const stages: Stage[] = [{ classification: v.classification ?? 'supported', start: Number.NEGATIVE_INFINITY }];
  if (v.expirationDate !== undefined) stages.push({ classification: 'expired', start: parseInstant(v.expirationDate) });
  return stages;
}

/** Whether stagesOf(v) has a stage of `classification`, without building them. */
export function hasStage(v: ExpirableVersion, classification: string): boolean {
  if (hasLifecycle(v)) return v.lifecycle!.some((s) => s.classification === classification);
  if (!hasLegacyFields(v)) return false;
  return (
    (v.classification ?? 'supported') === classification ||
    (classification === 'expired' && v.expirationDate !== undefined)
  );
}

/** Classification of a set of stages at instant `t`: stages whose start is strictly before `t` apply, later ones win. */
export function classifyStages(stages: readonly Stage[], t: number): Classification {
  if (stages.length === 0) return 'supported';
  let result: string = 'unavailable';
  for (const s of stages) if (s.start < t) result = s.classification;
  return result as Classification;
}

/**
 * classifyStages(stagesOf(v), t), read straight from the version without building stage objects:
 * every rule and warning asks it of every version.
 */
export function classificationAt(v: ExpirableVersion, t: number): Classification {
  if (hasLifecycle(v)) {
    let result: string = 'unavailable';
    for (const s of v.lifecycle!) if (stageStart(s) < t) result = s.classification;
    return result as Classification;
  }
  if (!hasLegacyFields(v)) return 'supported';
  // The legacy stages: the classification (or supported) always started, then expired at expirationDate.
  return v.expirationDate !== undefined && parseInstant(v.expirationDate) < t
    ? 'expired'
    : ((v.classification ?? 'supported') as Classification);
}

export function isActive(c: Classification): boolean {
  return c !== 'unavailable' && c !== 'expired';
}

export function stageRank(c: string): number {
  return (STAGE_ORDER as readonly string[]).indexOf(c);
}

/** An explicit supported claim: legacy `classification: supported`, or a lifecycle `supported` stage. */
export function isExplicitlySupported(v: ExpirableVersion): boolean {
  if (hasLifecycle(v)) return v.lifecycle!.some((s) => s.classification === 'supported');
  return v.classification === 'supported';
}

/** A half-open interval (from, to] of instants; ±Infinity for open ends. */
export interface Window {
  from: number;
  to: number;
}

/**
 * The classification in each span between a version's stage starts, in time order: `at` is the
 * span's start (-Infinity for the first) and `classification` holds from just after `at` until
 * the next entry's `at`. Within a span exactly the stages starting at or before `at` apply, and of
 * those the last in list order wins; one sort and one pass find it for every span (O(s log s)).
 */
function spansOf(stages: readonly Stage[]): Array<{ at: number; classification: string }> {
  const byStart = stages
    .map((s, i) => ({ start: s.start, i }))
    .filter((s) => !Number.isNaN(s.start))
    .sort((a, b) => a.start - b.start);
  const bounds = [Number.NEGATIVE_INFINITY];
  for (const s of byStart) if (Number.isFinite(s.start) && s.start !== bounds[bounds.length - 1]) bounds.push(s.start);
  const out: Array<{ at: number; classification: string }> = [];
  let k = 0;
  let last = -1;
  for (const at of bounds) {
    while (k < byStart.length && byStart[k]!.start <= at) last = Math.max(last, byStart[k++]!.i);
    out.push({ at, classification: last < 0 ? 'unavailable' : stages[last]!.classification });
  }
  return out;
}

/**
 * The spans of time in which the version classifies as `classification`. The result is piecewise
 * constant between stage starts, so it is evaluated once per span and adjacent spans are merged.
 */
export function windowsOf(v: ExpirableVersion, classification: Classification): Window[] {
  const stages = stagesOf(v);
  if (stages.length === 0)
    return classification === 'supported' ? [{ from: Number.NEGATIVE_INFINITY, to: Number.POSITIVE_INFINITY }] : [];
  const spans = spansOf(stages);
  const out: Window[] = [];
  spans.forEach((span, i) => {
    if (span.classification !== classification) return;
    const to = spans[i + 1]?.at ?? Number.POSITIVE_INFINITY;
    const last = out[out.length - 1];
    if (last && last.to === span.at) last.to = to;
    else out.push({ from: span.at, to });
  });
  return out;
}

/** True if some instant strictly after `now` lies in a window of both lists. */
export function windowsOverlapAfter(a: readonly Window[], b: readonly Window[], now: number): boolean {
  for (const x of a) {
    for (const y of b) {
      if (Math.max(x.from, y.from, now) < Math.min(x.to, y.to)) return true;
    }
  }
  return false;
}

/** When the version becomes expired: its expirationDate, or the start of its `expired` stage. */
export function expiryInstant(v: ExpirableVersion): number | undefined {
  if (hasLifecycle(v)) {
    const stage = v.lifecycle!.find((s) => s.classification === 'expired');
    if (!stage) return undefined;
    return stageStart(stage);
  }
  return v.expirationDate === undefined ? undefined : parseInstant(v.expirationDate);
}

/** The next stage change after `now` (a stage starting exactly at `now` is still ahead). */
export function nextTransition(
  v: ExpirableVersion,
  now: number,
): { classification: Classification; at: number } | undefined {
  const stages = stagesOf(v);
  const current = classifyStages(stages, now);
  for (const span of spansOf(stages)) {
    if (span.at >= now && span.classification !== current)
      return { classification: span.classification as Classification, at: span.at };
  }
  return undefined;
}
