// What a profile UPDATE does to Gardener's maintenance of the Shoots it concerns
// (../../gardener/forecast/profile-change.ts): said as warnings, or, for the conditions the operator lists in
// `forecast.deny`, as the FORECAST rule's violations. Computed once per review, only when the state
// is synced: a warning never waits for the state, and the rule asks for it (needsState).
import type {
  ForecastCondition,
  ForecastFinding,
  ForecastResult,
  ForecastSource,
} from '../../gardener/forecast/profile-change.js';
import { changedLists, forecastFindings } from '../../gardener/forecast/profile-change.js';
import { mergeNamespacedProfile } from '../../gardener/merge.js';
import type { Judged, RuleContext } from '../rule.js';
import { preparedKey } from '../rule.js';
import { liveChildren, sourcesOfCloudProfile } from '../../gardener/usage.js';
import type { Warning, WarningKind } from '../warning.js';
import { dayOf, shootsText, sumOf, versionLabel, warningOf } from '../warning.js';
import { formatInstant } from '../../gardener/versions.js';
import { smallest } from '../../util/text.js';
import { objectKey, type Shoot } from '../../api/types.js';

export type ProfileUpdate = Judged<'CloudProfile' | 'NamespacedCloudProfile', 'UPDATE'>;

const FORECAST_OF_UPDATE = preparedKey<ForecastResult>('forecast of the update');

const NOTHING: ForecastResult = { findings: [], skippedGroups: 0 };

/** Shoots a warning names before it only counts the rest: the 256 characters go to the conclusion first. */
const NAMED = 3;

/** The review's forecast findings, computed on first use and shared by the rule and the warnings. */
export function forecastOfUpdate(ctx: ProfileUpdate): ForecastResult {
  return ctx.prepared ? ctx.prepared.get(FORECAST_OF_UPDATE, () => compute(ctx)) : compute(ctx);
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
const sum = (fs: readonly ForecastFinding[]) => sumOf(fs, (f) => f.shoots.length);

/** `shoots 'a/b', 'a/c' and 4 more`: the first few by key, the rest counted. */
export function someShoots(shoots: readonly Shoot[], named = NAMED): string {
  const listed = smallest(shoots, named, objectKey)
    .map((s) => `'${objectKey(s)}'`)
    .join(', ');
  const rest = shoots.length - named;
  return `${shoots.length === 1 ? 'shoot' : 'shoots'} ${listed}${rest > 0 ? ` and ${rest.toLocaleString('en-US')} more` : ''}`;
}

/** One finding in words, its conclusion first; `named` Shoots are listed. */
export function sayFinding(f: ForecastFinding, named = NAMED): string {
  const who = someShoots(f.shoots, named);
  switch (f.condition) {
    case 'trap':
      return `maintenance would move ${shootsText(f.shoots.length)} onto deprecated ${label(f, f.step.to!)} from ${day(f.at)} (${f.step.trap!.issue}): ${f.step.trap!.detail}; ${who}`;
    case 'no-target':
      return `forced update will fail for ${shootsText(f.shoots.length)} on ${label(f, f.version)} from ${day(f.at)}: ${f.step.failure!.message}; ${who}`;
    case 'forced-soon':
      return `forced update moves within days for ${shootsText(f.shoots.length)} on ${label(f, f.version)}: on ${day(f.at)}${f.before !== undefined ? `, not ${day(f.before)}` : ''}${f.step.to ? `, to ${f.step.to}` : ''}; ${who}`;
  }
}

const kinds: Record<ForecastCondition, WarningKind<ForecastFinding>> = {
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

/** The findings the operator did not ask to deny, as warnings; one more when the budget cut the forecast short. */
export function forecastWarnings(ctx: ProfileUpdate): Warning[] {
  if (!ctx.config.forecast.warn || !ctx.state.synced) return [];
  const deny = new Set(ctx.config.forecast.deny);
  const { findings, skippedGroups } = forecastOfUpdate(ctx);
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

/** The warning check: profile UPDATEs only. */
export function forecastWarningsOf(ctx: RuleContext): Warning[] {
  if (ctx.kind === 'Shoot' || ctx.operation !== 'UPDATE' || !ctx.object) return [];
  return forecastWarnings(ctx as ProfileUpdate);
}
