// Warnings on Shoot admission: a version the Shoot uses is deprecated, expires soon (with the date
// and the step that moves the Shoot off it), or is expired (the forced update ahead, or that it
// fails). The step is the forecast engine's (gardener/forecast/): an auto-update that comes before
// the expiry is said as such, never as a forced update. Each says its conclusion first, then the
// version and the Shoot, then why: kube-apiserver cuts a warning at 256 characters.
import type { ProfileEntries, ShootVersionUse } from '../../gardener/version-uses.js';
import { describeUse, placeOf, profileEntries, versionUsesOf } from '../../gardener/version-uses.js';
import { type ForecastEvent, forecastShoot } from '../../gardener/forecast/index.js';
import { maintenanceWindowOf } from '../../gardener/maintenance.js';
import type { RuleContext } from '../rule.js';
import { judgesShoot, shootName, workersByName } from '../rules/shoot-changes.js';
import { listSome } from '../../util/text.js';
import type { Shoot } from '../../api/types.js';
import type { Warning, WarningKind } from '../warning.js';
import { warningOf } from '../warning.js';
import { classificationAt, expiryInstant, formatInstant, isActive } from '../../gardener/versions.js';

const DAY_MS = 86_400_000;
/**
 * The most a warning's forecast may cost, in versions judged. A forecast runs at most a run a day,
 * and a run may judge each distinct version of the Shoot against its whole list again (a lifecycle
 * change between runs clears the engine's memo), and scans each pool's image list for the dry run
 * (a scan is about 50 times cheaper than a judgement). The bound is loose: 29,000 of it took 9-13 ms
 * of the main thread's CPU, cold, at load 35 (bench/limit-reviews.js); a Shoot with a few pools on
 * lists of hundreds stays below it. Past it the warning names no step and points to `explain`.
 */
const FORECAST_WORK_BUDGET = 35_000;
const SCAN_PER_JUDGEMENT = 50;

interface ShootUseWarning {
  /** `kubernetes version "1.30.1" of shoot 'ns/name' (control plane, worker pool "a")`. */
  subject: string;
  /** `kubernetes version "1.30.1"`, for a group. */
  use: string;
  shoot: string;
  state: 'expired' | 'expiring' | 'deprecated';
  /** What happens, said first: kube-apiserver cuts a warning at 256 characters, and the cut must only take detail. */
  conclusion: () => string;
  /** The rest of the sentence after the subject, built when said. */
  rest: () => string;
}

const STATE_WORDS = { expired: 'are expired', expiring: 'expire soon', deprecated: 'are deprecated' } as const;

const shootUseKind: WarningKind<ShootUseWarning> = {
  one: (w) => `${w.conclusion()}: ${w.subject} ${w.rest()}`,
  many: (ws) =>
    `update shoot ${ws[0]!.shoot}: ${ws.length} of its versions ${STATE_WORDS[ws[0]!.state]}: ${listSome(
      ws.map((w) => w.use),
      3,
    )}; see version-policy explain`,
};

export function shootWarnings(ctx: RuleContext): Warning[] {
  // An unsynced state may hold a stale profile: say nothing rather than something wrong.
  if (!judgesShoot(ctx) || !ctx.state.synced || !ctx.profile) return [];
  const profile = ctx.profile;
  const entries = ctx.entries ?? profileEntries(profile);
  const shoot = ctx.object;
  const old = ctx.operation === 'UPDATE' ? ctx.oldObject : undefined;
  const oldPools = old ? workersByName(old) : undefined;
  const out: Warning[] = [];
  const groups = groupedUses(shoot);
  // One forecast of this Shoot alone, made when a warning first says its step, up to the first
  // window after the last expiry a warning speaks of; skipped past the work budget.
  let steps: ForecastEvent[] | null | undefined;
  const until = horizonOf(groups, entries, ctx.now, ctx.config.warnings.expiringWithinDays);
  const stepOff = (use: ShootVersionUse, places: readonly ShootVersionUse[]): ForecastEvent | undefined => {
    steps ??=
      forecastWork(shoot, entries, until - ctx.now) <= FORECAST_WORK_BUDGET
        ? forecastShoot(shoot, profile, ctx.now, until).events
        : null;
    return steps ? firstStepOff(steps, use, places) : undefined;
  };
  const say = (
    state: ShootUseWarning['state'],
    use: ShootVersionUse,
    places: readonly ShootVersionUse[],
    conclusion: () => string,
    rest: () => string,
  ) => {
    const item = {
      subject: `${describeUse(use)} of shoot ${shootName(shoot)} (${listSome(places.map(placeOf), 3)})`,
      use: describeUse(use),
      shoot: shootName(shoot),
      state,
      conclusion,
      rest,
    };
    out.push(warningOf(shootUseKind, `shoot\u0000${state}`, item));
  };
  for (const { use, places } of groups) {
    const entry = entries.entry(use);
    if (!entry) continue;
    const c = classificationAt(entry, ctx.now);
    const expiresAt = expiryInstant(entry);
    const step = () => stepOff(use, places);
    if (c === 'expired') {
      // On CREATE and for a new pool an expired version is a denial, not a forecast.
      if (!places.some((p) => existedBefore(oldPools, p))) continue;
      const since = expiresAt !== undefined && Number.isFinite(expiresAt) ? ` since ${formatInstant(expiresAt)}` : '';
      say(
        'expired',
        use,
        places,
        () => conclusionOf(step(), shoot),
        () => `is expired${since}${detailOf(step())}`,
      );
    } else if (isActive(c)) {
      const soon =
        expiresAt !== undefined &&
        expiresAt >= ctx.now &&
        expiresAt - ctx.now <= ctx.config.warnings.expiringWithinDays * DAY_MS;
      if (soon) {
        const days = Math.max(1, Math.ceil((expiresAt - ctx.now) / DAY_MS));
        const deprecated = c === 'deprecated' ? 'is deprecated and ' : '';
        say(
          'expiring',
          use,
          places,
          () => conclusionOf(step(), shoot),
          () =>
            `${deprecated}expires at ${formatInstant(expiresAt)} (in ${days} day${days === 1 ? '' : 's'})${detailOf(step())}`,
        );
      } else if (c === 'deprecated') {
        const when =
          expiresAt !== undefined && Number.isFinite(expiresAt)
            ? `it expires at ${formatInstant(expiresAt)}`
            : 'no expiry is set yet';
        say(
          'deprecated',
          use,
          places,
          () => 'update to a supported version',
          () => `is deprecated: ${when}`,
        );
      }
    }
  }
  return out;
}

/**
 * The first step the forecast takes off the version at one of its places, or the first failure
 * there or of a whole run (a rejected run moves nothing, so nothing later is certain). An
 * auto-update that finds no target is skipped: it leaves the Shoot where it is.
 */
function firstStepOff(
  events: readonly ForecastEvent[],
  use: ShootVersionUse,
  places: readonly ShootVersionUse[],
): ForecastEvent | undefined {
  return events.find((e) => {
    const c = e.component;
    if (c.kind === 'run') return true;
    if (c.kind !== use.kind || e.from !== use.version || (e.failure && e.mode === 'auto')) return false;
    if (c.kind === 'machine-image' && use.kind === 'machine-image' && c.image !== use.image) return false;
    return places.some((p) => p.pool === c.pool);
  });
}

/** What maintenance does to the version, and when: the warning's conclusion. */
export function conclusionOf(e: ForecastEvent | undefined, shoot: Shoot): string {
  if (!e) return 'update to a supported version (version-policy explain shows what maintenance does first)';
  const day = formatInstant(e.at).slice(0, 10);
  const when = maintenanceWindowOf(shoot)
    ? `in the maintenance window beginning ${formatInstant(e.at)}`
    : `in its maintenance on ${day} (no window set: any time that day)`;
  const what = e.mode === 'auto' ? 'auto-update' : 'forced update';
  if (e.component.kind === 'run') return `maintenance will fail ${when}`;
  return e.to ? `${what} to "${e.to}" ${when}` : `${what} will fail ${when}`;
}

/** Why, after the subject: the failure's reason (long, so last, where a cut may shorten it), or that another update follows. */
function detailOf(e: ForecastEvent | undefined): string {
  if (!e) return '';
  if (e.failure) return `, and ${e.failure.message}`;
  return e.toClassification === 'expired' ? `; "${e.to}" is expired too, so another forced update follows` : '';
}

/** The forecast's end: the first window after the last expiry a warning would speak of (a run a day, so a day after it, and a day's margin). */
function horizonOf(
  groups: ReadonlyArray<{ use: ShootVersionUse }>,
  entries: ProfileEntries,
  now: number,
  withinDays: number,
): number {
  let last = now;
  for (const { use } of groups) {
    const entry = entries.entry(use);
    const expiresAt = entry ? expiryInstant(entry) : undefined;
    if (expiresAt !== undefined && expiresAt <= now + withinDays * DAY_MS) last = Math.max(last, expiresAt);
  }
  return last + 2 * DAY_MS;
}

/** An upper bound of the forecast's work over `spanMs`: runs × (each distinct version's list + the pools' scans). */
function forecastWork(shoot: Shoot, entries: ProfileEntries, spanMs: number): number {
  const lists = new Map<string, number>();
  let scans = 0;
  for (const use of versionUsesOf(shoot)) {
    const length =
      use.kind === 'kubernetes' ? entries.kubernetesVersions.length : (entries.image(use.image)?.versions.length ?? 0);
    lists.set(`${use.kind}\u0000${use.kind === 'machine-image' ? use.image : ''}\u0000${use.version}`, length);
    if (use.kind === 'machine-image') scans += length;
  }
  let versions = 0;
  for (const length of lists.values()) versions += length;
  const runs = Math.ceil(spanMs / DAY_MS) + 1;
  return runs * (versions + Math.ceil(scans / SCAN_PER_JUDGEMENT) + (shoot.spec.provider?.workers?.length ?? 0));
}

/** The Shoot's uses, one per version, with every place that names it. */
function groupedUses(shoot: Shoot): Array<{ use: ShootVersionUse; places: ShootVersionUse[] }> {
  const groups = new Map<string, { use: ShootVersionUse; places: ShootVersionUse[] }>();
  for (const use of versionUsesOf(shoot)) {
    const key = use.kind === 'kubernetes' ? `k8s\u0000${use.version}` : `img\u0000${use.image}\u0000${use.version}`;
    const group = groups.get(key);
    if (group) group.places.push(use);
    else groups.set(key, { use, places: [use] });
  }
  return [...groups.values()];
}

/** Whether the old Shoot already had this place (the control plane, or a pool of that name). */
function existedBefore(oldPools: ReadonlyMap<string, unknown> | undefined, use: ShootVersionUse): boolean {
  if (!oldPools) return false;
  return use.pool === undefined || oldPools.has(use.pool);
}
