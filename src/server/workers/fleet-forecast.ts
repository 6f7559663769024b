// The fleet forecast behind the forecast gauges and the /profiles pages, as a task of the landscape
// worker: every Shoot of the mirror, 180 days ahead, a Shoot at a time with a pause every few
// milliseconds so that the reviews' forecasts are not kept waiting. Each profile's chains go back
// in key order, in parts of PART_CHAINS, without their Shoots: the event loop has those already.
import { effectiveProfileRef, type ProfileRef } from '../../api/types.js';
import { eventsByVersion, forecastEach, versionKey } from '../../gardener/forecast/index.js';
import { chainOf } from '../../report/chains.js';
import type { ShootChain } from '../../report/step-marks.js';
import type { TaskContext } from './worker.js';

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

/** Per profile: Shoots with a step (auto or forced) within 30 days, with a forced one, and with a failure. */
export interface ProfileCounts {
  updated30d: number;
  forced30d: number;
  failing: number;
}

export interface FleetForecastInput {
  /** The forecast's now (epoch ms). */
  now: number;
  horizonDays: number;
  /** The longest stretch of work between two pauses. */
  sliceMs: number;
}

/** A chain as it travels: the Shoot is named by its key. */
export type ChainPart = Omit<ShootChain, 'shoot'>;

export interface FleetForecastPart {
  /** `CloudProfile/aws`: the key, and the reference it stands for. */
  profile: string;
  ref: ProfileRef;
  chains: ChainPart[];
}

export interface FleetForecastDone {
  at: number;
  until: number;
  /** Wall time of the run, pauses included, and the CPU time spent in the forecast. */
  durationMs: number;
  busyMs: number;
  byVersion: VersionCounts[];
  byProfile: Array<[string, ProfileCounts]>;
}

/** Chains per part: what the event loop takes in at once (a chain can hold dozens of steps). */
export const PART_CHAINS = 100;
const DAY_MS = 86_400_000;

export async function fleetForecast(
  input: FleetForecastInput,
  ctx: Pick<TaskContext, 'state' | 'part' | 'pause'> & { clock?: () => number },
): Promise<FleetForecastDone> {
  const clock = ctx.clock ?? (() => performance.now());
  const start = clock();
  let busy = 0;
  let slice = start;
  const pauseIfDue = async () => {
    if (clock() - slice < input.sliceMs) return;
    busy += clock() - slice;
    await ctx.pause();
    slice = clock();
  };
  const at = input.now;
  const until = at + input.horizonDays * DAY_MS;
  const tally = new Tally(at);
  const chains = new Map<string, { ref: ProfileRef; list: ChainPart[] }>();
  for (const outcome of forecastEach(ctx.state, at, until, false)) {
    if ('forecast' in outcome) {
      const { profile, events, otherwise } = outcome.forecast;
      tally.add(profile, eventsByVersion(outcome.object, events));
      const { shoot: _, ...chain } = chainOf(outcome.object, events, otherwise);
      let of = chains.get(profile);
      if (!of) chains.set(profile, (of = { ref: effectiveProfileRef(outcome.object)!, list: [] }));
      of.list.push(chain);
    }
    await pauseIfDue();
  }
  for (const [profile, { ref, list }] of chains) {
    // The order of the keys' code units, as report/chains.ts byKey.
    list.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (let i = 0; i < list.length; i += PART_CHAINS) {
      ctx.part({ profile, ref, chains: list.slice(i, i + PART_CHAINS) } satisfies FleetForecastPart);
      await pauseIfDue();
    }
  }
  busy += clock() - slice;
  return {
    at,
    until,
    durationMs: clock() - start,
    busyMs: busy,
    byVersion: tally.versions(),
    byProfile: [...tally.profiles],
  };
}

/** Counts Shoots, not events: a Shoot with three pools on one image version counts once there. */
class Tally {
  readonly profiles = new Map<string, ProfileCounts>();
  private readonly rows = new Map<string, VersionCounts>();

  constructor(private readonly now: number) {}

  add(profile: string, events: ReturnType<typeof eventsByVersion>): void {
    const seen = { forced7d: new Set<string>(), forced30d: new Set<string>(), failing: new Set<string>() };
    let updated = false;
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
      else if (e.event.at < this.now + 30 * DAY_MS) {
        updated = true;
        if (e.event.mode !== 'forced') continue;
        seen.forced30d.add(key);
        if (e.event.at < this.now + 7 * DAY_MS) seen.forced7d.add(key);
      }
    }
    for (const field of ['forced7d', 'forced30d', 'failing'] as const)
      for (const key of seen[field]) this.rows.get(key)![field]++;
    const p = this.profiles.get(profile) ?? { updated30d: 0, forced30d: 0, failing: 0 };
    p.updated30d += updated ? 1 : 0;
    p.forced30d += seen.forced30d.size > 0 ? 1 : 0;
    p.failing += seen.failing.size > 0 ? 1 : 0;
    this.profiles.set(profile, p);
  }

  /** Only versions with something ahead: an idle version exports no series. */
  versions(): VersionCounts[] {
    return [...this.rows.values()].filter((r) => r.forced30d + r.failing > 0);
  }
}
