// When a Shoot's maintenance runs: once a day, inside its window (tw/timewindow.go). The forecast
// takes the window's begin as the run instant; Gardener draws a random one in [begin, end − 15 min).
import { maintenanceWindowOf, utcSecondOfDay } from '../maintenance.js';
import type { Shoot } from '../../api/types.js';
import { firstAtOrAfter } from '../../util/sorted.js';

const DAY_MS = 86_400_000;
/** Gardener ends the effective window 15 minutes early (gu/shoot.go, EffectiveMaintenanceTimeWindow). */
const EFFECTIVE_END_MARGIN_S = 15 * 60;

/** The window text of a Shoot that sets none: gardener-apiserver gives it a random hour. */
export const RANDOM_WINDOW = 'none set: a random hour from 00:00 to 23:00 UTC';

export interface RunWindow {
  /** Seconds after UTC midnight. */
  begin: number;
  /** Length of the configured window, and of the effective one in which the run instant lies. */
  lengthS: number;
  effectiveLengthS: number;
  text: string;
  /** The window of the late run where it is another one: Gardener's random default, at its latest. */
  late?: RunWindow;
}

/**
 * The Shoot's daily window in UTC. Without one, gardener-apiserver's defaulting gives the Shoot a
 * random whole hour beginning at 00:00 to 22:00 UTC (v1beta1 defaults_shoot.go,
 * SetDefaults_Maintenance): the earliest of them, with the latest as the late run's window. One that does not parse is Gardener's "always" window, without the cut
 * (gu/shoot.go, EffectiveShootMaintenanceTimeWindow).
 */
export function runWindowOf(shoot: Shoot): RunWindow {
  const w = maintenanceWindowOf(shoot);
  if (!w && !shoot.spec.maintenance?.timeWindow) {
    const hour = (begin: number, text: string): RunWindow => ({
      begin,
      lengthS: 3600,
      effectiveLengthS: 3600 - EFFECTIVE_END_MARGIN_S,
      text,
    });
    return { ...hour(0, RANDOM_WINDOW), late: hour(22 * 3600, '220000+0000-230000+0000') };
  }
  if (!w)
    return {
      begin: 0,
      lengthS: DAY_MS / 1000 - 1,
      effectiveLengthS: DAY_MS / 1000 - 1,
      text: 'always (timeWindow does not parse)',
    };
  const begin = utcSecondOfDay(w.begin)!;
  const end = utcSecondOfDay(w.end)!;
  // End ≤ begin after conversion to UTC: the window ends the next day (tw/timewindow.go, AdjustedEnd).
  const lengthS = end > begin ? end - begin : end + 86_400 - begin;
  return {
    begin,
    lengthS,
    effectiveLengthS: Math.max(0, lengthS - EFFECTIVE_END_MARGIN_S),
    text: `${w.begin}-${w.end}`,
  };
}

/** The first run instant strictly after `after` (the window's begin on that day). */
export function nextRun(window: RunWindow, after: number): number {
  const candidate = Math.floor(after / DAY_MS) * DAY_MS + window.begin * 1000;
  return candidate > after ? candidate : candidate + DAY_MS;
}

export function windowEndOf(window: RunWindow, run: number): number {
  return run + window.lengthS * 1000;
}

/**
 * The late run's offset after the window's begin: the last whole second of the effective window,
 * the latest instant, to the second, of Gardener's random pick in [begin, end − 15 min).
 */
export function lateOffset(window: RunWindow): number {
  return window.effectiveLengthS * 1000 - 1000;
}

/** Whether some instant of `sortedStarts` near the horizon lies in [begin, begin + offset) of a daily window: only then can a late run differ. */
export function startsInWindows(
  window: RunWindow,
  sortedStarts: readonly number[],
  now: number,
  until: number,
  offset: number,
): boolean {
  for (
    let i = firstAtOrAfter(sortedStarts, now - DAY_MS);
    i < sortedStarts.length && sortedStarts[i]! < until + DAY_MS;
    i++
  ) {
    const phase = (((sortedStarts[i]! - window.begin * 1000) % DAY_MS) + DAY_MS) % DAY_MS;
    if (phase < offset) return true;
  }
  return false;
}
