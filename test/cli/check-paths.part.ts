// `check`'s PATHs: one expansion (check-paths.ts) for the working tree and the old side, so a file
// on one side only is new or removed because it is. The expansion as a table, then --old-ref and
// --old-root on a repository with nested folders, from its top and from a subfolder, with the
// real git.
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import t from '../helpers/parts.js';
import { canonical, expandOne, globRegExp, rootOf } from '../../src/cli/check-paths.js';
import { cloudProfile } from '../helpers/objects.js';
import { CLEAN_ENV, tempDir, yamlDocs } from '../helpers/run-cli.js';
import { parseReport, runCheckCli } from './check-run.js';

const exec = promisify(execFile);

const LISTING = new Set([
  'profiles/aws.yaml',
  'profiles/gcp/gcp.yaml',
  'profiles/gcp/notes.txt',
  'profiles/gcp/deep/er/x.yml',
  'profiles/.hidden/secret.yaml',
  'profiles/gcp/.draft.yaml',
  'profiles/list.json',
  'other/aws.yaml',
  'top.yaml',
]);

t.test('the expansion: files, folders, globs; hidden names and other extensions left out', async (t) => {
  const cases: Array<[string, string[]]> = [
    ['profiles/aws.yaml', ['profiles/aws.yaml']],
    ['./profiles/aws.yaml', ['profiles/aws.yaml']],
    ['profiles/gcp/notes.txt', ['profiles/gcp/notes.txt']], // a file named as such, whatever its extension
    ['profiles', ['profiles/aws.yaml', 'profiles/gcp/deep/er/x.yml', 'profiles/gcp/gcp.yaml', 'profiles/list.json']],
    ['profiles/', ['profiles/aws.yaml', 'profiles/gcp/deep/er/x.yml', 'profiles/gcp/gcp.yaml', 'profiles/list.json']],
    ['profiles/*.yaml', ['profiles/aws.yaml']],
    ['profiles/**/*.yaml', ['profiles/aws.yaml', 'profiles/gcp/gcp.yaml']],
    [
      'profiles/**',
      [
        'profiles/aws.yaml',
        'profiles/gcp/deep/er/x.yml',
        'profiles/gcp/gcp.yaml',
        'profiles/gcp/notes.txt',
        'profiles/list.json',
      ],
    ],
    ['profiles/**/*.{yaml,yml}', ['profiles/aws.yaml', 'profiles/gcp/deep/er/x.yml', 'profiles/gcp/gcp.yaml']],
    ['*/aws.yaml', ['other/aws.yaml', 'profiles/aws.yaml']],
    ['profiles/g?p/*.yaml', ['profiles/gcp/gcp.yaml']],
    ['profiles/[a-f]*.yaml', ['profiles/aws.yaml']],
    ['profiles/[!a]*.json', ['profiles/list.json']],
    ['profiles/.hidden/*.yaml', ['profiles/.hidden/secret.yaml']], // a hidden folder named as such
    ['profiles/*/*.yaml', ['profiles/gcp/gcp.yaml']], // below it, a wildcard never matches a hidden name
    [
      '.',
      [
        'other/aws.yaml',
        'profiles/aws.yaml',
        'profiles/gcp/deep/er/x.yml',
        'profiles/gcp/gcp.yaml',
        'profiles/list.json',
        'top.yaml',
      ],
    ],
    ['gone', []],
    ['gone/*.yaml', []],
  ];
  for (const [arg, want] of cases) t.same(expandOne(arg, LISTING), want, arg);
});

t.test('where a listing looks, and how deep', async (t) => {
  t.same(rootOf('profiles/'), { root: 'profiles', depth: Infinity });
  t.same(rootOf('profiles/*.yaml'), { root: 'profiles', depth: 1 });
  t.same(rootOf('profiles/*/x/*.yaml'), { root: 'profiles', depth: 3 });
  t.same(rootOf('profiles/**/*.yaml'), { root: 'profiles', depth: Infinity });
  t.same(rootOf('*.yaml'), { root: '.', depth: 1 });
  t.same(rootOf('/abs/*.yaml'), { root: '/abs', depth: 1 });
  t.equal(canonical('./a//b/'), 'a/b');
  t.ok(globRegExp('a/**/b').test('a/b'), '** matches no folder too');
  t.notOk(globRegExp('a/*').test('a/b/c'), '* stays within a folder');
  t.notOk(globRegExp('*.yaml').test('.x.yaml'), 'no leading dot');
  t.ok(globRegExp('a+b(1).yaml').test('a+b(1).yaml'), 'regular-expression characters are literal');
});

const GIT_ENV = {
  ...CLEAN_ENV,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

const profile = (name: string, ...kubernetes: string[]) => yamlDocs(cloudProfile({ name, kubernetes }));

/**
 * Base: a, b (two folders down), c (in a folder with a space), moved.yaml holding m. Change: b
 * lists a version twice, c's file is deleted, d is new two folders down, m moves to another file.
 */
async function repository(dir: string) {
  const git = (...args: string[]) => exec('git', args, { cwd: dir, env: GIT_ENV });
  const write = async (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, name)), { recursive: true });
      await writeFile(join(dir, name), text);
    }
  };
  await git('init', '-q', '-b', 'main');
  await write({
    'profiles/a.yaml': profile('a', '1.31.0'),
    'profiles/x/y/b.yaml': profile('b', '1.31.0', '1.31.1'),
    'profiles/with space/c.yaml': profile('c', '1.31.0'),
    'profiles/old/moved.yaml': profile('m', '1.31.0'),
    'profiles/README.md': 'not a manifest\n',
  });
  await git('add', '.');
  await git('commit', '-qm', 'base');
  await rm(join(dir, 'profiles/with space/c.yaml'));
  await rm(join(dir, 'profiles/old/moved.yaml'));
  await write({
    'profiles/x/y/b.yaml': profile('b', '1.31.0', '1.31.1', '1.31.1'),
    'profiles/new/deep/d.yaml': profile('d', '1.31.0'),
    'profiles/new/moved.yaml': profile('m', '1.31.0'),
  });
  await git('add', '-A');
  await git('commit', '-qm', 'change');
  await git('worktree', 'add', '-q', '--detach', '.base', 'HEAD~1');
  return dir;
}

const summary = (stdout: string) =>
  parseReport({ code: 0, stdout, stderr: '' }).results.map(
    (r) => `${r.operation} ${r.name} ${r.allowed ? 'allowed' : 'denied'}`,
  );

t.test('--old-ref and --old-root: the same PATHs on both sides, from the top and from a subfolder', async (t) => {
  const dir = await repository(await tempDir(t));
  const want = [
    'UPDATE a allowed',
    'CREATE d allowed',
    'UPDATE m allowed', // moved between files: an UPDATE, not a DELETE and a CREATE
    'UPDATE b denied', // two folders down, judged for what it is
    'DELETE c allowed', // its file is gone from the change: a DELETE because it is one
  ];
  const runs = await Promise.all([
    runCheckCli(['check', '--output', 'json', '--old-ref', 'HEAD~1', '--prune', 'profiles/'], { cwd: dir }),
    runCheckCli(['check', '--output', 'json', '--old-ref', 'HEAD~1', '--prune', 'profiles/**/*.yaml'], { cwd: dir }),
    runCheckCli(['check', '--output', 'json', '--old-root', '.base', '--prune', 'profiles'], { cwd: dir }),
    runCheckCli(['check', '--output', 'json', '--old-ref', 'HEAD~1', '--prune', '.'], { cwd: join(dir, 'profiles') }),
  ]);
  for (const [i, run] of runs.entries()) {
    t.equal(run.code, 1, `run ${i}: b is denied\n${run.stderr}`);
    t.same(summary(run.stdout), want, `run ${i}`);
  }
  const [byRef, , byRoot, fromSub] = runs.map((r) => parseReport(r));
  t.match(byRef?.results.at(-1), { file: 'HEAD~1:profiles/with space/c.yaml' }, 'a removed object names its revision');
  t.match(byRoot?.results.at(-1), { file: '.base/profiles/with space/c.yaml' });
  t.match(
    fromSub?.results.map((r) => r.file),
    ['a.yaml', 'new/deep/d.yaml', 'new/moved.yaml', 'x/y/b.yaml', 'HEAD~1:with space/c.yaml'],
    'paths relative to the working directory',
  );
  t.match(byRef?.results[3]?.violations, [{ rule: 'K8S-VERSIONS', field: 'spec.kubernetes.versions[2].version' }]);

  const unpruned = await runCheckCli(['check', '--old-ref', 'HEAD~1', 'profiles/'], { cwd: dir });
  t.match(
    unpruned.stdout,
    /^SKIPPED CloudProfile c at HEAD~1:profiles\/with space\/c\.yaml:1 \(document 1\): on the old side only: its removal was not judged \(--prune judges it as a DELETE\)$/m,
  );
});

t.test(
  '--old-ref: a PATH on one side only is fine, on neither side an error; a missing revision says why',
  async (t) => {
    const dir = await repository(await tempDir(t));
    const [gone, newOnly, neither, badRef] = await Promise.all([
      runCheckCli(['check', '--old-ref', 'HEAD~1', '--prune', 'profiles/with space/c.yaml'], { cwd: dir }),
      runCheckCli(['check', '--old-ref', 'HEAD~1', 'profiles/new/'], { cwd: dir }),
      runCheckCli(['check', '--old-ref', 'HEAD~1', 'profiles/nothing/'], { cwd: dir }),
      runCheckCli(['check', '--old-ref', 'no-such-branch', 'profiles/'], { cwd: dir }),
    ]);
    t.equal(gone.code, 0, gone.stderr);
    t.match(gone.stdout, /^ALLOWED CloudProfile c \(DELETE\)/m, 'a file the change deleted: its objects are DELETEs');
    t.equal(newOnly.code, 0, newOnly.stderr);
    t.match(newOnly.stdout, /^ALLOWED CloudProfile d \(CREATE\)[\s\S]*^ALLOWED CloudProfile m \(CREATE\)/m);
    t.equal(neither.code, 2);
    t.equal(
      neither.stderr,
      'version-policy: profiles/nothing/: no such file or folder (neither in the working tree nor in git revision HEAD~1)\n',
    );
    t.equal(badRef.code, 2);
    t.match(
      badRef.stderr,
      /^version-policy: --old-ref no-such-branch: git ls-tree failed: .*\(a shallow clone may lack it: fetch more history, see docs\/ci\.md\)\n$/,
    );
  },
);
