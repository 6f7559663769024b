// What a proposed profile changes in the forecast: steps and failures that appear, disappear or
// move in time, and Shoots the trap newly catches. Steps match on Shoot, component, from and to.
import { componentText } from './shoot.js';
import type { Forecast, ForecastEvent } from './types.js';

export type ChangeKind = 'new' | 'gone' | 'earlier' | 'later';

export interface ForecastChange {
  kind: ChangeKind;
  shoot: string;
  profile: string;
  event: ForecastEvent;
  /** For `earlier`/`later`: when the current profile has it. */
  before?: number;
  /** A change of the late run's outcome of an uncertain window (ShootForecast's `otherwise`). */
  late?: boolean;
}

/**
 * The changes of the chains at the windows' begins, and those of the late runs' chains where
 * their outcome is another (uncertain) one.
 */
export function diffForecasts(current: Forecast, proposed: Forecast): ForecastChange[] {
  const late = diffChains(current, proposed, (s) => [...s.events.filter((e) => !e.uncertain), ...(s.otherwise ?? [])])
    .filter((c) => c.event.uncertain)
    .map((c) => ({ ...c, late: true }));
  return [...diffChains(current, proposed, (s) => s.events), ...late].sort(
    (x, y) => x.event.at - y.event.at || x.shoot.localeCompare(y.shoot),
  );
}

function diffChains(
  current: Forecast,
  proposed: Forecast,
  chain: (s: Forecast['shoots'][number]) => ForecastEvent[],
): ForecastChange[] {
  const index = (f: Forecast) => {
    const out = new Map<string, { shoot: string; profile: string; event: ForecastEvent }>();
    for (const s of f.shoots)
      for (const event of chain(s))
        out.set(`${s.shoot}\u0000${keyOf(event)}`, { shoot: s.shoot, profile: s.profile, event });
    return out;
  };
  const [before, after] = [index(current), index(proposed)];
  const changes: ForecastChange[] = [];
  for (const [key, a] of after) {
    const b = before.get(key);
    if (!b) changes.push({ kind: 'new', ...a });
    else if (b.event.at !== a.event.at)
      changes.push({ kind: a.event.at < b.event.at ? 'earlier' : 'later', ...a, before: b.event.at });
  }
  for (const [key, b] of before) if (!after.has(key)) changes.push({ kind: 'gone', ...b });
  return changes;
}

function keyOf(e: ForecastEvent): string {
  return [
    componentText(e.component),
    e.mode,
    e.from ?? '',
    e.to ?? '',
    e.failure?.kind ?? '',
    e.trap?.issue ?? '',
  ].join('\u0000');
}
