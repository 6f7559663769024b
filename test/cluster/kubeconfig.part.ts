// The kubeconfig lookup order: cluster.kubeconfig, then in-cluster, then KUBECONFIG, then ~/.kube/config.
import t from '../helpers/parts.js';
import type { Test } from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfigError, kubeConfigSource, loadKubeConfig } from '../../src/cluster/kubeconfig.js';
import { SERVICE_ACCOUNT_DIR } from '../../src/cluster/service-account.js';

const kubeconfig = (server: string, context = 'ctx') =>
  [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: ${context}, cluster: {server: '${server}'}}]`,
    `users: [{name: ${context}, user: {token: t}}]`,
    `contexts: [{name: ${context}, context: {cluster: ${context}, user: ${context}}}]`,
    `current-context: ${context}`,
    '',
  ].join('\n');

async function world(t: Test) {
  const dir = t.testdir({});
  const file = async (name: string, server: string, context?: string) => {
    const path = join(dir, name);
    await writeFile(path, kubeconfig(server, context));
    return path;
  };
  const pod = join(dir, 'pod');
  await mkdir(join(pod, SERVICE_ACCOUNT_DIR), { recursive: true });
  await writeFile(join(pod, SERVICE_ACCOUNT_DIR, 'token'), 'sa-token');
  await writeFile(join(pod, SERVICE_ACCOUNT_DIR, 'ca.crt'), '');
  const home = join(dir, 'home');
  await mkdir(join(home, '.kube'), { recursive: true });
  await writeFile(join(home, '.kube', 'config'), kubeconfig('https://home.example:6443'));
  const inPod = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
  return { file, pod, home, inPod };
}

t.test('an explicit cluster.kubeconfig wins over everything', async (t) => {
  const w = await world(t);
  const explicit = await w.file('explicit', 'https://explicit.example:6443');
  const env = { ...w.inPod, KUBECONFIG: await w.file('env', 'https://env.example:6443') };
  t.same(kubeConfigSource(explicit, { env, root: w.pod, home: w.home }), { from: 'config', files: [explicit] });
  t.equal(
    loadKubeConfig(explicit, { env, root: w.pod, home: w.home }).getCurrentCluster()?.server,
    'https://explicit.example:6443',
  );
});

t.test('in a pod, the service account comes next', async (t) => {
  const w = await world(t);
  const env = { ...w.inPod, KUBECONFIG: await w.file('env', 'https://env.example:6443') };
  t.same(kubeConfigSource('', { env, root: w.pod, home: w.home }), { from: 'in-cluster' });
  t.same(
    kubeConfigSource('', { env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' }, root: w.pod, home: w.home }).from,
    'home',
    'no port: not a pod',
  );
  t.same(
    kubeConfigSource('', { env: w.inPod, root: join(w.pod, 'elsewhere'), home: w.home }).from,
    'home',
    'no token mounted: not a pod',
  );
});

t.test('then KUBECONFIG (several files merge, the first current-context wins), then ~/.kube/config', async (t) => {
  const w = await world(t);
  const first = await w.file('first', 'https://first.example:6443', 'first');
  const second = await w.file('second', 'https://second.example:6443', 'second');
  const env = { KUBECONFIG: `${first}:${second}` };
  t.same(kubeConfigSource('', { env, home: w.home }), { from: 'KUBECONFIG', files: [first, second] });
  const kc = loadKubeConfig('', { env, home: w.home });
  t.equal(kc.getCurrentCluster()?.server, 'https://first.example:6443');
  t.same(
    kc.getContexts().map((c) => c.name),
    ['first', 'second'],
  );
  t.equal(loadKubeConfig('', { env: {}, home: w.home }).getCurrentCluster()?.server, 'https://home.example:6443');
});

t.test('no kubeconfig anywhere, or an unreadable one, is a clear error', async (t) => {
  const w = await world(t);
  t.throws(
    () => kubeConfigSource('', { env: {}, home: join(w.home, 'nobody') }),
    new KubeConfigError(
      'no kubeconfig found: not running in a pod, cluster.kubeconfig is empty, KUBECONFIG is unset and ~/.kube/config does not exist',
    ),
  );
  t.throws(() => loadKubeConfig(join(w.home, 'missing'), { env: {} }), {
    name: 'KubeConfigError',
    message: /cannot load kubeconfig \(config: .*missing\): ENOENT/,
  });
});

t.test(
  'what can be checked before the first request is: the server URL, the certificate files, the file itself',
  async (t) => {
    const dir = t.testdir({});
    const write = async (name: string, text: string) => {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    };
    const withCluster = (cluster: string, user = '{token: t}') =>
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: ${cluster}}]`,
        `users: [{name: u, user: ${user}}]`,
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
        '',
      ].join('\n');
    const load = async (name: string, text: string) => loadKubeConfig(await write(name, text), { env: {} });
    await t.rejects(load('url', withCluster("{server: 'api.example'}")), {
      name: 'KubeConfigError',
      message: /: cluster "c" has server "api\.example", not an http\(s\) URL$/,
    });
    await t.rejects(
      load('ca', withCluster(`{server: 'https://a.example', certificate-authority: ${join(dir, 'ca.crt')}}`)),
      { message: /: certificate-authority .*ca\.crt cannot be read: ENOENT$/ },
    );
    await t.rejects(
      load(
        'key',
        withCluster(
          "{server: 'https://a.example'}",
          `{client-certificate: ${join(dir, 'ca')}, client-key: ${join(dir, 'nokey')}}`,
        ),
      ),
      { message: /: client-key .*nokey cannot be read: ENOENT$/ },
    );
    await t.rejects(load('empty', ''), { message: /^cannot load kubeconfig \(config: .*empty\): not a kubeconfig$/ });
    await t.rejects(
      load('yaml', 'clusters: [\n'),
      { message: /^cannot load kubeconfig \(config: .*yaml\): [^\n]+$/ },
      'the YAML error in one line',
    );
    t.equal(
      (
        await load('ok', withCluster(`{server: 'https://a.example', certificate-authority: ${join(dir, 'ca')}}`))
      ).getCurrentCluster()?.server,
      'https://a.example',
      'an existing file passes',
    );
    t.equal(
      (await load('http', withCluster("{server: 'http://127.0.0.1:8001'}"))).getCurrentCluster()?.server,
      'http://127.0.0.1:8001',
      'plain http (kubectl proxy) passes',
    );
  },
);
