// `check --cluster` and `explain --cluster` through the built CLI, reading the state from the fake
// API server (the one fake) with the kubeconfig named by `cluster.kubeconfig` in --config.
import t from '../helpers/parts.js';
import type { CheckResult } from '../../src/cli/check-output.js';
import type { ExplainReport } from '../../src/report/version-report.js';
import { served } from '../helpers/api-objects.js';
import { FakeApiServer } from '../helpers/fake-apiserver.js';
import { cloudProfile, image, NOW_ISO, shoot } from '../helpers/objects.js';
import { spawnCli, tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';

const images = [image('gardenlinux', ['1.0.0'])];
const withVersions = (versions: string[]) => cloudProfile({ name: 'aws', kubernetes: versions, images });
const PROFILE = withVersions(['1.30.1', '1.31.0', '1.32.0']);
const WEB = shoot({
  name: 'web',
  namespace: 'garden-dev',
  profile: 'aws',
  version: '1.30.1',
  workers: [{ name: 'pool', image: ['gardenlinux', '1.0.0'] }],
});

t.test('--cluster reads the state from the API server in cluster.kubeconfig', async (t) => {
  const [fake, down] = await Promise.all([FakeApiServer.start(), FakeApiServer.start({ down: true })]);
  t.teardown(() => Promise.all([fake.close(), down.close()]));
  fake.add(served(PROFILE));
  fake.add(served(WEB));
  const dir = await tempDir(t);
  await writeFiles(dir, {
    'cluster.yaml': `cluster: {kubeconfig: ${JSON.stringify(fake.kubeconfigPath)}}\n`,
    'unreachable.yaml': `cluster: {kubeconfig: ${JSON.stringify(down.kubeconfigPath)}}\n`,
    'remove-used.yaml': yamlDocs(withVersions(['1.31.0', '1.32.0'])),
    'remove-unused.yaml': yamlDocs(withVersions(['1.30.1', '1.32.0'])),
    'profile.yaml': yamlDocs(PROFILE),
  });
  // Child processes, not the CLI in this process: the fake API server answers from this process's
  // event loop, which tap's module loader holds for seconds while an in-process run loads its
  // modules; at load 20 a run's 30 s list deadline passed while its own answer waited here.
  const check = (config: string, file: string) =>
    spawnCli(['check', '--cluster', '--config', config, '--now', NOW_ISO, '--output', 'json', file], dir);
  const [denied, allowed, unreachable, explained] = await Promise.all([
    check('cluster.yaml', 'remove-used.yaml'),
    check('cluster.yaml', 'remove-unused.yaml'),
    check('unreachable.yaml', 'remove-used.yaml'),
    spawnCli(
      ['explain', '--cluster', '--config', 'cluster.yaml', '--now', NOW_ISO, '--output', 'json', 'profile.yaml'],
      dir,
    ),
  ]);

  t.test('check: removing a version a Shoot in the cluster uses is denied, naming the Shoot', async (t) => {
    t.equal(denied.code, 1, denied.stderr);
    const [result] = (JSON.parse(denied.stdout) as { results: CheckResult[] }).results;
    t.match(
      result,
      { kind: 'CloudProfile', name: 'aws', operation: 'UPDATE', allowed: false },
      'an UPDATE of the profile in the cluster',
    );
    t.same(
      result?.violations.map((v) => v.rule),
      ['IN-USE'],
    );
    t.match(result?.violations[0]?.message, /1\.30\.1.*'garden-dev\/web'/);
  });

  t.test('check: removing a version nobody uses is allowed', async (t) => {
    t.equal(allowed.code, 0, allowed.stderr);
    t.match(JSON.parse(allowed.stdout), {
      results: [{ name: 'aws', operation: 'UPDATE', allowed: true, violations: [] }],
    });
  });

  t.test(
    'check: an unreachable API server is exit 2 and one line (and, with --output json, a JSON error)',
    async (t) => {
      t.equal(unreachable.code, 2);
      t.match(JSON.parse(unreachable.stdout), { error: { message: /^cannot read the cluster state: / } });
      t.match(
        unreachable.stderr,
        /^version-policy: cannot read the cluster state: cannot list \w+: cannot reach the API server https:\/\/127\.0\.0\.1:\d+: ECONNREFUSED[^\n]*\n$/,
      );
    },
  );

  t.test('explain: counts the Shoots in the cluster', async (t) => {
    t.equal(explained.code, 0, explained.stderr);
    const report = JSON.parse(explained.stdout) as ExplainReport;
    const shoots = Object.fromEntries((report.profiles[0]?.kubernetes ?? []).map((v) => [v.version, v.shoots]));
    t.same(shoots, { '1.32.0': 0, '1.31.0': 0, '1.30.1': 1 });
  });

  t.ok(
    fake.requests.every((r) => r.method === 'GET' && !r.watch),
    'LISTs only: nothing written, nothing watched',
  );
  t.ok(
    fake.requests.some((r) => r.path === '/apis/core.gardener.cloud/v1beta1/shoots'),
    'the Shoots were listed across all namespaces',
  );
});
