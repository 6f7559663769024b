// When a Shoot's maintenance runs: once a day, inside its window (tw/timewindow.go). The forecast
// takes the window's begin as the run instant; Gardener draws a random one in [begin, end − 15 min).
import { maintenanceWindowOf, utcSecondOfDay } from '../maintenance.js';
import type { Shoot } from '../../api/types.js';
import { firstAtOrAfter } from '../../util/sorted.js';

const DAY_MS = 86_400_000;
/** Gardener ends the effective window 15 minutes early (gu/shoot.go, EffectiveMaintenanceTimeWindow). */
const EFFECTIVE_END_MARGIN_S = 15 * 60;

export interface RunWindow {
  /** Seconds after UTC midnight. */
  begin: number;
  /** Length of the configured window, and of the effective one in which the run instant lies. */
  lengthS: number;
  effectiveLengthS: number;
  text: string;
}

/** The Shoot's daily window in UTC; without one (or unparsable) Gardener's "always" window, without the cut (gu/shoot.go, EffectiveShootMaintenanceTimeWindow). */
export function runWindowOf(shoot: Shoot): RunWindow {
  const w = maintenanceWindowOf(shoot);
  if (!w)
    return {
      begin: 0,
      lengthS: DAY_MS / 1000 - 1,
      effectiveLengthS: DAY_MS / 1000 - 1,
      text: 'always (no timeWindow)',
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

/** Whether an instant in `sortedStarts` lies in the run's effective window: then the random run instant decides. */
export function uncertainRun(window: RunWindow, run: number, sortedStarts: readonly number[]): boolean {
  const i = firstAtOrAfter(sortedStarts, run);
  return i < sortedStarts.length && sortedStarts[i]! < run + window.effectiveLengthS * 1000;
}
