// A Shoot's maintenance window (`spec.maintenance.timeWindow`), in Gardener's `HHMMSS+HHMM`
// format. Forced updates of expired versions happen inside it, so "when" is the next window.
import type { Shoot } from '../api/types.js';

export interface TimeWindow {
  begin: string;
  end: string;
}

const WINDOW_TIME = /^([01]\d|2[0-3])([0-5]\d)([0-5]\d)([+-])([01]\d|2[0-3])([0-5]\d)$/;
const DAY_MS = 86_400_000;

/** Seconds after UTC midnight at which a `HHMMSS+HHMM` time falls; undefined if it does not parse. */
export function utcSecondOfDay(time: string): number | undefined {
  const m = WINDOW_TIME.exec(time);
  if (!m) return undefined;
  const [, h, min, s, sign, oh, om] = m;
  const local = Number(h) * 3600 + Number(min) * 60 + Number(s);
  const offset = (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
  return (((local - offset) % 86_400) + 86_400) % 86_400;
}

/** The Shoot's window, when both ends are set and parse. */
export function maintenanceWindowOf(shoot: Shoot): TimeWindow | undefined {
  const w = shoot.spec.maintenance?.timeWindow;
  if (!w?.begin || !w.end) return undefined;
  if (utcSecondOfDay(w.begin) === undefined || utcSecondOfDay(w.end) === undefined) return undefined;
  return { begin: w.begin, end: w.end };
}

/** The first instant strictly after `after` at which the daily window begins. */
export function nextWindowStart(window: TimeWindow, after: number): number | undefined {
  const second = utcSecondOfDay(window.begin);
  if (second === undefined || !Number.isFinite(after)) return undefined;
  const candidate = Math.floor(after / DAY_MS) * DAY_MS + second * 1000;
  return candidate > after ? candidate : candidate + DAY_MS;
}

/** A window as people read it, in UTC: `23:00–00:00 UTC` (seconds only where set); the raw text if it does not parse. */
export function formatWindow(window: TimeWindow): string {
  const [begin, end] = [utcSecondOfDay(window.begin), utcSecondOfDay(window.end)];
  if (begin === undefined || end === undefined) return `${window.begin}-${window.end}`;
  return `${clock(begin)}–${clock(end)} UTC`;
}

function clock(second: number): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const hm = `${two(Math.floor(second / 3600))}:${two(Math.floor(second / 60) % 60)}`;
  return second % 60 === 0 ? hm : `${hm}:${two(second % 60)}`;
}
