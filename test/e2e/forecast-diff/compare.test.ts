// The differential test's own logic, without Gardener: the scenario folder is complete, and the
// comparison finds every kind of disagreement (npm run test:maintenance runs it against Gardener).
import { readdir } from 'node:fs/promises';
import t from 'tap';
import type { Forecast, ForecastEvent } from '../../../src/gardener/forecast/index.js';
import { compare, type GardenerResult, type GardenerRun } from './compare.js';
import { loadScenarios } from './scenarios.js';

const FIXTURES = new URL('../../fixtures/', import.meta.url);

t.test(
  'the scenarios: at least 50, each with now and days, the demo and every forecast-*.yaml among them',
  async (t) => {
    const scenarios = await loadScenarios(new URL('maintenance/', FIXTURES).pathname);
    t.ok(scenarios.length >= 50, `${scenarios.length} scenarios`);
    for (const s of scenarios) {
      t.ok(Date.parse(s.now) > 0 && s.days > 0 && s.files.length > 0, s.name);
      t.ok(s.about.length > 0, `${s.name} says what it shows`);
    }
    const used = new Set(scenarios.flatMap((s) => s.files.map((f) => f.replace(/^.*\//, ''))));
    t.ok(used.has('demo-state.yaml'), 'the demo');
    for (const f of (await readdir(FIXTURES)).filter((f) => /^forecast-.*\.yaml$/.test(f))) t.ok(used.has(f), f);
  },
);

const DAY = 86_400_000;
const W = Date.parse('2027-03-02T22:00:00Z');
const event = (over: Partial<ForecastEvent>): ForecastEvent => ({
  at: W,
  windowEnd: W + 3_600_000,
  component: { kind: 'kubernetes' },
  mode: 'forced',
  from: '1.31.5',
  to: '1.31.9',
  reason: 'Kubernetes version expired - force update required',
  trigger: 'expired',
  ...over,
});
const forecastOf = (events: ForecastEvent[], otherwise?: ForecastEvent[]): Forecast => ({
  now: W - DAY,
  until: W + 10 * DAY,
  shoots: [
    { shoot: 'garden-dev/a', profile: 'CloudProfile/aws', window: 'w', events, ...(otherwise ? { otherwise } : {}) },
  ],
  skipped: [],
});
const run = (window: number, over: Partial<GardenerRun>): GardenerRun => ({
  window: new Date(window).toISOString(),
  at: new Date(window).toISOString(),
  ...over,
});
const gardenerOf = (at: 'begin' | 'last', runs: GardenerRun[]): GardenerResult => ({
  scenario: 's',
  at,
  now: '',
  until: '',
  shoots: [{ shoot: 'garden-dev/a', runs }],
  versions: {},
});
const forced = {
  changes: [
    {
      component: { kind: 'kubernetes' as const },
      from: '1.31.5',
      to: '1.31.9',
      reason: 'Kubernetes version expired - force update required',
    },
  ],
};

t.test('agreement, and each kind of disagreement', async (t) => {
  const same = [run(W, forced)];
  t.ok(compare(forecastOf([event({})]), gardenerOf('begin', same), gardenerOf('last', same)).agreed, 'the same step');
  t.match(
    compare(forecastOf([event({ at: W + DAY })]), gardenerOf('begin', same), gardenerOf('last', same)).mismatches,
    [
      /the forecast has 2027-03-03 change control plane 1.31.5 → 1.31.9, Gardener does not/,
      /Gardener has 2027-03-02 change control plane/,
    ],
  );
  t.match(
    compare(forecastOf([event({ reason: 'other' })]), gardenerOf('begin', same), gardenerOf('last', same)).mismatches,
    [/Gardener's reason is "Kubernetes version expired/],
  );
  const silent = [run(W, { changes: [{ ...forced.changes[0]!, reason: '' }] })];
  t.match(compare(forecastOf([event({})]), gardenerOf('begin', silent), gardenerOf('last', silent)).mismatches, [
    /Gardener records no event for it/,
  ]);
  const unrecorded = event({ quirk: { kind: 'unrecorded', detail: 'd' } });
  t.ok(compare(forecastOf([unrecorded]), gardenerOf('begin', silent), gardenerOf('last', silent)).agreed, 'flagged');
});

t.test('a failure repeated every window counts at its first, as the forecast lists it', async (t) => {
  const failure = {
    failures: [{ component: { kind: 'kubernetes' as const }, reason: 'r', message: 'no version', recorded: true }],
  };
  const runs = [run(W, failure), run(W + DAY, failure), run(W + 2 * DAY, failure)];
  const f = event({ to: undefined, reason: 'r', failure: { kind: 'no-consecutive-minor', message: 'm' } });
  t.ok(compare(forecastOf([f]), gardenerOf('begin', runs), gardenerOf('last', runs)).agreed);
  const gap = [run(W, failure), run(W + 2 * DAY, failure)];
  t.notOk(compare(forecastOf([f]), gardenerOf('begin', gap), gardenerOf('last', gap)).agreed, 'a gap lists it again');
});

t.test('the late run is compared with the certain events and `otherwise`', async (t) => {
  const early = [run(W + DAY, forced)];
  const late = [run(W, forced)];
  const uncertain = forecastOf([event({ at: W + DAY, uncertain: true })], [event({ uncertain: true })]);
  const c = compare(uncertain, gardenerOf('begin', early), gardenerOf('last', late));
  t.ok(c.agreed, c.mismatches.join('; '));
  t.equal(c.uncertain, 2);
  const unmarked = forecastOf([event({ at: W + DAY })]);
  t.match(compare(unmarked, gardenerOf('begin', early), gardenerOf('last', late)).mismatches, [/\(last second\)/]);
});

t.test('skips and setup notes', async (t) => {
  const f: Forecast = { ...forecastOf([]), shoots: [], skipped: [{ shoot: 'garden-dev/a', why: 'being deleted' }] };
  const skipped = (at: 'begin' | 'last'): GardenerResult => ({
    ...gardenerOf(at, []),
    shoots: [{ shoot: 'garden-dev/a', skipped: 'being deleted', runs: [] }],
  });
  t.ok(compare(f, skipped('begin'), skipped('last')).agreed);
  t.notOk(compare(f, gardenerOf('begin', []), gardenerOf('last', [])).agreed, 'Gardener maintains it');
  t.match(compare(forecastOf([]), { ...gardenerOf('begin', []), notes: ['bad'] }, gardenerOf('last', [])).mismatches, [
    /setup: bad/,
  ]);
});
