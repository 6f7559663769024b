// The span of time a timeline shows: from a past to a future bound, each given as days relative to
// now (`-90d`, `365d`, `+30d`) or as a UTC date (`2027-12-31`). Parsed strictly, so a typo is an
// error rather than a silently different picture.

export interface TimelineWindow {
  /** Epoch ms; the left edge. */
  from: number;
  /** Epoch ms; the right edge, after `from`. */
  to: number;
}

export type WindowBound = { days: number } | { date: number };

export const DEFAULT_FROM = '-90d';
export const DEFAULT_TO = '365d';

const DAY_MS = 86_400_000;
/** Ten years each way: far beyond any planned lifecycle, and it keeps the month ticks few. */
const MAX_DAYS = 3650;
const OFFSET = /^([+-]?)(\d{1,4})d$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export class WindowError extends Error {
  override name = 'WindowError';
}

export function parseWindowBound(text: string): WindowBound {
  const offset = OFFSET.exec(text);
  if (offset) {
    const days = Number(offset[2]) * (offset[1] === '-' ? -1 : 1);
    if (Math.abs(days) > MAX_DAYS)
      throw new WindowError(`${JSON.stringify(text)} is more than ${MAX_DAYS} days from now`);
    return { days: days === 0 ? 0 : days };
  }
  const date = DATE.exec(text);
  if (date) {
    const ms = Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    // Date.UTC rolls 2027-02-30 over into March; a round trip catches it.
    if (new Date(ms).toISOString().slice(0, 10) === text) return { date: ms };
  }
  throw new WindowError(`not a day offset (e.g. -90d, 365d) or a date (e.g. 2027-12-31): ${JSON.stringify(text)}`);
}

export function resolveWindow(
  now: number,
  from: WindowBound = parseWindowBound(DEFAULT_FROM),
  to: WindowBound = parseWindowBound(DEFAULT_TO),
): TimelineWindow {
  const window = { from: instantOf(from, now), to: instantOf(to, now) };
  if (window.to - window.from < DAY_MS) throw new WindowError('the window must end at least one day after it starts');
  if (window.to - window.from > 2 * MAX_DAYS * DAY_MS)
    throw new WindowError(`the window may span at most ${2 * MAX_DAYS} days`);
  return window;
}

function instantOf(bound: WindowBound, now: number): number {
  return 'days' in bound ? now + bound.days * DAY_MS : bound.date;
}
