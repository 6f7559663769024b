// Chart.yaml's facts, the optional HPA (and the PodDisruptionBudget beside it) and the
// PrometheusRule, rendered by the real helm binary.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from '../helpers/parts.js';
import { parse as parseYaml } from 'yaml';
import { CHART, KUBE_VERSION, render, renderError, type Deployment, type K8sObject } from '../helpers/helm.js';

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}

t.test('Chart.yaml: kubeVersion for matchConditions, and this project as home', async (t) => {
  const chart = parseYaml(await readFile(join(CHART, 'Chart.yaml'), 'utf8')) as {
    kubeVersion: string;
    home: string;
    sources: string[];
  };
  t.equal(chart.kubeVersion, '>=1.28.0-0', 'matchConditions are beta and on by default from 1.28');
  t.notMatch(chart.home, /gardener\/gardener/, 'not Gardener itself');
  const values = parseYaml(await readFile(join(CHART, 'values.yaml'), 'utf8')) as { image: { repository: string } };
  const owner = values.image.repository.split('/')[1];
  t.match(chart.home, new RegExp(`/${owner}/`), 'the same owner as the image repository');
  t.same(chart.sources, [chart.home]);
  t.equal(KUBE_VERSION, '1.28.0', 'the tests render at the floor');
  t.match(
    await renderError({ kubeVersion: '1.27.9' }),
    /chart requires kubeVersion: >=1\.28\.0-0 which is incompatible with Kubernetes v1\.27\.9/,
  );
  t.ok(
    (await render({ kubeVersion: 'v1.30.4-gke.1000' })).objects.length > 0,
    'a provider build of a supported version renders',
  );
});

t.test('autoscaling: an HPA on CPU, the Deployment leaves replicas to it, the PDB still lets one go', async (t) => {
  const off = await render();
  t.equal(off.all('HorizontalPodAutoscaler').length, 0);
  t.equal(off.one<Deployment>('Deployment').spec.replicas, 3);
  const on = await render({
    set: ['autoscaling.enabled=true', 'autoscaling.minReplicas=2', 'autoscaling.maxReplicas=8'],
  });
  const hpa = on.one<
    K8sObject & {
      spec: {
        scaleTargetRef: { kind: string; name: string };
        minReplicas: number;
        maxReplicas: number;
        metrics: unknown[];
      };
    }
  >('HorizontalPodAutoscaler');
  t.equal(hpa.apiVersion, 'autoscaling/v2');
  t.same(hpa.spec.scaleTargetRef, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: on.one('Deployment').metadata.name,
  });
  t.same([hpa.spec.minReplicas, hpa.spec.maxReplicas], [2, 8]);
  t.same(hpa.spec.metrics, [
    { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
  ]);
  t.notOk(on.one<Deployment>('Deployment').spec.replicas, 'no replicas field for helm upgrade to reset');
  const pdb = on.one<K8sObject & { spec: { maxUnavailable: number } }>('PodDisruptionBudget');
  t.ok(hpa.spec.minReplicas - pdb.spec.maxUnavailable >= 1, 'a drain at minReplicas still leaves a replica answering');
  t.match(
    await renderError({ set: ['autoscaling.enabled=true', 'autoscaling.minReplicas=1'] }),
    /at '\/autoscaling\/minReplicas'/,
    'one replica is refused',
  );
  t.match(
    await renderError({ set: ['autoscaling.enabled=true', 'autoscaling.minReplicas=5', 'autoscaling.maxReplicas=4'] }),
    /autoscaling\.maxReplicas \(4\) must be at least autoscaling\.minReplicas \(5\)/,
  );
});

t.test('prometheusRule: errors, caller failures, latency against the timeout, cache not synced or stale', async (t) => {
  t.equal((await render()).all('PrometheusRule').length, 0, 'off by default');
  const r = await render({
    set: [
      'prometheusRule.enabled=true',
      'serviceMonitor.enabled=true',
      'prometheusRule.labels.release=prometheus',
      'webhook.timeoutSeconds=10',
    ],
  });
  const rule = r.one<K8sObject & { spec: { groups: { name: string; rules: Rule[] }[] } }>('PrometheusRule');
  t.equal(rule.metadata.labels?.release, 'prometheus');
  const rules = Object.fromEntries(rule.spec.groups.flatMap((g) => g.rules).map((x) => [x.alert, x]));
  t.same(Object.keys(rules).sort(), [
    'VersionPolicyCACertificateExpiresSoon',
    'VersionPolicyCertificateExpiresSoon',
    'VersionPolicyCertificateExpiresVerySoon',
    'VersionPolicyClusterStateNotSynced',
    'VersionPolicyClusterStateStale',
    'VersionPolicyDown',
    'VersionPolicyForcedUpdateWithin7Days',
    'VersionPolicyForcedUpdatesWithin30Days',
    'VersionPolicyForecastStale',
    'VersionPolicyMaintenanceWillFail',
    'VersionPolicyWebhookCallsFailing',
    'VersionPolicyWebhookErrors',
    'VersionPolicyWebhookSlow',
  ]);
  const sel = 'namespace="gardener-version-policy",service="version-policy"';
  t.match(rules.VersionPolicyWebhookErrors!.expr, `version_policy_admission_requests_total{${sel},code=~"5.."}`);
  t.match(
    rules.VersionPolicyWebhookCallsFailing!.expr,
    /apiserver_admission_webhook_rejection_count\{name=~"\(validate\|mutate\)\\\\\.version-policy\\\\\.gardener\\\\\.cloud",type="calling_webhook_error"\}/,
  );
  t.match(
    rules.VersionPolicyWebhookSlow!.expr,
    /histogram_quantile\(0\.99, .*version_policy_admission_duration_seconds_bucket.*\) > 5$/,
    'p99 over half of timeoutSeconds (10 s)',
  );
  t.match(rules.VersionPolicyClusterStateNotSynced!.expr, `version_policy_cluster_informer_synced{${sel}}) == 0`);
  t.match(rules.VersionPolicyClusterStateStale!.expr, `version_policy_cluster_state_age_seconds{${sel}}) > 300`);
  // The forecast's: one rule per gauge, the max over replicas (each computes the same forecast).
  t.match(
    rules.VersionPolicyForcedUpdateWithin7Days!.expr,
    `max by (profile, image, version) (version_policy_forecast_forced_update_shoots{${sel},within="7d"}) > 0`,
  );
  t.match(
    rules.VersionPolicyForcedUpdatesWithin30Days!.expr,
    `version_policy_forecast_forced_update_shoots{${sel},within="30d"}`,
  );
  t.match(rules.VersionPolicyMaintenanceWillFail!.expr, `version_policy_forecast_failure_shoots{${sel}}) > 0`);
  t.match(rules.VersionPolicyForecastStale!.expr, `version_policy_forecast_age_seconds{${sel}}) > 1800`);
  t.match(
    rules.VersionPolicyForcedUpdateWithin7Days!.annotations.summary,
    '{{ if $labels.image }}image {{ $labels.image }}{{ else }}Kubernetes{{ end }} {{ $labels.version }}',
    'names the version for Prometheus to fill in',
  );
  for (const x of Object.values(rules)) {
    // info: a forced update a month away is a note, not a page.
    t.ok(['critical', 'warning', 'info'].includes(x.labels.severity), `${x.alert} has a severity`);
    t.ok(x.annotations.summary && x.annotations.description, `${x.alert} says what it means`);
  }
  const custom = await render({ set: ['prometheusRule.enabled=true', 'prometheusRule.selector=job="vp"'] });
  const expr = custom
    .one<K8sObject & { spec: { groups: { rules: Rule[] }[] } }>('PrometheusRule')
    .spec.groups[0]!.rules.find((x) => x.alert === 'VersionPolicyWebhookErrors')!.expr;
  t.match(expr, '{job="vp",code=~"5.."}', 'the selector can be replaced for other scrape setups');
  t.match(
    await renderError({ set: ['prometheusRule.enabled=true'] }),
    /prometheusRule\.enabled needs the webhook's metrics in Prometheus: set serviceMonitor\.enabled=true, or prometheusRule\.selector/,
    'alerts over metrics nobody scrapes are refused: VersionPolicyDown would fire forever',
  );
  t.equal(rule.spec.groups.length, 1, 'one group: the certificate alerts sit beside the others');
});
