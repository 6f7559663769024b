// Issue 34's connection faults, run for real: `version-policy serve` (a build's dist/, in its own
// process, static demo state, a small cap), a good client that behaves like kube-apiserver's
// webhook client, a kubelet-like /healthz poller, and an attacker process
// (connection-attacker.ts). Shared by test/faults/connections.faults.ts and
// bench/connection-faults.ts.
//
// The good client: one keep-alive HTTPS connection (Node's agent, maxSockets 1, like Go's
// transport reusing its most recently used idle connection), one review every 100 ms, a 5 s
// timeout (the chart's timeoutSeconds). It never retries: Go's transport and client-go do not
// retry a POST whose bytes were written, so each error here is a write kube-apiserver would fail.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDevCertificates } from '../../src/server/tls/self-signed.js';
import { freePort } from '../helpers/free-port.js';
import type { AttackCounts, AttackOptions } from './connection-attacker.js';

const HERE = new URL('.', import.meta.url).pathname;
const STATE = new URL('../fixtures/demo-state.yaml', import.meta.url).pathname;
const REVIEW = readFileSync(new URL('../fixtures/review-shoot-update.json', import.meta.url), 'utf8');

export interface Webhook {
  pid: number;
  port: number;
  probePort: number;
  ca: string;
  stop(): Promise<void>;
}

/** Starts `serve` from `root`'s dist/ with `server` merged into its config; resolves once ready. */
export async function startWebhook(root: string, server: Record<string, unknown>): Promise<Webhook> {
  const dir = await mkdtemp(join(tmpdir(), 'vp-faults-'));
  const { ca, serving } = await createDevCertificates({ hosts: ['localhost', '127.0.0.1'] });
  await writeFile(join(dir, 'tls.crt'), serving.certPem);
  await writeFile(join(dir, 'tls.key'), serving.keyPem, { mode: 0o600 });
  const [port, probePort] = [await freePort(), await freePort()];
  const config = {
    logLevel: 'warn',
    cluster: { enabled: false },
    server: {
      host: '127.0.0.1',
      port,
      probePort,
      tls: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
      ...server,
    },
  };
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  const child = spawn(
    process.execPath,
    [join(root, 'dist/cli/main.js'), 'serve', '--config', join(dir, 'config.json'), '--state', STATE],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    await rm(dir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    if ((await get(`http://127.0.0.1:${probePort}/readyz`, 1000)).status === 200) break;
    if (child.exitCode !== null || i > 600) {
      await stop();
      throw new Error(`serve not ready:\n${stderr}`);
    }
    await sleep(100);
  }
  return { pid: child.pid!, port, probePort, ca: ca.certPem, stop };
}

/** Main-thread CPU of `pid` so far, in ms (the first field of its main task's schedstat, in ns). */
export function mainThreadCpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

interface Answer {
  status: number;
  ms: number;
  error?: string;
}

function get(url: string, timeoutMs: number): Promise<Answer> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - t0 }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ status: 0, ms: performance.now() - t0, error: err.code ?? err.message }),
    );
  });
}

export interface GoodClientResult {
  sent: number;
  answered: number;
  /** Each failed review: its error, and whether it was sent on a kept-alive (reused) connection. */
  failures: { error: string; reused: boolean }[];
  /** TCP connections the client opened. */
  connections: number;
}

/** The kube-apiserver-like client: a review every 100 ms on one kept-alive connection, until `stop`. */
async function goodClient(w: Webhook, stop: AbortSignal): Promise<GoodClientResult> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: w.ca });
  const result: GoodClientResult = { sent: 0, answered: 0, failures: [], connections: 0 };
  const body = Buffer.from(REVIEW);
  const uid = (JSON.parse(REVIEW) as { request: { uid: string } }).request.uid;
  while (!stop.aborted) {
    result.sent++;
    const outcome = await new Promise<{ ok: boolean; error?: string; reused: boolean }>((resolve) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: w.port,
          servername: 'localhost',
          path: '/validate',
          method: 'POST',
          agent,
          timeout: 5000,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () =>
            resolve({
              ok: res.statusCode === 200 && text.includes(uid),
              error: `HTTP ${res.statusCode}`,
              reused: req.reusedSocket,
            }),
          );
          res.on('error', (err) => resolve({ ok: false, error: err.message, reused: req.reusedSocket }));
        },
      );
      req.on('socket', () => {
        if (!req.reusedSocket) result.connections++;
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (err: NodeJS.ErrnoException) =>
        resolve({ ok: false, error: err.code ?? err.message, reused: req.reusedSocket }),
      );
      req.end(body);
    });
    if (outcome.ok) result.answered++;
    else result.failures.push({ error: outcome.error ?? 'unknown', reused: outcome.reused });
    await sleep(100);
  }
  agent.destroy();
  return result;
}

export interface HealthResult {
  polls: number;
  /** Polls not answered 200 within 3 s (kubelet's probe timeout in the chart). */
  failed: number;
  maxMs: number;
  p99Ms: number;
}

/** GET /healthz on the probe port every 100 ms on a new connection each time, as the kubelet does. */
async function healthPoller(w: Webhook, stop: AbortSignal): Promise<HealthResult> {
  const ms: number[] = [];
  let failed = 0;
  while (!stop.aborted) {
    const a = await get(`http://127.0.0.1:${w.probePort}/healthz`, 3000);
    ms.push(a.ms);
    if (a.status !== 200) failed++;
    await sleep(100);
  }
  ms.sort((a, b) => a - b);
  return {
    polls: ms.length,
    failed,
    maxMs: ms.at(-1) ?? 0,
    p99Ms: ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.99))] ?? 0,
  };
}

export interface ScenarioResult {
  kind: AttackOptions['kind'];
  seconds: number;
  client: GoodClientResult;
  health: HealthResult;
  attacker: AttackCounts;
  /** The server's main-thread CPU during the attack, ms per second. */
  cpuMsPerS: number;
  /** The server's connection counters, from /metrics. */
  metrics: Record<string, number>;
  loadavg: [number, number];
}

/**
 * One attack on a fresh server from `root`: the good client and the poller start first (the
 * client's connection is established and used), then the attacker runs for `seconds`.
 */
export async function runScenario(opts: {
  root: string;
  kind: AttackOptions['kind'];
  seconds: number;
  server?: Record<string, unknown>;
  connections?: number;
  rate?: number;
  /** Attacker processes (1). */
  processes?: number;
}): Promise<ScenarioResult> {
  const load0 = loadavg()[0]!;
  const w = await startWebhook(opts.root, { maxConnections: 50, ...opts.server });
  let attackers: ChildProcess[] = [];
  try {
    const stop = new AbortController();
    const client = goodClient(w, stop.signal);
    const health = healthPoller(w, stop.signal);
    await sleep(1000);
    // Several attacker processes: on a loaded machine one process gets too little CPU to churn
    // handshakes at the rate asked. Each takes its share of the connections and of the rate.
    const processes = opts.processes ?? 1;
    const attack: AttackOptions = {
      port: w.port,
      kind: opts.kind,
      connections: Math.ceil((opts.connections ?? 50) / processes),
      ...(opts.rate !== undefined ? { rate: opts.rate / processes } : {}),
    };
    attackers = Array.from({ length: processes }, () =>
      fork(join(HERE, 'connection-attacker.ts'), [JSON.stringify(attack)], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    // tsx's start-up on a loaded machine takes seconds: the clock starts once every attacker runs.
    await Promise.all(attackers.map((a) => once(a, 'message')));
    const cpu0 = mainThreadCpuMs(w.pid);
    const t0 = performance.now();
    await sleep(opts.seconds * 1000);
    const all = await Promise.all(
      attackers.map((a) => {
        const counted = once(a, 'message') as Promise<[AttackCounts]>;
        a.send('stop');
        return counted.then(([c]) => c);
      }),
    );
    const counts: AttackCounts = { handshakes: 0, refused: 0, closedByServer: 0 };
    for (const c of all) for (const k of Object.keys(counts) as (keyof AttackCounts)[]) counts[k] += c[k];
    const cpuMsPerS = (mainThreadCpuMs(w.pid) - cpu0) / ((performance.now() - t0) / 1000);
    await sleep(1000);
    stop.abort();
    const metrics = await scrape(w);
    return {
      kind: opts.kind,
      seconds: opts.seconds,
      client: await client,
      health: await health,
      attacker: counts,
      cpuMsPerS,
      metrics,
      loadavg: [load0, loadavg()[0]!],
    };
  } finally {
    for (const a of attackers) a.kill('SIGKILL');
    await w.stop();
  }
}

/** The webhook port's connection counters (`version_policy_connections_*{server="webhook"}`), summed over other labels. */
async function scrape(w: Webhook): Promise<Record<string, number>> {
  const text = await new Promise<string>((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${w.probePort}/metrics`, (res) => {
        let s = '';
        res.on('data', (c: Buffer) => (s += c.toString()));
        res.on('end', () => resolve(s));
      })
      .on('error', reject);
  });
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^version_policy_connections_(\w+)_total\{([^}]*)\} (\S+)$/gm)) {
    if (!m[2]!.includes('server="webhook"')) continue;
    const labels = m[2]!.replace(/,?server="webhook"/, '').replace(/^,/, '');
    const key = labels ? `${m[1]}{${labels}}` : m[1]!;
    out[key] = (out[key] ?? 0) + Number(m[3]);
  }
  return out;
}
