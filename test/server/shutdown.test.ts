// Draining: readiness turns false, no new connections, requests in flight are answered, and the
// grace period bounds the wait. Then the built CLI under load across SIGTERM and its shutdown delay.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { parse as parseYaml } from 'yaml';
import { cloudProfile } from '../helpers/objects.js';
import { holdRequest } from '../helpers/partial.js';
import { tempDir } from '../helpers/run-cli.js';
import { spawnServer } from '../helpers/serve-process.js';
import { request, review, startServer, type ReviewReply, type TestServer } from '../helpers/server.js';
import { until as waitFor } from '../helpers/until.js';
import { freePort } from '../helpers/free-port.js';

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
    holdRequest(
      s.port,
      s.authority.ca.certPem,
      i % 2 ? '/mutate' : '/validate',
      JSON.stringify(review({ operation: 'CREATE', object: cloudProfile(), uid })),
      agent,
    ),
  );
  await until(async () => (await inFlight(s)) === uids.length);

  // A generous grace period: the drain ends when the last answer is out, and a loaded machine is slow.
  const drained = s.server.shutdown(60_000);
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
  const stuck = holdRequest(
    s.port,
    s.authority.ca.certPem,
    '/validate',
    JSON.stringify(review({ operation: 'CREATE', object: cloudProfile() })),
  );
  await until(async () => (await inFlight(s)) === 1);
  t.same(await s.server.shutdown(200), { drained: false });
  t.equal(s.server.app.server.listening, false);
  await t.rejects(stuck.response, { code: 'ECONNRESET' }, 'the connection was cut, not left hanging');
});

// --- the built CLI under load across a rollout ---------------------------------------------------
// `node dist/cli/main.js serve`, as the image runs it, gets SIGTERM while clients keep sending:
// some on kept-alive connections, some opening a new connection per request (what kube-apiserver
// does once it has been told Connection: close). The load runs until the process has exited. At
// any shutdown delay, 0 included, no request that arrived may fail or be reset: a request arrives
// once its connection is up (TLS done); after the listener closes, new connections are refused,
// which a client sees before it sends anything. /readyz says 503 from the signal on, and the
// process exits 0 by itself.

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const STATE = fileURLToPath(new URL('../fixtures/demo-state.yaml', import.meta.url));
const REVIEW = readFileSync(
  fileURLToPath(new URL('../fixtures/review-remove-version-in-use.json', import.meta.url)),
  'utf8',
);
const REVIEW_UID = (JSON.parse(REVIEW) as { request: { uid: string } }).request.uid;
const CHART_VALUES = parseYaml(
  readFileSync(fileURLToPath(new URL('../../charts/version-policy/values.yaml', import.meta.url)), 'utf8'),
) as {
  config: { server: { shutdownDelaySeconds: number } };
};

interface Served {
  child: ChildProcess;
  port: number;
  probePort: number;
  ca: string;
  /** Resolves once the server logged `msg` (a prefix). */
  logged(msg: string): Promise<void>;
  /** When the server logged `msg` (a prefix), by this process's clock. */
  loggedAt(msg: string): number | undefined;
  /** When the server logged `msg` (a prefix), by its own log's time. */
  serverTime(msg: string): number | undefined;
  messages: string[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function serveCli(t: Test, server: Record<string, unknown>): Promise<Served> {
  const dir = await tempDir(t, 'vp-shutdown-');
  const probePort = await freePort();
  await writeFile(
    join(dir, 'config.json'),
    JSON.stringify({ server: { port: 0, probePort, ...server }, logLevel: 'info' }),
  );
  const messages: string[] = [];
  const at = new Map<string, number>();
  const time = new Map<string, number>();
  const waiters: { prefix: string; resolve: () => void }[] = [];
  let url = '';
  // CLEAN_ENV (the default): without tap's NODE_OPTIONS, whose exit hooks would handle SIGTERM for the server.
  const { child, exit, stderr } = spawnServer(t, [MAIN, 'serve', '--config', 'config.json', '--state', STATE], {
    cwd: dir,
    stdout: (line) => {
      const rec = line as unknown as { msg: string; url?: string; time: string };
      messages.push(rec.msg);
      if (!at.has(rec.msg)) at.set(rec.msg, Date.now());
      if (!time.has(rec.msg)) time.set(rec.msg, Date.parse(rec.time));
      if (rec.msg === 'webhook listening') url = String(rec.url);
      for (const w of waiters.filter((w) => rec.msg.startsWith(w.prefix))) w.resolve();
    },
  });
  const logged = (prefix: string) =>
    messages.some((m) => m.startsWith(prefix))
      ? Promise.resolve()
      : Promise.race([
          new Promise<void>((resolve) => waiters.push({ prefix, resolve })),
          exit.then(({ code }) =>
            Promise.reject(new Error(`serve exited ${code} before logging "${prefix}": ${stderr()}`)),
          ),
        ]);
  const loggedAt = (prefix: string) => [...at.entries()].find(([m]) => m.startsWith(prefix))?.[1];
  const serverTime = (prefix: string) => [...time.entries()].find(([m]) => m.startsWith(prefix))?.[1];
  await logged('webhook listening');
  const ca = await readFile(join(dir, '.dev-certs', 'ca.crt'), 'utf8');
  return { child, port: Number(new URL(url).port), probePort, ca, logged, loggedAt, serverTime, messages, exit };
}

interface Outcome {
  /** When the request was sent. */
  at: number;
  /** When it failed, if it did. */
  failedAt?: number;
  /** Whether its connection was up (TLS done) when it failed or was answered: the request reached the server. */
  arrived: boolean;
  status?: number;
  connection?: string;
  error?: string;
}

/** One POST of the demo review; an answer other than a 200 review with our uid counts as a failure. */
function postReview(port: number, ca: string, agent: https.Agent | false): Promise<Outcome> {
  const at = Date.now();
  return new Promise((resolve) => {
    let arrived = false;
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/validate',
        ca,
        agent,
        timeout: 10_000,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          const uid = res.statusCode === 200 ? (JSON.parse(text) as ReviewReply).response.uid : undefined;
          const connection = String(res.headers.connection ?? '');
          resolve(
            uid === REVIEW_UID
              ? { at, arrived, status: 200, connection }
              : { at, arrived, status: res.statusCode ?? 0, error: `answer ${res.statusCode}: ${text.slice(0, 100)}` },
          );
        });
        res.on('error', (e) => resolve({ at, failedAt: Date.now(), arrived, error: e.message }));
      },
    );
    req.on('socket', (socket) => {
      const tlsSocket = socket as TLSSocket;
      if (req.reusedSocket || (tlsSocket.encrypted && !tlsSocket.connecting && tlsSocket.authorized)) arrived = true;
      else tlsSocket.once('secureConnect', () => (arrived = true));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e: NodeJS.ErrnoException) =>
      resolve({ at, failedAt: Date.now(), arrived, error: e.code ?? e.message }),
    );
    req.end(REVIEW);
  });
}

/** A client that sends one request after another until `stop()`. */
function loadLoop(port: number, ca: string, agent: https.Agent | false) {
  const outcomes: Outcome[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      outcomes.push(await postReview(port, ca, agent));
      await sleep(10);
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

function probeReadyz(port: number): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/readyz', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

// The chart's delay (10 s) and 0; the chart's is shortened to 3 s: the same drain, 7 s sooner, and
// still long enough for this process's clients to be heard at load 20.
for (const delaySeconds of [0, Math.min(3, CHART_VALUES.config.server.shutdownDelaySeconds)]) {
  t.test(
    `SIGTERM under load at shutdownDelaySeconds ${delaySeconds}: 0 resets, 0 failures, /readyz 503 from the signal, exit 0`,
    async (t) => {
      const s = await serveCli(t, { shutdownDelaySeconds: delaySeconds, shutdownGraceSeconds: 5 });
      const keepAlive = new https.Agent({ keepAlive: true, maxSockets: 2 });
      t.teardown(() => keepAlive.destroy());
      const loops = {
        keepAlive: [loadLoop(s.port, s.ca, keepAlive), loadLoop(s.port, s.ca, keepAlive)],
        fresh: [loadLoop(s.port, s.ca, false), loadLoop(s.port, s.ca, false)],
      };
      const all = [...loops.keepAlive, ...loops.fresh];
      await waitFor(
        'load answered before the signal',
        () => all.every((l) => l.outcomes.some((o) => o.status === 200)),
        60_000,
        20,
      );

      s.child.kill('SIGTERM');
      // Readiness, on both ports, until the process is gone.
      const sent: { at: number; webhook: number | string; probe: number | string }[] = [];
      let exited = false;
      void s.exit.then(() => (exited = true));
      while (!exited) {
        const at = Date.now();
        const [webhook, probe] = await Promise.all([readyz(s.port, s.ca), probeReadyz(s.probePort)]);
        if (!exited) sent.push({ at, webhook, probe });
        await sleep(50);
      }
      await Promise.all(all.map((l) => l.stop()));
      const closedAt = s.loggedAt('no new connections');
      t.ok(closedAt, 'the listener closed');

      const outcomes = all.flatMap((l) => l.outcomes);
      const answered = outcomes.filter((o) => o.status === 200);
      const resets = outcomes.filter((o) => o.error && o.arrived);
      const refused = outcomes.filter((o) => o.error && !o.arrived);
      t.same(
        resets,
        [],
        `0 resets or failures among the requests that arrived (${outcomes.length} sent, ${answered.length} answered, ${refused.length} refused before sending)`,
      );
      // The listener closes no sooner than the delay after the server handled the signal (its own
      // log's clock; 2 ms for a timer's rounding), and a connection is refused only once it closed.
      const listenerOpenUntil = (s.serverTime('shutting down') ?? Infinity) + delaySeconds * 1000 - 2;
      t.ok(
        (s.serverTime('no new connections') ?? 0) >= listenerOpenUntil,
        'the listener stayed open for the shutdown delay',
      );
      t.same(
        refused.filter((o) => (o.failedAt ?? 0) < listenerOpenUntil),
        [],
        'nothing refused during the shutdown delay; only new connections once the listener closed, which never carried a request',
      );
      // Requests sent once the server had handled the signal (as this process read its log line).
      const handledAt = s.loggedAt('shutting down') ?? Infinity;
      const probes = {
        webhook: sent.filter((p) => p.at >= handledAt).map((p) => p.webhook),
        probe: sent.filter((p) => p.at >= handledAt).map((p) => p.probe),
      };
      // Sent once the server had handled the signal, by the server's own log clock: on a loaded
      // machine this process may read that line late, and the delay be over by then.
      const signalledAt = s.serverTime('shutting down') ?? Infinity;
      const afterSignal = (ls: typeof all) =>
        ls.flatMap((l) => l.outcomes).filter((o) => o.at >= signalledAt && o.status === 200);
      // At delay 0 a kept-alive client gets at most one answer after the signal, maybe none.
      if (delaySeconds > 0)
        t.ok(
          afterSignal(loops.keepAlive).length > 0,
          `kept-alive clients answered after the signal (${afterSignal(loops.keepAlive).length})`,
        );
      t.ok(
        afterSignal(loops.keepAlive).every((o) => o.connection === 'close'),
        'every answer after the signal says Connection: close, so kept-alive callers reconnect to a pod that stays',
      );
      if (delaySeconds > 0)
        t.ok(
          afterSignal(loops.fresh).length > 0,
          `new connections accepted and answered during the delay (${afterSignal(loops.fresh).length})`,
        );
      t.ok(
        probes.probe.every((p) => p === 503 || typeof p === 'string'),
        `the probe port's /readyz answered 503 from the signal until it closed (${[...new Set(probes.probe)].join(' ')})`,
      );
      // At delay 0 the drain may be over before a probe is sent: the probe port closes with it.
      if (delaySeconds > 0) t.ok(probes.probe.filter((p) => p === 503).length > 0, 'and did answer');
      // Once the listener has closed, a new connection is refused, or reset if it was still in the
      // kernel's accept queue: either way before its request was sent.
      t.ok(
        probes.webhook.every((p) => p === 503 || p === 'ECONNREFUSED' || p === 'ECONNRESET'),
        `the webhook port's /readyz: 503 until its listener closed, then no connection (${[...new Set(probes.webhook)].join(' ')})`,
      );

      t.same(await s.exit, { code: 0, signal: null }, 'a clean exit, before any hard stop');
      t.ok(s.messages.includes('stopped: every request answered'));
    },
  );
}
