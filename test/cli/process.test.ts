// The built CLI as a process, the way a CI job runs it: the other CLI tests call its main() in-process
// (test/helpers/run-cli.ts), so this file holds what only a process shows. The bin starts main(),
// each command's exit status and streams reach the shell, and standard input is the process's.
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { spawnCli, tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';
import { cloudProfile } from '../helpers/objects.js';
import { spawnCheckCli } from './check-run.js';

const NOW = '2026-09-01T00:00:00Z';
const STATE = new URL('../fixtures/demo-state.yaml', import.meta.url).pathname;
const AWS = new URL('../fixtures/demo-aws.yaml', import.meta.url).pathname;
const WITHOUT_IN_USE = new URL('../fixtures/demo-aws-without-1.31.7.yaml', import.meta.url).pathname;

t.test(
  'check: exit 0, 1 and 2 reach the shell, with the verdicts on stdout and one error line on stderr',
  async (t) => {
    const dir = await tempDir(t);
    await writeFiles(dir, {
      'good.yaml': yamlDocs(cloudProfile({ name: 'good', kubernetes: ['1.31.0'] })),
      'bad.yaml': yamlDocs(cloudProfile({ name: 'bad', kubernetes: ['v1.31.0'] })),
      'broken.yaml': 'a: [b\n',
    });
    const [allowed, denied, input, usage] = await Promise.all([
      spawnCli(['check', '--now', NOW, 'good.yaml'], dir),
      spawnCli(['check', '--now', NOW, 'bad.yaml'], dir),
      spawnCli(['check', '--now', NOW, 'broken.yaml'], dir),
      spawnCli(['check', '--no-such-flag', 'good.yaml'], dir),
    ]);
    t.equal(allowed.code, 0, allowed.stderr);
    t.match(allowed.stdout, /^ALLOWED CloudProfile good \(CREATE\)/);
    t.equal(denied.code, 1, denied.stderr);
    t.match(denied.stdout, /^DENIED CloudProfile bad \(CREATE\)[^\n]*\n {2}\[K8S-VERSIONS\]/);
    for (const [what, run] of [
      ['bad YAML', input],
      ['an unknown flag', usage],
    ] as const) {
      t.equal(run.code, 2, `${what}: exit 2`);
      t.match(run.stderr, /^[^\n]+\n$/, `${what}: one line on stderr`);
    }
    t.match(input.stderr, /^version-policy: broken\.yaml:\d+: not valid YAML/);
    t.match(usage.stderr, /unknown option '--no-such-flag'/);
  },
);

t.test("check reads the process's standard input for -, and --output json is a document even on error", async (t) => {
  const [stdin, error] = await Promise.all([
    spawnCheckCli(['check', '--now', NOW, '--output', 'json', '-'], {
      input: yamlDocs(cloudProfile({ name: 'piped', kubernetes: ['1.31.0'] })),
    }),
    spawnCheckCli(['check', '--output', 'json', '-']),
  ]);
  t.equal(stdin.code, 0, stdin.stderr);
  t.match(JSON.parse(stdin.stdout), { results: [{ name: 'piped', allowed: true }] });
  t.equal(error.code, 2);
  t.match(JSON.parse(error.stdout), { error: { message: /<stdin>/ } });
});

t.test('--version, and one run of each offline command against the demo state', async (t) => {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const [version, inUse, explain, forecast, state] = await Promise.all([
    spawnCli(['--version']),
    spawnCli(['check', '--state', STATE, '--old', AWS, WITHOUT_IN_USE]),
    spawnCli(['explain', '--state', STATE, '--now', NOW, AWS]),
    spawnCli(['forecast', '--state', STATE, '--now', NOW, '--days', '30', '--output', 'json']),
    spawnCli(['state', 'export', '--state', STATE]),
  ]);
  t.equal(version.stdout, `${pkg.version}\n`);
  t.equal(inUse.code, 1, 'removing a version a Shoot of the demo state runs');
  t.match(inUse.stdout, /\[IN-USE\] spec\.kubernetes\.versions: unable to delete Kubernetes version "1\.31\.7"/);
  t.equal(explain.code, 0, explain.stderr);
  t.match(explain.stdout, /1\.31\.7/);
  t.equal(forecast.code, 0, forecast.stderr);
  t.type(JSON.parse(forecast.stdout), 'object');
  t.equal(state.code, 0, state.stderr);
  t.match(state.stdout, /^# The landscape as version-policy's rules see it/);
});
