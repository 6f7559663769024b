import { join } from 'node:path';
import t from '../helpers/parts.js';
import { CHART, NAMESPACE, RELEASE, render } from '../helpers/helm.js';
import type { Deployment, K8sObject, Rendered, Service, WebhookConfiguration } from '../helpers/helm.js';

// One render of the default values, shared by the tests that only read it.
const defaults = render();

const VALIDATING = 'ValidatingWebhookConfiguration';
const MUTATING = 'MutatingWebhookConfiguration';

/** resource → sorted operations, over every rule of a webhook configuration. */
function operationsByResource(config: WebhookConfiguration): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const wh of config.webhooks) {
    for (const rule of wh.rules) {
      for (const resource of rule.resources) out[resource] = [...(out[resource] ?? []), ...rule.operations].sort();
    }
  }
  return out;
}

function bothConfigurations(r: Rendered): WebhookConfiguration[] {
  return [r.one<WebhookConfiguration>(VALIDATING), r.one<WebhookConfiguration>(MUTATING)];
}

t.test('the validating webhook covers profiles on CREATE, UPDATE, DELETE and Shoots on CREATE, UPDATE', async (t) => {
  const r = await defaults;
  const config = r.one<WebhookConfiguration>(VALIDATING);
  t.same(operationsByResource(config), {
    cloudprofiles: ['CREATE', 'DELETE', 'UPDATE'],
    namespacedcloudprofiles: ['CREATE', 'DELETE', 'UPDATE'],
    shoots: ['CREATE', 'UPDATE'],
  });
  for (const rule of config.webhooks.flatMap((w) => w.rules)) {
    t.same(rule.apiGroups, ['core.gardener.cloud']);
    t.same(rule.apiVersions, ['v1beta1']);
  }
  t.equal(config.webhooks[0]?.clientConfig.service.path, '/validate');
});

t.test('the mutating webhook covers profiles on CREATE and UPDATE only', async (t) => {
  const config = (await defaults).one<WebhookConfiguration>(MUTATING);
  t.same(operationsByResource(config), {
    cloudprofiles: ['CREATE', 'UPDATE'],
    namespacedcloudprofiles: ['CREATE', 'UPDATE'],
  });
  t.equal(config.webhooks[0]?.clientConfig.service.path, '/mutate');
});

t.test('both configurations allow dry-run, speak v1 and fail closed by default', async (t) => {
  const r = await defaults;
  const service = r.one<Service>('Service');
  for (const config of bothConfigurations(r)) {
    t.equal(config.webhooks.length, 1);
    for (const wh of config.webhooks) {
      t.equal(
        wh.sideEffects,
        'None',
        `${config.kind}: sideEffects None, or the kube-apiserver refuses --dry-run=server`,
      );
      t.same(wh.admissionReviewVersions, ['v1']);
      t.equal(wh.matchPolicy, 'Equivalent');
      t.equal(wh.failurePolicy, 'Fail');
      t.equal(wh.timeoutSeconds, 5);
      t.same(wh.namespaceSelector, {});
      t.same(wh.objectSelector, {});
      t.same(
        wh.matchConditions?.map((c) => c.name),
        [
          'exempt-gardener-users',
          'exempt-gardener-groups',
          ...(config.kind === VALIDATING ? ['shoot-update-changes-judged-fields'] : []),
        ],
        "the chart's matchConditions (test/chart/match-conditions.part.ts evaluates them)",
      );
      t.match(wh.name, /^[a-z0-9-]+(\.[a-z0-9-]+){2,}$/, 'a fully qualified webhook name');
      t.same(wh.clientConfig.service, {
        name: service.metadata.name,
        namespace: NAMESPACE,
        path: wh.clientConfig.service.path,
        port: 443,
      });
    }
  }
});

t.test('failurePolicy, timeoutSeconds, selectors and matchConditions come from values', async (t) => {
  const r = await render({ values: [join(CHART, 'ci/production-values.yaml')], set: ['webhook.failurePolicy=Ignore'] });
  for (const config of bothConfigurations(r)) {
    const wh = config.webhooks[0]!;
    t.equal(wh.failurePolicy, 'Ignore');
    t.equal(wh.timeoutSeconds, 10);
    t.same(wh.namespaceSelector, {
      matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }],
    });
    t.same(wh.objectSelector, {
      matchExpressions: [{ key: 'version-policy.gardener.cloud/skip', operator: 'DoesNotExist' }],
    });
    t.same(
      wh.matchConditions?.at(-1),
      {
        name: 'not-the-landscape-robot',
        expression:
          "!has(request.userInfo.username) || request.userInfo.username != 'system:serviceaccount:garden:landscape-robot'",
      },
      "the operator's conditions follow the chart's",
    );
  }
});

function tlsSecretOf(r: Rendered): string {
  const volume = r.one<Deployment>('Deployment').spec.template.spec.volumes.find((v) => v.name === 'tls');
  if (!volume?.secret) throw new Error('no tls secret volume');
  return volume.secret.secretName;
}

t.test('selfManaged (the default): no caBundle and no annotation; the server publishes the caBundle', async (t) => {
  const r = await defaults;
  for (const config of bothConfigurations(r)) {
    t.notOk(config.webhooks[0]?.clientConfig.caBundle, `${config.kind}: nothing generated at render time`);
    t.notOk(config.metadata.annotations?.['cert-manager.io/inject-ca-from']);
  }
  t.notOk(r.all('Certificate').length, 'no cert-manager objects');
});

t.test('certManager: no caBundle, the CA injector annotation points at the Certificate the pod mounts', async (t) => {
  const r = await render({ values: [join(CHART, 'ci/cert-manager-values.yaml')] });
  const serving = r.one<
    K8sObject & { spec: { secretName: string; dnsNames: string[]; issuerRef: { name: string; kind: string } } }
  >('Certificate', `${RELEASE}-serving`);
  for (const config of bothConfigurations(r)) {
    t.notOk(config.webhooks[0]?.clientConfig.caBundle, `${config.kind} leaves the caBundle to cert-manager`);
    t.equal(config.metadata.annotations?.['cert-manager.io/inject-ca-from'], `${NAMESPACE}/${serving.metadata.name}`);
  }
  t.equal(serving.spec.secretName, tlsSecretOf(r));
  t.ok(serving.spec.dnsNames.includes(`${RELEASE}.${NAMESPACE}.svc`));
  const issuer = r.one('Issuer', serving.spec.issuerRef.name);
  t.equal(serving.spec.issuerRef.kind, issuer.kind, 'signed by the chart-made CA issuer');
  t.equal(r.all('Secret').length, 0, 'cert-manager writes the Secret, not Helm');
});

t.test('certManager with an existing issuer creates only the serving Certificate', async (t) => {
  const r = await render({ values: [join(CHART, 'ci/cert-manager-issuer-values.yaml')] });
  t.equal(r.all('Issuer').length, 0);
  const cert = r.one<K8sObject & { spec: { issuerRef: unknown } }>('Certificate');
  t.same(cert.spec.issuerRef, { name: 'corp-webhook-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' });
});

t.test('provided: the caBundle and Secret come from values; PEM is encoded for the API field', async (t) => {
  const pem = '-----BEGIN CERTIFICATE-----\nexample\n-----END CERTIFICATE-----\n';
  const b64 = Buffer.from(pem).toString('base64');
  for (const [label, given] of [
    ['base64', b64],
    ['PEM', pem],
  ] as const) {
    const r = await render({
      set: ['certs.mode=provided', 'certs.provided.secretName=my-serving-cert', `certs.provided.caBundle=${given}`],
    });
    for (const config of bothConfigurations(r))
      t.equal(config.webhooks[0]?.clientConfig.caBundle, b64, `${label} in, base64 out (${config.kind})`);
    t.equal(tlsSecretOf(r), 'my-serving-cert');
    t.equal(r.all('Secret').length + r.all('Certificate').length, 0, 'the chart creates no certificate of its own');
  }
});
