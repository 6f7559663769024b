// The chart's selfManaged certificate mode, rendered with the real helm binary: nothing is generated
// at render time, RBAC names its objects, the server's config names the rendered objects, the
// removed selfSigned mode fails with what to do instead, and the expiry alerts render.
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from '../helpers/parts.js';
import { parse as parseYaml } from 'yaml';
import { resolveConfig } from '../../src/config.js';
import { createMetrics } from '../../src/server/metrics.js';
import { selfManagedOptions } from '../../src/server/tls/self-managed-options.js';
import { CHART, KUBE_VERSION, NAMESPACE, RELEASE, helm, render, renderError } from '../helpers/helm.js';
import type {
  DataObject,
  Deployment,
  K8sObject,
  PolicyRule,
  Rendered,
  Service,
  WebhookConfiguration,
} from '../helpers/helm.js';

const SELF_MANAGED_EXAMPLE = join(CHART, 'ci/self-managed-values.yaml');

interface Role extends K8sObject {
  rules: PolicyRule[];
}
interface Binding extends K8sObject {
  roleRef: { apiGroup: string; kind: string; name: string };
  subjects: { kind: string; name: string; namespace: string }[];
}

function configOf(r: Rendered) {
  return resolveConfig(parseYaml(r.one<DataObject>('ConfigMap').data['config.yaml']!), 'rendered config.yaml');
}

t.test('two helm template renders are byte-identical: no certificate material is made at render time', async (t) => {
  for (const values of [[], [SELF_MANAGED_EXAMPLE]]) {
    const args = [
      'template',
      RELEASE,
      CHART,
      '--namespace',
      NAMESPACE,
      '--kube-version',
      KUBE_VERSION,
      ...values.flatMap((v) => ['-f', v]),
    ];
    const [a, b] = await Promise.all([helm(args), helm(args)]);
    t.equal(a.code, 0, a.stderr);
    t.equal(a.stdout, b.stdout, `identical output (${values.length ? 'ci/self-managed-values.yaml' : 'defaults'})`);
    t.notMatch(a.stdout, /BEGIN (CERTIFICATE|.*PRIVATE KEY)/, 'no PEM in the output');
    t.notMatch(a.stdout, /caBundle:/, 'no caBundle field: the server publishes it');
  }
  const r = await render();
  const secret = r.one<K8sObject & { data?: unknown; stringData?: unknown; type: string }>('Secret');
  t.equal(secret.metadata.name, `${RELEASE}-certs`);
  t.notOk(
    secret.data ?? secret.stringData,
    'the Secret is rendered without data, so an upgrade never overwrites what the server wrote',
  );
  t.equal(secret.type, 'Opaque');
});

t.test('the server config names exactly the rendered Secret, Service and webhook configurations', async (t) => {
  for (const values of [[], [SELF_MANAGED_EXAMPLE]]) {
    const r = await render({ values });
    const sm = configOf(r).server.tls.selfManaged;
    t.equal(sm.enabled, true);
    t.equal(sm.namespace, NAMESPACE);
    t.equal(sm.secretName, r.one('Secret').metadata.name);
    t.equal(sm.serviceName, r.one<Service>('Service').metadata.name);
    t.equal(
      sm.validatingWebhookConfiguration,
      r.one<WebhookConfiguration>('ValidatingWebhookConfiguration').metadata.name,
    );
    t.equal(sm.mutatingWebhookConfiguration, r.one<WebhookConfiguration>('MutatingWebhookConfiguration').metadata.name);
    const opts = selfManagedOptions(sm, configOf(r).server.certReloadIntervalSeconds);
    t.ok(
      opts.dnsNames.includes(`${RELEASE}.${NAMESPACE}.svc`),
      'the serving certificate covers the name kube-apiserver dials, and the durations agree with each other',
    );
  }
  const r = await render({ values: [SELF_MANAGED_EXAMPLE] });
  t.equal(configOf(r).server.tls.selfManaged.servingValidity, '720h', 'certs.selfManaged reaches the server');
});

t.test('RBAC: get/update of the one Secret, get/patch of the two webhook configurations, nothing more', async (t) => {
  const r = await render();
  const sa = r.one('ServiceAccount').metadata.name;
  const secret = r.one('Secret').metadata.name;
  const role = r.one<Role>('Role');
  t.same(role.rules, [{ apiGroups: [''], resources: ['secrets'], resourceNames: [secret], verbs: ['get', 'update'] }]);
  t.equal(role.metadata.namespace, NAMESPACE);
  const cabundle = r.one<Role>('ClusterRole', `${RELEASE}-cabundle`);
  const configurations = [
    r.one('ValidatingWebhookConfiguration').metadata.name,
    r.one('MutatingWebhookConfiguration').metadata.name,
  ];
  t.same(cabundle.rules, [
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'],
      resourceNames: [...new Set(configurations)],
      verbs: ['get', 'patch'],
    },
  ]);
  for (const [kind, roleKind, name] of [
    ['RoleBinding', 'Role', role.metadata.name],
    ['ClusterRoleBinding', 'ClusterRole', cabundle.metadata.name],
  ] as const) {
    const binding = r.all<Binding>(kind).find((b) => b.roleRef.name === name)!;
    t.same(
      binding.roleRef,
      { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name },
      `${kind} refers to ${name}`,
    );
    t.same(binding.subjects, [{ kind: 'ServiceAccount', name: sa, namespace: NAMESPACE }]);
  }
  const anyRule = [...r.all<Role>('Role'), ...r.all<Role>('ClusterRole')].flatMap((x) => x.rules);
  const secretRules = anyRule.filter((rule) => rule.resources.includes('secrets') || rule.resources.includes('*'));
  t.ok(
    secretRules.every((rule) => rule.resourceNames?.length),
    'every rule on Secrets names them',
  );
  t.notOk(
    anyRule.some(
      (rule) =>
        rule.verbs.some((v) => ['create', 'delete', 'deletecollection', '*'].includes(v)) &&
        rule.apiGroups.includes('admissionregistration.k8s.io'),
    ),
    'no create or delete of webhook configurations',
  );
});

t.test('the pod mounts no certificate: the server reads its Secret through the API', async (t) => {
  const pod = (await render()).one<Deployment>('Deployment').spec.template.spec;
  t.notOk(
    pod.volumes.some((v) => v.secret),
    'no Secret volume',
  );
  t.notOk(pod.containers[0]!.volumeMounts.some((m) => m.name === 'tls'));
});

t.test('the other modes render none of the self-managed objects', async (t) => {
  for (const file of ['ci/cert-manager-values.yaml', 'ci/provided-values.yaml']) {
    const r = await render({ values: [join(CHART, file)] });
    t.equal(r.all('Role').length, 0, `${file}: no Role`);
    t.notOk(
      r.all('ClusterRole').some((c) => c.metadata.name.endsWith('-cabundle')),
      `${file}: no caBundle ClusterRole`,
    );
    t.notOk(
      r.all('Secret').some((s) => s.metadata.name.endsWith('-certs')),
      `${file}: no certificate Secret`,
    );
    t.notOk(configOf(r).server.tls.selfManaged.enabled);
  }
});

t.test('a values file that still says selfSigned fails, naming what to use instead', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'vp-old-values-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const old = join(dir, 'old-values.yaml');
  await writeFile(old, 'certs:\n  mode: selfSigned\n  selfSigned:\n    validityDays: 825\n');
  for (const opts of [
    { values: [old] },
    { set: ['certs.mode=selfSigned'] },
    { set: ['certs.selfSigned.validityDays=825'] },
  ]) {
    const stderr = await renderError(opts);
    t.match(stderr, /certs\.mode=selfSigned and certs\.selfSigned were removed/, JSON.stringify(opts));
    t.match(stderr, /Use certs\.mode=selfManaged/);
    t.match(stderr, /docs\/operations\/certificates\.md/);
  }
});

t.test('values.schema.json checks certs.selfManaged and certs.alerts', async (t) => {
  t.match(await renderError({ set: ['certs.selfManaged.overlap=1d'] }), /at '\/certs\/selfManaged\/overlap'/);
  t.match(
    await renderError({ set: ['certs.selfManaged.validity=90d'] }),
    /additional properties 'validity' not allowed/,
  );
  t.match(
    await renderError({ set: ['certs.alerts.servingWarningDays=0'] }),
    /at '\/certs\/alerts\/servingWarningDays'/,
  );
});

/** Renders `template` added to a copy of the chart: how a named template is exercised on its own. */
async function renderWith(t: { teardown(fn: () => unknown): void }, template: string, set: string[] = []) {
  const dir = await mkdtemp(join(tmpdir(), 'vp-chart-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const chart = join(dir, 'version-policy');
  await cp(CHART, chart, { recursive: true });
  await writeFile(join(chart, 'templates/zz-test.yaml'), template);
  return helm([
    'template',
    RELEASE,
    chart,
    '--namespace',
    NAMESPACE,
    '--kube-version',
    KUBE_VERSION,
    ...set.flatMap((s) => ['--set', s]),
    '--show-only',
    'templates/zz-test.yaml',
  ]);
}

t.test('the live caBundle is read from the entry of the same name, and is empty when there is none', async (t) => {
  // `lookup` answers nothing under helm template (there is no cluster), so the helper that reads its
  // answer is given a configuration as the API returns it.
  const live = JSON.stringify({
    kind: 'ValidatingWebhookConfiguration',
    webhooks: [
      { name: 'other.example.com', clientConfig: { caBundle: 'T1RIRVI=' } },
      { name: 'validate.version-policy.gardener.cloud', clientConfig: { caBundle: 'T1VSUw==' } },
      { name: 'no-bundle.example.com', clientConfig: {} },
    ],
  });
  const res = await renderWith(
    t,
    [
      `{{- $live := \`${live}\` | fromJson }}`,
      'ours: {{ include "version-policy.caBundleOf" (dict "object" $live "webhook" "validate.version-policy.gardener.cloud") | quote }}',
      'withoutBundle: {{ include "version-policy.caBundleOf" (dict "object" $live "webhook" "no-bundle.example.com") | quote }}',
      'absentEntry: {{ include "version-policy.caBundleOf" (dict "object" $live "webhook" "mutate.version-policy.gardener.cloud") | quote }}',
      'absentObject: {{ include "version-policy.caBundleOf" (dict "object" dict "webhook" "validate.version-policy.gardener.cloud") | quote }}',
      'viaLookup: {{ include "version-policy.liveCABundle" (dict "root" $ "kind" "ValidatingWebhookConfiguration" "webhook" "validate.version-policy.gardener.cloud") | quote }}',
      '',
    ].join('\n'),
  );
  t.equal(res.code, 0, res.stderr);
  t.same(parseYaml(res.stdout.replace(/^---\n# Source.*\n/, '')), {
    ours: 'T1VSUw==',
    withoutBundle: '',
    absentEntry: '',
    absentObject: '',
    viaLookup: '',
  });
});

t.test(
  "the certificate-expiry alerts render in the chart's PrometheusRule, on the metric the server exports",
  async (t) => {
    type Alert = { alert: string; expr: string; labels: { severity: string } };
    const r = await render({
      set: ['prometheusRule.enabled=true', 'serviceMonitor.enabled=true', 'certs.alerts.servingWarningDays=21'],
    });
    const all = r
      .one<K8sObject & { spec: { groups: { rules: Alert[] }[] } }>('PrometheusRule')
      .spec.groups.flatMap((g) => g.rules);
    const rules = all.filter((x) => x.alert.includes('Certificate'));
    t.same(
      rules.map((r) => [r.alert, r.labels.severity]),
      [
        ['VersionPolicyCertificateExpiresSoon', 'warning'],
        ['VersionPolicyCertificateExpiresVerySoon', 'critical'],
        ['VersionPolicyCACertificateExpiresSoon', 'warning'],
      ],
    );
    t.match(
      rules[0]!.expr,
      `version_policy_certificate_expiry_timestamp_seconds{namespace="${NAMESPACE}", certificate="serving"}`,
    );
    t.match(rules[0]!.expr, /< 21 \* 86400$/, 'the threshold comes from certs.alerts');
    t.match(rules[1]!.expr, /certificate="serving"\}\) - time\(\) < 3 \* 86400$/);
    t.match(rules[2]!.expr, /certificate="ca"\}\) - time\(\) < 30 \* 86400$/);
    const exported = (await createMetrics().registry.getMetricsAsJSON()).find(
      (m) => m.name === 'version_policy_certificate_expiry_timestamp_seconds',
    );
    t.ok(exported, 'the server registers the metric the rules query');
  },
);
