// The policy reports' RBAC (docs/reports.md): none unless config.reports.enabled; then the report
// verbs the writer uses (create by kind, update and delete of the reports named version-policy)
// and the Lease it holds in the release namespace, bound to the webhook's ServiceAccount.
import t from 'tap';
import { NAMESPACE, RELEASE, render } from '../helpers/helm.js';
import type { K8sObject, PolicyRule } from '../helpers/helm.js';

interface Role extends K8sObject {
  rules: PolicyRule[];
}
interface Binding extends K8sObject {
  roleRef: { kind: string; name: string };
  subjects: { kind: string; name: string; namespace: string }[];
}

const mentionsReports = (objects: Role[]) =>
  objects.some((o) =>
    (o.rules ?? []).some((r) => r.apiGroups?.some((g) => g === 'openreports.io' || g === 'coordination.k8s.io')),
  );

t.test('reports off (the default): no report or Lease RBAC at all', async (t) => {
  const r = await render();
  t.notOk(mentionsReports([...r.all<Role>('ClusterRole'), ...r.all<Role>('Role')]));
  t.equal(r.all('ClusterRole').filter((o) => o.metadata.name === `${RELEASE}-reports`).length, 0);
});

t.test('reports on: exactly the writer verbs on reports, and its Lease', async (t) => {
  const r = await render({ set: ['config.reports.enabled=true'] });
  const role = r.one<Role>('ClusterRole', `${RELEASE}-reports`);
  t.same(role.rules, [
    { apiGroups: ['openreports.io'], resources: ['reports'], verbs: ['list', 'create'] },
    {
      apiGroups: ['openreports.io'],
      resources: ['reports'],
      resourceNames: ['version-policy'],
      verbs: ['update', 'delete'],
    },
    { apiGroups: ['openreports.io'], resources: ['clusterreports'], verbs: ['create'] },
    {
      apiGroups: ['openreports.io'],
      resources: ['clusterreports'],
      resourceNames: ['version-policy'],
      verbs: ['get', 'update'],
    },
  ]);
  const lease = r.one<Role>('Role', `${RELEASE}-reports-lease`);
  t.equal(lease.metadata.namespace, NAMESPACE);
  t.same(lease.rules, [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: ['version-policy-reports'],
      verbs: ['get', 'update'],
    },
  ]);
  for (const [kind, name] of [
    ['ClusterRoleBinding', `${RELEASE}-reports`],
    ['RoleBinding', `${RELEASE}-reports-lease`],
  ] as const) {
    const b = r.one<Binding>(kind, name);
    t.equal(b.roleRef.name, name);
    t.same(b.subjects, [{ kind: 'ServiceAccount', name: RELEASE, namespace: NAMESPACE }]);
  }
  const cfg = r.one<K8sObject & { data: Record<string, string> }>('ConfigMap', RELEASE).data['config.yaml']!;
  t.match(cfg, /reports:\n\s+enabled: true/, 'the server is told to write them');
});

t.test("reports on: project members and viewers may read their namespace's Reports, bound by Gardener", async (t) => {
  const off = await render();
  t.equal(off.all('ClusterRole').filter((o) => o.metadata.name === `${RELEASE}-reports-reader`).length, 0);
  const r = await render({ set: ['config.reports.enabled=true'] });
  const reader = r.one<Role>('ClusterRole', `${RELEASE}-reports-reader`);
  t.match(reader.metadata.labels, {
    'rbac.gardener.cloud/aggregate-to-project-member': 'true',
    'rbac.gardener.cloud/aggregate-to-project-viewer': 'true',
  });
  t.same(reader.rules, [{ apiGroups: ['openreports.io'], resources: ['reports'], verbs: ['get', 'list', 'watch'] }]);
  const bound = [...r.all<Binding>('ClusterRoleBinding'), ...r.all<Binding>('RoleBinding')].filter(
    (b) => b.roleRef.name === reader.metadata.name,
  );
  t.same(bound, [], 'the chart binds it to no one: Gardener binds it per project namespace');
});

t.test('a Lease named and placed elsewhere gets its Role there', async (t) => {
  const r = await render({
    set: [
      'config.reports.enabled=true',
      'config.reports.lease.name=reports-lock',
      'config.reports.lease.namespace=garden',
    ],
  });
  const lease = r.one<Role>('Role', `${RELEASE}-reports-lease`);
  t.equal(lease.metadata.namespace, 'garden');
  t.same(lease.rules[1]!.resourceNames, ['reports-lock']);
});

t.test('the chart refuses a reports key the server does not know', async (t) => {
  await t.rejects(
    render({ set: ['config.reports.everySeconds=60'] }),
    /additional properties 'everySeconds' not allowed/,
  );
});

t.test('with reports on, the alerts cover a missing writer, lost leadership, failures and staleness', async (t) => {
  const set = ['prometheusRule.enabled=true', 'serviceMonitor.enabled=true'];
  const alertsOf = async (extra: string[]) => {
    const r = await render({ set: [...set, ...extra] });
    const rule = r.one<K8sObject & { spec: { groups: { rules: { alert: string; expr: string }[] }[] } }>(
      'PrometheusRule',
    );
    return rule.spec.groups.flatMap((g) => g.rules).filter((x) => x.alert.startsWith('VersionPolicyReports'));
  };
  t.same(await alertsOf([]), [], 'reports off: none');
  const on = await alertsOf(['config.reports.enabled=true', 'config.reports.intervalSeconds=300']);
  t.same(
    on.map((x) => x.alert),
    [
      'VersionPolicyReportsNoWriter',
      'VersionPolicyReportsLeadershipLost',
      'VersionPolicyReportsFailing',
      'VersionPolicyReportsStale',
    ],
  );
  t.match(
    on[0]!.expr,
    'max(version_policy_reports_leader{namespace="gardener-version-policy",service="version-policy"}) < 1',
  );
  t.match(on[3]!.expr, /> 900$/, 'three intervals');
});
