// Policy reports (docs/reports.md) against the real kube-apiserver: the OpenReports CRDs from their
// published Go module, the chart rendered with reports on (its RBAC is all the webhook has), and
// two `version-policy serve` replicas behind one Lease. What is asserted is what the API server
// stored. Only Gardener's controllers are absent: the test binds the project roles their project
// controller would bind, and fills the aggregated ClusterRole as the aggregation controller would.
// Run by `npm run test:e2e`; alone: `npm run test:e2e -- test/e2e/reports.e2e.ts`.
import t from 'tap';
import { Kubectl } from './lib/kubectl.js';
import { waitFor, kubeconfigYaml } from './lib/control-plane.js';
import { about, installReportCrds, keyOf, storedReport, type StoredReport } from './lib/reports.js';
import { startSuite, type Suite } from './lib/suite.js';
import { NAMESPACE, RELEASE, SERVICE_ACCOUNT, type K8sObject, type WebhookProcess } from './lib/webhook.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// The shortest interval the config allows; a short Lease, so that a takeover is quick.
const INTERVAL_S = 60;
const LEASE_S = 10;
const LEASE = 'version-policy-reports';
const chart = [
  'config.reports.enabled=true',
  `config.reports.intervalSeconds=${INTERVAL_S}`,
  `config.reports.lease.durationSeconds=${LEASE_S}`,
];
// A change reaches the reports at the next audit: within an interval, plus the audit, at any load.
const NEXT_AUDIT_MS = 5 * INTERVAL_S * 1000;

const suite: Suite = await startSuite({ chart });
t.teardown(() => suite.close());
const { admin, cp } = suite;
await installReportCrds(admin);

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const inDays = (days: number) => iso(Date.now() + days * 86_400_000);
const image = {
  name: 'gardenlinux',
  updateStrategy: 'major',
  versions: [
    { version: '1592.1.0', classification: 'supported', cri: [{ name: 'containerd' }], architectures: ['amd64'] },
  ],
};
const profile = (name: string, versions: unknown[]): K8sObject => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: { name },
  spec: {
    type: 'local',
    kubernetes: { versions },
    machineImages: [image],
    machineTypes: [{ name: 'm5.large', architecture: 'amd64' }],
    regions: [{ name: 'region-1' }],
  },
});
const shoot = (namespace: string, name: string, version: string): K8sObject => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name, namespace },
  spec: {
    cloudProfile: { kind: 'CloudProfile', name: 'e2e-maintained' },
    kubernetes: { version },
    provider: {
      type: 'local',
      workers: [{ name: 'pool', machine: { type: 'm5.large', image: { name: 'gardenlinux', version: '1592.1.0' } } }],
    },
    region: 'region-1',
  },
});
// Stored before any webhook judged it: its highest version expires (LATEST-NO-EXPIRY).
const breaking = (name: string) =>
  profile(name, [
    { version: '1.31.0', classification: 'supported', expirationDate: inDays(60) },
    { version: '1.30.0', classification: 'supported' },
  ]);
// 1.30.5 expires in three days and 1.31.1 is supported: a Shoot on 1.30.5 is forced onto 1.31.1.
const maintained = profile('e2e-maintained', [
  { version: '1.31.1', classification: 'supported' },
  { version: '1.30.5', classification: 'deprecated', expirationDate: inDays(3) },
]);

// Two replicas as the Deployment runs them: the chart's config and ServiceAccount token, the Lease in
// the release namespace (a pod would default to its own namespace; here there is no pod).
const replica = (name: string) =>
  suite.serve({ name, tls: 'files', config: { reports: { lease: { namespace: NAMESPACE } } } });
const replicas: WebhookProcess[] = [await replica('replica-a'), await replica('replica-b')];
const leader = (w: WebhookProcess) => w.sample('version_policy_reports_leader');
const writes = (w: WebhookProcess) => w.sample('version_policy_reports_writes_total');

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}
const lease = async () => (await admin.get<{ spec: LeaseSpec }>('leases', LEASE, NAMESPACE))?.spec;

/** The one replica that holds the Lease (leader metric 1), once the other says it does not. */
const holderOf = async (among: readonly WebhookProcess[]) =>
  waitFor(
    'exactly one replica holds the reports Lease',
    async () => {
      const held = [];
      for (const w of among) if ((await leader(w)) === 1) held.push(w);
      return held.length === 1 ? held[0] : undefined;
    },
    120_000,
    500,
  );

const report = (namespace?: string) => storedReport(admin, namespace);
const reportWhere = (what: string, namespace: string | undefined, ok: (r: StoredReport | undefined) => boolean) =>
  waitFor(
    what,
    async () => {
      const r = await report(namespace);
      return ok(r) ? (r ?? true) : undefined;
    },
    NEXT_AUDIT_MS,
    1000,
  );

t.test("RBAC: the webhook writes with the chart's, rendered with reports on, and has no more", async (t) => {
  const sa = `system:serviceaccount:${NAMESPACE}:${SERVICE_ACCOUNT}`;
  // Everything bound to the webhook's account is an object the chart rendered, rule for rule.
  type Binding = K8sObject & {
    roleRef: { kind: string; name: string };
    subjects?: Array<{ kind: string; name: string; namespace?: string }>;
  };
  const ofWebhook = (b: Binding) =>
    (b.subjects ?? []).some(
      (s) => s.kind === 'ServiceAccount' && s.name === SERVICE_ACCOUNT && s.namespace === NAMESPACE,
    );
  const named = (bs: Binding[]) => bs.map((b) => `${b.kind}/${b.metadata.name} -> ${b.roleRef.name}`).sort();
  const stored = (
    JSON.parse(await admin.ok(['get', 'clusterrolebindings,rolebindings', '-A', '-o', 'json'])) as { items: Binding[] }
  ).items.filter(ofWebhook);
  const rendered = (suite.rendered.objects as Binding[]).filter(
    (o) =>
      (o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding') &&
      (o.metadata.annotations as Record<string, string> | undefined)?.['helm.sh/hook'] === undefined &&
      ofWebhook(o),
  );
  t.same(named(stored), named(rendered), 'bound by exactly the bindings the chart rendered');
  t.ok(
    named(rendered).includes(`ClusterRoleBinding/${RELEASE}-reports -> ${RELEASE}-reports`),
    'the chart rendered the report RBAC',
  );
  const mine = stored;
  for (const b of mine) {
    const kind = b.roleRef.kind;
    const role = (await admin.get<{ rules: unknown }>(
      kind === 'ClusterRole' ? 'clusterroles' : 'roles',
      b.roleRef.name,
      kind === 'Role' ? b.metadata.namespace : undefined,
    ))!;
    const chartRole = suite.rendered.objects.find((o) => o.kind === kind && o.metadata.name === b.roleRef.name);
    t.same(role.rules, chartRole?.rules, `${kind} ${b.roleRef.name} is the chart's`);
  }
  // The verbs the writer uses, and the neighbouring ones it does not get.
  const can = async (args: string[]) => (await admin.run(['auth', 'can-i', ...args, `--as=${sa}`])).stdout.trim();
  for (const [args, want] of [
    [['list', 'reports.openreports.io', '-A'], 'yes'],
    [['create', 'reports.openreports.io', '-n', 'garden-alpha'], 'yes'],
    [['update', 'reports.openreports.io/version-policy', '-n', 'garden-alpha'], 'yes'],
    [['delete', 'reports.openreports.io/version-policy', '-n', 'garden-alpha'], 'yes'],
    [['get', 'clusterreports.openreports.io/version-policy'], 'yes'],
    [['update', 'clusterreports.openreports.io/version-policy'], 'yes'],
    [['get', 'leases.coordination.k8s.io/' + LEASE, '-n', NAMESPACE], 'yes'],
    [['update', 'leases.coordination.k8s.io/' + LEASE, '-n', NAMESPACE], 'yes'],
    [['update', 'reports.openreports.io/other', '-n', 'garden-alpha'], 'no'],
    [['delete', 'reports.openreports.io/other', '-n', 'garden-alpha'], 'no'],
    [['delete', 'clusterreports.openreports.io/version-policy'], 'no'],
    [['update', 'clusterreports.openreports.io/other'], 'no'],
    [['update', 'leases.coordination.k8s.io/other', '-n', NAMESPACE], 'no'],
    [['update', 'leases.coordination.k8s.io/' + LEASE, '-n', 'kube-system'], 'no'],
    [['patch', 'reports.openreports.io/version-policy', '-n', 'garden-alpha'], 'no'],
  ] as const)
    t.equal(await can([...args]), want, `${want === 'yes' ? '' : 'no '}${args.join(' ')}`);
});

t.test('a stored profile that breaks a rule is in the ClusterReport, and leaves it when fixed', async (t) => {
  await suite.seed([breaking('e2e-breaking')]);
  const found = await reportWhere(
    'the ClusterReport names e2e-breaking',
    undefined,
    (r) => about(r, 'e2e-breaking').length > 0,
  );
  const results = about(found as StoredReport, 'e2e-breaking');
  t.same(results.map(keyOf), ['LATEST-NO-EXPIRY spec.kubernetes.versions[0].expirationDate CloudProfile/e2e-breaking']);
  const r = results[0]!;
  t.match(r, { result: 'fail', severity: 'medium', source: 'version-policy' });
  t.match(r.message, /^\[LATEST-NO-EXPIRY\] spec\.kubernetes\.versions\[0\]\.expirationDate: /);
  t.match(r.properties?.docs, /docs\/rules\.md#latest-no-expiry$/);
  t.ok(r.timestamp.seconds > 0, 'a timestamp');
  t.equal((found as StoredReport).metadata.labels?.['app.kubernetes.io/managed-by'], 'version-policy');

  const fixed = profile('e2e-breaking', [
    { version: '1.31.0', classification: 'supported' },
    { version: '1.30.0', classification: 'supported' },
  ]);
  await suite.seed([fixed]);
  const after = await reportWhere(
    'e2e-breaking leaves the ClusterReport',
    undefined,
    (r) => r !== undefined && about(r, 'e2e-breaking').length === 0,
  );
  t.ok(after, 'the ClusterReport stays, without the fixed profile');
});

t.test("a Shoot whose forced update is due is in its project namespace's Report, and only there", async (t) => {
  await suite.seed([
    maintained,
    shoot('garden-alpha', 'due', '1.30.5'),
    shoot('garden-beta', 'due-too', '1.30.5'),
    shoot('garden-gamma', 'current', '1.31.1'),
  ]);
  const alpha = (await reportWhere(
    "garden-alpha's Report names the Shoot due",
    'garden-alpha',
    (r) => about(r, 'due').length > 0,
  )) as StoredReport;
  t.same(alpha.results!.map(keyOf), ['FORECAST forced-update Shoot/due'], 'its own Shoot and nothing else');
  t.match(alpha.results![0], {
    result: 'warn',
    severity: 'medium',
    resources: [{ kind: 'Shoot', namespace: 'garden-alpha', name: 'due' }],
    properties: { from: '1.30.5', to: '1.31.1' },
  });
  const beta = (await reportWhere(
    "garden-beta's Report names due-too",
    'garden-beta',
    (r) => about(r, 'due-too').length > 0,
  )) as StoredReport;
  t.same(beta.results!.map(keyOf), ['FORECAST forced-update Shoot/due-too']);
  t.equal(await report('garden-gamma'), undefined, 'a namespace without findings has no Report');
  t.same(about(await report(), 'due'), [], 'a Shoot is not in the ClusterReport');
});

t.test("a ServiceAccount of one project reads its project's Report and not another's", async (t) => {
  // What Gardener sets up: the aggregated project-member ClusterRole (here filled as the aggregation
  // controller would, from the ClusterRoles labelled for it, the chart's among them) and, in each
  // project namespace, the RoleBinding of its members (here a robot ServiceAccount per project).
  const aggregated = suite.rendered.objects.filter(
    (o) =>
      (o.metadata.labels as Record<string, string> | undefined)?.['rbac.gardener.cloud/aggregate-to-project-member'] ===
      'true',
  );
  t.same(
    aggregated.map((o) => o.metadata.name),
    [`${RELEASE}-reports-reader`],
    'the chart labels its reader role',
  );
  const projectMember = 'gardener.cloud:system:project-member';
  const objects: unknown[] = [
    ...aggregated,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: projectMember },
      rules: aggregated.flatMap((o) => o.rules as unknown[]),
    },
  ];
  for (const ns of ['garden-alpha', 'garden-beta'])
    objects.push(
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: ns } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: projectMember, namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: projectMember },
        subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: ns }],
      },
    );
  const applied = await admin.apply(objects);
  t.equal(applied.code, 0, applied.stderr);

  // Real requests with the robot's own token, not the admin's.
  const token = (await admin.ok(['create', 'token', 'robot', '-n', 'garden-alpha', '--duration=1h'])).trim();
  const kc = join(cp.dir, 'robot-alpha.kubeconfig');
  await writeFile(kc, kubeconfigYaml(cp.server, cp.caPem, token, 'robot'), { mode: 0o600 });
  const robot = new Kubectl(kc);
  const own = await robot.run(['get', 'reports.openreports.io', 'version-policy', '-n', 'garden-alpha', '-o', 'json']);
  t.equal(own.code, 0, own.stderr);
  t.same((JSON.parse(own.stdout || '{}') as StoredReport).results?.map(keyOf), ['FORECAST forced-update Shoot/due']);
  const listed = await robot.run(['get', 'reports.openreports.io', '-n', 'garden-alpha', '-o', 'name']);
  t.equal(listed.stdout.trim(), 'report.openreports.io/version-policy', 'it lists its own');
  for (const args of [
    ['get', 'reports.openreports.io', 'version-policy', '-n', 'garden-beta'],
    ['get', 'reports.openreports.io', '-n', 'garden-beta'],
    ['get', 'reports.openreports.io', '--all-namespaces'],
  ]) {
    const res = await robot.run(args);
    t.not(res.code, 0, `${args.join(' ')} is refused`);
    t.match(res.stderr, /Forbidden|forbidden/, args.join(' '));
    t.notMatch(res.stdout, /due-too/, 'nothing of the other project is printed');
  }
});

t.test('two replicas: only the Lease holder writes; killed, the other takes over, losing nothing', async (t) => {
  const holder = await holderOf(replicas);
  const standby = replicas.find((w) => w !== holder)!;
  t.ok((await writes(holder)) > 0, 'the holder wrote the reports of the tests before');
  t.equal(await writes(standby), 0, 'the standby wrote nothing');
  t.equal(await leader(standby), 0);
  t.equal(await standby.sample('version_policy_reports_failures_total'), 0);
  t.equal(await holder.sample('version_policy_reports_failures_total'), 0, 'no audit or write failed');

  // What is stored before the kill, once the holder has nothing left to write.
  const snapshot = async () => ({
    cluster: await report(),
    alpha: await report('garden-alpha'),
    beta: await report('garden-beta'),
  });
  const before = await snapshot();
  for (const r of Object.values(before)) t.ok(r, 'each report exists');
  const held = await lease();
  t.ok(held?.holderIdentity, 'the Lease names a holder');
  t.equal(held?.leaseDurationSeconds, LEASE_S);

  holder.proc.child.kill('SIGKILL');
  t.equal(await holder.proc.exited, 'SIGKILL');
  const last = (await lease())!;
  const taken = await waitFor(
    'the standby takes the Lease',
    async () => {
      const now = await lease();
      return now?.holderIdentity && now.holderIdentity !== last.holderIdentity ? now : undefined;
    },
    120_000,
    250,
  );
  const gapMs = Date.parse(taken.acquireTime!) - Date.parse(last.renewTime!);
  const renewDeadlineMs = (LEASE_S * 1000 * 2) / 3;
  t.ok(gapMs >= LEASE_S * 1000, `not before the Lease ran out (${gapMs} ms after the last renewal)`);
  t.ok(gapMs <= LEASE_S * 1000 + renewDeadlineMs, `within its duration plus a renew deadline (${gapMs} ms)`);
  t.equal(taken.leaseTransitions, (last.leaseTransitions ?? 0) + 1);
  await waitFor('the standby says it holds the Lease', async () => (await leader(standby)) === 1, 60_000, 250);

  // Its first audit finds the same results: nothing rewritten, lost or doubled.
  await waitFor(
    'the new holder has written once',
    async () => (await standby.sample('version_policy_reports_last_success_timestamp_seconds')) > 0,
    NEXT_AUDIT_MS,
    500,
  );
  const after = await snapshot();
  for (const k of ['cluster', 'alpha', 'beta'] as const) {
    t.same(after[k]?.results, before[k]?.results, `${k}: the same results, timestamps kept`);
    t.equal(after[k]?.metadata.resourceVersion, before[k]?.metadata.resourceVersion, `${k}: not rewritten`);
  }
  t.equal(await writes(standby), 0, 'an unchanged landscape costs no write');

  // A finding made after the takeover is written by the new holder, once.
  await suite.seed([breaking('e2e-after-takeover')]);
  const next = (await reportWhere(
    'the new holder reports e2e-after-takeover',
    undefined,
    (r) => about(r, 'e2e-after-takeover').length > 0,
  )) as StoredReport;
  const keys = next.results!.map(keyOf);
  t.same(about(next, 'e2e-after-takeover').map(keyOf), [
    'LATEST-NO-EXPIRY spec.kubernetes.versions[0].expirationDate CloudProfile/e2e-after-takeover',
  ]);
  t.equal(new Set(keys).size, keys.length, 'no result twice');
  t.same(
    keys.filter((k) => !k.endsWith('/e2e-after-takeover')),
    before.cluster!.results!.map(keyOf),
    'and every result from before',
  );
  t.ok((await writes(standby)) >= 1, 'written by the new holder');
  t.equal(await standby.sample('version_policy_reports_failures_total'), 0);
});

t.test('a holder that cannot renew (SIGSTOP) is replaced, and on waking writes nothing', async (t) => {
  // The holder now is the replica that took over above; a third joins as the standby.
  const alive = [...replicas.filter((w) => w.proc.child.exitCode === null && w.proc.child.signalCode === null)];
  alive.push(await replica('replica-c'));
  const holder = await holderOf(alive);
  const standby = alive.find((w) => w !== holder)!;
  const wrote = await writes(holder);
  const last = (await lease())!;

  holder.proc.child.kill('SIGSTOP');
  try {
    const taken = await waitFor(
      'the third replica takes the Lease from the paused one',
      async () => {
        const now = await lease();
        return now?.holderIdentity && now.holderIdentity !== last.holderIdentity ? now : undefined;
      },
      120_000,
      250,
    );
    t.ok(Date.parse(taken.acquireTime!) - Date.parse(last.renewTime!) >= LEASE_S * 1000, 'not before it ran out');
    // A finding made while the old holder sleeps: only the new one may write it.
    await suite.seed([breaking('e2e-while-paused')]);
  } finally {
    holder.proc.child.kill('SIGCONT');
  }
  await waitFor('the woken replica sees it lost the Lease', async () => (await leader(holder)) === 0, 60_000, 250);
  const next = (await reportWhere(
    'the new holder reports e2e-while-paused',
    undefined,
    (r) => about(r, 'e2e-while-paused').length > 0,
  )) as StoredReport;
  t.same(about(next, 'e2e-while-paused').map(keyOf), [
    'LATEST-NO-EXPIRY spec.kubernetes.versions[0].expirationDate CloudProfile/e2e-while-paused',
  ]);
  t.ok((await writes(standby)) >= 1, 'written by the new holder');
  t.equal(await writes(holder), wrote, 'the woken replica wrote nothing');
  t.equal(await leader(standby), 1);
  t.ok((await standby.sample('version_policy_reports_leadership_changes_total', { to: 'leader' })) >= 1);
  t.ok((await holder.sample('version_policy_reports_leadership_changes_total', { to: 'standby' })) >= 1);
});
