// `forecast --fail-on trap,failure,forced-within=14d`: the conditions that make a forecast exit 1,
// so that a pipeline can gate on what maintenance will do (with --proposed: on what the proposal
// adds or brings forward).
import { InvalidArgumentError } from 'commander';
import type { ForecastEvent } from '../gardener/forecast/index.js';
import { formatInstant } from '../gardener/versions.js';
import { didYouMean } from '../util/nearest.js';
import { listSome } from '../util/text.js';

export interface FailOn {
  trap: boolean;
  failure: boolean;
  /** A forced update within this many days of now; Infinity for `forced` (any within the horizon). */
  forcedWithinDays?: number;
}

const DAY_MS = 86_400_000;
const CONDITIONS = ['trap', 'failure', 'forced', 'forced-within=Nd'];

export const FAIL_ON_HELP = `
--fail-on takes a comma-separated list; the run exits 1 when the forecast (with --proposed: what
the proposal adds or brings forward) meets one of them, and says which on stderr:
  trap                a step lands on a deprecated version (gardener/gardener#13647, #13703)
  failure             a forced update fails (no target, end of life, skew, ...)
  forced              a forced update within the horizon (--days)
  forced-within=Nd    a forced update within N days, e.g. forced-within=14d
Exit codes: 0 none met (or no --fail-on), 1 one met, 2 usage or input error.`;

/** Parses `trap,failure,forced-within=14d`. */
export function parseFailOn(text: string): FailOn {
  const out: FailOn = { trap: false, failure: false };
  for (const raw of text.split(',')) {
    const item = raw.trim();
    const within = /^forced-within=(\d+)d$/.exec(item);
    if (item === 'trap') out.trap = true;
    else if (item === 'failure') out.failure = true;
    else if (item === 'forced') out.forcedWithinDays = Infinity;
    else if (within) out.forcedWithinDays = Math.max(out.forcedWithinDays ?? 0, Number(within[1]));
    else if (item.startsWith('forced-within'))
      throw new InvalidArgumentError(
        `${JSON.stringify(item)}: write forced-within=Nd, a whole number of days, e.g. forced-within=14d`,
      );
    else
      throw new InvalidArgumentError(
        `unknown condition ${JSON.stringify(item)}${didYouMean(item, ['trap', 'failure', 'forced', 'forced-within'])}; allowed: ${CONDITIONS.join(', ')}`,
      );
  }
  return out;
}

/** The conditions the events meet, each in words with the Shoots it concerns. */
export function failures(
  failOn: FailOn | undefined,
  events: ReadonlyArray<{ shoot: string; event: ForecastEvent }>,
  now: number,
): string[] {
  if (!failOn) return [];
  const out: string[] = [];
  const say = (what: string, hits: ReadonlyArray<{ shoot: string }>) => {
    const shoots = [...new Set(hits.map((h) => h.shoot))];
    if (shoots.length > 0)
      out.push(`${what}: ${shoots.length} Shoot${shoots.length === 1 ? '' : 's'} (${listSome(shoots, 3)})`);
  };
  if (failOn.trap)
    say(
      'trap',
      events.filter((e) => e.event.trap),
    );
  if (failOn.failure)
    say(
      'failure',
      events.filter((e) => e.event.failure),
    );
  const days = failOn.forcedWithinDays;
  if (days !== undefined) {
    const by = now + days * DAY_MS;
    say(
      days === Infinity ? 'forced' : `forced-within=${days}d (by ${formatInstant(by)})`,
      events.filter((e) => e.event.mode === 'forced' && e.event.at < by),
    );
  }
  return out;
}
