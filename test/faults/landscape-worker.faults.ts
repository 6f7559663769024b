// The landscape worker crashes or hangs: the review waiting for its forecast is answered "cannot
// know" (warn mode: allowed, with a warning that says so; deny mode: denied), never a wrong
// "allowed" and never a stuck review; the worker is replaced and the next review is forecast
// again. While a fleet forecast keeps the worker busy, /healthz and reviews are answered. Real HTTPS
// servers and real threads; the faults come from test/faults/faulty-worker.ts.
// Run by `npm run test:faults` (each case starts worker threads, which costs seconds).
import t, { type Test } from 'tap';
import { staticState } from '../../src/cluster/static-state.js';
import { ForecastRefresher } from '../../src/server/forecast-refresh.js';
import { LandscapeWorker, type LandscapeOptions } from '../../src/server/workers/landscape.js';
import { cloudProfile, hoursFromNow, NOW, shoot } from '../helpers/objects.js';
import { review, type ReviewReply, startServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

// gardener#13647: a deprecated 1.31.2 while a Shoot on 1.31.1 auto-updates: a trap to warn about.
const before = cloudProfile({ kubernetes: ['1.32.0', '1.31.1'] });
const after = cloudProfile({
  kubernetes: [
    '1.32.0',
    { version: '1.31.2', classification: 'deprecated', expirationDate: hoursFromNow(90 * 24) },
    '1.31.1',
  ],
});
const index = staticState([before, shoot({ name: 'a', version: '1.31.1' })]);
const body = review({ operation: 'UPDATE', object: after, oldObject: before });
const FAULT_AT = NOW + 1;
const entry = new URL('./faulty-worker.ts', import.meta.url);
const DENY = { forecast: { deny: ['trap'] } };

async function setUp(t: Test, opts: Partial<LandscapeOptions>) {
  const worker = new LandscapeWorker({ index, reviewTimeoutMs: 120_000, entry, restartDelayMs: 10, ...opts });
  worker.start();
  const servers = {
    fault: await startServer({ state: index, now: FAULT_AT, forecaster: worker }),
    faultDeny: await startServer({ state: index, now: FAULT_AT, config: DENY, forecaster: worker }),
    fine: await startServer({ state: index, forecaster: worker }),
  };
  t.teardown(async () => {
    await Promise.all([...Object.values(servers).map((s) => s.close()), worker.stop()]);
  });
  const ask = async (s: keyof typeof servers) =>
    (await servers[s].post('/validate', body)).json<ReviewReply>().response;
  return { worker, ask };
}

const said = (r: ReviewReply['response']) => [r.status?.message ?? '', ...(r.warnings ?? [])].join('\n');

t.test('a worker that crashes: "cannot know", then a new worker', async (t) => {
  const { worker, ask } = await setUp(t, { workerData: { crashAt: FAULT_AT } });
  t.match(said(await ask('fine')), /maintenance would move 1 Shoot onto deprecated/, 'forecast while it runs');
  const warned = await ask('fault');
  t.ok(warned.allowed, 'warn mode: allowed');
  t.match(said(warned), /maintenance forecast not run: the forecast worker stopped \(exit code 3\)/);
  await until('a new worker', () => worker.restarts >= 1 && worker.threadId !== undefined, 120_000, 50);
  const denied = await ask('faultDeny');
  t.notOk(denied.allowed, 'deny mode: denied, never guessed allowed');
  t.match(said(denied), /\[FORECAST\] maintenance forecast not available: the forecast worker stopped/);
  await until('another new worker', () => worker.restarts >= 2 && worker.threadId !== undefined, 120_000, 50);
  t.match(said(await ask('fine')), /maintenance would move 1 Shoot onto deprecated/, 'the new worker forecasts');
});

t.test('a worker that hangs: ended once it answers no ping, the review answered "cannot know"', async (t) => {
  const { worker, ask } = await setUp(t, { workerData: { hangAt: FAULT_AT }, heartbeatMs: 200, hangMs: 5_000 });
  t.match(said(await ask('fine')), /onto deprecated/, 'forecast while it runs');
  const first = worker.threadId;
  const hung = await ask('fault');
  t.ok(hung.allowed, 'warn mode: allowed');
  t.match(said(hung), /maintenance forecast not run: the forecast worker answered nothing for \d+ s/);
  await until('a new worker', () => worker.restarts >= 1 && worker.threadId !== undefined, 120_000, 50);
  t.not(worker.threadId, first, 'the hung thread was replaced');
  t.match(said(await ask('fine')), /onto deprecated/, 'the new worker forecasts');
});

t.test('a review not answered within server.forecastTimeoutSeconds: "cannot know", in both modes', async (t) => {
  const { ask } = await setUp(t, { workerData: { hangAt: FAULT_AT }, reviewTimeoutMs: 1_000 });
  const warned = await ask('fault');
  t.ok(warned.allowed, 'warn mode: allowed');
  t.match(said(warned), /maintenance forecast not run: the forecast worker did not answer within 1000 ms/);
  const denied = await ask('faultDeny');
  t.notOk(denied.allowed, 'deny mode: denied');
  t.match(said(denied), /maintenance forecast not available: .*did not answer within 1000 ms/);
});

t.test('a fleet forecast busy in the worker: /healthz and reviews are answered meanwhile', async (t) => {
  const gate = new Int32Array(new SharedArrayBuffer(8));
  const worker = new LandscapeWorker({ index, reviewTimeoutMs: 1_000, entry, workerData: { fleetGate: gate.buffer } });
  worker.start();
  const server = await startServer({ state: index, forecaster: worker });
  const refresher = new ForecastRefresher({ state: index, now: () => NOW, worker });
  t.teardown(async () => {
    Atomics.store(gate, 0, 1);
    await Promise.all([server.close(), refresher.stop(), worker.stop()]);
  });
  let made = false;
  const forecast = refresher.refresh().finally(() => (made = true));
  await until('the worker busy with the fleet forecast', () => Atomics.load(gate, 1) === 1, 120_000, 20);
  for (let i = 0; i < 50; i++) {
    const res = await server.get('/healthz');
    t.equal(res.text, 'ok', `/healthz ${i + 1} answered`);
    t.notOk(made, 'the fleet forecast still busy');
    if (res.text !== 'ok' || made) break;
  }
  const shootCreate = review({ operation: 'CREATE', object: shoot({ name: 'b', version: '1.31.1' }) });
  t.ok((await server.post('/validate', shootCreate)).json<ReviewReply>().response.allowed, 'a Shoot review: judged');
  const profileUpdate = (await server.post('/validate', body)).json<ReviewReply>().response;
  t.ok(profileUpdate.allowed, "a profile UPDATE: judged, in warn mode without the busy worker's forecast");
  t.match(said(profileUpdate), /maintenance forecast not run: the forecast worker did not answer within 1000 ms/);
  t.notOk(made, 'the fleet forecast still busy');
  Atomics.store(gate, 0, 1);
  const summary = await forecast;
  t.equal(summary?.chains.get('CloudProfile/profile')?.length, 1, 'then the fleet forecast is made, its Shoot in it');
});
