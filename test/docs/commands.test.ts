// Every command the user docs outside docs/operations (README.md, docs/*.md, certs/README.md, the
// chart's README) give in a ```sh block is accounted for: one that runs without a cluster runs here
// as written; the rest are named with where they are exercised instead, so a new command cannot
// slip in untested. docs/operations is operations-commands.test.ts's; docs/ci.md is
// ci-guide.test.ts's and package-install.e2e.ts's.
//
// Run as written, in a scratch directory that links the repository's test/ and certs/ (so relative
// paths resolve and nothing is written into the clone), with `version-policy` the CLI (its main()
// in-process for a command that is plain words, the built CLI through bash otherwise):
// - `version-policy …` (exit 0, or 1 for a denial or a --fail-on the page shows), the page's redirections kept;
// - `certs/generate.sh …`, on a copy of certs/ (openssl), `/tmp/c` pointed into the scratch dir;
// - the README's curl, against `serve` started with the demo's config and state on a free port
//   (the one substitution: that port for 9443), which must answer the README's denial.
import { execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t, { type Test } from 'tap';
import { parse, stringify } from 'yaml';
import { CLEAN_ENV, CLI, plainCommand, runPlainCommand, tempDir, untracked } from '../helpers/run-cli.js';
import { until } from '../helpers/until.js';

// A few CLI runs and openssl calls; on a shared machine more than tap's default.
t.setTimeout(240_000);

const ROOT = new URL('../../', import.meta.url).pathname;
const PAGES = [
  'README.md',
  'certs/README.md',
  'charts/version-policy/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'ci.md')
    .map((f) => `docs/${f}`),
];

interface DocCommand {
  where: string;
  text: string;
}

/** The commands of a page's ```sh blocks (continuations joined, comments cut); in a ```console transcript, the `$ ` lines. */
function commandsOf(page: string): DocCommand[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const out: DocCommand[] = [];
  for (const m of text.matchAll(/^```(sh|console)\n([\s\S]*?)^```$/gm)) {
    const transcript = m[1] === 'console';
    const lines = (m[2] ?? '').replace(/\\\n\s*/g, ' ').split('\n');
    for (const line of lines) {
      if (transcript && !line.startsWith('$ ')) continue;
      const command = (transcript ? line.slice(2) : line).replace(/\s+#.*$/, '').trim();
      if (command && !command.startsWith('#')) out.push({ where: page, text: command });
    }
  }
  return out;
}

const ALL = PAGES.flatMap(commandsOf);

/** Where a command that needs more than this machine is exercised instead. */
const ELSEWHERE: Array<[RegExp, string]> = [
  [
    /^npm ci && npm (start|test)$/,
    "test/scripts/node22.test.ts runs the demo script with the machine's Node; .ci/run runs both",
  ],
  [/^npm ci && npm run build$/, 'every test run builds first'],
  [/^(kubectl|helm) /, 'needs a cluster: the chart tests render what it would act on'],
  [
    /^KUBECONFIG=\S+ (npx )?version-policy check --cluster /,
    "needs a cluster: test/e2e/kube-apiserver.e2e.ts (ciReader) runs it with the chart's CI identity against the real kube-apiserver",
  ],
  [/^open http/, 'opens a browser on the port-forwarded pages; test/server/ui.part.ts serves them'],
  [/^version-policy explain \[/, 'the synopsis, not a command'],
  [
    /^(E2E_\w+=\S+ )*npm run test:e2e\b/,
    '.ci/run runs the end-to-end suites (they build the real control plane with Go)',
  ],
];

const runsHere = (c: DocCommand) =>
  /^(version-policy |certs\/generate\.sh|curl )/.test(c.text) && !/^version-policy explain \[/.test(c.text);

t.test('every command is run here or named with where it is exercised', async (t) => {
  t.ok(ALL.length >= 20, `${ALL.length} commands`);
  const unaccounted = ALL.filter((c) => !runsHere(c) && !ELSEWHERE.some(([re]) => re.test(c.text)));
  t.same(unaccounted, [], 'a new command needs a run here or a line in ELSEWHERE');
});

async function scratch(t: Test): Promise<string> {
  const dir = await tempDir(t);
  await symlink(join(ROOT, 'test'), join(dir, 'test'));
  await cp(join(ROOT, 'certs'), join(dir, 'certs'), { recursive: true, filter: (src) => !src.includes('/out') });
  return dir;
}

function sh(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const shim = `version-policy() { command "${process.execPath}" "${CLI}" "$@"; }\n`;
  return new Promise((resolve) => {
    execFile(
      ...untracked('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', shim + command]),
      { cwd, env: { ...CLEAN_ENV, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
    );
  });
}

t.test('version-policy and certs/generate.sh commands run as written', async (t) => {
  const dir = await scratch(t);
  const commands = ALL.filter((c) => /^(version-policy |certs\/generate\.sh)/.test(c.text) && runsHere(c));
  t.ok(
    commands.some((c) => c.text.startsWith('certs/')) && commands.some((c) => c.text.includes('--output html')),
    commands.map((c) => c.text).join('\n'),
  );
  for (const c of commands) {
    const text = c.text.replace(/ \/tmp\/c /, ` ${join(dir, 'c')} `);
    const run = await (plainCommand(text) ? runPlainCommand(text, dir) : sh(text, dir));
    t.ok(
      run.code === 0 || (run.code === 1 && /^version-policy (check |forecast .*--fail-on )/.test(text)),
      `${c.where}: ${c.text} (exit ${run.code})\n${run.stderr}`,
    );
  }
  t.match(await readFile(join(dir, 'timeline.html'), 'utf8'), /^<!doctype html>/i, 'the timeline page is written');
  t.match(
    await readFile(join(dir, 'certs/out/tls.crt'), 'utf8'),
    /BEGIN CERTIFICATE/,
    'generate.sh wrote the serving certificate',
  );
});

t.test("the README's curl gets the README's denial from the demo server", async (t) => {
  const [curl] = ALL.filter((c) => c.text.startsWith('curl '));
  t.ok(curl, 'the README has the curl');
  const dir = await scratch(t);
  const demo = parse(await readFile(join(ROOT, 'test/fixtures/demo-config.yaml'), 'utf8')) as {
    server: Record<string, unknown>;
  };
  await writeFile(join(dir, 'config.yaml'), stringify({ ...demo, server: { ...demo.server, port: 0, probePort: 0 } }));
  await mkdir(join(dir, '.dev-certs'), { recursive: true });
  const child = spawn(
    ...untracked(process.execPath, [
      CLI,
      'serve',
      '--config',
      'config.yaml',
      '--state',
      'test/fixtures/demo-state.yaml',
    ]),
    { cwd: dir, env: CLEAN_ENV, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  t.teardown(() => {
    child.kill('SIGKILL');
  });
  let url: string | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const rec = JSON.parse(line) as { msg?: string; url?: string };
    if (rec.msg === 'webhook listening') url = rec.url;
  });
  const listening = await until('serve to listen', () => url, 60_000, 50);
  const host = new URL(listening).host;
  // Ready, as kube-apiserver would find it: the forecast worker has the state by then.
  const readyz = `curl -s -o /dev/null -w '%{http_code}' --cacert .dev-certs/ca.crt https://${host}/readyz`;
  await until('serve to be ready', async () => (await sh(readyz, dir)).stdout === '200', 120_000, 200);
  const run = await sh(curl!.text.replace('127.0.0.1:9443', host), dir);
  t.equal(run.code, 0, run.stderr);
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const shown = JSON.parse(
    /^\{"apiVersion":"admission\.k8s\.io\/v1"[\s\S]*?\}\}\}$/m.exec(readme)![0].replace(/\n/g, ''),
  ) as unknown;
  t.same(JSON.parse(run.stdout), shown, 'the answer is the one the README shows');
});
