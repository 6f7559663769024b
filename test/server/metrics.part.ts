// /metrics: the admission series with their labels, denials by rule, the in-flight gauge and the
// default process metrics, after real requests of each outcome.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from '../helpers/parts.js';
import { fieldPath, forbidden } from '../../src/api/field.js';
import { defineRule } from '../../src/policy/rule.js';
import { createLogger } from '../../src/server/logging.js';
import { DURATION_BUCKETS, createMetrics } from '../../src/server/metrics.js';
import { LEFT_OUT_DEFAULT_METRIC } from '../../src/server/process-metrics.js';
import { startWebhook } from '../../src/server/run.js';
import { cloudProfile, config } from '../helpers/objects.js';
import { request, review, startServer } from '../helpers/server.js';

// Test-only rules through EvaluateOptions.rules: a denial naming two rules, and an exception.
const ALL = ['CloudProfile', 'NamespacedCloudProfile', 'Shoot'] as const;
const rules = [
  defineRule({
    id: 'IN-USE',
    kinds: ALL,
    operations: ['UPDATE'],
    summary: 'test',
    check: () => [
      forbidden(fieldPath('spec', 'kubernetes', 'versions').index(0), 'in use'),
      forbidden(fieldPath('spec', 'kubernetes', 'versions').index(1), 'in use'),
    ],
  }),
  defineRule({
    id: 'LATEST-NO-EXPIRY',
    kinds: ALL,
    operations: ['UPDATE'],
    summary: 'test',
    check: () => [forbidden(fieldPath(), 'x')],
  }),
  defineRule({
    id: 'K8S-VERSIONS',
    kinds: ALL,
    operations: ['DELETE'],
    summary: 'test',
    check: () => {
      throw new Error('boom');
    },
  }),
];

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

t.test('metrics count every admission by webhook, code, kind, operation, verdict and rule', async (t) => {
  const s = await startServer({ rules });
  t.teardown(s.close);
  const profile = cloudProfile({ name: 'aws' });
  await s.post('/validate', review({ operation: 'CREATE', object: profile }));
  await s.post('/validate', review({ operation: 'CREATE', object: profile }));
  await s.post('/validate', review({ operation: 'UPDATE', object: profile, oldObject: profile }));
  await s.post('/validate', review({ operation: 'DELETE', oldObject: profile }));
  await s.post('/mutate', review({ operation: 'CREATE', object: profile }));
  await s.post('/validate', undefined, { raw: 'x', headers: { 'content-type': 'text/plain' } });
  await s.post(
    '/validate',
    review({
      operation: 'CREATE',
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      object: { kind: 'Deployment' },
    }),
  );

  const res = await s.get('/metrics');
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /text\/plain/);
  const m = res.text;
  t.equal(
    value(m, 'version_policy_admission_requests_total{webhook="validate",code="200"}'),
    3,
    'two allowed CREATEs and the unpoliced kind',
  );
  t.equal(value(m, 'version_policy_admission_requests_total{webhook="validate",code="403"}'), 1);
  t.equal(value(m, 'version_policy_admission_requests_total{webhook="validate",code="500"}'), 1);
  t.equal(
    value(m, 'version_policy_admission_requests_total{webhook="validate",code="415"}'),
    1,
    'transport errors count with their HTTP status',
  );
  t.equal(value(m, 'version_policy_admission_requests_total{webhook="mutate",code="200"}'), 1);
  t.equal(
    value(m, 'version_policy_denials_total{rule="IN-USE"}'),
    1,
    'once per denial, however many violations of the rule',
  );
  t.equal(value(m, 'version_policy_denials_total{rule="LATEST-NO-EXPIRY"}'), 1);
  t.equal(
    value(
      m,
      'version_policy_admission_duration_seconds_count{webhook="validate",kind="CloudProfile",operation="CREATE",allowed="true"}',
    ),
    2,
  );
  t.equal(
    value(
      m,
      'version_policy_admission_duration_seconds_count{webhook="validate",kind="CloudProfile",operation="UPDATE",allowed="false"}',
    ),
    1,
  );
  t.equal(
    value(
      m,
      'version_policy_admission_duration_seconds_count{webhook="validate",kind="other",operation="CREATE",allowed="true"}',
    ),
    1,
    'unknown kinds collapse into one label value',
  );
  for (const le of DURATION_BUCKETS) {
    t.ok(
      m.includes(
        `version_policy_admission_duration_seconds_bucket{le="${le}",webhook="validate",kind="CloudProfile",operation="CREATE",allowed="true"}`,
      ),
      `bucket ${le}`,
    );
  }
  t.equal(DURATION_BUCKETS[0], 0.0005);
  t.equal(DURATION_BUCKETS.at(-1), 5);
  t.equal(
    value(m, 'version_policy_admission_in_flight_requests{webhook="validate"}'),
    0,
    'nothing in flight once answered',
  );
  t.match(m, /# TYPE version_policy_certificate_reloads_total counter/);
  t.match(m, /^process_cpu_user_seconds_total \d/m, 'default process metrics');
  t.match(m, /^nodejs_eventloop_lag_seconds \d/m);
});

/** A port free a moment ago (probePort 0 means "no probe port", so the test needs a real number). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

t.test('with a probe port, /metrics is served there and not on the webhook port', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'vp-metrics-'));
  const probePort = await freePort();
  const webhook = await startWebhook({
    config: config({ server: { host: '127.0.0.1', port: 0, probePort }, cluster: { enabled: false } }),
    stateFiles: [],
    withoutClusterState: true,
    logger: createLogger('silent'),
    devCertDir: dir,
  });
  t.teardown(async () => {
    await webhook.stop(1000);
    await rm(dir, { recursive: true, force: true });
  });
  const ca = await readFile(join(dir, 'ca.crt'), 'utf8');
  const port = Number(new URL(webhook.url).port);
  t.equal((await request(port, 'GET', '/metrics', undefined, { ca })).status, 404, 'not on the TLS port');
  t.equal((await request(port, 'GET', '/readyz', undefined, { ca })).status, 200, 'the probes stay on both');
  const res = await fetch(`${webhook.probeUrl}/metrics`);
  t.equal(res.status, 200);
  t.match(await res.text(), /version_policy_admission_requests_total/);
});

t.test('without a probe port, the webhook port serves /metrics; buildServer can be told either way', async (t) => {
  const plain = await startServer();
  t.teardown(plain.close);
  t.equal((await plain.get('/metrics')).status, 200);
  const off = await startServer({ serveMetrics: false });
  t.teardown(off.close);
  t.equal((await off.get('/metrics')).status, 404);
  const probePortSet = await startServer({ config: { server: { probePort: 1 } } });
  t.teardown(probePortSet.close);
  t.equal((await probePortSet.get('/metrics')).status, 404, 'the default follows server.probePort');
});

t.test("the process metrics are prom-client's default set without the per-collection GC histogram", async (t) => {
  const { Registry, collectDefaultMetrics } = await import('prom-client');
  const names = async (registry: InstanceType<typeof Registry>) =>
    (await registry.getMetricsAsJSON()).map((m) => m.name).sort();
  // prom-client's own set, as collectDefaultMetrics registers it (this leaves one GC observer
  // running in the test process, which is harmless here).
  const theirs = new Registry();
  collectDefaultMetrics({ register: theirs });
  const ours = createMetrics().registry;
  const ourNames = new Set(await names(ours));
  const expected = (await names(theirs)).filter((n) => n !== LEFT_OUT_DEFAULT_METRIC);
  t.ok((await names(theirs)).includes(LEFT_OUT_DEFAULT_METRIC), 'the left-out metric is one prom-client registers');
  t.ok(expected.length >= 20, `prom-client's default set is all there (${expected.length} names)`);
  t.same(
    expected.filter((n) => !ourNames.has(n)),
    [],
    'every other default metric is registered',
  );
  t.notOk(ourNames.has(LEFT_OUT_DEFAULT_METRIC), 'no GC duration histogram');
  // Served in the text format like the rest.
  const text = await ours.metrics();
  t.match(text, /^nodejs_heap_space_size_used_bytes\{space="old"\} \d+/m);
  t.match(text, /^nodejs_version_info\{version="v22\./m);
});
