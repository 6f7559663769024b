// Where `serve` gets its cluster state: a kubeconfig that cannot be used, or no state source at
// all, is one line on stderr and exit 2 at once (not a pod that runs unready forever, nor one that
// judges against an empty landscape), through the CLI's main() (that serve's exit 2 reaches the
// shell is serve.test.ts's); `--without-cluster-state` is the explicit way around, which serves
// (the built CLI as a process), is ready, says loudly what it gives up, and denies whatever needs
// the state.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from '../helpers/parts.js';
import type { CloudProfile } from '../../src/api/types.js';
import { cloudProfile, image, shoot } from '../helpers/objects.js';
import { CLEAN_ENV, CLI, type CliRun, inProcess, tempDir } from '../helpers/run-cli.js';
import { authority, request, review, writeCertFiles, type ReviewReply } from '../helpers/server.js';
import { spawnServer } from '../helpers/serve-process.js';
import { until } from '../helpers/until.js';

/** `serve ARGS` expected to return; one that serves instead never does, and tap's timeout fails it. */
const serveExit = (args: string[], env: NodeJS.ProcessEnv = CLEAN_ENV): Promise<CliRun> =>
  inProcess(['serve', ...args], { env });

const kubeconfig = (cluster: string, current = 'ctx') =>
  [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: c, cluster: ${cluster}}]`,
    'users: [{name: u, user: {token: t}}]',
    'contexts: [{name: ctx, context: {cluster: c, user: u}}]',
    `current-context: ${current}`,
    '',
  ].join('\n');

t.test('a kubeconfig that cannot be used, or no state source at all: one line, exit 2, at once', async (t) => {
  const dir = await tempDir(t, 'vp-serve-source-');
  const file = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };
  const config = async (name: string, cluster: Record<string, unknown>) =>
    file(name, JSON.stringify({ server: { port: 0, probePort: 0 }, cluster }));
  const home = join(dir, 'home');
  await mkdir(home);
  const noKubeconfigAnywhere = Object.fromEntries(
    Object.entries({ ...CLEAN_ENV, HOME: home }).filter(
      ([k]) => !['KUBECONFIG', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT'].includes(k),
    ),
  );

  const cases: Array<[string, string[], RegExp, NodeJS.ProcessEnv?]> = [
    [
      'a kubeconfig that does not exist',
      ['--config', await config('missing.json', { kubeconfig: join(dir, 'nope') })],
      /^cannot load kubeconfig \(config: .*\/nope\): ENOENT: no such file or directory/,
    ],
    [
      'a kubeconfig that cannot be read',
      ['--config', await config('dir.json', { kubeconfig: dir })],
      /^cannot load kubeconfig \(config: .*\): EISDIR/,
    ],
    [
      'a kubeconfig that is not YAML',
      ['--config', await config('yaml.json', { kubeconfig: await file('bad.yaml', 'clusters: [\n') })],
      /^cannot load kubeconfig \(config: .*\/bad\.yaml\): \S+/,
    ],
    [
      'a kubeconfig with no current cluster',
      [
        '--config',
        await config('ctx.json', {
          kubeconfig: await file('ctx.yaml', kubeconfig("{server: 'https://127.0.0.1:1'}", 'gone')),
        }),
      ],
      /^kubeconfig \(config: .*\/ctx\.yaml\) has no current context with a cluster$/,
    ],
    [
      'no kubeconfig anywhere',
      ['--config', await config('default.json', {})],
      /^no kubeconfig found: not running in a pod, cluster\.kubeconfig is empty, KUBECONFIG is unset and ~\/\.kube\/config does not exist$/,
      noKubeconfigAnywhere,
    ],
    [
      'cluster.enabled: false and no --state',
      ['--config', await config('off.json', { enabled: false })],
      /^no cluster state: cluster\.enabled is false and no --state is given, .* pass --without-cluster-state to deny every request that needs the state$/,
    ],
    [
      '--state and --without-cluster-state together',
      [
        '--config',
        await config('both.json', { enabled: false }),
        '--state',
        'test/fixtures/demo-state.yaml',
        '--without-cluster-state',
      ],
      /^--state and --without-cluster-state contradict each other/,
    ],
  ];
  const runs: CliRun[] = [];
  for (const [, args, , env] of cases) runs.push(await serveExit(args, env));
  cases.forEach(([name, , message], i) => {
    const run = runs[i]!;
    t.test(name, async (t) => {
      t.equal(run.code, 2, 'exit 2');
      t.match(run.stderr, /^version-policy: [^\n]+\n$/, 'one line on stderr');
      t.match(run.stderr.replace(/^version-policy: /, '').trimEnd(), message);
      t.notMatch(run.stdout, /webhook listening|failed; retrying/, 'neither listened nor retried');
    });
  });
});

t.test(
  '--without-cluster-state: serves and is ready, says loudly what it gives up, and denies what needs the state',
  async (t) => {
    const dir = await tempDir(t, 'vp-serve-nostate-');
    const certs = await authority('serve-nostate test CA');
    const { certFile, keyFile } = await writeCertFiles(dir, await certs.issue());
    const configFile = join(dir, 'config.json');
    // cluster.enabled stays at its default (true): the flag wins, no informers start.
    await writeFile(
      configFile,
      JSON.stringify({
        server: { host: '127.0.0.1', port: 0, probePort: 0, tls: { certFile, keyFile }, shutdownGraceSeconds: 5 },
        defaulting: { lifecycle: { enabled: false } },
      }),
    );
    const logs: Array<Record<string, unknown>> = [];
    const { child, exit, stderr } = spawnServer(t, [CLI, 'serve', '--config', configFile, '--without-cluster-state'], {
      cwd: dir,
      stdout: (line) => logs.push(line),
    });
    const listening = await until(
      '"webhook listening"',
      () => logs.find((l) => l.msg === 'webhook listening'),
      60_000,
      20,
    );
    const port = Number(new URL(String(listening.url)).port);

    t.equal(listening.ready, true, 'ready at once: running without state is the chosen mode, not a failure');
    t.equal((await request(port, 'GET', '/readyz', undefined, { ca: certs.ca.certPem })).status, 200, '/readyz 200');
    const warning = logs.find((l) => /^RUNNING WITHOUT CLUSTER STATE/.test(String(l.msg)));
    t.equal(warning?.level, 'warn', 'a warning at start-up');
    t.match(
      warning?.msg,
      /DENIES every request that needs them \(version removals, profile deletions, NamespacedCloudProfiles, Shoots\)/,
    );
    const mode = logs.find((l) => String(l.msg).startsWith('mode: '));
    t.match(mode, {
      level: 'info',
      stateSource: /^none \(--without-cluster-state\)/,
      featureGates: { VersionClassificationLifecycle: Boolean },
      lifecycleDefaulting: false,
      adoptExisting: false,
    });
    t.match(
      mode?.msg,
      /^mode: feature gate VersionClassificationLifecycle (on|off) \(must match the landscape's gardener-apiserver\), lifecycle defaulting off, adoption of existing versions off, cluster state from none/,
    );
    t.notOk(
      logs.some((l) => l.msg === 'starting cluster informers'),
      'no informers',
    );

    const images = [image('gardenlinux', ['1.0.0'])];
    const profile = (versions: string[]): CloudProfile => cloudProfile({ name: 'aws', kubernetes: versions, images });
    const judge = async (body: unknown) =>
      (await request(port, 'POST', '/validate', JSON.stringify(body), { ca: certs.ca.certPem })).json<ReviewReply>()
        .response;
    const reason =
      'cluster state not ready: the webhook runs without cluster state (serve --without-cluster-state), so this request cannot be judged';

    const removal = await judge(
      review({ operation: 'UPDATE', object: profile(['1.31.0']), oldObject: profile(['1.30.1', '1.31.0']) }),
    );
    t.equal(removal.allowed, false, 'removing a version: denied');
    t.equal(removal.status?.message, `[IN-USE] ${reason}`, 'saying why');
    const deletion = await judge(review({ operation: 'DELETE', oldObject: profile(['1.30.1']) }));
    t.equal(deletion.allowed, false, 'deleting a profile: denied');
    t.match(deletion.status?.message, reason);
    const create = await judge(
      review({
        operation: 'CREATE',
        object: shoot({
          name: 'web',
          namespace: 'garden-dev',
          profile: 'aws',
          version: '1.31.0',
          workers: [{ name: 'pool', image: ['gardenlinux', '1.0.0'] }],
        }),
      }),
    );
    t.equal(create.allowed, false, 'a Shoot, whose profile is unknown: denied');
    t.match(create.status?.message, reason);
    const adding = await judge(
      review({ operation: 'UPDATE', object: profile(['1.30.1', '1.31.0']), oldObject: profile(['1.30.1']) }),
    );
    t.equal(adding.allowed, true, 'adding a version needs no state: allowed');

    child.kill('SIGTERM');
    t.same(await exit, { code: 0, signal: null }, 'SIGTERM: exit 0');
    t.equal(stderr(), '', 'nothing on stderr');
  },
);
