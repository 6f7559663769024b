// HTTPS load: `version-policy serve` (static state) against the bare Fastify baseline, same
// certificates, same bodies, keep-alive, alternating rounds. autocannon drives the load from
// this process; each server runs in its own child process.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { stringify } from 'yaml';
import { createDevCertificates } from '../dist/server/tls/self-signed.js';
import { median, spreadPct } from './stats.js';
import { cloudProfile, removeVersion, review, shoots } from './fixtures.js';

const NOW = Date.parse('2026-09-01T00:00:00Z');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitReady(url, ca, timeoutMs = 30_000) {
  const { request } = await import('node:https');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const req = request(url, { ca, method: 'GET' }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('error', () => resolve(false));
      req.end();
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Writes certificates, state and config; returns what the servers need. */
export async function prepare() {
  const dir = await mkdtemp(join(tmpdir(), 'vp-bench-'));
  const { ca, serving } = await createDevCertificates({ hosts: ['localhost', '127.0.0.1'] });
  const files = { ca: join(dir, 'ca.crt'), cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key') };
  await writeFile(files.ca, ca.certPem);
  await writeFile(files.cert, serving.certPem);
  await writeFile(files.key, serving.keyPem, { mode: 0o600 });

  const small = cloudProfile({ name: 'small', k8s: 6, images: 1, imageVersions: 4, now: NOW });
  const big = cloudProfile({ name: 'aws', now: NOW });
  const bigVersions = big.spec.kubernetes.versions.map((v) => v.version);
  const pinned = bigVersions[Math.floor(bigVersions.length / 2)];
  const population = shoots(big, 10_000, { pinnedVersion: pinned, pinned: 10 });
  files.state = join(dir, 'state.yaml');
  await writeFile(files.state, [small, big, ...population].map((o) => stringify(o)).join('---\n'));

  // (a) a small allowed UPDATE; (b) the realistic denied removal; (c) a /mutate that defaults lifecycles.
  const smallNext = structuredClone(small);
  smallNext.spec.kubernetes.versions.push({ version: '1.25.9' });
  const plain = cloudProfile({ name: 'plain', k8s: 30, images: 2, imageVersions: 12, now: NOW });
  for (const v of plain.spec.kubernetes.versions) {
    delete v.classification;
    delete v.expirationDate;
  }
  for (const img of plain.spec.machineImages) for (const v of img.versions) {
    delete v.classification;
    delete v.expirationDate;
  }
  const bodies = {
    a: { path: '/validate', body: JSON.stringify(review({ uid: 'a', operation: 'UPDATE', object: smallNext, oldObject: small })) },
    b: { path: '/validate', body: JSON.stringify(review({ uid: 'b', operation: 'UPDATE', object: removeVersion(big, pinned), oldObject: big })) },
    c: { path: '/mutate', body: JSON.stringify(review({ uid: 'c', operation: 'CREATE', object: plain })) },
  };
  return { dir, files, bodies };
}

async function startChild(args, readyUrl, ca) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  child.stdout.resume();
  try {
    await waitReady(readyUrl, ca);
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${e.message}\n${err.slice(-2000)}`);
  }
  return child;
}

export async function startOurs(prep) {
  const port = await freePort();
  const cfg = join(prep.dir, 'config.yaml');
  await writeFile(
    cfg,
    stringify({
      logLevel: 'warn',
      cluster: { enabled: false },
      server: { host: '127.0.0.1', port, tls: { certFile: prep.files.cert, keyFile: prep.files.key } },
    }),
  );
  const ca = await (await import('node:fs/promises')).readFile(prep.files.ca);
  const child = await startChild(['dist/cli/main.js', 'serve', '--config', cfg, '--state', prep.files.state], `https://127.0.0.1:${port}/readyz`, ca);
  return { child, url: `https://127.0.0.1:${port}` };
}

export async function startBaseline(prep) {
  const child = spawn(process.execPath, ['bench/baseline-server.js', prep.files.cert, prep.files.key], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await once(child.stdout, 'data');
  const { port } = JSON.parse(String(line));
  return { child, url: `https://127.0.0.1:${port}` };
}

function cannon(url, { path, body }, opts) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: url + path,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        connections: 16,
        pipelining: 1,
        duration: opts.duration,
        ...(opts.rate ? { overallRate: opts.rate } : {}),
        // The servers' certificates are from a CA made for this run; autocannon has no CA option.
        tlsOptions: { rejectUnauthorized: false },
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

/** Max throughput, alternating ours and the baseline each round, then our p99 at 50% of our max. */
export async function runLoad({ rounds = 5, duration = 4 } = {}) {
  const prep = await prepare();
  const ours = await startOurs(prep);
  const base = await startBaseline(prep);
  const out = {};
  try {
    for (const [name, req] of Object.entries(prep.bodies)) {
      const samples = { ours: [], base: [], oursP50: [], oursP99: [], baseP99: [], errors: 0, non2xx: 0 };
      await cannon(ours.url, req, { duration: 1 });
      await cannon(base.url, req, { duration: 1 });
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 ? [['base', base], ['ours', ours]] : [['ours', ours], ['base', base]];
        for (const [who, srv] of order) {
          const res = await cannon(srv.url, req, { duration });
          samples[who].push(res.requests.average);
          if (who === 'ours') {
            samples.oursP50.push(res.latency.p50);
            samples.oursP99.push(res.latency.p99);
            samples.errors += res.errors + res.timeouts;
            samples.non2xx += res.non2xx;
          } else samples.baseP99.push(res.latency.p99);
        }
      }
      const max = median(samples.ours);
      const half = [];
      for (let r = 0; r < 3; r++) half.push((await cannon(ours.url, req, { duration, rate: Math.max(1, Math.round(max / 2)) })).latency.p99);
      out[name] = {
        bytes: req.body.length,
        oursRps: max,
        oursSpread: spreadPct(samples.ours),
        baseRps: median(samples.base),
        baseSpread: spreadPct(samples.base),
        ratio: max / median(samples.base),
        p50: median(samples.oursP50),
        p99: median(samples.oursP99),
        baseP99: median(samples.baseP99),
        p99AtHalf: median(half),
        errors: samples.errors,
        non2xx: samples.non2xx,
      };
    }
  } finally {
    ours.child.kill('SIGTERM');
    base.child.kill('SIGTERM');
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runLoad({ rounds: 3, duration: 3 }), null, 2));
}
