// `check --cluster`'s state: one paginated LIST per resource from the fake API server, read-only.
import t from '../helpers/parts.js';
import type { Test } from 'tap';
import { KubeConfig } from '@kubernetes/client-node';
import { readFile } from 'node:fs/promises';
import { listClusterState } from '../../src/cluster/live-list.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { served } from '../helpers/api-objects.js';
import { FakeApiServer } from '../helpers/fake-apiserver.js';
import { cloudProfile, config, image, namespacedProfile, NOW, request, ruleIds, shoot } from '../helpers/objects.js';

const PROFILE = cloudProfile({
  name: 'aws',
  kubernetes: ['1.30.1', '1.31.0'],
  images: [image('gardenlinux', ['1.0.0'])],
});
const CP = { kind: 'CloudProfile', name: 'aws' } as const;
async function cluster(t: Test) {
  const fake = await FakeApiServer.start();
  t.teardown(() => fake.close());
  fake.add(served(PROFILE));
  fake.add(served(namespacedProfile({ name: 'dev', namespace: 'garden-dev', parent: 'aws' })));
  for (const [i, ns] of ['garden-a', 'garden-b', 'garden-c', 'garden-d', 'garden-e'].entries()) {
    fake.add(
      served(
        shoot({
          name: `s${i}`,
          namespace: ns,
          profile: 'aws',
          version: i === 0 ? '1.30.1' : '1.31.0',
          workers: [{ name: 'pool', image: ['gardenlinux', '1.0.0'] }],
        }),
      ),
    );
  }
  return fake;
}

t.test('reads every resource with paginated LISTs, and nothing but GETs', async (t) => {
  const fake = await cluster(t);
  const index = await listClusterState({ kubeconfig: fake.kubeconfigPath, pageSize: 2 });
  t.ok(index.synced, 'a complete list is synced state');
  t.same([index.count('CloudProfile'), index.count('NamespacedCloudProfile'), index.count('Shoot')], [1, 1, 5]);
  t.same(
    index.kubernetesVersionUsers(CP, '1.30.1').map((u) => u.shoot.metadata.name),
    ['s0'],
  );
  t.equal(index.kubernetesVersionUsers(CP, '1.31.0').length, 4);
  t.same(
    index.namespacedProfilesOf('aws').map((n) => n.metadata.name),
    ['dev'],
  );

  t.ok(
    fake.requests.every((r) => r.method === 'GET' && !r.watch),
    'GET only, no watch',
  );
  const shootPages = fake.requests.filter((r) => r.path === '/apis/core.gardener.cloud/v1beta1/shoots');
  t.same(
    shootPages.map((r) => [r.query.limit, Boolean(r.query.continue)]),
    [
      ['2', false],
      ['2', true],
      ['2', true],
    ],
    'all namespaces, three pages',
  );
});

t.test('check --cluster: removing a version a listed Shoot uses is denied, an unused one is allowed', async (t) => {
  const fake = await cluster(t);
  const state = await listClusterState({ kubeconfig: fake.kubeconfigPath });
  const judged = config({ defaulting: { lifecycle: { enabled: false } } });
  const removing = (version: string) =>
    evaluate(
      request({
        operation: 'UPDATE',
        oldObject: PROFILE,
        object: cloudProfile({
          name: 'aws',
          kubernetes: ['1.30.1', '1.31.0'].filter((v) => v !== version),
          images: PROFILE.spec.machineImages,
        }),
      }),
      { now: NOW, config: judged, state },
    );
  const denied = removing('1.30.1');
  t.same(ruleIds(denied), ['IN-USE']);
  t.match(denied.violations[0]?.message, /s0/);
  fake.remove('Shoot', 'garden-a', 's0');
  t.ok(removing('1.30.1').allowed === false, 'the listed state is a snapshot: it does not follow the cluster');
  t.ok(
    evaluate(request({ operation: 'UPDATE', oldObject: PROFILE, object: PROFILE }), { now: NOW, config: judged, state })
      .allowed,
  );
});

t.test('an expired continue token starts the list over', async (t) => {
  const fake = await cluster(t);
  fake.injectFault({ verb: 'list', plural: 'shoots', expireContinue: true });
  const index = await listClusterState({ kubeconfig: fake.kubeconfigPath, pageSize: 2 });
  t.equal(index.count('Shoot'), 5, 'complete');
  const firstPages = fake.requests.filter((r) => r.path.endsWith('/shoots') && !r.query.continue);
  t.equal(firstPages.length, 2, 'listed twice from the start');
});

t.test('errors say what failed and where', async (t) => {
  t.test('the API server is unreachable', async (t) => {
    const fake = await FakeApiServer.start({ down: true });
    t.teardown(() => fake.close());
    await t.rejects(
      listClusterState({ kubeconfig: fake.kubeconfigPath }),
      /cannot list \w+: cannot reach the API server https:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/,
    );
  });
  t.test('the credentials are refused', async (t) => {
    const fake = await cluster(t);
    const kc = new KubeConfig();
    kc.loadFromString((await readFile(fake.kubeconfigPath, 'utf8')).replace(fake.token, 'wrong-token'));
    await t.rejects(
      listClusterState({ kubeconfig: '', kubeConfig: kc }),
      /cannot list \w+: GET \/apis\/core\.gardener\.cloud\/v1beta1\/\w+: 401 Unauthorized/,
    );
  });
  t.test('a server failure', async (t) => {
    const fake = await cluster(t);
    fake.injectFault({ verb: 'list', plural: 'cloudprofiles', status: 500 });
    await t.rejects(
      listClusterState({ kubeconfig: fake.kubeconfigPath }),
      /cannot list cloudprofiles: GET \S+: 500 InternalError: injected fault/,
    );
  });
});

t.test('an object the schema rejects is left out and reported', async (t) => {
  const fake = await cluster(t);
  const bad = served(shoot({ name: 'bad', namespace: 'garden-x', profile: 'aws' })) as unknown as {
    spec: Record<string, unknown>;
  };
  delete bad.spec.kubernetes;
  fake.add(bad);
  const rejected: string[] = [];
  const index = await listClusterState({ kubeconfig: fake.kubeconfigPath, onRejected: (m) => rejected.push(m) });
  t.equal(index.count('Shoot'), 5);
  t.same(rejected, ['Shoot garden-x/bad left out: spec.kubernetes.version: required field is missing']);
});
