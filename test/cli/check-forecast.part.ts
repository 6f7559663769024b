// `check` names what a profile UPDATE changes in the maintenance forecast of its Shoots (issue 35:
// a change that deprecates 1.31.9, expiring in 13 days, was ALLOWED with no word while
// `forecast --proposed` showed two Shoots forced to 1.32). As warnings, with each finding in JSON
// at the line of its version; forecast.deny is the gate (the demo runs are docs/check.md's,
// readme-examples.test.ts). A NamespacedCloudProfile's Shoots count on its merged profile.
import t from '../helpers/parts.js';
import { tempDir, writeFiles } from '../helpers/run-cli.js';
import { parseReport, runCheckCli } from './check-run.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const STATE = `${ROOT}test/fixtures/demo-state.yaml`;
const DEPRECATE = `${ROOT}test/fixtures/demo-aws-deprecate-1.31.9.yaml`;
const NOW = '2026-11-27T00:00:00Z';

t.test('a profile UPDATE: the forced updates it adds, as warnings and as findings at their line', async (t) => {
  const run = await runCheckCli(['check', '--state', STATE, '--now', NOW, '--output', 'json', DEPRECATE]);
  t.equal(run.code, 0, 'warnings: the change is allowed');
  const [r] = parseReport(run).results;
  t.match(r?.forecast, [
    {
      change: 'new',
      shoot: 'garden-prod/payments',
      component: 'worker pool "batch"',
      mode: 'forced',
      from: '1.31.9',
      to: '1.32.5',
      at: '2026-12-11T02:00:00Z',
      field: 'spec.kubernetes.versions[3]',
      line: 19,
    },
    {
      change: 'new',
      shoot: 'garden-dev/dev-cluster',
      component: 'control plane',
      at: '2026-12-11T22:00:00Z',
      line: 19,
    },
  ]);
  t.equal(r?.forecast.length, 2);
  t.same(
    r?.warnings.filter((w) => w.startsWith('forecast: ')),
    [
      'forecast: forced update of Kubernetes 1.31.9 → 1.32.5 on 2026-12-11 for 2 Shoots: garden-prod/payments worker pool "batch", garden-dev/dev-cluster control plane (1.31.9 expired at 2026-12-10T23:59:59Z); forecast --proposed shows each step, forecast.deny gates',
    ],
    'one warning per step, version and day, naming the Shoots',
  );
});

t.test('no finding without a state, with forecast.warn off, or for a CREATE or a DELETE', async (t) => {
  const dir = await tempDir(t);
  await writeFiles(dir, { 'quiet.yaml': 'forecast: {warn: false}\n' });
  const [stateless, quiet, deleted] = await Promise.all([
    runCheckCli(['check', '--now', NOW, '--output', 'json', DEPRECATE]),
    runCheckCli([
      'check',
      '--config',
      `${dir}/quiet.yaml`,
      '--state',
      STATE,
      '--now',
      NOW,
      '--output',
      'json',
      DEPRECATE,
    ]),
    runCheckCli(['check', '--delete', '--state', STATE, '--now', NOW, '--output', 'json', DEPRECATE]),
  ]);
  for (const [what, run] of [
    ['without a state (a CREATE, nothing to forecast)', stateless],
    ['forecast.warn: false', quiet],
    ['a DELETE', deleted],
  ] as const) {
    const [r] = parseReport(run).results;
    t.same(r?.forecast, [], what);
    t.notOk(
      r?.warnings.some((w) => w.startsWith('forecast: ')),
      `${what}: no forecast warning`,
    );
  }
});

const BASE = `apiVersion: core.gardener.cloud/v1beta1
kind: CloudProfile
metadata: {name: base}
spec:
  type: local
  kubernetes:
    versions:
      - {version: 1.32.0, classification: supported}
      - {version: 1.31.0, classification: supported}
  machineImages:
    - name: gardenlinux
      versions:
        - {version: 1592.1.0, classification: supported, cri: [{name: containerd}], architectures: [amd64]}
  regions: [{name: r}]
`;
const SHOOT = `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: web, namespace: garden-dev}
spec:
  cloudProfile: {kind: NamespacedCloudProfile, name: team}
  kubernetes: {version: 1.31.0}
  maintenance:
    autoUpdate: {kubernetesVersion: false, machineImageVersion: false}
    timeWindow: {begin: 030000+0000, end: 040000+0000}
  provider:
    type: local
    workers:
      - name: pool
        machine: {type: m, image: {name: gardenlinux, version: 1592.1.0}}
`;
const team = (overrides: string) => `apiVersion: core.gardener.cloud/v1beta1
kind: NamespacedCloudProfile
metadata: {name: team, namespace: garden-dev}
spec:
  parent: {kind: CloudProfile, name: base}
${overrides}`;

t.test("a NamespacedCloudProfile UPDATE: its Shoots' forecast on the merged profile", async (t) => {
  const dir = await tempDir(t);
  await writeFiles(dir, {
    'state.yaml': `${BASE}---\n${team('')}---\n${SHOOT}`,
    'team.yaml': team(
      '  kubernetes:\n    versions:\n      - version: 1.31.0\n        expirationDate: "2026-09-05T23:59:59Z"\n',
    ),
  });
  const run = await runCheckCli(
    ['check', '--state', 'state.yaml', '--now', '2026-09-01T00:00:00Z', '--output', 'json', 'team.yaml'],
    { cwd: dir },
  );
  t.equal(run.code, 0, run.stderr);
  const [r] = parseReport(run).results;
  t.match(r?.forecast, [
    {
      change: 'new',
      shoot: 'garden-dev/web',
      mode: 'forced',
      from: '1.31.0',
      to: '1.32.0',
      at: '2026-09-06T03:00:00Z',
      field: 'spec.kubernetes.versions[0]',
      line: 8,
    },
  ]);
  t.equal(r?.forecast.length, 1);
});
