// `version-policy check` end to end: the built CLI on YAML files in a temp dir. These tests need
// no rule to deny, so they hold whichever rules have landed; denials are in check-rules.test.ts.
import { readFile } from 'node:fs/promises';
import t, { type Test } from '../helpers/parts.js';
import type { PolicedObject } from '../../src/api/types.js';
import { cloudProfile, namespacedProfile, shoot } from '../helpers/objects.js';
import { tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';
import { operations, parseReport, runCheckCli, verdicts } from './check-run.js';

const NOW = '2026-09-01T00:00:00Z';
// Lifecycle defaulting off: these tests compare the printed object with the input.
const CONFIG = 'defaulting:\n  lifecycle:\n    enabled: false\n';

const aws = cloudProfile({ name: 'aws', kubernetes: ['1.30.0', '1.31.0'] });
const azure = cloudProfile({ name: 'azure', kubernetes: ['1.31.0'] });
const team = namespacedProfile({ name: 'team', namespace: 'garden-dev', parent: 'aws' });
const web = shoot({ name: 'web', namespace: 'garden-dev', profile: 'aws', version: '1.31.0' });
const api = shoot({ name: 'api', namespace: 'garden-dev', profile: 'aws', version: '1.31.0' });
const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'garden' },
  data: { colour: 'blue' },
};
const secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'token' },
  stringData: { token: 'hunter2-do-not-print' },
};

/** Writes the files, runs `check --now NOW --config cfg.yaml <args>` in their directory. */
async function check(t: Test, files: Record<string, string>, args: string[], input?: string) {
  const dir = await tempDir(t);
  await writeFiles(dir, { 'cfg.yaml': CONFIG, ...files });
  return runCheckCli(['check', '--now', NOW, '--config', 'cfg.yaml', ...args], {
    cwd: dir,
    ...(input === undefined ? {} : { input }),
  });
}

async function checkJson(t: Test, files: Record<string, string>, args: string[], input?: string) {
  const run = await check(t, files, ['--output', 'json', ...args], input);
  t.equal(run.stderr, '', 'nothing on stderr');
  const report = parseReport(run);
  return { ...run, report, results: report.results };
}

t.test(
  'text output: one verdict line per object, in file order, then a summary; exit 0 when all are allowed',
  async (t) => {
    const run = await check(t, { 'state.yaml': yamlDocs(aws), 'apply.yaml': yamlDocs(team, web, azure) }, [
      '--state',
      'state.yaml',
      'apply.yaml',
    ]);
    t.equal(run.code, 0, run.stderr);
    t.same(verdicts(run.stdout), [
      'ALLOWED NamespacedCloudProfile garden-dev/team (CREATE)',
      'ALLOWED Shoot garden-dev/web (CREATE)',
      'ALLOWED CloudProfile azure (CREATE)',
    ]);
    t.match(
      run.stdout,
      /^ALLOWED NamespacedCloudProfile garden-dev\/team \(CREATE\) at apply\.yaml:1 \(document 1\)$/m,
      'each verdict names its file, line and document',
    );
    t.equal(
      run.stdout.split('\n').at(-2),
      '3 objects: 3 allowed, 0 denied, 0 skipped',
      'the summary closes the output',
    );
  },
);

t.test('json output has exactly the documented shape', async (t) => {
  const run = await checkJson(t, { 'state.yaml': yamlDocs(aws), 'apply.yaml': yamlDocs(azure, web) }, [
    '--state',
    'state.yaml',
    'apply.yaml',
  ]);
  t.equal(run.code, 0);
  t.same(Object.keys(run.report), ['results', 'skipped', 'summary']);
  t.equal(run.results.length, 2);
  for (const r of run.results) {
    t.same(
      Object.keys(r),
      [
        'file',
        'document',
        'line',
        'kind',
        'namespace',
        'name',
        'operation',
        'allowed',
        'violations',
        'warnings',
        'notes',
        'defaulted',
        'forecast',
        'object',
      ],
      `${r.kind} ${r.name}`,
    );
    t.same(r.violations, []);
    t.same(r.notes, [], 'judged against a state: nothing left unchecked');
    t.same(r.defaulted, [], 'a complete object: nothing defaulted');
    t.type(r.warnings, Array);
  }
  const [cp, sh] = run.results;
  t.match(
    cp,
    {
      file: 'apply.yaml',
      document: 1,
      line: 1,
      kind: 'CloudProfile',
      namespace: null,
      name: 'azure',
      operation: 'CREATE',
      allowed: true,
    },
    'a cluster-scoped object has namespace null',
  );
  t.match(sh, {
    file: 'apply.yaml',
    document: 2,
    kind: 'Shoot',
    namespace: 'garden-dev',
    name: 'web',
    operation: 'CREATE',
    allowed: true,
  });
  t.same(cp?.object, azure, 'the object as it would be stored');
  t.same(sh?.object, web);
  t.same(run.report.skipped, []);
  t.same(run.report.summary, { objects: 2, allowed: 2, denied: 0, skipped: 0, notFullyChecked: 0 });
});

t.test('an object found in the state by kind, namespace and name is an UPDATE, anything else a CREATE', async (t) => {
  const elsewhere = { ...team, metadata: { ...team.metadata, namespace: 'garden-other' } };
  const run = await checkJson(
    t,
    {
      'profiles.yaml': yamlDocs(aws, team),
      'shoots.yaml': yamlDocs(web),
      'apply.yaml': yamlDocs(aws, azure, team, elsewhere, web, api),
    },
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
  const run = await checkJson(
    t,
    { 'state.yaml': yamlDocs(aws), 'one.yaml': yamlDocs(azure), 'two.yaml': yamlDocs(azure) },
    ['--state', 'state.yaml', 'one.yaml', 'two.yaml'],
  );
  t.same(
    operations(run.results),
    ['CREATE CloudProfile -/azure', 'CREATE CloudProfile -/azure'],
    'the second azure is not an update of the first',
  );
  t.same(
    run.results.map((r) => [r.file, r.document, r.line]),
    [
      ['one.yaml', 1, 1],
      ['two.yaml', 1, 1],
    ],
  );
});

t.test('--delete judges the files as DELETE requests; nothing is stored', async (t) => {
  const run = await check(t, { 'state.yaml': yamlDocs(aws, azure, web), 'gone.yaml': yamlDocs(web, azure) }, [
    '--state',
    'state.yaml',
    '--delete',
    'gone.yaml',
  ]);
  t.equal(run.code, 0, run.stderr);
  t.same(verdicts(run.stdout), ['ALLOWED Shoot garden-dev/web (DELETE)', 'ALLOWED CloudProfile azure (DELETE)']);

  const json = await checkJson(t, { 'gone.yaml': yamlDocs(azure) }, ['--delete', 'gone.yaml']);
  t.match(
    json.results,
    [{ operation: 'DELETE', object: null, defaulted: [] }],
    'a DELETE of an object the state lacks is still a DELETE',
  );
});

t.test('a file can mix kinds, documents and kind: List, and JSON is read too; each result has its place', async (t) => {
  const list = { apiVersion: 'v1', kind: 'List', items: [azure, web] };
  const run = await checkJson(
    t,
    {
      'state.yaml': yamlDocs(aws),
      'mixed.yaml': `# a comment first\n${yamlDocs(team, list, api)}`,
      'one.json': JSON.stringify(cloudProfile({ name: 'gcp' })),
    },
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
  t.same(
    run.results.map((r) => [r.file, r.document]),
    [
      ['mixed.yaml', 1],
      ['mixed.yaml', 2],
      ['mixed.yaml', 2],
      ['mixed.yaml', 3],
      ['one.json', 1],
    ],
    'a List is one document',
  );
  const lines = run.results.map((r) => r.line);
  t.equal(lines[0], 2, 'the line after the comment');
  t.ok(lines[1]! < lines[2]! && lines[2]! < lines[3]!, `each List item has its own line: ${lines.join(',')}`);
});

t.test(
  'a state file can be a List too, even an empty one, and a namespaced object without a namespace is in "default"',
  async (t) => {
    const bare = (o: PolicedObject) => ({ ...o, metadata: { name: o.metadata.name } });
    const run = await checkJson(
      t,
      {
        'state.yaml': yamlDocs({ apiVersion: 'v1', kind: 'List', items: [aws, bare(web)] }),
        'none.yaml': yamlDocs({ apiVersion: 'v1', kind: 'List', items: [] }),
        'apply.yaml': yamlDocs(bare(web)),
      },
      ['--state', 'state.yaml', '--state', 'none.yaml', 'apply.yaml'],
    );
    t.same(operations(run.results), ['UPDATE Shoot default/web']);
    t.same(run.results[0]?.notes, [], 'an empty List is a state that says "none", not a missing state');
  },
);

t.test('--now takes any RFC 3339 offset; --feature-gates and --output text are accepted', async (t) => {
  const run = await check(t, { 'apply.yaml': yamlDocs(azure) }, [
    '--now',
    '2026-09-01T02:00:00+02:00',
    '--feature-gates',
    'VersionClassificationLifecycle=false',
    '--output',
    'text',
    'apply.yaml',
  ]);
  t.equal(run.code, 0, run.stderr);
  t.same(verdicts(run.stdout), ['ALLOWED CloudProfile azure (CREATE)']);
});

t.test('- reads standard input: YAML or JSON, multi-document, alone or with files', async (t) => {
  const [yaml, json, mixed] = await Promise.all([
    checkJson(t, {}, ['-'], yamlDocs(azure, configMap, aws)),
    checkJson(t, {}, ['-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [azure, aws] })),
    checkJson(t, { 'a.yaml': yamlDocs(aws) }, ['a.yaml', '-', '--delete'], yamlDocs(azure)),
  ]);
  t.equal(yaml.code, 0, yaml.stderr);
  t.same(
    yaml.results.map((r) => [r.file, r.document, r.name]),
    [
      ['<stdin>', 1, 'azure'],
      ['<stdin>', 3, 'aws'],
    ],
  );
  t.match(yaml.report.skipped, [{ file: '<stdin>', document: 2, kind: 'ConfigMap' }]);
  t.same(
    json.results.map((r) => [r.file, r.document, r.name]),
    [
      ['<stdin>', 1, 'azure'],
      ['<stdin>', 1, 'aws'],
    ],
  );
  t.same(
    mixed.results.map((r) => [r.file, r.operation, r.name]),
    [
      ['a.yaml', 'DELETE', 'aws'],
      ['<stdin>', 'DELETE', 'azure'],
    ],
    'in argument order',
  );
});

t.test('documents of other kinds are skipped with a note; --strict-kinds makes them an error', async (t) => {
  const mixedList = { apiVersion: 'v1', kind: 'List', items: [configMap, azure] };
  const files = { 'apply.yaml': yamlDocs(aws, configMap, secret, mixedList) };
  const [text, json, strict, onlyOthers] = await Promise.all([
    check(t, files, ['apply.yaml']),
    checkJson(t, files, ['apply.yaml']),
    check(t, files, ['--strict-kinds', 'apply.yaml']),
    check(t, { 'cm.yaml': yamlDocs(configMap) }, ['cm.yaml']),
  ]);

  t.equal(text.code, 0, text.stderr);
  t.same(verdicts(text.stdout), ['ALLOWED CloudProfile aws (CREATE)', 'ALLOWED CloudProfile azure (CREATE)']);
  const skips = text.stdout.split('\n').filter((l) => l.startsWith('SKIPPED '));
  t.same(
    skips.map((l) => l.replace(/ at .*/, '')),
    ['SKIPPED ConfigMap garden/settings', 'SKIPPED Secret token', 'SKIPPED ConfigMap garden/settings'],
  );
  t.match(skips[1], /at apply\.yaml:\d+ \(document 3\): not a CloudProfile, NamespacedCloudProfile or Shoot/);
  t.equal(text.stdout.split('\n').at(-2), '5 objects: 2 allowed, 0 denied, 3 skipped');
  t.notMatch(
    text.stdout + json.stdout,
    /hunter2|blue/,
    'nothing of a skipped document but its kind and name is printed',
  );

  t.equal(json.code, 0);
  t.same(
    json.report.skipped.map((s) => [s.apiVersion, s.kind, s.namespace, s.name, s.document]),
    [
      ['v1', 'ConfigMap', 'garden', 'settings', 2],
      ['v1', 'Secret', null, 'token', 3],
      ['v1', 'ConfigMap', 'garden', 'settings', 4],
    ],
  );
  t.match(json.report.summary, { objects: 5, allowed: 2, skipped: 3 });

  t.equal(strict.code, 2, '--strict-kinds: exit 2');
  t.equal(strict.stdout, '');
  t.match(strict.stderr, /^version-policy: apply\.yaml:\d+: unsupported kind "ConfigMap" \(apiVersion "v1"\)/);

  t.equal(onlyOthers.code, 0, 'a file of other kinds only is not an error either');
  t.equal(
    onlyOthers.stdout,
    `SKIPPED ConfigMap garden/settings at cm.yaml:1 (document 1): not a CloudProfile, NamespacedCloudProfile or Shoot of core.gardener.cloud/v1beta1\n1 object: 0 allowed, 0 denied, 1 skipped\n`,
  );
});

t.test('--quiet prints only what is denied: nothing when all is allowed', async (t) => {
  const run = await check(t, { 'apply.yaml': yamlDocs(aws, configMap) }, ['--quiet', 'apply.yaml']);
  t.equal(run.code, 0);
  t.equal(run.stdout, '', 'no verdicts, no skips, no summary');
  t.equal(run.stderr, '');
  // The denied side is in check-rules.test.ts, where a rule denies.
});

t.test('--version prints the package version; --help documents the exit codes', async (t) => {
  const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  const [v, help] = await Promise.all([runCheckCli(['--version']), runCheckCli(['check', '--help'])]);
  t.equal(v.code, 0);
  t.equal(v.stdout, `${version}\n`);
  t.equal(help.code, 0);
  t.match(
    help.stdout,
    /Exit codes:\n {2}0 {2}every object is allowed[\s\S]*\n {2}1 {2}at least one object is denied[\s\S]*\n {2}2 {2}usage or input error/,
  );
  for (const flag of [
    '--old',
    '--delete',
    '--state',
    '--cluster',
    '--output',
    '--quiet',
    '--strict-kinds',
    '--require-state',
    '--no-mutate',
  ])
    t.match(help.stdout, flag);
});
