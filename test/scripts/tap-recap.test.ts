// scripts/tap-recap.mjs: the piped output of `npm test` ends with every failing test by its path
// and tap's summary line, or says that tap printed none. The TAP reading on fixed text, then the
// real tap through a pipe on a scratch folder whose tests fail on purpose.
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { CLEAN_ENV } from '../helpers/run-cli.js';
// @ts-expect-error: a plain ES module without types, run by node as it is
import { TapRecap } from '../../scripts/tap-recap.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Recap {
  line(text: string): void;
  readonly failures: string[];
  readonly summary: string | undefined;
  recap(code: number | null, signal: string | null): string[];
}

function read(text: string): Recap {
  const r = new (TapRecap as new () => Recap)();
  for (const l of text.split('\n')) r.line(l);
  return r;
}

const NESTED = `TAP version 14
# Subtest: test/policy/policy.test.ts
    # Subtest: test/policy/rules/in-use.part.ts
        # Subtest: a removal in use is denied
            ok 1 - the rule
            not ok 2 - names the Shoot
              ---
              at:
                fileName: test/policy/rules/in-use.part.ts
                lineNumber: 42
              source: |
                not ok 9 - text inside the YAML block is not a result
              ...
            1..2
        not ok 1 - a removal in use is denied # time=3ms
        # Subtest: a todo
            not ok 1 - not yet # TODO later
            1..1
        ok 2 - a todo
        1..2
    not ok 1 - test/policy/rules/in-use.part.ts # time=9ms
    1..1
not ok 1 - test/policy/policy.test.ts # time=20ms
# Subtest: test/config.test.ts
    ok 1 - fine
    1..1
ok 2 - test/config.test.ts
not ok 3 - timeout!
  ---
  expired: test/cli/serve.test.ts
  ...
# { total: 5, pass: 2, fail: 3 }
# time=30ms
`;

t.test('each failing test by its full path and line, the tests that contain it left out', async (t) => {
  const r = read(NESTED);
  t.same(r.failures, [
    'test/policy/policy.test.ts > test/policy/rules/in-use.part.ts > a removal in use is denied > names the Shoot (test/policy/rules/in-use.part.ts:42)',
    'timeout!',
  ]);
  t.same(r.recap(1, null), ['# failed: 2', `#   ${r.failures[0]}`, '#   timeout!', '# { total: 5, pass: 2, fail: 3 }']);
});

t.test('all passing: the summary line alone; no summary: said, with the failures seen', async (t) => {
  t.same(read('ok 1 - a\n# { total: 1, pass: 1 }\n').recap(0, null), ['# { total: 1, pass: 1 }']);
  const cut = read('# Subtest: test/a.test.ts\n    not ok 1 - broken\n    ok 2 - fi');
  t.same(cut.recap(1, null), [
    '# failed: 1',
    '#   test/a.test.ts > broken',
    '# tap ended without its summary line (exit code 1): its output above is cut',
  ]);
  t.match(cut.recap(null, 'SIGKILL').at(-1), /\(exit code null, signal SIGKILL\)/);
});

t.test('through a pipe: the real tap on tests that fail on purpose, then on a runner that dies', async (t) => {
  const dir = join(ROOT, '.tap', `recap-${process.pid}`);
  await mkdir(dir, { recursive: true });
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, 'fails.test.mjs'),
    `import t from 'tap';
t.test('outer', async (t) => {
  t.test('inner', async (t) => t.equal(1, 2, 'one is two'));
  t.pass('fine');
});
t.test('another', async (t) => t.fail('on purpose'));
if (process.env.RECAP_KILL) process.kill(process.ppid, 'SIGKILL');
`,
  );
  const run = (env: NodeJS.ProcessEnv = {}) =>
    new Promise<{ code: number | null; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        ['scripts/tap-recap.mjs', '--disable-coverage', '--jobs=1', join(dir, 'fails.test.mjs')],
        {
          cwd: ROOT,
          env: { ...CLEAN_ENV, PATH: `${join(ROOT, 'node_modules/.bin')}${delimiter}${CLEAN_ENV.PATH}`, ...env },
          maxBuffer: 16 << 20,
        },
        (err, stdout) => resolve({ code: err ? ((err.code as number | undefined) ?? null) : 0, stdout }),
      );
    });

  const failed = await run();
  t.equal(failed.code, 1, 'exit code 1');
  const tail = failed.stdout.trimEnd().split('\n').slice(-4);
  t.match(tail[0], /^# failed: 2$/);
  t.match(tail[1], /^# {3}.*fails\.test\.mjs > outer > inner > one is two \(.*fails\.test\.mjs:3\)$/);
  t.match(tail[2], /^# {3}.*fails\.test\.mjs > another > on purpose \(.*fails\.test\.mjs:6\)$/);
  t.match(tail[3], /^# \{ total: \d+, pass: \d+, fail: \d+ \}$/, "tap's summary line last");

  const killed = await run({ RECAP_KILL: '1' });
  t.not(killed.code, 0, 'a failure');
  t.match(
    killed.stdout.trimEnd().split('\n').at(-1),
    /^# tap ended without its summary line \(exit code null, signal SIGKILL\): its output above is cut$/,
  );
});
