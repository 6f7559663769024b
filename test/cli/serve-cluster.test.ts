// `version-policy serve` against a cluster, end to end: the built CLI as a child process, no
// --state, its informers reading the fake API server (the one fake) through `cluster.kubeconfig`,
// and serving certificates made now. The API server is down at start, so the webhook runs unsynced
// first (not ready, retrying and saying so with a count, fail closed on what needs the state,
// everything else judged), then the API server comes up and the answers follow the cluster.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import type { CloudProfile } from '../../src/api/types.js';
import { served } from '../helpers/api-objects.js';
import { FakeApiServer } from '../helpers/fake-apiserver.js';
import { cloudProfile, image, shoot } from '../helpers/objects.js';
import { CLI, tempDir } from '../helpers/run-cli.js';
import { authority, request, review, writeCertFiles, type ReviewReply } from '../helpers/server.js';
import { spawnServer } from '../helpers/serve-process.js';
import { until } from '../helpers/until.js';

const images = [image('gardenlinux', ['1.0.0'])];
const PROFILE = cloudProfile({ name: 'aws', kubernetes: ['1.30.1', '1.31.0', '1.32.0'], images });
const WEB = shoot({
  name: 'web',
  namespace: 'garden-dev',
  profile: 'aws',
  version: '1.30.1',
  workers: [{ name: 'pool', image: ['gardenlinux', '1.0.0'] }],
});
const withVersions = (versions: string[]): CloudProfile => cloudProfile({ name: 'aws', kubernetes: versions, images });

t.test(
  'serve with informers: not ready and failing closed until synced, then judging against the cluster',
  async (t) => {
    const fake = await FakeApiServer.start({ down: true });
    t.teardown(() => fake.close());
    fake.add(served(PROFILE));
    fake.add(served(WEB));

    const dir = await tempDir(t, 'vp-serve-cluster-');
    const certs = await authority('serve-cluster test CA');
    const { certFile, keyFile } = await writeCertFiles(dir, await certs.issue());
    const configFile = join(dir, 'config.json');
    await writeFile(
      configFile,
      JSON.stringify({
        server: { host: '127.0.0.1', port: 0, probePort: 0, tls: { certFile, keyFile }, shutdownGraceSeconds: 5 },
        cluster: { kubeconfig: fake.kubeconfigPath },
        defaulting: { lifecycle: { enabled: false } },
      }),
    );

    const logs: Array<Record<string, unknown>> = [];
    const { child, exit, stderr } = spawnServer(t, [CLI, 'serve', '--config', configFile], {
      cwd: dir,
      stdout: (line) => logs.push(line),
    });
    const logged = (msg: string | RegExp) =>
      logs.filter((l) => (typeof msg === 'string' ? l.msg === msg : msg.test(String(l.msg))));
    void exit.then(({ code }) => code !== null && code !== 0 && t.fail(`serve exited ${code}: ${stderr()}`));

    const listening = await until('"webhook listening"', () => logged('webhook listening')[0], 300_000, 20);
    const port = Number(new URL(String(listening.url)).port);
    const get = (path: string) => request(port, 'GET', path, undefined, { ca: certs.ca.certPem });
    const judge = async (object: CloudProfile) =>
      (
        await request(
          port,
          'POST',
          '/validate',
          JSON.stringify(review({ operation: 'UPDATE', object, oldObject: PROFILE })),
          { ca: certs.ca.certPem },
        )
      ).json<ReviewReply>().response;
    const metrics = async () => (await get('/metrics')).text;
    const removing130 = withVersions(['1.31.0', '1.32.0']);

    t.equal(listening.ready, false, 'listening, but not ready');
    // Three failed LISTs: the first attempt and two retries, each logged with the count so far.
    const failures = await until(
      'three failed LISTs of shoots',
      () =>
        logged('list of shoots failed; retrying').length >= 3 ? logged('list of shoots failed; retrying') : undefined,
      60_000,
      20,
    );
    t.same(
      failures.slice(0, 3).map((l) => l.attempts),
      [1, 2, 3],
      'a growing count of attempts',
    );
    t.ok(
      failures.every((l) => l.failingSince === failures[0]?.failingSince && /ECONNREFUSED/.test(String(l.err))),
      'since when, and why',
    );
    t.ok(
      failures.every((l) => l.level === 'warn'),
      'each a warning',
    );
    const unready = await get('/readyz');
    t.equal(unready.status, 503, '/readyz: not ready while the API server is down');
    t.match(
      unready.text,
      /^not ready: cluster state not synced: the webhook has not finished reading .*shoots from the API server \(unreachable since \S+Z, \d+ failed attempts\); retry shortly(; the forecast worker is (starting|taking in the state))?$/,
    );
    const m0 = await metrics();
    t.match(m0, /version_policy_cluster_informer_synced\{kind="Shoot"\} 0\n/, 'the sync state is on /metrics');
    t.match(
      m0,
      /version_policy_cluster_request_failures_total\{kind="Shoot",verb="list"\} [3-9]\d*\n/,
      'and the failures',
    );

    const notReady = await judge(removing130);
    t.equal(notReady.allowed, false, 'a version removal needs the state: denied');
    t.match(
      notReady.status?.message,
      /^\[IN-USE\] cluster state not ready: the webhook has not finished reading .*shoots from the API server \(unreachable since/,
    );
    t.notMatch(notReady.status?.message, /garden-dev\/web/, 'and not from a state it does not have');
    const adding = await judge(withVersions(['1.30.1', '1.31.0', '1.32.0', '1.32.1']));
    t.equal(adding.allowed, true, 'adding a version needs no state: judged, and allowed');
    const stateless = await judge(withVersions(['1.30.1', '1.31.0', '1.32.0', '1.32.0']));
    t.equal(stateless.allowed, false, 'a stateless rule still denies while not ready');
    t.match(stateless.status?.message, /^\[K8S-VERSIONS\] .*duplicate value "1\.32\.0"/, 'for its own reason');
    t.notMatch(stateless.status?.message, /cluster state not ready/);

    await fake.up();
    await until('/readyz to turn ready', async () => (await get('/readyz')).status === 200, 60_000, 50);
    // The log line and the answer travel on different pipes; either may be read first.
    await until('the informers to log that they synced', () => logged('cluster state synced').length === 1, 60_000, 20);
    const m = await metrics();
    const age = Number(/version_policy_cluster_state_age_seconds\{kind="Shoot"\} ([\d.e-]+)\n/.exec(m)?.[1]);
    t.ok(age >= 0 && age < 30, `the age of the Shoot cache is on /metrics: ${age} s`);
    t.match(
      logged(/^mode: /)[0],
      { stateSource: `the API server (kubeconfig: config: ${fake.kubeconfigPath})` },
      'the start-up log names the state source',
    );
    for (const [kind, count] of [
      ['Shoot', 1],
      ['CloudProfile', 1],
      ['NamespacedCloudProfile', 0],
    ] as const) {
      t.match(
        m,
        new RegExp(`version_policy_cluster_cached_objects\\{kind="${kind}"\\} ${count}\\n`),
        `cached ${kind}s: ${count}`,
      );
      t.match(
        m,
        new RegExp(`version_policy_cluster_informer_synced\\{kind="${kind}"\\} 1\\n`),
        `${kind} informer synced`,
      );
    }

    const inUse = await judge(removing130);
    t.equal(inUse.allowed, false, 'removing a version a Shoot in the cluster uses: denied');
    t.match(inUse.status?.message, /^\[IN-USE\] .*1\.30\.1.*'garden-dev\/web'/, 'naming the Shoot');

    fake.remove('Shoot', 'garden-dev', 'web');
    const allowed = await until(
      'the removal to be allowed once the Shoot is gone',
      async () => ((await judge(removing130)).allowed ? true : undefined),
      60_000,
      20,
    );
    t.ok(allowed, 'allowed once the watch has delivered the deletion');
    t.match(await metrics(), /version_policy_cluster_cached_objects\{kind="Shoot"\} 0\n/);

    await until('a watch on every resource', () => fake.watchCount() === 3, 60_000, 20);
    t.equal(fake.dropWatches(), 3);
    const restarts = await until(
      'watch restarts on /metrics',
      async () =>
        /version_policy_cluster_watch_restarts_total\{kind="Shoot",reason="dropped"\} 1\n/.exec(await metrics()),
      60_000,
      20,
    );
    t.ok(restarts, 'dropped watches are counted');

    t.ok(
      fake.requests.every((r) => r.method === 'GET'),
      'the webhook only ever read from the API server',
    );
    child.kill('SIGTERM');
    t.same(await exit, { code: 0, signal: null }, 'SIGTERM: exit 0');
    t.equal(stderr(), '', 'nothing on stderr');
  },
);
