// Soak (issue 24): `serve`, as the image runs it, with its stdout into a pipe that nobody reads (a
// stuck node log pipeline), takes hostile and normal reviews for a while; its RSS is sampled all
// along, and at the end it must exit 0 on SIGTERM within its grace period. Not part of npm test.
//
//   npm run build && node bench/soak.js [--seconds 120] [--concurrency 8]
//
// Prints the RSS samples, the answers by status, the dropped log lines, and the exit.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';

const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const seconds = arg('--seconds', 120);
const concurrency = arg('--concurrency', 8);
const root = fileURLToPath(new URL('..', import.meta.url));
const demo = readFileSync(join(root, 'test/fixtures/review-remove-version-in-use.json'), 'utf8');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const [port, probePort] = [await freePort(), await freePort()];
const dir = await mkdtemp(join(tmpdir(), 'vp-soak-'));
const grace = 10;
await writeFile(
  join(dir, 'config.json'),
  JSON.stringify({
    server: { port, probePort, shutdownDelaySeconds: 0, shutdownGraceSeconds: grace },
    logLevel: 'debug',
    logBufferBytes: 1 << 20,
  }),
);
// stdout: a pipe this process never reads. stderr is read (it stays empty unless serve fails).
const child = spawn(
  process.execPath,
  [
    join(root, 'dist/cli/main.js'),
    'serve',
    '--config',
    'config.json',
    '--state',
    join(root, 'test/fixtures/demo-state.yaml'),
  ],
  { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] },
);
const exited = once(child, 'exit');

const probe = (path) =>
  new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port: probePort, path, agent: false }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, text }));
      })
      .on('error', () => resolve({ status: 0, text: '' }));
  });
for (let i = 0; (await probe('/readyz')).status !== 200; i++) {
  if (i > 600) throw new Error('serve did not become ready');
  await sleep(50);
}
const ca = await readFile(join(dir, '.dev-certs/ca.crt'), 'utf8');
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

// Normal reviews: the demo's denial, an allowed label-only UPDATE of the same profile.
const review = JSON.parse(demo);
const allowed = structuredClone(review);
allowed.request.object = structuredClone(allowed.request.oldObject);
allowed.request.uid = 'soak-allowed';
const over = structuredClone(review);
over.request.operation = 'CREATE';
over.request.oldObject = null;
over.request.object.spec.kubernetes.versions = Array.from({ length: 1_500 }, (_, i) => ({
  version: `1.${Math.floor(i / 50)}.${i % 50}`,
}));
const hostile = [
  { name: 'over the limits', body: JSON.stringify(over) },
  { name: 'not JSON', body: '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "x"' },
  {
    name: 'deep nesting',
    body: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"deep","object":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
  },
  { name: '__proto__', body: JSON.stringify(review).replace('"metadata":{', '"metadata":{"__proto__":{"x":1},') },
  { name: 'wrong content type', body: demo, type: 'text/plain' },
  {
    name: '2 MiB annotation',
    body: JSON.stringify({
      ...review,
      request: {
        ...review.request,
        object: {
          ...review.request.object,
          metadata: { ...review.request.object.metadata, annotations: { a: 'x'.repeat(2 << 20) } },
        },
      },
    }),
  },
  {
    name: 'long user',
    body: JSON.stringify({ ...review, request: { ...review.request, userInfo: { username: 'u'.repeat(100_000) } } }),
  },
];
const normal = [
  { name: 'demo denial', body: demo },
  { name: 'allowed update', body: JSON.stringify(allowed) },
];

const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency, ca });
const statuses = new Map();
const count = (k) => statuses.set(k, (statuses.get(k) ?? 0) + 1);
const post = (shape) =>
  new Promise((resolve) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: shape.path ?? '/validate',
        agent,
        headers: { 'content-type': shape.type ?? 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.statusCode)));
      },
    );
    req.on('error', (e) => resolve(e.code ?? e.message));
    req.end(shape.body);
  });

// Slow and idle connections on the side: a handshake and then nothing, every second.
const idlers = [];
const idleTimer = setInterval(() => {
  const s = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' });
  s.on('error', () => undefined);
  idlers.push(s);
  if (idlers.length > 200) idlers.shift().destroy();
}, 1000);

const samples = [];
const end = Date.now() + seconds * 1000;
const sampler = setInterval(() => samples.push(Math.round(rss())), 5000);
samples.push(Math.round(rss()));
let n = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (Date.now() < end) {
      const shape = n++ % 3 === 0 ? hostile[n % hostile.length] : normal[n % normal.length];
      count(`${shape.name} ${await post(shape)}`);
    }
  }),
);
clearInterval(sampler);
clearInterval(idleTimer);
samples.push(Math.round(rss()));
const metrics = (await probe('/metrics')).text;
const dropped = /^version_policy_log_lines_dropped_total (\d+)/m.exec(metrics)?.[1];
agent.destroy();
for (const s of idlers) s.destroy();

const signalled = Date.now();
child.kill('SIGTERM');
const [code, signal] = await Promise.race([exited, sleep((grace + 5) * 1000).then(() => ['still running', null])]);
const exitMs = Date.now() - signalled;
if (code === 'still running') child.kill('SIGKILL');
await rm(dir, { recursive: true, force: true });

console.log(
  `soak: ${seconds} s, ${n} reviews (${concurrency} at once, a third hostile), stdout never read, logLevel debug, logBufferBytes 1 MiB`,
);
console.log(`RSS MB every 5 s: ${samples.join(' ')}`);
const half = samples.slice(Math.floor(samples.length / 2));
console.log(
  `RSS: first ${samples[0]}, max ${Math.max(...samples)}, second half ${Math.min(...half)}–${Math.max(...half)} MB`,
);
console.log('answers:');
for (const [k, v] of [...statuses].sort()) console.log(`  ${k}: ${v}`);
console.log(`version_policy_log_lines_dropped_total ${dropped}`);
console.log(`SIGTERM: exit ${code}${signal ? ` (${signal})` : ''} after ${exitMs} ms (grace period ${grace} s)`);
process.exitCode = code === 0 && exitMs < grace * 1000 ? 0 : 1;
