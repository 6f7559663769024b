// The fleet forecast, kept fresh off the admission path: recomputed at most every few minutes in
// the background, a Shoot at a time with a pause every few milliseconds, so the event loop that
// answers admission reviews never waits on it for long. The metrics (forecast-metrics.ts) and the
// /profiles index read the last result; a scrape never computes anything.
import type { ClusterState } from '../api/cluster-state.js';
import { eventsByVersion, forecastEach, versionKey } from '../gardener/forecast/index.js';
import { byKey, chainOf } from '../report/chains.js';
import type { ShootChain } from '../report/step-marks.js';

/** Five minutes: a forecast moves by maintenance windows (days); 10,000 Shoots cost 1–2 s of CPU. */
export const REFRESH_MS = 5 * 60_000;
/** Before the state has synced, look again this soon. */
const RETRY_MS = 10_000;
/** The horizon: forced updates count within 7 and 30 days, failures within all of it; the /profiles pages draw it. */
export const HORIZON_DAYS = 180;
/** The longest the forecast holds the event loop at a stretch (a review's budget is 100 ms). */
const SLICE_MS = 10;
const DAY_MS = 86_400_000;

export interface VersionCounts {
  profile: string;
  image: string;
  version: string;
  /** Shoots with a forced step away from this version within 7 and 30 days. */
  forced7d: number;
  forced30d: number;
  /** Shoots with a predicted failure on this version within the horizon. */
  failing: number;
}

export interface ForecastSummary {
  /** The forecast's now (server clock, epoch ms), and its end. */
  at: number;
  until: number;
  /** Wall time of the refresh, pauses included, and the CPU time spent in the forecast. */
  durationMs: number;
  busyMs: number;
  byVersion: VersionCounts[];
  /** Per profile (`CloudProfile/aws`): Shoots with a forced update within 30 days, and with a failure. */
  byProfile: Map<string, { forced30d: number; failing: number }>;
  /** Each profile's Shoots with their steps, for the /profiles pages: they never forecast on a request. */
  chains: Map<string, ShootChain[]>;
}

export interface ForecastRefreshOptions {
  state: ClusterState;
  now: () => number;
  monotonic?: () => number;
  /** Tests shorten it. */
  intervalMs?: number;
}

export class ForecastRefresher {
  private last: ForecastSummary | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<ForecastSummary | undefined> | undefined;
  private stopped = false;
  private readonly clock: () => number;
  /** When the refresher was made (server clock): the age before the first forecast counts from here. */
  readonly since: number;

  constructor(private readonly opts: ForecastRefreshOptions) {
    this.clock = opts.monotonic ?? (() => performance.now());
    this.since = opts.now();
  }

  /** The last forecast's counts; undefined until the first has finished. */
  latest(): ForecastSummary | undefined {
    return this.last;
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One refresh now (one at a time); undefined while the state has not synced. */
  refresh(): Promise<ForecastSummary | undefined> {
    this.running ??= this.compute().finally(() => (this.running = undefined));
    return this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.refresh().then(
        (s) => this.schedule(s ? (this.opts.intervalMs ?? REFRESH_MS) : RETRY_MS),
        () => this.schedule(RETRY_MS),
      );
    }, ms);
    // The refresh never keeps the process alive on its own.
    this.timer.unref();
  }

  private async compute(): Promise<ForecastSummary | undefined> {
    const { state } = this.opts;
    if (!state.synced) return undefined;
    const at = this.opts.now();
    const start = this.clock();
    let busy = 0;
    let slice = start;
    const tally = new Tally(at);
    const until = at + HORIZON_DAYS * DAY_MS;
    const chains = new Map<string, ShootChain[]>();
    for (const outcome of forecastEach(state, at, until, false)) {
      if ('forecast' in outcome) {
        const { profile, events } = outcome.forecast;
        tally.add(profile, eventsByVersion(outcome.object, events));
        if (!chains.has(profile)) chains.set(profile, []);
        chains.get(profile)!.push(chainOf(outcome.object, events));
      }
      if (this.clock() - slice >= SLICE_MS) {
        busy += this.clock() - slice;
        await new Promise((resolve) => setImmediate(resolve));
        if (this.stopped) return undefined;
        slice = this.clock();
      }
    }
    // The pages list chains in key order; one profile's sort at a time, between pauses.
    for (const list of chains.values()) {
      busy += this.clock() - slice;
      await new Promise((resolve) => setImmediate(resolve));
      slice = this.clock();
      list.sort(byKey);
    }
    busy += this.clock() - slice;
    this.last = {
      at,
      until,
      durationMs: this.clock() - start,
      busyMs: busy,
      byVersion: tally.versions(),
      byProfile: tally.profiles,
      chains,
    };
    return this.last;
  }
}

/** Counts Shoots, not events: a Shoot with three pools on one image version counts once there. */
class Tally {
  readonly profiles = new Map<string, { forced30d: number; failing: number }>();
  private readonly rows = new Map<string, VersionCounts>();

  constructor(private readonly now: number) {}

  add(profile: string, events: ReturnType<typeof eventsByVersion>): void {
    const seen = { forced7d: new Set<string>(), forced30d: new Set<string>(), failing: new Set<string>() };
    for (const e of events) {
      const key = `${profile}\u0000${versionKey(e.kind, e.image, e.version)}`;
      if (!this.rows.has(key))
        this.rows.set(key, {
          profile,
          image: e.image ?? '',
          version: e.version,
          forced7d: 0,
          forced30d: 0,
          failing: 0,
        });
      if (e.event.failure) seen.failing.add(key);
      else if (e.event.mode === 'forced' && e.event.at < this.now + 30 * DAY_MS) {
        seen.forced30d.add(key);
        if (e.event.at < this.now + 7 * DAY_MS) seen.forced7d.add(key);
      }
    }
    for (const field of ['forced7d', 'forced30d', 'failing'] as const)
      for (const key of seen[field]) this.rows.get(key)![field]++;
    const p = this.profiles.get(profile) ?? { forced30d: 0, failing: 0 };
    p.forced30d += seen.forced30d.size > 0 ? 1 : 0;
    p.failing += seen.failing.size > 0 ? 1 : 0;
    this.profiles.set(profile, p);
  }

  /** Only versions with something ahead: an idle version exports no series. */
  versions(): VersionCounts[] {
    return [...this.rows.values()].filter((r) => r.forced30d + r.failing > 0);
  }
}
