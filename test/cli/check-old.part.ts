// `check --old`: each FILE object is an UPDATE of its old self, read from a file or from git
// (`REF:PATH`, through the real git binary in a temp repository), and --prune judges what the change
// removed. How --old and --state combine: the old object wins as oldObject, the state still gives
// the Shoots (IN-USE is the rule that shows it).
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from '../helpers/parts.js';
import { cloudProfile, shoot } from '../helpers/objects.js';
import { CLEAN_ENV, tempDir, writeFiles, yamlDocs } from '../helpers/run-cli.js';
import { operations, parseReport, rulesOf, runCheckCli } from './check-run.js';

const git = promisify(execFile);
const NOW = '2026-09-01T00:00:00Z';
const CONFIG = 'defaulting: {lifecycle: {enabled: false}}\n';

const before = cloudProfile({ name: 'aws', kubernetes: ['1.30.0', '1.31.0'] });
const after = cloudProfile({ name: 'aws', kubernetes: ['1.31.0'] });
const azure = cloudProfile({ name: 'azure', kubernetes: ['1.31.0'] });
const onOld = shoot({ name: 'web', namespace: 'garden-dev', profile: 'aws', version: '1.30.0' });

async function check(t: Test, files: Record<string, string>, args: string[], env?: NodeJS.ProcessEnv) {
  const dir = await tempDir(t);
  await writeFiles(dir, { 'cfg.yaml': CONFIG, ...files });
  const run = await runCheckCli(['check', '--now', NOW, '--config', 'cfg.yaml', '--output', 'json', ...args], {
    cwd: dir,
    ...(env ? { env } : {}),
  });
  return { ...run, report: run.code === 2 ? undefined : parseReport(run) };
}

t.test('--old FILE: an object found there is an UPDATE of it; the others are CREATEs', async (t) => {
  const run = await check(
    t,
    { 'old.yaml': yamlDocs(before), 'new.yaml': yamlDocs(after, azure), 'shoots.yaml': yamlDocs(onOld) },
    ['--old', 'old.yaml', '--state', 'shoots.yaml', 'new.yaml'],
  );
  t.equal(run.code, 1, run.stderr);
  t.same(operations(run.report?.results ?? []), ['UPDATE CloudProfile -/aws', 'CREATE CloudProfile -/azure']);
  const [aws] = run.report?.results ?? [];
  t.same(rulesOf(aws), ['IN-USE'], 'removing 1.30.0, which the Shoot of the state runs, is denied');
  t.match(aws?.violations[0]?.message, /garden-dev\/web/);
});

t.test('--old wins over --state as the old object; the state still gives the Shoots', async (t) => {
  const files = { 'before.yaml': yamlDocs(before), 'after.yaml': yamlDocs(after) };
  const [oldWins, oldAllows, stateOnly] = await Promise.all([
    // The state holds the profile as it will be: judged against the state alone this is a no-op.
    check(t, { ...files, 'state.yaml': yamlDocs(after, onOld) }, [
      '--state',
      'state.yaml',
      '--old',
      'before.yaml',
      'after.yaml',
    ]),
    // The state holds the old profile, --old the new one: nothing is removed relative to --old.
    check(t, { ...files, 'state.yaml': yamlDocs(before, onOld) }, [
      '--state',
      'state.yaml',
      '--old',
      'after.yaml',
      'after.yaml',
    ]),
    check(t, { ...files, 'state.yaml': yamlDocs(after, onOld) }, ['--state', 'state.yaml', 'after.yaml']),
  ]);
  t.equal(oldWins.code, 1, 'the removal relative to --old is judged, with the Shoot from the state');
  t.same(rulesOf(oldWins.report?.results[0]), ['IN-USE']);
  t.same(oldWins.report?.results[0]?.notes, [], 'the state is there: IN-USE was checked');
  t.equal(oldAllows.code, 0, "the state's copy is not the old object when --old has one");
  t.equal(stateOnly.code, 0, "without --old the state's copy is the old object");
  t.match(stateOnly.report?.results, [{ operation: 'UPDATE', allowed: true }]);
});

t.test('--old without a state: the removal is an UPDATE whose IN-USE was not checked, and says so', async (t) => {
  const run = await check(t, { 'old.yaml': yamlDocs(before), 'new.yaml': yamlDocs(after) }, [
    '--old',
    'old.yaml',
    'new.yaml',
  ]);
  t.equal(run.code, 0, 'nothing to deny without Shoots');
  t.match(run.report?.results, [{ operation: 'UPDATE', allowed: true }]);
  t.match(run.report?.results[0]?.notes, [/^IN-USE was not checked: no --state or --cluster was given$/]);
});

t.test('an --old object that no FILE holds is skipped with a note, or judged as a DELETE with --prune', async (t) => {
  const files = {
    'old.yaml': yamlDocs(before, azure),
    'new.yaml': yamlDocs(after),
    'state.yaml': yamlDocs(shoot({ name: 'db', namespace: 'garden-dev', profile: 'azure' })),
  };
  const [skipped, pruned, pruneAlone] = await Promise.all([
    check(t, files, ['--old', 'old.yaml', '--state', 'state.yaml', 'new.yaml']),
    check(t, files, ['--old', 'old.yaml', '--state', 'state.yaml', '--prune', 'new.yaml']),
    check(t, files, ['--prune', 'new.yaml']),
  ]);
  t.equal(skipped.code, 0);
  t.match(skipped.report?.skipped, [
    { file: 'old.yaml', document: 2, kind: 'CloudProfile', name: 'azure', reason: /on the old side only.*--prune/ },
  ]);

  t.equal(pruned.code, 1, 'deleting a profile a Shoot uses is denied');
  t.same(operations(pruned.report?.results ?? []), ['UPDATE CloudProfile -/aws', 'DELETE CloudProfile -/azure']);
  t.match(pruned.report?.results[1], { file: 'old.yaml', document: 2, allowed: false, object: null });
  t.same(rulesOf(pruned.report?.results[1]), ['IN-USE']);
  t.same(pruned.report?.skipped, []);

  // A pipeline that builds its --old list from the base branch has none when the folder is new.
  t.equal(pruneAlone.code, 0, 'without --old there is nothing to prune');
  t.same(operations(pruneAlone.report?.results ?? []), ['CREATE CloudProfile -/aws']);
});

/** A git repository with two commits of profiles/aws.yaml: `before`, then `after`. */
async function repository(t: Test): Promise<{ dir: string; first: string }> {
  const dir = await tempDir(t);
  const run = (...args: string[]) =>
    git('git', args, { cwd: dir, env: { ...CLEAN_ENV, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  await run('init', '-q', '-b', 'main');
  await mkdir(join(dir, 'profiles'));
  await writeFiles(dir, { 'cfg.yaml': CONFIG, 'profiles/aws.yaml': yamlDocs(before), 'state.yaml': yamlDocs(onOld) });
  await run('add', '.');
  await run('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one');
  const first = (await run('rev-parse', 'HEAD')).stdout.trim();
  await writeFile(join(dir, 'profiles/aws.yaml'), yamlDocs(after));
  await run('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qam', 'two');
  return { dir, first };
}

t.test('--old REF:PATH reads the old objects with git show', async (t) => {
  const { dir, first } = await repository(t);
  const at = (args: string[], env?: NodeJS.ProcessEnv) =>
    runCheckCli(['check', '--now', NOW, '--config', 'cfg.yaml', '--output', 'json', ...args], {
      cwd: dir,
      ...(env ? { env } : {}),
    });
  const [previous, bySha, relative, fromSubdir, withState] = await Promise.all([
    at(['--old', 'HEAD~1:profiles/aws.yaml', 'profiles/aws.yaml']),
    at(['--old', `${first}:profiles/aws.yaml`, 'profiles/aws.yaml']),
    at(['--old', 'main~1:./profiles/aws.yaml', 'profiles/aws.yaml']),
    runCheckCli(['check', '--now', NOW, '--output', 'json', '--old', 'HEAD~1:profiles/aws.yaml', 'aws.yaml'], {
      cwd: join(dir, 'profiles'),
    }),
    at(['--old', 'HEAD~1:profiles/aws.yaml', '--state', 'state.yaml', 'profiles/aws.yaml']),
  ]);
  for (const [what, run] of Object.entries({ previous, bySha, relative, fromSubdir })) {
    t.equal(run.code, 0, `${what}: ${run.stderr}`);
    t.match(
      parseReport(run).results,
      [{ operation: 'UPDATE', notes: [/^IN-USE was not checked/] }],
      `${what}: an UPDATE of the committed profile`,
    );
  }
  t.equal(withState.code, 1, 'with the Shoots of the state, the removal is denied');
  t.same(rulesOf(parseReport(withState).results[0]), ['IN-USE']);
  t.match(parseReport(withState).results[0], { file: 'profiles/aws.yaml', operation: 'UPDATE' });
});

t.test('--old REF:PATH: a missing revision, path, repository or git is a clear exit 2', async (t) => {
  const { dir } = await repository(t);
  const outside = await tempDir(t);
  await writeFiles(outside, { 'aws.yaml': yamlDocs(after) });
  const noGit = { ...CLEAN_ENV, PATH: '/nonexistent' };
  const cases: Array<[string, string[], string, RegExp, NodeJS.ProcessEnv?]> = [
    [
      'a revision the clone lacks',
      ['--old', 'HEAD~5:profiles/aws.yaml', 'profiles/aws.yaml'],
      dir,
      /HEAD~5:profiles\/aws\.yaml: git show HEAD~5:profiles\/aws\.yaml failed: invalid object name 'HEAD~5'.*shallow clone/,
    ],
    [
      'a path not in the revision',
      ['--old', 'HEAD~1:profiles/gcp.yaml', 'profiles/aws.yaml'],
      dir,
      /HEAD~1:profiles\/gcp\.yaml: git show .* failed: path 'profiles\/gcp\.yaml' does not exist in 'HEAD~1'/,
    ],
    [
      'no repository',
      ['--old', 'HEAD~1:aws.yaml', 'aws.yaml'],
      outside,
      /HEAD~1:aws\.yaml: git show .* failed: not a git repository/,
    ],
    [
      'no git on PATH',
      ['--old', 'HEAD~1:profiles/aws.yaml', 'profiles/aws.yaml'],
      dir,
      /HEAD~1:profiles\/aws\.yaml: cannot read from git: git is not installed or not on PATH/,
      noGit,
    ],
    [
      'a revision that looks like an option',
      ['--old=--output=x:y', 'profiles/aws.yaml'],
      dir,
      /--output=x:y: not a file, and "--output=x" is not a git revision/,
    ],
    [
      '--old together with --delete',
      ['--old', 'HEAD~1:profiles/aws.yaml', '--delete', 'profiles/aws.yaml'],
      dir,
      /'--delete' cannot be used with option '--old/,
    ],
  ];
  const runs = await Promise.all(
    cases.map(([, args, cwd, , env]) => runCheckCli(['check', ...args], { cwd, ...(env ? { env } : {}) })),
  );
  cases.forEach(([what, , , message], i) => {
    const run = runs[i]!;
    t.equal(run.code, 2, `${what}: exit 2`);
    t.equal(run.stdout, '', `${what}: nothing on stdout`);
    t.match(run.stderr, /^[^\n]+\n$/, `${what}: one line`);
    t.match(run.stderr, message, `${what}: says what is wrong`);
  });
});

t.test('--old: a file whose name looks like REF:PATH is read as the file; - reads standard input', async (t) => {
  const dir = await tempDir(t);
  await writeFiles(dir, { 'cfg.yaml': CONFIG, 'HEAD:old.yaml': yamlDocs(before), 'new.yaml': yamlDocs(after) });
  const [file, stdin, twice, dup] = await Promise.all([
    runCheckCli(['check', '--config', 'cfg.yaml', '--output', 'json', '--old', 'HEAD:old.yaml', 'new.yaml'], {
      cwd: dir,
    }),
    runCheckCli(['check', '--config', 'cfg.yaml', '--output', 'json', '--old', '-', 'new.yaml'], {
      cwd: dir,
      input: yamlDocs(before),
    }),
    runCheckCli(['check', '--config', 'cfg.yaml', '--old', '-', '-'], { cwd: dir, input: yamlDocs(before) }),
    runCheckCli(['check', '--config', 'cfg.yaml', '--old', 'HEAD:old.yaml', '--old', '-', 'new.yaml'], {
      cwd: dir,
      input: yamlDocs(before),
    }),
  ]);
  t.equal(file.code, 0, file.stderr);
  t.match(parseReport(file).results, [{ operation: 'UPDATE' }], 'not a repository, yet read: the file wins');
  t.equal(stdin.code, 0, stdin.stderr);
  t.match(parseReport(stdin).results, [{ operation: 'UPDATE' }]);
  t.equal(twice.code, 2);
  t.match(twice.stderr, /standard input \(-\) can be read only once/);
  t.equal(dup.code, 2, 'the same object twice in --old is ambiguous');
  t.match(dup.stderr, /--old holds CloudProfile aws twice \(HEAD:old\.yaml:1 and <stdin>:1\)/);
});
