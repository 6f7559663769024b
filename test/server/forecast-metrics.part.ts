// The fleet forecast as gauges: Shoots with a forced update within 7 and 30 days and with a
// predicted failure, per profile and version, read from the last background forecast; the
// forecast pauses between Shoots so admission reviews get the event loop; the series are capped.
import t from '../helpers/parts.js';
import { Registry } from 'prom-client';
import { staticState } from '../../src/cluster/static-state.js';
import { ClusterIndex } from '../../src/cluster/cluster-index.js';
import { MAX_SERIES, registerForecastMetrics } from '../../src/server/forecast-metrics.js';
import { ForecastRefresher } from '../../src/server/forecast-refresh.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../src/server/logging.js';
import { startWebhook } from '../../src/server/run.js';
import { freePort } from '../helpers/free-port.js';
import { attr, elements, parsePage } from '../helpers/html-dom.js';
import { cloudProfile, config, hoursFromNow, image, NOW, shoot } from '../helpers/objects.js';

const DAY_H = 24;
// 1.30.1 expires in 3 days (forced to 1.31.0), 1.29.1 in 20 days (forced, as its minor's newest,
// to 1.30.x); the ubuntu 22.4.1 image under patch expires in 5 days with nowhere to go: a failure.
const profile = cloudProfile({
  name: 'aws',
  kubernetes: [
    '1.31.0',
    { version: '1.30.1', classification: 'deprecated', expirationDate: hoursFromNow(3 * DAY_H) },
    { version: '1.29.1', classification: 'deprecated', expirationDate: hoursFromNow(20 * DAY_H) },
  ],
  images: [
    image('gardenlinux', ['1592.1.0']),
    image(
      'ubuntu',
      [{ version: '22.4.1', classification: 'deprecated', expirationDate: hoursFromNow(5 * DAY_H) }, '24.4.0'],
      'patch',
    ),
  ],
});
const optOut = (s: ReturnType<typeof shoot>) => ({
  ...s,
  spec: { ...s.spec, maintenance: { autoUpdate: { kubernetesVersion: false, machineImageVersion: false } } },
});
const shoots = [
  optOut(shoot({ name: 'a', profile: 'aws', version: '1.30.1' })),
  optOut(
    shoot({
      name: 'b',
      profile: 'aws',
      version: '1.30.1',
      workers: [
        { name: 'w1', image: ['ubuntu', '22.4.1'] },
        { name: 'w2', image: ['ubuntu', '22.4.1'] },
      ],
    }),
  ),
  optOut(shoot({ name: 'c', profile: 'aws', version: '1.29.1' })),
  optOut(shoot({ name: 'idle', profile: 'aws', version: '1.31.0' })),
];

async function scrape(registry: Registry): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const line of (await registry.metrics()).split('\n')) {
    const m = /^(version_policy_forecast_\w+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

t.test('gauges per profile and version, Shoots counted once', async (t) => {
  let now = NOW;
  const refresher = new ForecastRefresher({ state: staticState([profile, ...shoots]), now: () => now });
  const registry = new Registry();
  registerForecastMetrics(registry, refresher, () => now);
  now += 30_000;
  const before = await scrape(registry);
  t.notOk(
    [...before.keys()].some((k) => k.includes('_shoots')),
    'before the first forecast: no counts',
  );
  t.equal(before.get('version_policy_forecast_age_seconds'), 30, 'and the age counts from the start');
  await refresher.refresh();
  now += 90_000; // the forecast was made at NOW + 30 s
  const got = await scrape(registry);
  const k8s = (v: string, within: string) =>
    `version_policy_forecast_forced_update_shoots{profile="CloudProfile/aws",image="",version="${v}",within="${within}"}`;
  t.equal(got.get(k8s('1.30.1', '7d')), 2, 'a and b leave 1.30.1 within 7 days');
  t.equal(got.get(k8s('1.30.1', '30d')), 3, 'and c, forced onto the expired 1.30.1 and off it the next window');
  t.equal(got.get(k8s('1.29.1', '7d')), undefined, 'c leaves 1.29.1 after 20 days: not within 7');
  t.equal(got.get(k8s('1.29.1', '30d')), 1);
  t.equal(
    got.get('version_policy_forecast_failure_shoots{profile="CloudProfile/aws",image="ubuntu",version="22.4.1"}'),
    1,
    "b's two pools fail on one version: one Shoot",
  );
  t.notOk(
    [...got.keys()].some((k) => k.includes('1.31.0')),
    'a version with nothing ahead exports no series',
  );
  t.equal(got.get('version_policy_forecast_age_seconds'), 90);
  t.equal(got.get('version_policy_forecast_series_left'), 0);
  t.ok(got.get('version_policy_forecast_duration_seconds')! >= 0);
  t.same(
    refresher.latest()!.byProfile.get('CloudProfile/aws'),
    { updated30d: 3, forced30d: 2 + 1, failing: 1 },
    'per profile, for the /profiles index: a, b and c updated, all forced; b fails',
  );
});

t.test('the forecast yields the event loop between slices, and waits for a synced state', async (t) => {
  const unsynced = new ForecastRefresher({ state: new ClusterIndex(false), now: () => NOW });
  t.equal(await unsynced.refresh(), undefined, 'no forecast of a half-filled cache');
  // A clock that moves 20 ms per reading: every Shoot ends a slice.
  let clock = 0;
  const refresher = new ForecastRefresher({
    state: staticState([profile, ...shoots]),
    now: () => NOW,
    monotonic: () => (clock += 20),
  });
  // Other work, one turn of the event loop at a time: a chain of immediates counts the turns the
  // refresh gave up (a timer would count milliseconds, which a fast or a loaded machine changes).
  let ticks = 0;
  let ticker = setImmediate(function tick() {
    ticks++;
    ticker = setImmediate(tick);
  });
  const summary = await refresher.refresh();
  clearImmediate(ticker);
  t.ok(summary, 'it finishes');
  t.ok(ticks >= 2, `other work ran in between: ${ticks} turns of the event loop`);
});

t.test(`at most ${MAX_SERIES} label sets per gauge, the biggest first; the rest are counted`, async (t) => {
  const versions = Array.from({ length: MAX_SERIES + 20 }, (_, i) => ({
    version: `1.20.${i}`,
    expirationDate: hoursFromNow(DAY_H),
  }));
  const big = cloudProfile({ name: 'big', kubernetes: [...versions, '1.21.0'] });
  const fleet = versions.map((v, i) => optOut(shoot({ name: `s${i}`, profile: 'big', version: v.version })));
  // Two more Shoots on the last version: it has the most, so it is kept.
  fleet.push(
    optOut(shoot({ name: 'x1', profile: 'big', version: versions.at(-1)!.version })),
    optOut(shoot({ name: 'x2', profile: 'big', version: versions.at(-1)!.version })),
  );
  const refresher = new ForecastRefresher({ state: staticState([big, ...fleet]), now: () => NOW });
  const registry = new Registry();
  registerForecastMetrics(registry, refresher, () => NOW);
  await refresher.refresh();
  const got = await scrape(registry);
  const series = [...got.keys()].filter((k) => k.includes('within="30d"'));
  t.equal(series.length, MAX_SERIES);
  t.equal(got.get('version_policy_forecast_series_left'), 20);
  t.equal(
    got.get(
      `version_policy_forecast_forced_update_shoots{profile="CloudProfile/big",image="",version="${versions.at(-1)!.version}",within="30d"}`,
    ),
    3,
  );
});

t.test('the running webhook forecasts in the background: gauges on /metrics, counts on /profiles', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'vp-forecast-'));
  const probePort = await freePort();
  const webhook = await startWebhook({
    config: config({
      server: { host: '127.0.0.1', port: 0, probePort, ui: { enabled: true } },
      cluster: { enabled: false },
    }),
    stateFiles: [fileURLToPath(new URL('../fixtures/demo-state.yaml', import.meta.url))],
    logger: createLogger('silent'),
    devCertDir: dir,
  });
  t.teardown(async () => {
    await webhook.stop(1000);
    await rm(dir, { recursive: true, force: true });
  });
  // The first forecast starts at once and takes milliseconds on the demo state, once the worker
  // thread has loaded its modules: patient, for a loaded machine.
  let age = '';
  for (let i = 0; i < 600 && age === ''; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const index = parsePage(await (await fetch(`${webhook.probeUrl}/profiles`)).text()).document;
    age = attr(elements(index, (e) => attr(e, 'data-age') !== undefined)[0]!, 'data-age') ?? '';
  }
  t.not(age, '', 'the index shows the forecast and its age');
  const page = parsePage(await (await fetch(`${webhook.probeUrl}/profiles/aws`)).text()).document;
  t.equal(
    elements(page, (e) => attr(e, 'class') === 'more forecast-made').length,
    1,
    "a profile's page draws the background forecast",
  );
  const metrics = await (await fetch(`${webhook.probeUrl}/metrics`)).text();
  t.match(metrics, /^version_policy_forecast_age_seconds \d/m);
  t.match(metrics, /# TYPE version_policy_forecast_forced_update_shoots gauge/);
});
