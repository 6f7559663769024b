// /healthz and /readyz on the webhook port and on the optional plain-HTTP probe port.
import t from '../helpers/parts.js';
import { ClusterIndex } from '../../src/cluster/cluster-index.js';
import { buildProbeServer, urlOf } from '../../src/server/app.js';
import { createLogger } from '../../src/server/logging.js';
import { startServer } from '../helpers/server.js';

t.test('static state counts as synced: live and ready once TLS is up', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  t.same([(await s.get('/healthz')).status, (await s.get('/healthz')).text], [200, 'ok']);
  const ready = await s.get('/readyz');
  t.same([ready.status, ready.text], [200, 'ok']);
});

t.test('not ready while the cluster state has not synced; still live', async (t) => {
  const state = new ClusterIndex(false);
  const s = await startServer({ state });
  t.teardown(s.close);
  t.equal((await s.get('/healthz')).status, 200);
  const res = await s.get('/readyz');
  t.equal(res.status, 503);
  t.match(res.text, /cluster state not synced/);
  state.synced = true;
  t.equal((await s.get('/readyz')).status, 200, 'ready as soon as the informers report a sync');
});

t.test('not ready while the state gives a reason (stale), with the reason; ready again when it has none', async (t) => {
  const state = new ClusterIndex(true);
  let reason: string | undefined =
    'the cached shoots (last current 2026-09-01T00:00:00.000Z, 130 s ago) are older than the 120 s bound';
  state.reportNotReadyBy(() => reason);
  const s = await startServer({ state });
  t.teardown(s.close);
  const res = await s.get('/readyz');
  t.equal(res.status, 503);
  t.equal(res.text, `not ready: cluster state not synced: ${reason}`);
  reason = undefined;
  t.same([(await s.get('/readyz')).status, (await s.get('/readyz')).text], [200, 'ok'], 'recovers by itself');
});

t.test('a state that is absent by choice (--without-cluster-state) does not hold readiness back', async (t) => {
  const state = new ClusterIndex(true);
  state.reportNotReadyBy(() => 'the webhook runs without cluster state');
  const s = await startServer({ state });
  t.teardown(s.close);
  t.equal((await s.get('/readyz')).status, 503, 'a server that waits for its state is not ready');
  s.server.readiness.waitsForState = false;
  t.equal((await s.get('/readyz')).status, 200, 'one that runs without it by choice is');
  t.notOk(state.synced, 'while the state still says it cannot be judged against');
});

t.test(
  'the plain-HTTP probe port serves /healthz, /readyz and /metrics, and readiness drops on shutdown',
  async (t) => {
    const s = await startServer();
    const probes = buildProbeServer({
      readiness: s.server.readiness,
      metrics: s.server.metrics,
      logger: createLogger('silent'),
    });
    await probes.listen({ host: '127.0.0.1', port: 0 });
    t.teardown(async () => {
      await probes.close();
      await s.close();
    });
    const base = urlOf('http', probes);
    t.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
    t.equal(await (await fetch(`${base}/healthz`)).text(), 'ok');
    t.equal((await fetch(`${base}/readyz`)).status, 200);
    t.match(await (await fetch(`${base}/metrics`)).text(), /version_policy_admission_requests_total/);
    await s.server.shutdown(1000);
    const after = await fetch(`${base}/readyz`);
    t.equal(after.status, 503);
    t.match(await after.text(), /shutting down/);
    t.equal((await fetch(`${base}/healthz`)).status, 200, 'still live while draining');
  },
);
