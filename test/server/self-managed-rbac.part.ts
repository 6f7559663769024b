// The chart's RBAC is enough and no more: the real server, configured from the chart's own rendered
// ConfigMap, runs against the chart's rendered Secret and webhook configurations in the fake API
// server; every request it makes must be allowed by a rule the chart binds to its service account.
import t from '../helpers/parts.js';
import { parse as parseYaml } from 'yaml';
import { resolveConfig } from '../../src/config.js';
import type { RequestRecord, StoredObject } from '../helpers/fake-apiserver.js';
import { FakeApiServer } from '../helpers/fake-apiserver.js';
import { NAMESPACE, render } from '../helpers/helm.js';
import type { DataObject, K8sObject, PolicyRule } from '../helpers/helm.js';
import { ready, startReplica } from '../helpers/self-managed.js';
import { until } from '../helpers/until.js';

interface Role extends K8sObject {
  rules: PolicyRule[];
}
interface Binding extends K8sObject {
  roleRef: { kind: string; name: string };
  subjects: { kind: string; name: string; namespace?: string }[];
}

interface Access {
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
  name?: string;
}

/** What RBAC sees in a request: verb, API group, resource, namespace and name. */
function accessOf(r: RequestRecord): Access {
  const parts = r.path.split('/').filter(Boolean);
  const [group, rest] = parts[0] === 'api' ? ['', parts.slice(2)] : [parts[1]!, parts.slice(3)];
  const [namespace, resource, name] =
    rest[0] === 'namespaces' ? [rest[1], rest[2]!, rest[3]] : [undefined, rest[0]!, rest[1]];
  const verbs: Record<string, string> = {
    GET: name ? 'get' : 'list',
    PUT: 'update',
    PATCH: 'patch',
    POST: 'create',
    DELETE: 'delete',
  };
  return {
    verb: r.watch ? 'watch' : (verbs[r.method] ?? r.method),
    group,
    resource,
    ...(namespace ? { namespace } : {}),
    ...(name ? { name } : {}),
  };
}

const allows = (rule: PolicyRule, a: Access) =>
  rule.apiGroups.includes(a.group) &&
  rule.resources.includes(a.resource) &&
  rule.verbs.includes(a.verb) &&
  (!rule.resourceNames || (a.name !== undefined && rule.resourceNames.includes(a.name)));

t.test('the server makes only the requests the chart grants its service account', async (t) => {
  const r = await render();
  const sa = r.one('ServiceAccount').metadata.name;
  const boundTo = (b: Binding) =>
    b.subjects.some((s) => s.kind === 'ServiceAccount' && s.name === sa && s.namespace === NAMESPACE);
  const clusterRules = r
    .all<Binding>('ClusterRoleBinding')
    .filter(boundTo)
    .flatMap((b) => r.one<Role>('ClusterRole', b.roleRef.name).rules);
  const namespacedRules = r
    .all<Binding>('RoleBinding')
    .filter(boundTo)
    .flatMap((b) => r.one<Role>(b.roleRef.kind, b.roleRef.name).rules);

  const fake = await FakeApiServer.start();
  t.teardown(() => fake.close());
  for (const kind of ['Secret', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
    for (const o of r.all(kind)) fake.objects.put(o as unknown as StoredObject);
  }
  const raw = parseYaml(r.one<DataObject>('ConfigMap').data['config.yaml']!) as {
    server: Record<string, unknown>;
    cluster: Record<string, unknown>;
  };
  // Only what a test needs changes: loopback, a free port, the fake's kubeconfig, no informers.
  const config = resolveConfig({
    ...raw,
    server: { ...raw.server, host: '127.0.0.1', port: 0, probePort: 0 },
    cluster: { enabled: false, kubeconfig: fake.kubeconfigPath },
  });
  const replica = await startReplica(config);
  t.teardown(() => replica.close());
  await until('ready', () => ready(replica.port), 60_000, 20);

  const requests = fake.requests.map(accessOf);
  const used = [...new Set(requests.map((a) => `${a.verb} ${a.resource}`))].sort();
  t.same(used, [
    'get mutatingwebhookconfigurations',
    'get secrets',
    'get validatingwebhookconfigurations',
    'patch mutatingwebhookconfigurations',
    'patch validatingwebhookconfigurations',
    'update secrets',
  ]);
  const denied = requests.filter(
    (a) =>
      !(a.namespace ? [...namespacedRules, ...clusterRules] : clusterRules).some((rule) => allows(rule, a)) ||
      (a.namespace !== undefined && a.namespace !== NAMESPACE),
  );
  t.same(denied, [], `every one of ${requests.length} requests is allowed by the chart's RBAC`);
  const secret = fake.objects.get('Secret', NAMESPACE, r.one('Secret').metadata.name)!;
  t.ok((secret.data as Record<string, string>)['ca.crt'], 'and the server did its job with it');
});
