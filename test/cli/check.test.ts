// `version-policy check` end to end: the built CLI on YAML files in a temp dir. These tests need
// no rule to deny, so they hold whichever rules have landed; denials are in check-rules.test.ts.
import t, { type Test } from 'tap';
import type { CheckResult } from '../../src/cli/check-output.js';
import type { PolicedObject } from '../../src/policy/types.js';
import { cloudProfile, namespacedProfile, shoot } from '../helpers/objects.js';
import { runCli, tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';

const NOW = '2026-09-01T00:00:00Z';
// Lifecycle defaulting off: these tests compare the printed object with the input.
const CONFIG = 'defaulting:\n  lifecycle:\n    enabled: false\n';

const aws = cloudProfile({ name: 'aws', kubernetes: ['1.30.0', '1.31.0'] });
const azure = cloudProfile({ name: 'azure', kubernetes: ['1.31.0'] });
const team = namespacedProfile({ name: 'team', namespace: 'garden-dev', parent: 'aws' });
const web = shoot({ name: 'web', namespace: 'garden-dev', profile: 'aws', version: '1.31.0' });
const api = shoot({ name: 'api', namespace: 'garden-dev', profile: 'aws', version: '1.31.0' });

/** Writes the files, runs `check --now NOW --config cfg.yaml <args>` in their directory. */
async function check(t: Test, files: Record<string, string>, args: string[]) {
  const dir = await tempDir(t);
  await writeFiles(dir, { 'cfg.yaml': CONFIG, ...files });
  return runCli(['check', '--now', NOW, '--config', 'cfg.yaml', ...args], dir);
}

async function checkJson(t: Test, files: Record<string, string>, args: string[]) {
  const run = await check(t, files, ['--output', 'json', ...args]);
  t.equal(run.stderr, '', 'nothing on stderr');
  return { ...run, results: (JSON.parse(run.stdout) as { results: CheckResult[] }).results };
}

/** The verdict lines of text output (details are indented). */
const verdicts = (stdout: string) => stdout.split('\n').filter((l) => l !== '' && !l.startsWith(' '));
const operations = (results: CheckResult[]) => results.map((r) => `${r.operation} ${r.kind} ${r.namespace ?? '-'}/${r.name}`);

t.test('text output: one verdict line per object, in file order, exit 0 when all are allowed', async (t) => {
  const run = await check(t, { 'state.yaml': yamlDocs(aws), 'apply.yaml': yamlDocs(team, web, azure) }, ['--state', 'state.yaml', 'apply.yaml']);
  t.equal(run.code, 0, run.stderr);
  t.same(verdicts(run.stdout), [
    'ALLOWED NamespacedCloudProfile garden-dev/team (CREATE)',
    'ALLOWED Shoot garden-dev/web (CREATE)',
    'ALLOWED CloudProfile azure (CREATE)',
  ]);
});

t.test('json output has exactly the documented shape', async (t) => {
  const run = await checkJson(t, { 'state.yaml': yamlDocs(aws), 'apply.yaml': yamlDocs(azure, web) }, ['--state', 'state.yaml', 'apply.yaml']);
  t.equal(run.code, 0);
  t.same(Object.keys(JSON.parse(run.stdout) as object), ['results']);
  t.equal(run.results.length, 2);
  for (const r of run.results) {
    t.same(Object.keys(r), ['kind', 'namespace', 'name', 'operation', 'allowed', 'violations', 'warnings', 'object'], `${r.kind} ${r.name}`);
    t.same(r.violations, []);
    t.type(r.warnings, Array);
  }
  const [cp, sh] = run.results;
  t.match(cp, { kind: 'CloudProfile', namespace: null, name: 'azure', operation: 'CREATE', allowed: true }, 'a cluster-scoped object has namespace null');
  t.match(sh, { kind: 'Shoot', namespace: 'garden-dev', name: 'web', operation: 'CREATE', allowed: true });
  t.same(cp?.object, azure, 'the object as it would be stored');
  t.same(sh?.object, web);
});

t.test('an object found in the state by kind, namespace and name is an UPDATE, anything else a CREATE', async (t) => {
  const elsewhere = { ...team, metadata: { ...team.metadata, namespace: 'garden-other' } };
  const run = await checkJson(
    t,
    { 'profiles.yaml': yamlDocs(aws, team), 'shoots.yaml': yamlDocs(web), 'apply.yaml': yamlDocs(aws, azure, team, elsewhere, web, api) },
    ['--state', 'profiles.yaml', '--state', 'shoots.yaml', 'apply.yaml'],
  );
  t.equal(run.code, 0);
  t.same(operations(run.results), [
    'UPDATE CloudProfile -/aws',
    'CREATE CloudProfile -/azure',
    'UPDATE NamespacedCloudProfile garden-dev/team',
    'CREATE NamespacedCloudProfile garden-other/team',
    'UPDATE Shoot garden-dev/web',
    'CREATE Shoot garden-dev/api',
  ]);
});

t.test('each object is judged against the state, never against the other files', async (t) => {
  const run = await checkJson(t, { 'state.yaml': yamlDocs(aws), 'one.yaml': yamlDocs(azure), 'two.yaml': yamlDocs(azure) }, ['--state', 'state.yaml', 'one.yaml', 'two.yaml']);
  t.same(operations(run.results), ['CREATE CloudProfile -/azure', 'CREATE CloudProfile -/azure'], 'the second azure is not an update of the first');
});

t.test('--delete judges the files as DELETE requests; nothing is stored', async (t) => {
  const run = await check(t, { 'state.yaml': yamlDocs(aws, azure, web), 'gone.yaml': yamlDocs(web, azure) }, ['--state', 'state.yaml', '--delete', 'gone.yaml']);
  t.equal(run.code, 0, run.stderr);
  t.same(verdicts(run.stdout), ['ALLOWED Shoot garden-dev/web (DELETE)', 'ALLOWED CloudProfile azure (DELETE)']);

  const json = await checkJson(t, { 'gone.yaml': yamlDocs(azure) }, ['--delete', 'gone.yaml']);
  t.match(json.results, [{ operation: 'DELETE', object: null }], 'a DELETE of an object the state lacks is still a DELETE');
});

t.test('a file can mix kinds, documents and kind: List, and JSON is read too', async (t) => {
  const list = { apiVersion: 'v1', kind: 'List', items: [azure, web] };
  const run = await checkJson(
    t,
    { 'state.yaml': yamlDocs(aws), 'mixed.yaml': `# a comment first\n${yamlDocs(team, list, api)}`, 'one.json': JSON.stringify(cloudProfile({ name: 'gcp' })) },
    ['--state', 'state.yaml', 'mixed.yaml', 'one.json'],
  );
  t.equal(run.code, 0);
  t.same(operations(run.results), [
    'CREATE NamespacedCloudProfile garden-dev/team',
    'CREATE CloudProfile -/azure',
    'CREATE Shoot garden-dev/web',
    'CREATE Shoot garden-dev/api',
    'CREATE CloudProfile -/gcp',
  ]);
});

t.test('a state file can be a List too, and a namespaced object without a namespace is in "default"', async (t) => {
  const bare = (o: PolicedObject) => ({ ...o, metadata: { name: o.metadata.name } });
  const run = await checkJson(
    t,
    { 'state.yaml': yamlDocs({ apiVersion: 'v1', kind: 'List', items: [aws, bare(web)] }), 'apply.yaml': yamlDocs(bare(web)) },
    ['--state', 'state.yaml', 'apply.yaml'],
  );
  t.same(operations(run.results), ['UPDATE Shoot default/web']);
});

t.test('--now takes any RFC 3339 offset; --feature-gates and --output text are accepted', async (t) => {
  const run = await check(t, { 'apply.yaml': yamlDocs(azure) }, ['--now', '2026-09-01T02:00:00+02:00', '--feature-gates', 'VersionClassificationLifecycle=false', '--output', 'text', 'apply.yaml']);
  t.equal(run.code, 0, run.stderr);
  t.same(verdicts(run.stdout), ['ALLOWED CloudProfile azure (CREATE)']);
});
