// `version-policy serve` as a process: the built dist/cli/main.js (npm test builds it first),
// started in a temp directory with the demo state and no certificate files, so the dev default
// (a self-signed CA under .dev-certs/) is what a new user gets. Signals are real signals.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { holdRequest } from '../helpers/partial.js';
import { untracked } from '../helpers/run-cli.js';
import { spawnServer } from '../helpers/serve-process.js';
import { request, type ReviewReply } from '../helpers/server.js';

const MAIN = new URL('../../dist/cli/main.js', import.meta.url).pathname;
const STATE = new URL('../fixtures/demo-state.yaml', import.meta.url).pathname;
const REVIEW = new URL('../fixtures/review-remove-version-in-use.json', import.meta.url).pathname;

interface Served {
  child: ChildProcess;
  dir: string;
  port: number;
  ca: string;
  lines: Array<Record<string, unknown>>;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Polls until `check` holds (tap's file timeout bounds a check that never does). */
async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await sleep(20);
}

const inFlight = async (s: Served, n: number) =>
  new RegExp(`version_policy_admission_in_flight_requests\\{webhook="validate"\\} ${n}\n`).test(
    (await request(s.port, 'GET', '/metrics', undefined, { ca: s.ca })).text,
  );

async function serve(t: Test, config: Record<string, unknown>): Promise<Served> {
  const dir = await mkdtemp(join(tmpdir(), 'vp-serve-'));
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  // Runs after spawnServer's kill: tap runs teardowns last added first.
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const lines: Array<Record<string, unknown>> = [];
  let heard: (rec: Record<string, unknown>) => void = () => {};
  const listening = new Promise<Record<string, unknown>>((resolve) => (heard = resolve));
  const { child, exit, stderr } = spawnServer(t, [MAIN, 'serve', '--config', 'config.json', '--state', STATE], {
    cwd: dir,
    stdout: (rec) => {
      lines.push(rec);
      if (rec.msg === 'webhook listening') heard(rec);
    },
  });
  void exit.then(({ code }) => heard({ exited: code }));
  const up = await listening;
  if ('exited' in up) throw new Error(`serve exited ${String(up.exited)}: ${stderr()}`);
  const port = Number(new URL(String(up.url)).port);
  const ca = await readFile(join(dir, '.dev-certs', 'ca.crt'), 'utf8');
  return { child, dir, port, ca, lines, stderr, exit };
}

t.test(
  'with no certificate configured, serve makes a dev CA, says where it is, and answers the demo review',
  async (t) => {
    const s = await serve(t, { server: { port: 0, probePort: 0 } });
    const hint = s.lines.find((l) => typeof l.msg === 'string' && l.msg.includes('curl --cacert'));
    t.ok(hint, 'logs a curl example');
    t.match(
      hint?.msg,
      /curl --cacert \.dev-certs\/ca\.crt .*--data @test\/fixtures\/review-remove-version-in-use\.json https:\/\/127\.0\.0\.1:\d+\/validate/,
    );
    t.equal(hint?.caFile, join(s.dir, '.dev-certs', 'ca.crt'));
    const body = await readFile(REVIEW, 'utf8');
    const res = await request(s.port, 'POST', '/validate', body, { ca: s.ca });
    t.equal(res.status, 200);
    t.equal(res.json<ReviewReply>().response.uid, '5f0e6c1e-3c4b-4f0e-9b1a-6f1c2a7d9e01');
    // Ready once the forecast's worker holds its copy of the state (seconds at load 20); a static
    // state never holds it back.
    let ready = 0;
    await until(
      async () => (ready = (await request(s.port, 'GET', '/readyz', undefined, { ca: s.ca })).status) === 200,
    );
    t.equal(ready, 200, 'static state counts as synced');
    t.ok(
      s.lines.some((l) => l.msg === 'admission' && l.uid === '5f0e6c1e-3c4b-4f0e-9b1a-6f1c2a7d9e01'),
      'the admission is logged',
    );
    const mode = s.lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('mode: '));
    t.equal(mode.length, 1, 'one line says which mode is in force');
    t.match(mode[0], {
      level: 'info',
      featureGates: { VersionClassificationLifecycle: Boolean },
      lifecycleDefaulting: Boolean,
      adoptExisting: false,
      stateSource: /^files \(--state .*demo-state\.yaml\)$/,
    });
    t.match(
      mode[0]?.msg,
      /^mode: feature gate VersionClassificationLifecycle (on|off) \(must match the landscape's gardener-apiserver\), lifecycle defaulting (on|off), adoption of existing versions off, cluster state from files/,
    );
    s.child.kill('SIGINT');
    t.same(await s.exit, { code: 0, signal: null }, 'SIGINT: exit 0');
  },
);

t.test('listening on every interface, the curl hint names localhost, which the dev certificate covers', async (t) => {
  const s = await serve(t, { server: { host: '0.0.0.0', port: 0, probePort: 0 } });
  const hint = s.lines.find((l) => typeof l.msg === 'string' && l.msg.includes('curl --cacert'));
  t.match(hint?.msg, / https:\/\/localhost:\d+\/validate$/);
  t.match(
    s.lines.find((l) => l.msg === 'webhook listening')?.url,
    /^https:\/\/0\.0\.0\.0:\d+$/,
    'the listen address itself is logged as it is',
  );
  const res = await localhostRequest(s.port, s.ca);
  t.equal(res, 200, 'https://localhost verifies against the dev CA');
  s.child.kill('SIGINT');
  await s.exit;
});

/** GET /healthz at https://localhost:PORT, the certificate checked for the name localhost. */
function localhostRequest(port: number, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: 'localhost', port, path: '/healthz', ca, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

t.test('SIGTERM with requests in flight: every one is answered, then exit 0', async (t) => {
  const s = await serve(t, { server: { port: 0, probePort: 0, shutdownGraceSeconds: 20 } });
  const body = await readFile(REVIEW, 'utf8');
  const uids = ['t-1', 't-2', 't-3', 't-4', 't-5'];
  const held = uids.map((uid) =>
    holdRequest(s.port, s.ca, '/validate', body.replace('5f0e6c1e-3c4b-4f0e-9b1a-6f1c2a7d9e01', uid)),
  );
  // The in-flight gauge shows when the server holds all of them.
  await until(() => inFlight(s, uids.length));
  s.child.kill('SIGTERM');
  await until(() => s.lines.some((l) => typeof l.msg === 'string' && l.msg.startsWith('shutting down')));
  const answers = await Promise.all(held.map((h) => h.finish()));
  t.same(
    answers.map((a) => [a.status, (JSON.parse(a.text) as ReviewReply).response.uid]),
    uids.map((u) => [200, u]),
  );
  t.same(await s.exit, { code: 0, signal: null });
  t.ok(s.lines.some((l) => l.msg === 'stopped: every request answered'));
});

t.test('a request that never completes does not hold the process past the grace period', async (t) => {
  const s = await serve(t, { server: { port: 0, probePort: 0, shutdownGraceSeconds: 1 } });
  const stuck = holdRequest(s.port, s.ca, '/validate', await readFile(REVIEW, 'utf8'));
  await until(() => inFlight(s, 1));
  s.child.kill('SIGTERM');
  t.same(await s.exit, { code: 0, signal: null });
  await t.rejects(stuck.response);
});

t.test('input the user has to fix is one line on stderr and exit code 2', async (t) => {
  const child = spawn(...untracked(process.execPath, [MAIN, 'serve', '--state', '/nonexistent/state.yaml']), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  t.equal(code, 2);
  t.match(err, /^version-policy: \/nonexistent\/state\.yaml: cannot read: no such file\n$/);
});
