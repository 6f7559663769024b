// What a profile UPDATE does to Gardener's maintenance of the Shoots it concerns
// (../../gardener/forecast/profile-change.ts): said as warnings, or, for the conditions the operator lists in
// `forecast.deny`, as the FORECAST rule's violations. Computed once per review, only when the state
// is synced: a warning never waits for the state, and the rule asks for it (needsState). The
// server computes it in a worker thread (server/workers/) and hands the answer in; the CLI here.
import type {
  ForecastCondition,
  ForecastFinding,
  ForecastResult,
  ForecastSource,
} from '../../gardener/forecast/profile-change.js';
import { changedLists, forecastFindings } from '../../gardener/forecast/profile-change.js';
import { mergeNamespacedProfile } from '../../gardener/merge.js';
import type { Judged, Prepared, RuleContext } from '../rule.js';
import { preparedKey } from '../rule.js';
import { LISTED_USERS, liveChildren, sourcesOfCloudProfile } from '../../gardener/usage.js';
import type { Warning, WarningKind } from '../warning.js';
import { dayOf, shootsText, sumOf, versionLabel, warningOf } from '../warning.js';
import { formatInstant } from '../../gardener/versions.js';
import { smallest } from '../../util/text.js';
import { objectKey } from '../../api/types.js';

export type ProfileUpdate = Judged<'CloudProfile' | 'NamespacedCloudProfile', 'UPDATE'>;

/** The Shoots of a finding as the messages name them: how many, and the first keys in order. */
export interface FindingShoots {
  count: number;
  /** The smallest `namespace/name` keys, at most LISTED_USERS. */
  named: string[];
}

/** A finding as the rule and the warnings say it: plain data, the same whether computed here or in a worker. */
export type SaidFinding = Omit<ForecastFinding, 'shoots'> & { shoots: FindingShoots };

/**
 * The review's forecast: its findings and how many groups the work budget left unstepped, or why
 * there is none (`unavailable`: the server's worker did not answer, crashed or was stopped). Plain
 * data, so that a worker thread can hand it back.
 */
export type ForecastAnswer = { findings: SaidFinding[]; skippedGroups: number } | { unavailable: string };

const FORECAST_OF_UPDATE = preparedKey<ForecastAnswer>('forecast of the update');

const NOTHING: ForecastResult = { findings: [], skippedGroups: 0 };

/** Shoots a warning names before it only counts the rest: the 256 characters go to the conclusion first. */
const NAMED = 3;

/** The review's forecast, computed on first use (or handed in) and shared by the rule and the warnings. */
export function forecastOfUpdate(ctx: ProfileUpdate): ForecastAnswer {
  return ctx.prepared ? ctx.prepared.get(FORECAST_OF_UPDATE, () => answerForecast(ctx)) : answerForecast(ctx);
}

/** Hands in a forecast computed elsewhere (a worker, or "cannot know"): the review reads it instead of computing one. */
export function provideForecast(prepared: Prepared, answer: ForecastAnswer): void {
  prepared.set(FORECAST_OF_UPDATE, answer);
}

/** Whether judging this review reads its forecast: a profile UPDATE, a synced state, and the forecast on. */
export function wantsForecast(ctx: RuleContext, forecastRuleOn: boolean): boolean {
  if (ctx.kind === 'Shoot' || ctx.operation !== 'UPDATE' || !ctx.object || !ctx.state.synced) return false;
  return ctx.config.forecast.warn || (forecastRuleOn && ctx.config.forecast.deny.length > 0);
}

/** The forecast of one review, computed here: what the CLI runs in-process and the server's worker runs off the loop. */
export function answerForecast(ctx: ProfileUpdate): ForecastAnswer {
  const { findings, skippedGroups } = compute(ctx);
  return { findings: findings.map(said), skippedGroups };
}

function said(f: ForecastFinding): SaidFinding {
  const { shoots, ...rest } = f;
  return { ...rest, shoots: { count: shoots.length, named: smallest(shoots.map(objectKey), LISTED_USERS, (k) => k) } };
}

function compute(ctx: ProfileUpdate): ForecastResult {
  const opts = { horizonDays: ctx.config.forecast.horizonDays, soonDays: ctx.config.forecast.soonDays };
  if (ctx.kind === 'CloudProfile') {
    if (!ctx.oldObject) return NOTHING;
    const before = ctx.oldObject.spec;
    const after = ctx.object.spec;
    const changed = changedLists(before, after);
    if (changed.size === 0) return NOTHING;
    const sources = sourcesOfCloudProfile(
      ctx.object.metadata.name,
      liveChildren(ctx.state, ctx.object.metadata.name),
    ).map((s): ForecastSource =>
      s.via
        ? {
            ref: s.ref,
            before: () => mergeNamespacedProfile(before, s.via!.spec),
            after: () => mergeNamespacedProfile(after, s.via!.spec),
          }
        : { ref: s.ref, before: () => before, after: () => after },
    );
    return forecastFindings(sources, changed, ctx.state, ctx.now, opts);
  }
  const { merged, oldMerged } = ctx;
  if (!merged || !oldMerged) return NOTHING; // no parent: NCP-OVERRIDES says so
  const changed = changedLists(oldMerged, merged);
  if (changed.size === 0) return NOTHING;
  const ref = {
    kind: 'NamespacedCloudProfile' as const,
    namespace: ctx.object.metadata.namespace ?? '',
    name: ctx.object.metadata.name,
  };
  return forecastFindings([{ ref, before: () => oldMerged, after: () => merged }], changed, ctx.state, ctx.now, opts);
}

const label = (f: Pick<ForecastFinding, 'image'>, version: string) => versionLabel(f.image, version);
const day = (at: number) => dayOf(formatInstant(at));
const sum = (fs: readonly SaidFinding[]) => sumOf(fs, (f) => f.shoots.count);

/** `shoots 'a/b', 'a/c' and 4 more`: the first few by key, the rest counted. */
export function someShoots(shoots: FindingShoots, named = NAMED): string {
  const listed = shoots.named
    .slice(0, named)
    .map((k) => `'${k}'`)
    .join(', ');
  const rest = shoots.count - named;
  return `${shoots.count === 1 ? 'shoot' : 'shoots'} ${listed}${rest > 0 ? ` and ${rest.toLocaleString('en-US')} more` : ''}`;
}

/** One finding in words, its conclusion first; `named` Shoots (at most LISTED_USERS) are listed. */
export function sayFinding(f: SaidFinding, named = NAMED): string {
  const who = someShoots(f.shoots, named);
  const n = f.shoots.count;
  switch (f.condition) {
    case 'trap':
      return `maintenance would move ${shootsText(n)} onto deprecated ${label(f, f.step.to!)} from ${day(f.at)} (${f.step.trap!.issue}): ${f.step.trap!.detail}; ${who}`;
    case 'no-target':
      return `forced update will fail for ${shootsText(n)} on ${label(f, f.version)} from ${day(f.at)}: ${f.step.failure!.message}; ${who}`;
    case 'forced-soon':
      return `forced update moves within days for ${shootsText(n)} on ${label(f, f.version)}: on ${day(f.at)}${f.before !== undefined ? `, not ${day(f.before)}` : ''}${f.step.to ? `, to ${f.step.to}` : ''}; ${who}`;
  }
}

const kinds: Record<ForecastCondition, WarningKind<SaidFinding>> = {
  trap: {
    one: (f) => sayFinding(f),
    many: (fs) =>
      `maintenance would move ${shootsText(sum(fs))} onto deprecated versions (${fs.length} steps, gardener/gardener#13647, #13703); see version-policy forecast --proposed`,
  },
  'no-target': {
    one: (f) => sayFinding(f),
    many: (fs) =>
      `forced update will fail for ${shootsText(sum(fs))} on ${fs.length} versions; see version-policy forecast --proposed`,
  },
  'forced-soon': {
    one: (f) => sayFinding(f),
    many: (fs) =>
      `forced update moves within days for ${shootsText(sum(fs))} on ${fs.length} versions; see version-policy forecast --proposed`,
  },
};

/**
 * The findings the operator did not ask to deny, as warnings; one more when the budget cut the
 * forecast short, or in place of them when there is no forecast to say.
 */
export function forecastWarnings(ctx: ProfileUpdate): Warning[] {
  if (!ctx.config.forecast.warn || !ctx.state.synced) return [];
  const deny = new Set(ctx.config.forecast.deny);
  const answer = forecastOfUpdate(ctx);
  if ('unavailable' in answer) return [warningOf(unavailableKind, 'forecast-unavailable', answer.unavailable)];
  const { findings, skippedGroups } = answer;
  const out = findings
    .filter((f) => !deny.has(f.condition))
    .map((f) => warningOf(kinds[f.condition], `forecast-${f.condition}`, f));
  if (skippedGroups > 0) out.push(warningOf(partialKind, 'forecast-partial', skippedGroups));
  return out;
}

const partialKind: WarningKind<number> = {
  one: (n) =>
    `maintenance forecast is partial: ${n.toLocaleString('en-US')} groups of Shoots were not stepped within this review's budget; see version-policy forecast --proposed`,
  many: (ns) => `maintenance forecast is partial (${ns.length} times)`,
};

const unavailableKind: WarningKind<string> = {
  one: (why) =>
    `maintenance forecast not run: ${why}; the review was judged without it; see version-policy forecast --proposed`,
  many: (whys) => `maintenance forecast not run (${whys.length} times)`,
};

/** The warning check: profile UPDATEs only. */
export function forecastWarningsOf(ctx: RuleContext): Warning[] {
  if (ctx.kind === 'Shoot' || ctx.operation !== 'UPDATE' || !ctx.object) return [];
  return forecastWarnings(ctx as ProfileUpdate);
}
