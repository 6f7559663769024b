// Draining: readiness turns false, no new connections, requests in flight are answered, and the
// grace period bounds the wait. Then the built CLI under load across SIGTERM and its shutdown delay.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { cloudProfile } from '../helpers/objects.js';
import { holdRequest } from '../helpers/partial.js';
import { CLEAN_ENV, tempDir } from '../helpers/run-cli.js';
import { request, review, startServer, type ReviewReply, type TestServer } from '../helpers/server.js';
import { until as waitFor } from '../helpers/until.js';

async function inFlight(s: TestServer): Promise<number> {
  return (await s.server.metrics.inFlight.get()).values.reduce((sum, v) => sum + v.value, 0);
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(10);
}

t.test('requests in flight when the drain starts are all answered, then the server closes', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const agent = new https.Agent({ keepAlive: true });
  t.teardown(() => agent.destroy());
  const uids = ['a', 'b', 'c', 'd'];
  const held = uids.map((uid, i) =>
    holdRequest(s.port, s.authority.ca.certPem, i % 2 ? '/mutate' : '/validate', JSON.stringify(review({ operation: 'CREATE', object: cloudProfile(), uid })), agent),
  );
  await until(async () => (await inFlight(s)) === uids.length);

  const drained = s.server.shutdown(5000);
  t.match(s.server.readiness.reasons(), ['shutting down'], 'readiness turns false at once');
  await sleep(50);
  const refused = await request(s.port, 'GET', '/healthz', undefined, { ca: s.authority.ca.certPem }).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e.code,
  );
  t.equal(refused, 'ECONNREFUSED', 'no new connections');

  const answers = await Promise.all(held.map((h) => h.finish()));
  for (const [i, a] of answers.entries()) {
    t.equal(a.status, 200);
    t.equal((JSON.parse(a.text) as ReviewReply).response.uid, uids[i]);
    t.equal(a.headers.connection, 'close', 'kept-alive connections are told to go');
  }
  t.same(await drained, { drained: true }, 'closed once the last answer went out, within the grace period');
});

t.test('a request that never completes is cut off when the grace period ends', async (t) => {
  const s = await startServer();
  t.teardown(s.close);
  const stuck = holdRequest(s.port, s.authority.ca.certPem, '/validate', JSON.stringify(review({ operation: 'CREATE', object: cloudProfile() })));
  await until(async () => (await inFlight(s)) === 1);
  t.same(await s.server.shutdown(200), { drained: false });
  t.equal(s.server.app.server.listening, false);
  await t.rejects(stuck.response, { code: 'ECONNRESET' }, 'the connection was cut, not left hanging');
});

// --- the built CLI under load across a rollout ---------------------------------------------------
// `node dist/cli/main.js serve`, as the image runs it, gets SIGTERM while clients keep sending:
// some on kept-alive connections, some opening a new connection per request (what kube-apiserver
// does once it has been told Connection: close). Until the shutdown delay is over, no request may
// fail, /readyz must say 503, and the process must then exit 0 by itself.

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const STATE = fileURLToPath(new URL('../fixtures/demo-state.yaml', import.meta.url));
const REVIEW = readFileSync(fileURLToPath(new URL('../fixtures/review-remove-version-in-use.json', import.meta.url)), 'utf8');
const REVIEW_UID = (JSON.parse(REVIEW) as { request: { uid: string } }).request.uid;

interface Served {
  child: ChildProcess;
  port: number;
  ca: string;
  /** Resolves once the server logged `msg` (a prefix). */
  logged(msg: string): Promise<void>;
  messages: string[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function serveCli(t: Test, server: Record<string, unknown>): Promise<Served> {
  const dir = await tempDir(t, 'vp-shutdown-');
  await writeFile(join(dir, 'config.json'), JSON.stringify({ server: { port: 0, ...server }, logLevel: 'info' }));
  // CLEAN_ENV: without tap's NODE_OPTIONS, whose exit hooks would handle SIGTERM for the server.
  const child = spawn(process.execPath, [MAIN, 'serve', '--config', 'config.json', '--state', STATE], { cwd: dir, env: CLEAN_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exit;
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const messages: string[] = [];
  const waiters: { prefix: string; resolve: () => void }[] = [];
  let url = '';
  createInterface({ input: child.stdout }).on('line', (line) => {
    const rec = JSON.parse(line) as { msg: string; url?: string };
    messages.push(rec.msg);
    if (rec.msg === 'webhook listening') url = String(rec.url);
    for (const w of waiters.filter((w) => rec.msg.startsWith(w.prefix))) w.resolve();
  });
  const logged = (prefix: string) =>
    messages.some((m) => m.startsWith(prefix))
      ? Promise.resolve()
      : Promise.race([
          new Promise<void>((resolve) => waiters.push({ prefix, resolve })),
          exit.then(({ code }) => Promise.reject(new Error(`serve exited ${code} before logging "${prefix}": ${stderr}`))),
        ]);
  await logged('webhook listening');
  const ca = await readFile(join(dir, '.dev-certs', 'ca.crt'), 'utf8');
  return { child, port: Number(new URL(url).port), ca, logged, messages, exit };
}

interface Outcome {
  /** When the request was sent. */
  at: number;
  status?: number;
  connection?: string;
  error?: string;
}

/** One POST of the demo review; an answer other than a 200 review with our uid counts as a failure. */
function postReview(port: number, ca: string, agent: https.Agent | false): Promise<Outcome> {
  const at = Date.now();
  return new Promise((resolve) => {
    const req = https.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/validate', ca, agent, timeout: 10_000, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          const uid = res.statusCode === 200 ? (JSON.parse(text) as ReviewReply).response.uid : undefined;
          const connection = String(res.headers.connection ?? '');
          resolve(uid === REVIEW_UID ? { at, status: 200, connection } : { at, status: res.statusCode ?? 0, error: `answer ${res.statusCode}: ${text.slice(0, 100)}` });
        });
        res.on('error', (e) => resolve({ at, error: e.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ at, error: e.code ?? e.message }));
    req.end(REVIEW);
  });
}

/** A client that sends one request after another until `stop()`; bounded by the caller's window. */
function loadLoop(port: number, ca: string, agent: https.Agent | false) {
  const outcomes: Outcome[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      outcomes.push(await postReview(port, ca, agent));
      await sleep(5);
    }
  })();
  return {
    outcomes,
    stop: () => {
      stopped = true;
      return done;
    },
  };
}

function readyz(port: number, ca: string): Promise<number | string> {
  return request(port, 'GET', '/readyz', undefined, { ca }).then(
    (r) => r.status,
    (e: NodeJS.ErrnoException) => e.code ?? e.message,
  );
}

t.test('SIGTERM under load: no request fails during the shutdown delay, /readyz says 503, then exit 0', async (t) => {
  // 5 s of delay; the load runs 1.5 s into it and stops, leaving 3.5 s for the last request to be
  // answered (milliseconds normally; seconds on a machine loaded twentyfold) before the listener closes.
  const s = await serveCli(t, { shutdownDelaySeconds: 5, shutdownGraceSeconds: 5 });
  const keepAlive = new https.Agent({ keepAlive: true, maxSockets: 2 });
  t.teardown(() => keepAlive.destroy());
  const loops = { keepAlive: [loadLoop(s.port, s.ca, keepAlive), loadLoop(s.port, s.ca, keepAlive)], fresh: [loadLoop(s.port, s.ca, false), loadLoop(s.port, s.ca, false)] };
  const all = [...loops.keepAlive, ...loops.fresh];
  await waitFor('load answered before the signal', () => all.every((l) => l.outcomes.some((o) => o.status === 200)), 10_000, 20);

  s.child.kill('SIGTERM');
  await s.logged('shutting down');
  // Requests sent from here on reach a server that has handled the signal.
  const shuttingDownAt = Date.now();
  const probes: (number | string)[] = [];
  for (const end = Date.now() + 1500; Date.now() < end; await sleep(100)) probes.push(await readyz(s.port, s.ca));
  await Promise.all(all.map((l) => l.stop()));
  t.notOk(s.messages.some((m) => m.startsWith('stopped')), 'the server was still in its shutdown delay when the load stopped');

  const outcomes = all.flatMap((l) => l.outcomes);
  t.same(outcomes.filter((o) => o.error), [], `no request refused or failed (${outcomes.length} sent)`);
  const during = (ls: typeof all) => ls.flatMap((l) => l.outcomes).filter((o) => o.at > shuttingDownAt && o.status === 200);
  t.ok(during(loops.keepAlive).length > 0, `kept-alive clients answered during the delay (${during(loops.keepAlive).length})`);
  t.ok(during(loops.fresh).length > 0, `new connections accepted and answered during the delay (${during(loops.fresh).length})`);
  t.ok(
    during(loops.keepAlive).every((o) => o.connection === 'close'),
    'every answer during the delay says Connection: close, so kept-alive callers reconnect to a pod that stays',
  );
  t.ok(probes.length > 0 && probes.every((p) => p === 503), `/readyz answered 503 throughout the delay (${probes.join(' ')})`);

  t.same(await s.exit, { code: 0, signal: null }, 'a clean exit, before any hard stop');
  t.ok(s.messages.includes('stopped: every request answered'));
});

t.test('without a shutdown delay the same load sees refused connections (what the delay prevents)', async (t) => {
  const s = await serveCli(t, { shutdownDelaySeconds: 0, shutdownGraceSeconds: 5 });
  const loops = [loadLoop(s.port, s.ca, false), loadLoop(s.port, s.ca, false)];
  await waitFor('load answered before the signal', () => loops.every((l) => l.outcomes.some((o) => o.status === 200)), 10_000, 20);
  s.child.kill('SIGTERM');
  await waitFor('a refused request', () => loops.some((l) => l.outcomes.some((o) => o.error)), 10_000, 20);
  await Promise.all(loops.map((l) => l.stop()));
  const errors = loops.flatMap((l) => l.outcomes).flatMap((o) => (o.error ? [o.error] : []));
  t.ok(errors.includes('ECONNREFUSED'), `new connections are refused at once (${[...new Set(errors)].join(', ')})`);
  t.same(await s.exit, { code: 0, signal: null });
});
