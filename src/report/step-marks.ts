// The forecast on the timeline: each Shoot's maintenance steps and failures grouped onto the row of
// the version they leave, one mark per UTC day and kind (forced, auto, failure), with how many
// Shoots share it. Bounded: at most LIMITS.updateMarksPerRow marks a row, failures first.
import { eventsByVersion, type ForecastEvent, versionKey } from '../gardener/forecast/index.js';
import type { Shoot } from '../api/types.js';
import type { TimelineWindow } from './window.js';

/** One Shoot's forecast as the page draws it. */
export interface ShootChain {
  shoot: Shoot;
  key: string;
  /** `23:00–00:00 UTC`, or that there is none. */
  window: string;
  events: ForecastEvent[];
  /** The late run's outcome of an uncertain window, where it differs (the forecast's `otherwise`). */
  otherwise?: ForecastEvent[];
}

export type MarkKind = 'forced' | 'auto' | 'failure';

export interface StepMark {
  kind: MarkKind;
  /** The first run of them that day. */
  at: number;
  steps: Array<{ shoot: string; event: ForecastEvent }>;
  /** Distinct Shoots among the steps. */
  shoots: number;
  /** Some step is caught by the deprecated trap (gardener/gardener#13647, #13703). */
  trap: boolean;
}

const DAY_MS = 86_400_000;
const ORDER: Record<MarkKind, number> = { failure: 0, forced: 1, auto: 2 };

export function kindOf(e: ForecastEvent): MarkKind {
  return e.failure ? 'failure' : e.mode;
}

/** Per row key (versionKey), the marks inside the window, capped, in time order, and how many were left out. */
export function stepMarks(
  chains: readonly ShootChain[],
  window: TimelineWindow,
  cap: number,
): Map<string, { marks: StepMark[]; left: number }> {
  const byRow = new Map<string, Map<string, StepMark & { keys: Set<string> }>>();
  for (const c of chains) {
    for (const v of eventsByVersion(c.shoot, c.events)) {
      const e = v.event;
      if (e.at < window.from || e.at > window.to) continue;
      const row = versionKey(v.kind, v.image, v.version);
      let marks = byRow.get(row);
      if (!marks) byRow.set(row, (marks = new Map<string, StepMark & { keys: Set<string> }>()));
      const kind = kindOf(e);
      const slot = `${Math.floor(e.at / DAY_MS)}\u0000${kind}`;
      let m = marks.get(slot);
      if (!m) marks.set(slot, (m = { kind, at: e.at, steps: [], shoots: 0, trap: false, keys: new Set() }));
      m.at = Math.min(m.at, e.at);
      m.steps.push({ shoot: c.key, event: e });
      m.trap ||= e.trap !== undefined;
      m.keys.add(c.key);
    }
  }
  const out = new Map<string, { marks: StepMark[]; left: number }>();
  for (const [row, marks] of byRow) {
    const all = [...marks.values()].map(({ keys, ...m }): StepMark => ({ ...m, shoots: keys.size }));
    const kept = [...all].sort((a, b) => ORDER[a.kind] - ORDER[b.kind] || a.at - b.at).slice(0, cap);
    out.set(row, {
      marks: kept.sort((a, b) => a.at - b.at || ORDER[a.kind] - ORDER[b.kind]),
      left: all.length - kept.length,
    });
  }
  return out;
}
