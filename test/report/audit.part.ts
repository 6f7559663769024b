// The audit of what is stored, and its OpenReports: each stored object judged by the admission
// rules themselves (a message is the webhook's, to the letter), the forecast's findings per Shoot,
// reports per namespace and one for the cluster, capped, and the same bytes for the same state.
import t from 'tap';
import { staticState } from '../../src/cluster/static-state.js';
import type { ExpirableVersion, PolicedObject } from '../../src/api/types.js';
import { formatViolation } from '../../src/policy/decision.js';
import { audit, type AuditOptions, auditSteps, type Finding } from '../../src/report/audit.js';
import { buildReports, OMITTED_ANNOTATION, REPORT_API_VERSION, RULES_DOCS } from '../../src/report/openreports.js';
import {
  cloudProfile,
  config,
  decide,
  hoursFromNow,
  image,
  namespacedProfile,
  NOW,
  shoot,
} from '../helpers/objects.js';

const opts = (over: Partial<AuditOptions> = {}): AuditOptions => ({
  now: NOW,
  config: config({ defaulting: { lifecycle: { enabled: false } } }),
  settings: { forcedWithinDays: 7, horizonDays: 90 },
  ...over,
});
const expiring = (version: string, hours: number, classification = 'deprecated'): ExpirableVersion => ({
  version,
  classification,
  expirationDate: hoursFromNow(hours),
});
const policies = (fs: readonly Finding[]) => fs.map((f) => `${f.subject.name}:${f.policy}`).sort();

// A profile stored before the webhook: its highest version expires (LATEST-NO-EXPIRY).
const breaking = cloudProfile({ name: 'breaking', kubernetes: [expiring('1.31.0', 24 * 60), '1.30.0'] });
const fixed = cloudProfile({ name: 'breaking', kubernetes: ['1.31.0', '1.30.0'] });
// 1.30.5 expires in three days; 1.31.1 is supported: a Shoot on 1.30.5 is forced onto it.
const maintained = cloudProfile({
  name: 'maintained',
  kubernetes: [{ version: '1.31.1', classification: 'supported' }, expiring('1.30.5', 72)],
});

t.test('a stored profile that breaks a rule is in the cluster report, with the webhook message', async (t) => {
  const state = staticState([breaking]);
  const found = audit(state, opts());
  t.same(policies(found), ['breaking:LATEST-NO-EXPIRY']);
  const denied = decide({ operation: 'CREATE', object: breaking });
  t.same(
    found.map((f) => f.message),
    denied.violations.filter((v) => v.rule === 'LATEST-NO-EXPIRY').map(formatViolation),
    'the same rule code as admission: the very line the webhook denies with',
  );
  const { cluster, namespaced } = buildReports(found, NOW);
  t.equal(cluster.apiVersion, REPORT_API_VERSION);
  t.equal(cluster.kind, 'ClusterReport');
  t.equal(cluster.metadata.namespace, undefined);
  t.same(namespaced, []);
  t.same(cluster.summary, { pass: 0, fail: 1, warn: 0, error: 0, skip: 0 });
  const r = cluster.results[0]!;
  t.match(r, {
    policy: 'LATEST-NO-EXPIRY',
    rule: 'spec.kubernetes.versions[0].expirationDate',
    result: 'fail',
    severity: 'medium',
    timestamp: { seconds: NOW / 1000, nanos: 0 },
    resources: [{ apiVersion: 'core.gardener.cloud/v1beta1', kind: 'CloudProfile', name: 'breaking' }],
    properties: { docs: `${RULES_DOCS}#latest-no-expiry` },
  });
  t.match(r.message, /^\[LATEST-NO-EXPIRY\] spec\.kubernetes\.versions\[0\]\.expirationDate: /);
});

t.test('the fixed profile is not reported, and the cluster report stays, empty', async (t) => {
  const found = audit(staticState([fixed]), opts());
  t.same(found, []);
  const { cluster } = buildReports(found, NOW);
  t.same(cluster.results, []);
  t.same(cluster.summary, { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 });
});

t.test('a rule switched off in the config is not audited either', async (t) => {
  const off = opts({ config: config({ rules: { 'LATEST-NO-EXPIRY': { enabled: false } } }) });
  t.same(audit(staticState([breaking]), off), []);
});

t.test('rules that judge a change are not run over what is stored', async (t) => {
  // Adding an expired version is PAST-EXPIRATION on a write; stored, it is only expired.
  const expired = cloudProfile({ name: 'old', kubernetes: ['1.31.0', expiring('1.30.0', -24)] });
  t.ok(decide({ operation: 'CREATE', object: expired }).violations.some((v) => v.rule === 'PAST-EXPIRATION'));
  t.same(audit(staticState([expired]), opts()), []);
});

t.test("a Shoot due for a forced update is in its namespace's report, and only there", async (t) => {
  const due = shoot({ name: 'due', namespace: 'garden-a', profile: 'maintained', version: '1.30.5', workers: [] });
  const current = shoot({
    name: 'current',
    namespace: 'garden-b',
    profile: 'maintained',
    version: '1.31.1',
    workers: [],
  });
  const state = staticState([maintained, due, current]);
  const found = audit(state, opts());
  t.same(policies(found), ['due:FORECAST']);
  const f = found[0]!;
  t.match(f, { rule: 'forced-update', result: 'warn', properties: { from: '1.30.5', to: '1.31.1' } });
  t.match(f.message, /^forced update of control plane from "1\.30\.5" to "1\.31\.1" in the maintenance window /);
  t.ok(Date.parse(f.properties.windowStart!) >= NOW + 72 * 3_600_000, 'the window is after the expiry');
  t.match(f.properties.cause, /expir/);

  const { cluster, namespaced } = buildReports(found, NOW);
  t.same(cluster.results, []);
  t.same(
    namespaced.map((r) => [r.kind, r.metadata.namespace, r.results.length]),
    [['Report', 'garden-a', 1]],
    'garden-b has no findings, so no report',
  );
  t.equal(namespaced[0]!.results[0]!.properties.docs, `${RULES_DOCS}#forecast`);

  t.same(audit(state, opts({ settings: { forcedWithinDays: 1, horizonDays: 90 } })), [], 'beyond N days: not yet');
});

t.test('Shoots on an expired version, on one no longer offered, and with a pool beyond the skew', async (t) => {
  const profile = cloudProfile({
    kubernetes: ['1.31.0', '1.28.0', '1.27.0', { version: '1.30.0', expirationDate: hoursFromNow(-24) }],
    images: [image('gardenlinux', ['1592.1.0'])],
  });
  const healthy = shoot({ name: 'healthy', version: '1.31.0' });
  const expired = shoot({ name: 'expired', version: '1.30.0' });
  const removed = shoot({ name: 'removed', version: '1.29.0' });
  const skew = shoot({
    name: 'skew',
    version: '1.31.0',
    workers: [
      { name: 'edge', image: ['gardenlinux', '1592.1.0'], kubernetes: '1.28.0' },
      { name: 'old', image: ['gardenlinux', '1592.1.0'], kubernetes: '1.27.0' },
    ],
  });
  const settings = { forcedWithinDays: 0, horizonDays: 0 };
  const found = audit(staticState([profile, healthy, expired, removed, skew]), opts({ settings }));
  t.same(policies(found), [
    'expired:SHOOT-VERSION-AVAILABLE',
    'removed:SHOOT-VERSION-AVAILABLE',
    'skew:SHOOT-NO-MINOR-SKIP',
  ]);
  t.match(found.find((f) => f.subject.name === 'expired')!.message, /expired in CloudProfile "profile"/);
  t.match(found.find((f) => f.subject.name === 'removed')!.message, /not in CloudProfile "profile"/);
  t.match(
    found.find((f) => f.subject.name === 'skew')!.message,
    /pool "old": .*"1\.27\.0" is more than 3 minors behind/,
  );
  t.ok(found.every((f) => f.severity === 'high' && f.subject.namespace === 'garden-dev'));
});

t.test('a NamespacedCloudProfile is judged merged with its parent, and reported in its namespace', async (t) => {
  const parent = cloudProfile({ name: 'parent', kubernetes: ['1.31.0', '1.30.0'] });
  const good = namespacedProfile({
    name: 'good',
    namespace: 'garden-a',
    parent: 'parent',
    kubernetes: [{ version: '1.30.0', expirationDate: hoursFromNow(1000) }],
  });
  // Overrides a version its parent does not have.
  const bad = namespacedProfile({
    name: 'bad',
    namespace: 'garden-b',
    parent: 'parent',
    kubernetes: [{ version: '1.29.0', expirationDate: hoursFromNow(1000) }],
  });
  // Extends the parent's latest with an expiry: the merged profile breaks LATEST-NO-EXPIRY.
  const merged = namespacedProfile({
    name: 'merged',
    namespace: 'garden-b',
    parent: 'parent',
    kubernetes: [{ version: '1.31.0', expirationDate: hoursFromNow(1000) }],
  });
  const found = audit(staticState([parent, good, bad, merged]), opts());
  t.same(policies(found), ['bad:NCP-OVERRIDES', 'merged:LATEST-NO-EXPIRY']);
  t.match(found.find((f) => f.policy === 'NCP-OVERRIDES')!.message, /does not exist in parent CloudProfile "parent"/);
  const { cluster, namespaced } = buildReports(found, NOW);
  t.same(cluster.results, []);
  t.same(
    namespaced.map((r) => [r.metadata.namespace, r.results.map((x) => x.resources[0]!.name)]),
    [['garden-b', ['bad', 'merged']]],
  );

  const orphan = namespacedProfile({ name: 'orphan', namespace: 'garden-c', parent: 'gone' });
  t.same(policies(audit(staticState([orphan]), opts())), ['orphan:NCP-OVERRIDES'], 'a missing parent is a finding');
});

t.test('objects being deleted are not audited', async (t) => {
  const deleting = cloudProfile({
    name: 'deleting',
    kubernetes: [expiring('1.31.0', 24 * 60), '1.30.0'],
    deletionTimestamp: hoursFromNow(-1),
  });
  const gone = shoot({ name: 'gone', version: '1.29.0', deletionTimestamp: hoursFromNow(-1) });
  t.same(audit(staticState([deleting, fixed, gone]), opts()), []);
});

t.test('an unsynced state is not audited: it cannot know', async (t) => {
  const state = staticState([breaking]);
  state.synced = false;
  t.throws(() => auditSteps(state, opts()).next(), /cannot audit/);
});

t.test('one step per stored object, profiles first', async (t) => {
  const objects: PolicedObject[] = [fixed, breaking, shoot({ name: 'a', profile: 'breaking' })];
  const settings = { forcedWithinDays: 0, horizonDays: 0 };
  const steps = [...auditSteps(staticState(objects.slice(1)), opts({ settings }))];
  t.equal(steps.length, 2);
  t.same(
    steps.map((s) => s.map((f) => f.policy)),
    [['LATEST-NO-EXPIRY'], []],
  );
});

t.test('the same state and instant give the same reports, whatever the order of the state', async (t) => {
  const objects: PolicedObject[] = [maintained, breaking];
  for (let i = 0; i < 12; i++) {
    const version = i % 3 === 0 ? '1.30.5' : i % 3 === 1 ? '1.29.0' : '1.31.1';
    objects.push(shoot({ name: `s${i}`, namespace: `garden-${i % 4}`, profile: 'maintained', version, workers: [] }));
  }
  const once = JSON.stringify(buildReports(audit(staticState(objects), opts()), NOW));
  const reversed = JSON.stringify(buildReports(audit(staticState(objects.slice().reverse()), opts()), NOW));
  t.equal(reversed, once);
  t.ok(once.includes('garden-3'));
});

t.test('a report keeps its most severe results up to the cap, and its summary counts them all', async (t) => {
  const profile = cloudProfile({ kubernetes: ['1.31.0', { version: '1.30.0', expirationDate: hoursFromNow(-24) }] });
  const objects: PolicedObject[] = [profile, maintained];
  for (let i = 0; i < 4; i++) objects.push(shoot({ name: `expired-${i}`, version: '1.30.0', workers: [] }));
  objects.push(shoot({ name: 'due', profile: 'maintained', version: '1.30.5', workers: [] }));
  const found = audit(staticState(objects), opts());
  // Each expired Shoot: SHOOT-VERSION-AVAILABLE (high) and its forced update (medium); `due`'s forced update.
  t.equal(found.length, 9);
  const { namespaced } = buildReports(found, NOW, 2);
  const report = namespaced[0]!;
  t.same(
    report.results.map((r) => [r.severity, r.resources[0]!.name]),
    [
      ['high', 'expired-0'],
      ['high', 'expired-1'],
    ],
  );
  t.same(report.summary, { pass: 0, fail: 4, warn: 5, error: 0, skip: 0 });
  t.equal(report.metadata.annotations?.[OMITTED_ANNOTATION], '7');
  t.same(report.configuration, { limits: { maxResults: 2 } });
  t.equal(buildReports(found, NOW).namespaced[0]!.metadata.annotations, undefined, 'nothing left out, no annotation');
});

t.test('a long message is cut to the denial line length', async (t) => {
  const long: Finding = {
    policy: 'K8S-VERSIONS',
    rule: 'x',
    result: 'fail',
    severity: 'high',
    message: 'm'.repeat(5000),
    subject: { kind: 'CloudProfile', name: 'p' },
    properties: {},
  };
  const m = buildReports([long], NOW).cluster.results[0]!.message;
  t.equal(m.length, 1000);
  t.ok(m.endsWith('…'));
});
