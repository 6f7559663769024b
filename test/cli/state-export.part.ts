// `version-policy state export`: the snapshot CI judges against. It holds what the rules need and
// nothing else (no status, credentials, annotations of Shoots, resource versions), judges as the
// full state judges, comes the same from files and from the API server, and an input error is
// exit 2. `check --junit FILE` writes the report beside the text verdicts, with one exit code.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import t from '../helpers/parts.js';
import { parseAllDocuments } from 'yaml';
import { readObjectFile } from '../../src/cluster/object-files.js';
import { FakeApiServer } from '../helpers/fake-apiserver.js';
import { runCli, tempDir, writeFiles } from '../helpers/run-cli.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const DEMO_STATE = fixture('demo-state.yaml');
const REMOVAL = fixture('demo-aws-without-1.31.7.yaml');

const docs = (text: string) =>
  parseAllDocuments(text).map(
    (d) => d.toJS() as { kind: string; metadata: Record<string, unknown>; spec: Record<string, unknown> },
  );

t.test('from files: the profiles whole, each Shoot what the rules and the forecast read, nothing else', async (t) => {
  const run = await runCli(['state', 'export', '--state', DEMO_STATE]);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /^# The landscape as version-policy's rules see it/);
  const objects = docs(run.stdout);
  t.same(
    objects.map(
      (o) => `${o.kind} ${String((o.metadata.namespace as string | undefined) ?? '')}/${String(o.metadata.name)}`,
    ),
    [
      'CloudProfile /aws',
      'NamespacedCloudProfile garden-dev/aws-extended',
      'Shoot garden-dev/dev-cluster',
      'Shoot garden-dev/experiments',
      'Shoot garden-ops/monitoring',
      'Shoot garden-prod/payments',
    ],
    'every object, in a stable order',
  );
  const source = (await readObjectFile(DEMO_STATE)).map((o) => o.object);
  t.same(objects[0]?.spec, source.find((o) => o.kind === 'CloudProfile')?.spec, 'the profile spec as it is');
  const payments = objects.find((o) => o.metadata.name === 'payments');
  t.same(payments, {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: 'payments', namespace: 'garden-prod' },
    spec: {
      cloudProfile: { kind: 'CloudProfile', name: 'aws' },
      kubernetes: { version: '1.32.5' },
      provider: {
        workers: [
          { name: 'general', machine: { type: 'm5.xlarge', image: { name: 'gardenlinux', version: '1877.2.0' } } },
          {
            name: 'batch',
            kubernetes: { version: '1.31.7' },
            machine: { type: 'm5.large', image: { name: 'ubuntu', version: '24.4.20251001' } },
          },
        ],
      },
      maintenance: {
        timeWindow: (
          source.find((o) => o.metadata.name === 'payments')?.spec as { maintenance: { timeWindow: unknown } }
        ).maintenance.timeWindow,
      },
    },
  });
  for (const gone of ['credentialsBindingName', 'region', 'networking', 'uid', 'resourceVersion', 'status'])
    t.notMatch(run.stdout, new RegExp(`\\b${gone}:`), `no ${gone}`);
});

t.test('the snapshot judges as the full state does: the in-use removal is denied', async (t) => {
  const dir = await tempDir(t);
  const exported = await runCli(['state', 'export', '--state', DEMO_STATE]);
  const [state = ''] = await writeFiles(dir, { 'landscape.yaml': exported.stdout });
  const [full, snapshot] = await Promise.all([
    runCli(['check', '--now', '2026-09-01T00:00:00Z', '--output', 'json', '--state', DEMO_STATE, REMOVAL]),
    runCli(['check', '--now', '2026-09-01T00:00:00Z', '--output', 'json', '--state', state, REMOVAL]),
  ]);
  t.equal(snapshot.code, 1);
  t.same(
    JSON.parse(snapshot.stdout),
    JSON.parse(full.stdout),
    'the same verdict, violations, warnings and stored object',
  );
});

t.test('from the API server, read-only: the same snapshot', async (t) => {
  const fake = await FakeApiServer.start();
  t.teardown(() => fake.close());
  for (const o of await readObjectFile(DEMO_STATE)) fake.add(o.object);
  const dir = await tempDir(t);
  await writeFiles(dir, { 'cluster.yaml': `cluster: {kubeconfig: ${JSON.stringify(fake.kubeconfigPath)}}\n` });
  const [live, files] = await Promise.all([
    runCli(['state', 'export', '--cluster', '--config', join(dir, 'cluster.yaml')]),
    runCli(['state', 'export', '--state', DEMO_STATE]),
  ]);
  t.equal(live.code, 0, live.stderr);
  t.equal(live.stdout, files.stdout);
  t.same([...new Set(fake.requests.map((r) => r.method))], ['GET'], 'nothing but GET');
});

t.test('errors are exit 2 with one line; an empty landscape is an empty List', async (t) => {
  const dir = await tempDir(t);
  const [empty] = await writeFiles(dir, { 'empty.yaml': 'apiVersion: v1\nkind: List\nitems: []\n' });
  const [bare, none, missing, both, nothing] = await Promise.all([
    runCli(['state']),
    runCli(['state', 'export']),
    runCli(['state', 'export', '--state', join(dir, 'missing.yaml')]),
    runCli(['state', 'export', '--cluster', '--state', DEMO_STATE]),
    runCli(['state', 'export', '--state', empty ?? '']),
  ]);
  t.equal(bare.code, 2);
  t.equal(bare.stderr, 'version-policy: missing command: state export (writes the snapshot; --help says more)\n');
  t.equal(none.code, 2);
  t.equal(none.stderr, 'version-policy: state export needs --cluster (the current kubeconfig) or --state FILE\n');
  t.equal(missing.code, 2);
  t.match(missing.stderr, /^version-policy: [^\n]*missing\.yaml[^\n]*\n$/);
  t.equal(both.code, 2);
  t.match(both.stderr, /cannot be used with/);
  t.equal(nothing.code, 0, nothing.stderr);
  const [state = ''] = await writeFiles(dir, { 'landscape.yaml': nothing.stdout });
  const check = await runCli(['check', '--require-state', '--state', state, REMOVAL]);
  t.equal(check.code, 0, `an empty landscape is a state: nothing uses 1.31.7\n${check.stderr}`);
});

t.test('check --junit FILE: the report and the text verdicts from one run, one exit code', async (t) => {
  const dir = await tempDir(t);
  const report = join(dir, 'report.xml');
  const denied = await runCli(['check', '--state', DEMO_STATE, '--require-state', '--junit', report, REMOVAL]);
  t.equal(denied.code, 1);
  t.match(denied.stdout, /^DENIED CloudProfile aws \(UPDATE\)/);
  const xml = new XMLParser({ ignoreAttributes: false }).parse(await readFile(report, 'utf8')) as unknown;
  t.match(xml, { testsuites: { '@_tests': '1', '@_failures': '1' } });

  // An UPDATE that removes a version needs the landscape; a CREATE would not.
  const stateless = await runCli([
    'check',
    '--require-state',
    '--junit',
    report,
    '--old',
    fixture('demo-aws.yaml'),
    REMOVAL,
  ]);
  t.equal(stateless.code, 2, '--require-state without a state');
  t.match(new XMLParser({ ignoreAttributes: false }).parse(await readFile(report, 'utf8')), {
    testsuites: { '@_errors': '1' },
  });

  const unreadable = await runCli(['check', '--junit', report, join(dir, 'missing.yaml')]);
  t.equal(unreadable.code, 2);
  t.match(
    await readFile(report, 'utf8'),
    /<error message="[^"]*missing\.yaml: cannot read/,
    'an input error is in the report too',
  );

  const unwritable = await runCli(['check', '--state', DEMO_STATE, '--junit', join(dir, 'no/such/dir.xml'), REMOVAL]);
  t.equal(unwritable.code, 2);
  t.match(unwritable.stderr, /^version-policy: --junit [^\n]*no\/such\/dir\.xml: cannot write the report/);
});
