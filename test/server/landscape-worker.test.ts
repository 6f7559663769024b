// The landscape worker: a profile UPDATE's forecast made in a worker thread, on a mirror of the
// state fed from the event loop's index, must give the verdict the in-process forecast gives, in
// warn mode and in deny mode, past the work budget too; reviews that do not read the forecast never
// ask it; a stopped worker answers "cannot know" (a warning, or a denial), never a silent allowed.
// Real HTTPS servers on port 0 and real worker threads; crashes and hangs are in test/faults/.
import t, { type Test } from 'tap';
import type { PolicedObject } from '../../src/api/types.js';
import { staticState } from '../../src/cluster/static-state.js';
import { LandscapeWorker } from '../../src/server/workers/landscape.js';
import type { ReviewForecaster } from '../../src/server/admission-routes.js';
import { cloudProfile, type ConfigInput, hoursFromNow, namespacedProfile, NOW, shoot } from '../helpers/objects.js';
import { review, type ReviewReply, startServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const DAY_H = 24;

// gardener#13647: 1.31.2 added as deprecated while a Shoot on supported 1.31.1 auto-updates (trap).
const trapBefore = cloudProfile({
  name: 'trap',
  kubernetes: [
    { version: '1.32.0', classification: 'supported' },
    { version: '1.31.1', classification: 'supported' },
  ],
});
const trapAfter = cloudProfile({
  name: 'trap',
  kubernetes: [
    { version: '1.32.0', classification: 'supported' },
    { version: '1.31.2', classification: 'deprecated', expirationDate: hoursFromNow(90 * DAY_H) },
    { version: '1.31.1', classification: 'supported' },
  ],
});
// No 1.31 to go to: 1.30.1's expiry brought to 3 days forces an update that fails, and soon.
const gapBefore = cloudProfile({
  name: 'gap',
  kubernetes: ['1.32.0', { version: '1.30.1', classification: 'deprecated' }],
});
const gapAfter = cloudProfile({
  name: 'gap',
  kubernetes: ['1.32.0', { version: '1.30.1', classification: 'deprecated', expirationDate: hoursFromNow(3 * DAY_H) }],
});
// A NamespacedCloudProfile override that expires its parent's 1.31.1 in 3 days: forced soon.
const parent = cloudProfile({
  name: 'parent',
  kubernetes: ['1.32.0', { version: '1.31.1', classification: 'deprecated', expirationDate: hoursFromNow(30 * DAY_H) }],
});
const ncpBefore = namespacedProfile({
  name: 'dev',
  parent: 'parent',
  kubernetes: [{ version: '1.31.1', expirationDate: hoursFromNow(60 * DAY_H) }],
});
const ncpAfter = namespacedProfile({
  name: 'dev',
  parent: 'parent',
  kubernetes: [{ version: '1.31.1', expirationDate: hoursFromNow(3 * DAY_H) }],
});
// Past the work budget within the request limits: 999 patches of one minor, each expiry moved by
// a minute, 500 of them in use.
const patches = Array.from({ length: 999 }, (_, i) => ({
  version: `1.30.${i}`,
  classification: 'deprecated',
  expirationDate: new Date(NOW + (i + 1) * 3_600_000).toISOString(),
}));
const bigBefore = cloudProfile({ name: 'big', kubernetes: [...patches, '1.31.0'] });
const bigAfter = cloudProfile({
  name: 'big',
  kubernetes: [
    ...patches.map((v) => ({ ...v, expirationDate: new Date(Date.parse(v.expirationDate) + 60_000).toISOString() })),
    '1.31.0',
  ],
});
const optOut = (s: ReturnType<typeof shoot>) => ({
  ...s,
  spec: { ...s.spec, maintenance: { autoUpdate: { kubernetesVersion: false, machineImageVersion: false } } },
});

const STATE: PolicedObject[] = [
  trapBefore,
  shoot({ name: 'a', namespace: 'trap', profile: 'trap', version: '1.31.1' }),
  gapBefore,
  optOut(shoot({ name: 'b', namespace: 'gap', profile: 'gap', version: '1.30.1' })),
  parent,
  ncpBefore,
  optOut(
    shoot({
      name: 'c',
      namespace: 'garden-dev',
      profile: { kind: 'NamespacedCloudProfile', name: 'dev' },
      version: '1.31.1',
    }),
  ),
  bigBefore,
  ...Array.from({ length: 500 }, (_, i) =>
    optOut(shoot({ name: `s${i}`, namespace: 'big', profile: 'big', version: `1.30.${i * 2}` })),
  ),
];

const UPDATES: Array<{ name: string; oldObject: PolicedObject; object: PolicedObject; says: string }> = [
  { name: 'a trap', oldObject: trapBefore, object: trapAfter, says: 'onto deprecated' },
  { name: 'a forced update without a target', oldObject: gapBefore, object: gapAfter, says: 'forced update will fail' },
  {
    name: 'a NamespacedCloudProfile forcing an update soon',
    oldObject: ncpBefore,
    object: ncpAfter,
    says: 'forced update moves within days',
  },
  { name: 'a forecast past the work budget', oldObject: bigBefore, object: bigAfter, says: 'partial' },
];

const MODES: Record<string, ConfigInput> = {
  warn: {},
  deny: { forecast: { deny: ['trap', 'no-target', 'forced-soon'] } },
  // The mutating path runs before the forecast, in the worker too.
  'warn, lifecycle defaulting on': { defaulting: { lifecycle: { enabled: true } } },
};

interface Pair {
  here: TestServer;
  there: TestServer;
  asked: { n: number };
}

// One state and one worker for every mode: the worker judges with each review's own config.
const index = staticState(STATE);
const shared = new LandscapeWorker({ index, reviewTimeoutMs: 120_000 });
shared.start();
t.teardown(() => shared.stop());

async function pair(t: Test, mode: ConfigInput, worker = shared): Promise<Pair> {
  const asked = { n: 0 };
  const forecaster: ReviewForecaster = {
    reviewForecast: (input) => {
      asked.n++;
      return worker.reviewForecast(input);
    },
  };
  const here = await startServer({ state: index, config: mode });
  const there = await startServer({ state: index, config: mode, forecaster });
  t.teardown(async () => {
    await Promise.all([here.close(), there.close()]);
  });
  return { here, there, asked };
}

const verdict = (r: ReviewReply['response']) => ({
  allowed: r.allowed,
  message: r.status?.message,
  warnings: r.warnings,
  patch: r.patch,
});

for (const [mode, input] of Object.entries(MODES)) {
  t.test(`${mode}: the worker's verdict is the in-process verdict`, async (t) => {
    const { here, there, asked } = await pair(t, input);
    for (const u of UPDATES) {
      const body = review({ operation: 'UPDATE', object: u.object, oldObject: u.oldObject, uid: 'u-1' });
      const a = (await here.post('/validate', body)).json<ReviewReply>().response;
      const b = (await there.post('/validate', body)).json<ReviewReply>().response;
      t.same(verdict(b), verdict(a), u.name);
      const said = [a.status?.message ?? '', ...(a.warnings ?? [])].join('\n');
      t.match(said, u.says, `${u.name}: the forecast said it`);
      if (mode === 'deny') t.notOk(a.allowed, `${u.name}: denied`);
      const m = (await there.post('/mutate', body)).json<ReviewReply>().response;
      t.same(
        verdict(m),
        verdict((await here.post('/mutate', body)).json<ReviewReply>().response),
        `${u.name}, /mutate`,
      );
    }
    t.equal(asked.n, UPDATES.length * 2, 'each of those asked the worker once');
    await there.post('/validate', review({ operation: 'CREATE', object: shoot({ name: 'new', profile: 'trap' }) }));
    await there.post('/validate', review({ operation: 'CREATE', object: trapAfter }));
    t.equal(asked.n, UPDATES.length * 2, 'a Shoot or a CREATE never asks');
  });
}

t.test('a stopped worker: "cannot know", warned in warn mode, denied in deny mode', async (t) => {
  for (const [mode, input] of Object.entries(MODES).slice(0, 2)) {
    const worker = new LandscapeWorker({ index, reviewTimeoutMs: 120_000 });
    worker.start();
    t.teardown(() => worker.stop());
    const { there } = await pair(t, input, worker);
    const body = review({ operation: 'UPDATE', object: trapAfter, oldObject: trapBefore });
    t.ok((await there.post('/validate', body)).json<ReviewReply>().response, 'answered while it runs');
    const thread = worker.threadId;
    t.type(thread, 'number', 'a thread runs');
    await worker.stop();
    t.equal(worker.threadId, undefined, `${mode}: stop() ended the thread`);
    const r = (await there.post('/validate', body)).json<ReviewReply>().response;
    if (mode === 'warn') {
      t.ok(r.allowed, 'warn mode: allowed');
      t.match(r.warnings?.join('\n'), /maintenance forecast not run: the webhook is shutting down/);
    } else {
      t.notOk(r.allowed, 'deny mode: never a guessed "allowed"');
      t.match(r.status?.message, /\[FORECAST\] maintenance forecast not available: the webhook is shutting down/);
    }
  }
});

t.test('readiness waits for the first worker and its copy of the state, not for a replacement', async (t) => {
  const worker = new LandscapeWorker({ index, reviewTimeoutMs: 120_000 });
  t.teardown(() => worker.stop());
  t.equal(worker.notReadyReason, 'the forecast worker is starting', 'not started');
  worker.start();
  t.equal(worker.notReadyReason, 'the forecast worker is starting', 'started, its modules loading');
  await until('the worker to have the state', () => worker.notReadyReason === undefined, 120_000, 20);
  t.equal(worker.backlog, 0, 'sent the whole state');
  await worker.stop();
  worker.start();
  t.equal(worker.notReadyReason, undefined, 'a new worker starting: still ready');
});
