// Compares `version-policy forecast` with what Gardener's maintenance controller did
// (test/e2e/maintenance): per Shoot and per window, the same version changes and the same
// failures, with Gardener's reason and the forecast's mode; Gardener run at each window's begin
// against the forecast's chain, and Gardener run at each window's last second against the
// forecast's chain for a late run (its certain events and `otherwise`). A failure that repeats
// every window counts at its first, as the forecast lists it.
import { type Component, type Forecast, type ForecastEvent } from '../../../src/gardener/forecast/index.js';
import { formatInstant } from '../../../src/gardener/versions.js';

/** One line of gardener-maintenance's output (test/e2e/maintenance/simulate.go, `result`). */
export interface GardenerResult {
  scenario: string;
  at: 'begin' | 'last';
  now: string;
  until: string;
  notes?: string[];
  shoots: GardenerShoot[];
  versions: Record<string, string>;
}

export interface GardenerShoot {
  shoot: string;
  skipped?: string;
  runs: GardenerRun[];
}

export interface GardenerComponent {
  kind: 'kubernetes' | 'machine-image' | 'run';
  pool?: string;
  image?: string;
}

export interface GardenerRun {
  window: string;
  at: string;
  changes?: Array<{ component: GardenerComponent; from: string; to: string; reason?: string }>;
  failures?: Array<{ component: GardenerComponent; reason?: string; message: string; recorded: boolean }>;
  attempts?: number;
}

/**
 * What one side saw in one window, in words both sides share. The window is its begin's UTC date:
 * one run a day, and a Shoot without a window has a random one, different in Gardener's two runs.
 */
interface Observation {
  window: string;
  what: string;
  /** Gardener's recorded reason, or the forecast's. */
  reason?: string;
  mode?: 'auto' | 'forced';
  /** The forecast says Gardener records no event for it. */
  unrecorded?: boolean;
}

export interface Comparison {
  /** Both chains agree with Gardener's two runs. */
  agreed: boolean;
  mismatches: string[];
  /** Steps (version changes) and failures of the forecast's chain at the window's begin. */
  steps: number;
  failures: number;
  /** Events whose outcome moves between a run at the begin and one at the last second. */
  uncertain: number;
}

const DAY_MS = 86_400_000;

export function compare(forecast: Forecast, begin: GardenerResult, last: GardenerResult): Comparison {
  const mismatches: string[] = [];
  for (const note of [...(begin.notes ?? []), ...(last.notes ?? [])]) mismatches.push(`setup: ${note}`);
  let steps = 0;
  let failures = 0;
  let uncertain = 0;
  const gardener = new Map(
    begin.shoots.map((s) => [s.shoot, { begin: s, last: last.shoots.find((l) => l.shoot === s.shoot) }]),
  );
  for (const skipped of forecast.skipped) {
    const g = gardener.get(skipped.shoot);
    if (!g?.begin.skipped)
      mismatches.push(`${skipped.shoot}: the forecast skips it (${skipped.why}), Gardener maintains it`);
    gardener.delete(skipped.shoot);
  }
  for (const s of forecast.shoots) {
    const g = gardener.get(s.shoot);
    gardener.delete(s.shoot);
    if (!g || !g.last) {
      mismatches.push(`${s.shoot}: not in Gardener's run`);
      continue;
    }
    if (g.begin.skipped) {
      mismatches.push(`${s.shoot}: Gardener skips it (${g.begin.skipped}), the forecast does not`);
      continue;
    }
    steps += s.events.filter((e) => e.to !== undefined).length;
    failures += s.events.filter((e) => e.failure !== undefined).length;
    uncertain += s.events.filter((e) => e.uncertain).length + (s.otherwise?.length ?? 0);
    const early = s.events;
    const late = [...s.events.filter((e) => !e.uncertain), ...(s.otherwise ?? [])];
    for (const m of diff(early.map(fromForecast), fromGardener(g.begin.runs)))
      mismatches.push(`${s.shoot} (begin): ${m}`);
    for (const m of diff(late.map(fromForecast), fromGardener(g.last.runs)))
      mismatches.push(`${s.shoot} (last second): ${m}`);
  }
  for (const [shoot] of gardener) mismatches.push(`${shoot}: Gardener maintains it, the forecast does not list it`);
  return { agreed: mismatches.length === 0, mismatches, steps, failures, uncertain };
}

function place(c: Component | GardenerComponent): string {
  if (c.kind === 'run') return 'the run';
  if (c.kind === 'machine-image') return `worker pool "${c.pool}" image`;
  return c.pool === undefined ? 'control plane' : `worker pool "${c.pool}" kubernetes`;
}

function fromForecast(e: ForecastEvent): Observation {
  const unrecorded = e.quirk?.kind === 'unrecorded';
  const what =
    e.to !== undefined
      ? `change ${place(e.component)} ${e.from} → ${e.to}`
      : // A failure Gardener only logs stops the image part of the run: it names no pool.
        `failure ${unrecorded ? 'image part' : place(e.component)}`;
  return {
    window: formatInstant(e.at).slice(0, 10),
    what,
    reason: e.reason,
    mode: e.mode,
    ...(unrecorded ? { unrecorded } : {}),
  };
}

function fromGardener(runs: readonly GardenerRun[]): Observation[] {
  const out: Observation[] = [];
  const failuresOf = new Map<number, Set<string>>();
  for (const run of runs) {
    const begin = Date.parse(run.window);
    const window = run.window.slice(0, 10);
    for (const c of run.changes ?? [])
      out.push({
        window,
        what: `change ${place(c.component)} ${c.from} → ${c.to}`,
        ...(c.reason ? { reason: c.reason } : {}),
      });
    const seen = new Set<string>();
    for (const f of run.failures ?? []) {
      const what = `failure ${!f.recorded && f.component.kind === 'machine-image' ? 'image part' : place(f.component)}`;
      seen.add(`${what}\u0000${f.message}`);
      // Repeated from the day before: the forecast lists a failure at its first window.
      if (failuresOf.get(begin - DAY_MS)?.has(`${what}\u0000${f.message}`)) continue;
      out.push({ window, what, ...(f.reason ? { reason: f.reason } : {}) });
    }
    failuresOf.set(begin, seen);
  }
  return out;
}

/** Every observation of one side that the other lacks, and every reason or mode that differs. */
function diff(forecast: readonly Observation[], gardener: readonly Observation[]): string[] {
  const out: string[] = [];
  const key = (o: Observation) => `${o.window}\u0000${o.what}`;
  const pending = new Map<string, Observation[]>();
  for (const g of gardener) pending.set(key(g), [...(pending.get(key(g)) ?? []), g]);
  for (const f of forecast) {
    const match = pending.get(key(f))?.shift();
    const when = f.window;
    if (!match) {
      out.push(`the forecast has ${when} ${f.what}, Gardener does not`);
      continue;
    }
    if (match.reason === undefined) {
      if (f.what.startsWith('change') && !f.unrecorded)
        out.push(`${when} ${f.what}: Gardener records no event for it, the forecast does not say so`);
    } else if (match.reason !== f.reason) {
      out.push(`${when} ${f.what}: Gardener's reason is "${match.reason}", the forecast's "${f.reason}"`);
    } else if (f.what.startsWith('change') && f.mode !== modeOf(match.reason)) {
      out.push(`${when} ${f.what}: the forecast says ${f.mode}, Gardener's reason "${match.reason}"`);
    }
  }
  for (const rest of pending.values())
    for (const g of rest)
      out.push(`Gardener has ${g.window} ${g.what}${g.reason ? ` (${g.reason})` : ''}, the forecast does not`);
  return out;
}

function modeOf(reason: string): 'auto' | 'forced' {
  return reason.startsWith('Automatic') ? 'auto' : 'forced';
}
