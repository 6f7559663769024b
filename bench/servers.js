// The two servers every HTTPS comparison runs: `version-policy serve` with static state, and the
// bare Fastify baseline, on the same certificates. Each runs in its own child process; their
// logs go to /dev/null (the admission log line is still formatted and written, as in production).
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { createDevCertificates } from '../dist/server/tls/self-signed.js';

export const ROOT = new URL('..', import.meta.url).pathname;

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** One GET; true on 200. A fresh connection each time, as a kubelet probe makes. */
export function probe(url, ca) {
  return new Promise((resolve) => {
    const req = request(url, { ca, method: 'GET', agent: false, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** Polls `url` every `everyMs` until it answers 200; resolves to the time it did (performance.now()). */
export async function waitReady(url, ca, { timeoutMs = 60_000, everyMs = 5 } = {}) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await probe(url, ca)) return performance.now();
    if (performance.now() > deadline) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** A directory with a CA, a serving certificate for 127.0.0.1 and its key. */
export async function certificates() {
  const dir = await mkdtemp(join(tmpdir(), 'vp-bench-'));
  const { ca, serving } = await createDevCertificates({ hosts: ['localhost', '127.0.0.1'] });
  const files = { dir, ca: join(dir, 'ca.crt'), cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key') };
  await writeFile(files.ca, ca.certPem);
  await writeFile(files.cert, serving.certPem);
  await writeFile(files.key, serving.keyPem, { mode: 0o600 });
  files.caPem = readFileSync(files.ca);
  return files;
}

export async function writeState(dir, name, objects) {
  const file = join(dir, name);
  await writeFile(file, objects.map((o) => stringify(o)).join('---\n'));
  return file;
}

/**
 * The serve config: production defaults (log level info, metrics on the probe port), our certificates; the
 * cluster informers only when a kubeconfig is given.
 */
export async function writeConfig(certs, port, kubeconfig, extra = {}) {
  const file = join(certs.dir, `config-${port}.yaml`);
  const cluster = kubeconfig ? { enabled: true, kubeconfig } : { enabled: false };
  // A probe port of its own, as in production (/metrics there): the default 8080 would collide.
  await writeFile(
    file,
    stringify({
      ...extra,
      cluster,
      server: {
        host: '127.0.0.1',
        port,
        probePort: await freePort(),
        tls: { certFile: certs.cert, keyFile: certs.key },
      },
    }),
  );
  return file;
}

function spawnNode(args, nodeArgs = [], ipc = false) {
  const devNull = openSync('/dev/null', 'w');
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    cwd: ROOT,
    stdio: ['ignore', devNull, 'pipe', ...(ipc ? ['ipc'] : [])],
  });
  closeSync(devNull);
  let stderr = '';
  child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  child.stderrTail = () => stderr;
  return child;
}

/**
 * Starts `version-policy serve` with static state (`stateFile`) or with informers (`kubeconfig`)
 * and waits for /readyz. Returns the child, its URL and the milliseconds from spawn to ready.
 */
export async function startOurs(
  certs,
  stateFile,
  { nodeArgs = [], kubeconfig, ipc = false, timeoutMs, config: extra, main = 'dist/cli/main.js' } = {},
) {
  const port = await freePort();
  const config = await writeConfig(certs, port, kubeconfig, extra);
  const url = `https://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawnNode(
    [main, 'serve', '--config', config, ...(stateFile ? ['--state', stateFile] : [])],
    nodeArgs,
    ipc,
  );
  return { child, url, readyMs: (await readyOrKill(child, url, certs, timeoutMs)) - t0 };
}

/** Starts the bare baseline on a port chosen here, so that start-up is timed the same way as ours. */
export async function startBaseline(certs, { nodeArgs = [] } = {}) {
  const port = await freePort();
  const url = `https://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawnNode(['bench/baseline-server.js', certs.cert, certs.key, String(port)], nodeArgs);
  return { child, url, readyMs: (await readyOrKill(child, url, certs)) - t0 };
}

async function readyOrKill(child, url, certs, timeoutMs = 60_000) {
  const exited = new Promise((_, reject) =>
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before ready:\n${child.stderrTail()}`))),
  );
  exited.catch(() => undefined);
  try {
    return await Promise.race([waitReady(`${url}/readyz`, certs.caPem, { timeoutMs }), exited]);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
}

/** SIGTERM, then waits for the exit (a --cpu-prof profile is written on exit). */
export async function stop(server) {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
