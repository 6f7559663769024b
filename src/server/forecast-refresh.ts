// The fleet forecast, kept fresh off the admission path: recomputed at most every few minutes by
// the landscape worker (workers/fleet-forecast.ts), in a thread of its own, so the event loop that
// answers admission reviews only takes in the result, a part at a time. The metrics
// (forecast-metrics.ts) and the /profiles index read the last result; a scrape never computes
// anything. Without a worker (tests, benches) the same task runs here, in slices.
import type { ClusterState } from '../api/cluster-state.js';
import { objectKey, type ProfileRef, type Shoot } from '../api/types.js';
import type { ForecastEvent } from '../gardener/forecast/types.js';
import type { ShootChain } from '../report/step-marks.js';
import { interner } from '../util/intern.js';
import { Periodic } from '../util/periodic.js';
import {
  fleetForecast,
  type FleetForecastDone,
  type FleetForecastInput,
  type FleetForecastPart,
  type ProfileCounts,
  type VersionCounts,
} from './workers/fleet-forecast.js';

export type { ProfileCounts, VersionCounts } from './workers/fleet-forecast.js';

/** Five minutes: a forecast moves by maintenance windows (days); 10,000 Shoots cost 1–2 s of CPU. */
export const REFRESH_MS = 5 * 60_000;
/** Before the state has synced, look again this soon. */
const RETRY_MS = 10_000;
/** The horizon: forced updates count within 7 and 30 days, failures within all of it; the /profiles pages draw it. */
export const HORIZON_DAYS = 180;
/** The longest the forecast works without a pause: in the worker, what a review's forecast may wait. */
const SLICE_MS = 10;

/**
 * The chains' strings, one copy each: a part from the worker comes by structured clone, which gives
 * every step its own copy of its versions, pool and image names, reasons and window.
 */
const share = interner(50_000);

function shareEvent(e: ForecastEvent): void {
  if (e.from !== undefined) e.from = share(e.from);
  if (e.to !== undefined) e.to = share(e.to);
  e.reason = share(e.reason);
  e.trigger = share(e.trigger);
  const c = e.component;
  if (c.kind !== 'run' && c.pool !== undefined) c.pool = share(c.pool);
  if (c.kind === 'machine-image') c.image = share(c.image);
  if (e.failure) e.failure.message = share(e.failure.message);
  if (e.trap) e.trap.detail = share(e.trap.detail);
}

export interface ForecastSummary {
  /** The forecast's now (server clock, epoch ms), and its end. */
  at: number;
  until: number;
  /** Wall time of the refresh, pauses included, and the CPU time spent in the forecast. */
  durationMs: number;
  busyMs: number;
  byVersion: VersionCounts[];
  /** Per profile (`CloudProfile/aws`): Shoots with a step (auto or forced) within 30 days, with a forced one, and with a failure. */
  byProfile: Map<string, ProfileCounts>;
  /** Each profile's Shoots with their steps, for the /profiles pages: they never forecast on a request. */
  chains: Map<string, ShootChain[]>;
}

/** Runs a task in the landscape worker (workers/landscape.ts). */
export interface FleetWorker {
  ask(task: string, input: unknown, opts: { onPart?: (value: unknown) => void }): Promise<unknown>;
}

export interface ForecastRefreshOptions {
  state: ClusterState;
  now: () => number;
  /** The clock of the slices when the forecast runs here; tests make one that moves. */
  monotonic?: () => number;
  /** Tests shorten it. */
  intervalMs?: number;
  /** Where the forecast runs; without one, here, in slices. */
  worker?: FleetWorker;
}

export class ForecastRefresher {
  private last: ForecastSummary | undefined;
  private readonly periodic: Periodic<ForecastSummary | undefined>;
  private stopped = false;
  /** When the refresher was made (server clock): the age before the first forecast counts from here. */
  readonly since: number;

  constructor(private readonly opts: ForecastRefreshOptions) {
    this.since = opts.now();
    this.periodic = new Periodic({
      run: () => this.compute(),
      delayAfter: (o) => (o.ok && o.value ? (opts.intervalMs ?? REFRESH_MS) : RETRY_MS),
    });
  }

  /** The last forecast's counts; undefined until the first has finished. */
  latest(): ForecastSummary | undefined {
    return this.last;
  }

  start(): void {
    this.periodic.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.periodic.stop();
  }

  /** One refresh now (one at a time); undefined while the state has not synced. */
  refresh(): Promise<ForecastSummary | undefined> {
    return this.periodic.runNow();
  }

  private async compute(): Promise<ForecastSummary | undefined> {
    const { state, worker } = this.opts;
    if (!state.synced) return undefined;
    const input: FleetForecastInput = { now: this.opts.now(), horizonDays: HORIZON_DAYS, sliceMs: SLICE_MS };
    const chains = new Map<string, ShootChain[]>();
    const shootsOf = new ShootsByKey(state);
    const onPart = (value: unknown) => {
      const part = value as FleetForecastPart;
      let list = chains.get(part.profile);
      if (!list) chains.set(part.profile, (list = []));
      for (const c of part.chains) {
        // The event loop's own Shoot: a Shoot gone since the worker read it is left out.
        const shoot = shootsOf.get(part.profile, part.ref, c.key);
        if (!shoot) continue;
        c.events.forEach(shareEvent);
        list.push({ ...c, window: share(c.window), shoot });
      }
    };
    const pause = () => new Promise<void>((resolve) => setImmediate(resolve));
    const done = worker
      ? ((await worker.ask('fleet-forecast', input, { onPart })) as FleetForecastDone)
      : await fleetForecast(input, {
          state,
          part: onPart,
          pause,
          ...(this.opts.monotonic ? { clock: this.opts.monotonic } : {}),
        });
    if (this.stopped) return undefined;
    this.last = {
      at: done.at,
      until: done.until,
      durationMs: done.durationMs,
      busyMs: done.busyMs,
      byVersion: done.byVersion,
      byProfile: new Map(done.byProfile),
      chains,
    };
    return this.last;
  }
}

/** A profile's Shoots by key, made on first use per profile: parts come a profile at a time. */
class ShootsByKey {
  private readonly byProfile = new Map<string, Map<string, Shoot>>();

  constructor(private readonly state: ClusterState) {}

  get(profile: string, ref: ProfileRef, key: string): Shoot | undefined {
    let shoots = this.byProfile.get(profile);
    if (!shoots)
      this.byProfile.set(profile, (shoots = new Map(this.state.shootsUsing(ref).map((s) => [objectKey(s), s]))));
    return shoots.get(key);
  }
}
