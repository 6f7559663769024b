// The report writer and its Lease, over real HTTPS against the fake API server (the one fake: the
// real kube-apiserver runs these in the e2e suite): only the holder writes; the reports follow the
// stored objects (a finding that is gone is removed, a namespace without findings loses its
// report, an unchanged report is not written); a replica that loses the Lease stops writing at
// once; another takes over once the Lease has run out, and writes the same results. Time is a
// counter the test moves: no assertion waits on the wall clock.
import t from '../helpers/parts.js';
import { connectionFrom } from '../../src/cluster/api-client.js';
import { ClusterIndex } from '../../src/cluster/cluster-index.js';
import { loadKubeConfig } from '../../src/cluster/kubeconfig.js';
import { ConfigError, resolveConfig } from '../../src/config.js';
import type { ExpirableVersion } from '../../src/api/types.js';
import { LeaseElector } from '../../src/server/reports/lease.js';
import { ReportApi } from '../../src/server/reports/report-api.js';
import { runSliced } from '../../src/server/reports/sliced.js';
import { ReportWriter, type WriterOptions } from '../../src/server/reports/writer.js';
import { FakeApiServer, type StoredObject } from '../helpers/fake-apiserver.js';
import { cloudProfile, config, hoursFromNow, NOW, shoot } from '../helpers/objects.js';

t.setTimeout(120_000);

const expiring = (version: string, hours: number): ExpirableVersion => ({
  version,
  classification: 'deprecated',
  expirationDate: hoursFromNow(hours),
});
const breaking = cloudProfile({ name: 'aws', kubernetes: [expiring('1.31.1', 24 * 60), expiring('1.30.5', 72)] });
const fixedProfile = cloudProfile({
  name: 'aws',
  kubernetes: [{ version: '1.31.1', classification: 'supported' }, expiring('1.30.5', 72)],
});
const due = shoot({ name: 'due', namespace: 'garden-a', profile: 'aws', version: '1.30.5', workers: [] });

const api = await FakeApiServer.start();
t.teardown(() => api.close());
const conn = connectionFrom(loadKubeConfig(api.kubeconfigPath));
const cfg = config({ reports: { enabled: true, forcedWithinDays: 7, horizonDays: 30 } });

let clock = 0;
const monotonic = () => clock;
const elector = (identity: string) =>
  new LeaseElector({
    conn,
    namespace: 'garden',
    name: 'version-policy-reports',
    identity,
    durationSeconds: 15,
    monotonic,
    now: () => NOW,
  });
const writer = (state: ClusterIndex, e: LeaseElector) =>
  new ReportWriter({ state, config: cfg, api: new ReportApi(conn), holding: () => e.holding(), now: () => NOW });

const reportWrites = () => api.objects.writes.filter((w) => w.path.includes('openreports.io'));
const namesIn = (o: StoredObject | undefined) =>
  ((o?.results ?? []) as { policy: string; resources: { name: string }[] }[]).map(
    (r) => `${r.resources[0]!.name}:${r.policy}`,
  );

const state = new ClusterIndex(true);
state.upsert(breaking);
state.upsert(due);
const a = elector('replica-a');
const b = elector('replica-b');
const wa = writer(state, a);
const wb = writer(state, b);

t.test('only the Lease holder writes', async (t) => {
  t.equal(await a.tryOnce(), true, 'a creates the Lease');
  t.equal(await b.tryOnce(), false, 'b finds it held');
  t.same(await wb.runOnce(), { outcome: 'standby' });
  t.same(reportWrites(), [], 'the standby wrote nothing');
  const run = await wa.runOnce();
  t.match(run, { outcome: 'written', writes: 2 });
  t.same(
    reportWrites().map((w) => [w.method, w.path.replace('/apis/openreports.io/v1alpha1', ''), w.status]),
    [
      ['POST', '/clusterreports', 201],
      ['POST', '/namespaces/garden-a/reports', 201],
    ],
  );
  const lease = api.objects.get('Lease', 'garden', 'version-policy-reports');
  t.match(lease?.spec, { holderIdentity: 'replica-a', leaseDurationSeconds: 15, leaseTransitions: 0 });
});

t.test('a stored profile that breaks a rule is in the cluster report; the due Shoot in its namespace', async (t) => {
  const cluster = api.objects.get('ClusterReport', undefined, 'version-policy');
  t.same(namesIn(cluster), ['aws:LATEST-NO-EXPIRY']);
  t.match(cluster, {
    apiVersion: 'openreports.io/v1alpha1',
    metadata: { labels: { 'app.kubernetes.io/managed-by': 'version-policy' } },
  });
  const report = api.objects.get('Report', 'garden-a', 'version-policy');
  t.same(namesIn(report), ['due:FORECAST']);
});

t.test('an unchanged landscape is not written again', async (t) => {
  const before = reportWrites().length;
  t.match(await wa.runOnce(), { outcome: 'written', writes: 0 });
  t.equal(reportWrites().length, before);
});

t.test('an unchanged report read back with its keys in another order is not written again', async (t) => {
  // kube-apiserver returns a custom resource's fields in its own (sorted) order, not in the order
  // they were written (found by test/e2e/reports.e2e.ts: every interval rewrote every report).
  const sortKeys = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sortKeys)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .reverse()
              .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
          )
        : v;
  const real = new ReportApi(conn);
  const reordered: WriterOptions['api'] = {
    getClusterReport: async () =>
      sortKeys(await real.getClusterReport()) as Awaited<ReturnType<ReportApi['getClusterReport']>>,
    listReports: async () => (await real.listReports()).map((r) => sortKeys(r) as typeof r),
    create: (r) => real.create(r),
    update: (r) => real.update(r),
    remove: (r) => real.remove(r),
  };
  const w = new ReportWriter({ state, config: cfg, api: reordered, holding: () => a.holding(), now: () => NOW });
  const before = reportWrites().length;
  t.match(await w.runOnce(), { outcome: 'written', writes: 0 });
  t.equal(reportWrites().length, before, 'no PUT of the same content');
});

t.test('the fixed profile disappears from the report, which is updated in place', async (t) => {
  const uid = api.objects.get('ClusterReport', undefined, 'version-policy')!.metadata.uid;
  state.upsert(fixedProfile);
  t.match(await wa.runOnce(), { outcome: 'written' });
  const cluster = api.objects.get('ClusterReport', undefined, 'version-policy');
  t.same(namesIn(cluster), []);
  t.equal(cluster!.metadata.uid, uid, 'the same object, updated');
  t.match(cluster!.summary, { fail: 0, warn: 0 });
  t.same(namesIn(api.objects.get('Report', 'garden-a', 'version-policy')), ['due:FORECAST']);
});

t.test('a namespace without findings loses its report', async (t) => {
  state.upsert(shoot({ name: 'due', namespace: 'garden-a', profile: 'aws', version: '1.31.1', workers: [] }));
  t.match(await wa.runOnce(), { outcome: 'written', writes: 1 });
  t.equal(api.objects.get('Report', 'garden-a', 'version-policy'), undefined);
  t.equal(reportWrites().at(-1)!.method, 'DELETE');
  state.upsert(due);
  t.match(await wa.runOnce(), { outcome: 'written', writes: 1 });
});

t.test('a replica that loses the Lease stops writing at once', async (t) => {
  // Two namespaces to write; the Lease runs past its renew deadline as the first write lands.
  state.upsert(shoot({ name: 'due', namespace: 'garden-b', profile: 'aws', version: '1.30.5', workers: [] }));
  state.upsert(shoot({ name: 'due', namespace: 'garden-c', profile: 'aws', version: '1.30.5', workers: [] }));
  const before = reportWrites().length;
  let first = true;
  api.objects.onWrite((w) => {
    if (first && w.path.includes('openreports.io')) {
      first = false;
      clock += 11_000;
    }
  });
  t.same(await wa.runOnce(), { outcome: 'lost-lease' });
  t.equal(reportWrites().length, before + 1, 'one write was on the wire; none followed');
  t.equal(a.holding(), false);
});

t.test('after the holder is gone, the other takes over within the Lease duration and writes the same', async (t) => {
  // a renews once more, then is "killed": b sees the same record for the Lease's whole duration.
  t.equal(await a.tryOnce(), true, 'a renews');
  t.equal(await b.tryOnce(), false, 'b observes the record');
  clock += 14_999;
  t.equal(await b.tryOnce(), false, 'not before the duration has passed');
  clock += 1;
  t.equal(await b.tryOnce(), true, 'b takes over');
  t.match(api.objects.get('Lease', 'garden', 'version-policy-reports')?.spec, {
    holderIdentity: 'replica-b',
    leaseTransitions: 1,
  });
  t.equal(a.holding(), false, 'the old holder does not count itself the holder');
  t.match(await wb.runOnce(), { outcome: 'written' });
  const names = ['garden-a', 'garden-b', 'garden-c'].map((ns) =>
    namesIn(api.objects.get('Report', ns, 'version-policy')),
  );
  t.same(names, [['due:FORECAST'], ['due:FORECAST'], ['due:FORECAST']], 'no result lost, none doubled');
  t.equal(api.objects.all('Report').length, 3);
  t.equal(api.objects.all('ClusterReport').length, 1);
  t.equal(await a.tryOnce(), false, 'the old holder, back, finds the Lease taken');
});

t.test('a result keeps the timestamp of when it was first found', async (t) => {
  const later = new ReportWriter({
    state,
    config: cfg,
    api: new ReportApi(conn),
    holding: () => b.holding(),
    now: () => NOW + 60_000,
  });
  await b.tryOnce();
  const before = reportWrites().length;
  t.match(await later.runOnce(), { outcome: 'written', writes: 0 }, 'nothing changed but the instant');
  t.equal(reportWrites().length, before);
});

t.test('a stopped holder gives the Lease up', async (t) => {
  await b.stop();
  t.match(api.objects.get('Lease', 'garden', 'version-policy-reports')?.spec, { holderIdentity: '' });
  const c = elector('replica-c');
  t.equal(await c.tryOnce(), true, 'an empty holder is taken at once');
});

t.test('the audit runs in slices, pausing when one has taken its budget', async (t) => {
  let now = 0;
  const steps = Array.from({ length: 10 }, (_, i) => i);
  const stats = await runSliced(steps, () => (now += 4), { sliceMs: 10, clock: () => now });
  t.same(stats, { busyMs: 40, longestMs: 12, slices: 4, cancelled: false });
  const cancelled = await runSliced(steps, () => (now += 4), { sliceMs: 10, clock: () => now, cancelled: () => true });
  t.match(cancelled, { slices: 1, cancelled: true });
});

t.test('reports are off by default, and their config is validated', async (t) => {
  t.equal(resolveConfig({}).reports.enabled, false);
  t.throws(() => resolveConfig({ reports: { intervalSeconds: 5 } }), ConfigError);
  t.throws(() => resolveConfig({ reports: { lease: { name: 'Not_A_Name' } } }), /reports\.lease\.name/);
  t.throws(() => resolveConfig({ reports: { maxResultsPerReport: 0 } }), /reports\.maxResultsPerReport: must be >= 1/);
});
