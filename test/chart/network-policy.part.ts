// The NetworkPolicy as the real helm binary renders it. Many CNIs enforce policy after DNAT, where
// a connection to the kubernetes Service's IP already carries an endpoint's address: egress allowed
// only to the service IP never reaches the API server, the informers never sync and the pods
// never become ready. So the API server is allowed by both, each on its own ports, from values.
import { join } from 'node:path';
import t from '../helpers/parts.js';
import { CHART, render, renderError, type K8sObject } from '../helpers/helm.js';

interface Peer {
  ipBlock?: { cidr: string };
  namespaceSelector?: unknown;
  podSelector?: unknown;
}
interface Rule {
  to?: Peer[];
  from?: Peer[];
  ports: { port: number; protocol: string }[];
}
interface NetworkPolicy extends K8sObject {
  spec: {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    ingress: Rule[];
    egress?: Rule[];
  };
}

const policy = async (set: string[], values: string[] = []) =>
  (await render({ set: ['networkPolicy.enabled=true', ...set], values })).one<NetworkPolicy>('NetworkPolicy');
const ports = (r: Rule) => r.ports.map((p) => `${p.port}/${p.protocol}`);
const cidrs = (r: Rule) => (r.to ?? []).map((p) => p.ipBlock?.cidr);

t.test('egress by the service IP and by the endpoints, each on its ports; DNS; IPs become CIDRs', async (t) => {
  const np = await policy([
    'networkPolicy.egress.apiServer.serviceIPs={10.0.0.1}',
    'networkPolicy.egress.apiServer.servicePorts={443}',
    'networkPolicy.egress.apiServer.endpointIPs={10.250.0.10,10.250.0.11,fd00::10,192.168.0.0/30}',
    'networkPolicy.egress.apiServer.endpointPorts={6443}',
  ]);
  t.same(np.spec.policyTypes, ['Ingress', 'Egress']);
  const [dns, service, endpoints, ...rest] = np.spec.egress!;
  t.same(ports(dns!), ['53/UDP', '53/TCP']);
  t.notOk(dns!.to, 'DNS to any address: cluster DNS or a node-local cache');
  t.same(cidrs(service!), ['10.0.0.1/32']);
  t.same(ports(service!), ['443/TCP'], 'the Service port before DNAT');
  t.same(cidrs(endpoints!), ['10.250.0.10/32', '10.250.0.11/32', 'fd00::10/128', '192.168.0.0/30']);
  t.same(ports(endpoints!), ['6443/TCP'], 'the endpoint port after DNAT');
  t.same(rest, []);
});

t.test('endpoints alone are enough (an API server reached by address, e.g. through cluster.kubeconfig)', async (t) => {
  const np = await policy([
    'networkPolicy.egress.apiServer.endpointIPs={203.0.113.7}',
    'networkPolicy.egress.apiServer.endpointPorts={443}',
  ]);
  t.same(np.spec.egress!.slice(1).map(cidrs), [['203.0.113.7/32']]);
});

t.test('the service IP alone is refused: it is what fails on CNIs that enforce after DNAT', async (t) => {
  const stderr = await renderError({
    set: ['networkPolicy.enabled=true', 'networkPolicy.egress.apiServer.serviceIPs={10.0.0.1}'],
  });
  t.match(stderr, /serviceIPs without endpointIPs\. Most CNIs enforce policy after DNAT/);
  t.match(stderr, /kubectl get endpointslices -n default -l kubernetes\.io\/service-name=kubernetes/);
});

t.test('no addresses: any destination, on both the service and the endpoint ports', async (t) => {
  const np = await policy([]);
  const [, api, ...rest] = np.spec.egress!;
  t.notOk(api!.to);
  t.same(ports(api!), ['443/TCP', '6443/TCP']);
  t.same(rest, []);
});

t.test('ingress: the webhook port and the probe/metrics port, from the peers in values', async (t) => {
  const np = await policy([
    'networkPolicy.webhookFrom[0].namespaceSelector.matchLabels.role=garden',
    'networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.role=monitoring',
  ]);
  t.same(np.spec.ingress.map(ports), [['9443/TCP'], ['8080/TCP']]);
  t.same(
    np.spec.ingress.map((r) => r.from),
    [
      [{ namespaceSelector: { matchLabels: { role: 'garden' } } }],
      [{ namespaceSelector: { matchLabels: { role: 'monitoring' } } }],
    ],
  );
  const noProbePort = await policy(['config.server.probePort=0']);
  t.same(noProbePort.spec.ingress.map(ports), [['9443/TCP']], 'no probe port, no rule for it');
});

t.test('egress.enabled=false leaves egress open', async (t) => {
  const np = await policy(['networkPolicy.egress.enabled=false']);
  t.same(np.spec.policyTypes, ['Ingress']);
  t.notOk(np.spec.egress);
});

t.test('the production example allows the API server both ways', async (t) => {
  const np = (await render({ values: [join(CHART, 'ci/production-values.yaml')] })).one<NetworkPolicy>('NetworkPolicy');
  const api = np.spec.egress!.slice(1);
  t.equal(api.length, 2, 'a service-IP rule and an endpoints rule');
  t.ok(
    api.every((r) => cidrs(r).length > 0),
    'both with addresses',
  );
});

t.test('the schema refuses an address that is not an IP or CIDR', async (t) => {
  t.match(
    await renderError({ set: ['networkPolicy.egress.apiServer.endpointIPs={kubernetes.default}'] }),
    /endpointIPs/,
  );
});
