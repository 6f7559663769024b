// Issue 34, items 7, 8 and 4 (the forecast's side): what the forecast costs the event loop, before
// and after it moved to the landscape worker, measured in one run. Both builds run as
// `version-policy serve` child processes on the same state files; /healthz is polled every 10 ms
// from another process (bench/healthz-poll.js) on the probe port, and the main thread's CPU is read
// from /proc/<pid>/task/<pid>/schedstat (worker threads are other tasks, not counted).
//
//   npm run build && node bench/forecast-worker.js --before DIR [--shoots 10000] [--reviews 20] [--seconds 20]
//
// DIR is an older build's dist/ (e.g. `git worktree add /tmp/before main && cd /tmp/before &&
// ln -s $PWD/node_modules . && npx tsc -p tsconfig.build.json`, then /tmp/before/dist).
//   7. 10,000 Shoots on one realistic profile (bench/fleet.js's aws, three images under major,
//      minor and patch); the UPDATE operators make in bulk: a kubeletVersionConstraint on every
//      image version and every image version but the newest expiring in two days. Main-thread CPU
//      per review, one at a time, on /validate and /mutate, in warn mode and in deny mode; then
//      four clients sending it back to back while /healthz is polled.
//   8. 2,000 Shoots on a profile at the list limits (1,000 Kubernetes versions, three images of
//      1,000): /healthz while the first fleet forecast runs, and the main thread's CPU meanwhile.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'yaml';
import { fleet, NOW as FLEET_NOW, profile } from './fleet.js';
import { certificates, ROOT, startOurs, stop, writeState } from './servers.js';

const arg = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const BEFORE = arg('--before');
if (!BEFORE) throw new Error('--before DIR: an older build of dist/ to compare with');
const SHOOTS = Number(arg('--shoots', 10_000));
const REVIEWS = Number(arg('--reviews', 20));
const SECONDS = Number(arg('--seconds', 20));
const FLEET_SHOOTS = Number(arg('--fleet-shoots', 2_000));
const BUILDS = { before: `${BEFORE.replace(/\/$/, '')}/cli/main.js`, after: 'dist/cli/main.js' };
const DAY = 86_400_000;
const NOW = Date.now();

/** Moves every instant of bench/fleet.js's fixed "now" to the real one: the servers judge at their clock. */
const shifted = (o) =>
  JSON.parse(
    JSON.stringify(o, (k, v) =>
      k === 'expirationDate' ? new Date(Date.parse(v) - FLEET_NOW + NOW).toISOString().replace('.000Z', 'Z') : v,
    ),
  );
const stamp = (days) => new Date(NOW + days * DAY).toISOString().replace('.000Z', 'Z');

// --- item 7: one realistic profile, 10,000 Shoots on it ---------------------------------------
const aws = shifted(profile('aws', 0));
// One supported patch per minor (SUPPORTED-PER-MINOR): the update is then allowed unless the forecast denies.
for (const v of aws.spec.kubernetes.versions)
  if (v.classification === 'supported' && v.version.endsWith('.4')) v.classification = 'deprecated';
const shoots = fleet(SHOOTS)
  .filter((o) => o.kind === 'Shoot')
  .map((s) => ({ ...s, spec: { ...s.spec, cloudProfile: { kind: 'CloudProfile', name: 'aws' } } }));
const bulk = structuredClone(aws);
for (const image of bulk.spec.machineImages) {
  const newest = image.versions.at(-1).version;
  for (const v of image.versions) {
    v.kubeletVersionConstraint = '>= 1.28.0';
    if (v.version !== newest) v.expirationDate = stamp(2);
  }
}
const reviewBody = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: '3b1a8c1e-0000-4000-8000-000000000034',
    kind: { group: 'core.gardener.cloud', version: 'v1beta1', kind: 'CloudProfile' },
    resource: { group: 'core.gardener.cloud', version: 'v1beta1', resource: 'cloudprofiles' },
    name: 'aws',
    operation: 'UPDATE',
    userInfo: { username: 'operator' },
    object: bulk,
    oldObject: aws,
    dryRun: false,
  },
});

// --- item 8: a profile at the list limits, 2,000 Shoots on it -----------------------------------
const K8S = Array.from({ length: 1_000 }, (_, i) => `1.${20 + Math.floor(i / 100)}.${i % 100}`);
const IMG = (i) => `${1000 + Math.floor(i / 10)}.${i % 10}.0`;
const limits = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: { name: 'limits' },
  spec: {
    type: 'x',
    kubernetes: {
      versions: K8S.map((version, i) => ({
        version,
        classification: i % 100 < 10 ? 'deprecated' : i % 100 === 99 ? 'supported' : 'preview',
        ...(i % 100 < 10 ? { expirationDate: stamp(1 + (i % 170)) } : {}),
      })),
    },
    machineImages: ['gardenlinux', 'ubuntu', 'suse'].map((name, n) => ({
      name,
      updateStrategy: ['major', 'minor', 'patch'][n],
      versions: Array.from({ length: 1_000 }, (_, i) => ({
        version: IMG(i),
        classification: i < 100 ? 'deprecated' : 'supported',
        ...(i < 100 ? { expirationDate: stamp(1 + (i % 170)) } : {}),
        cri: [{ name: 'containerd' }],
        architectures: ['amd64', 'arm64'],
      })),
    })),
    machineTypes: [{ name: 'm5.large', architecture: 'amd64' }],
    regions: [{ name: 'r' }],
  },
};
const limitShoots = Array.from({ length: FLEET_SHOOTS }, (_, i) => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name: `l${i}`, namespace: `garden-l${i % 50}` },
  spec: {
    cloudProfile: { kind: 'CloudProfile', name: 'limits' },
    kubernetes: { version: K8S[(i * 7) % 1_000] },
    provider: {
      type: 'x',
      workers: [
        { name: 'a', machine: { type: 'm5.large', image: { name: 'gardenlinux', version: IMG((i * 13) % 1_000) } } },
        { name: 'b', machine: { type: 'm5.large', image: { name: 'ubuntu', version: IMG((i * 17) % 1_000) } } },
      ],
    },
    maintenance: { timeWindow: { begin: '220000+0000', end: '230000+0000' } },
  },
}));

// --- measuring ----------------------------------------------------------------------------------
const cpuMs = (pid) => Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
const q = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const f = (n) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : '-');

function post(url, path, body, ca, agent) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method: 'POST', ca, agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString()).response));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function poller(url) {
  const child = spawn(process.execPath, [`${ROOT}bench/healthz-poll.js`, url, '10'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  return {
    async stop() {
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      await done;
      return out
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    },
  };
}

/** /healthz latencies of the polls started in [from, to]: p50, p99, max, over 150 ms, failed. */
function healthz(records, from = 0, to = Infinity) {
  const inside = records.filter(([start]) => start >= from && start <= to);
  const ms = inside.map(([, d]) => d).sort((a, b) => a - b);
  return {
    polls: ms.length,
    p50: q(ms, 0.5),
    p99: q(ms, 0.99),
    max: ms.at(-1) ?? NaN,
    over150: ms.filter((d) => d > 150).length,
    failed: inside.filter(([, , s]) => s !== 200).length,
  };
}

const probeUrlOf = (server) => {
  const config = parse(readFileSync(server.child.spawnargs[server.child.spawnargs.indexOf('--config') + 1], 'utf8'));
  return `http://127.0.0.1:${config.server.probePort}`;
};

async function metric(server, name) {
  const text = await (await fetch(`${probeUrlOf(server)}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : undefined;
}

/** Until the first fleet forecast is made: its duration gauge turns positive. */
async function fleetDone(server) {
  for (;;) {
    if (((await metric(server, 'version_policy_forecast_duration_seconds')) ?? 0) > 0) return Date.now();
    await sleep(500);
  }
}

async function reviewCosts(url, pid, ca) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const costs = { validate: [], mutate: [] };
  let said;
  for (let i = 0; i < REVIEWS + 2; i++) {
    for (const path of ['validate', 'mutate']) {
      const before = cpuMs(pid);
      said = await post(url, `/${path}`, reviewBody, ca, agent);
      if (i >= 2) costs[path].push(cpuMs(pid) - before); // two rounds warm up
    }
  }
  agent.destroy();
  const median = (xs) =>
    q(
      [...xs].sort((a, b) => a - b),
      0.5,
    );
  const max = (xs) => Math.max(...xs);
  return {
    validate: median(costs.validate),
    validateMax: max(costs.validate),
    mutate: median(costs.mutate),
    mutateMax: max(costs.mutate),
    allowed: said.allowed,
    message: said.status?.message ?? '',
    forecast: [said.status?.message ?? '', ...(said.warnings ?? [])].find((w) => /forecast|maintenance/.test(w)) ?? '',
  };
}

async function underLoad(url, ca, server) {
  const poll = poller(`${probeUrlOf(server)}/healthz`);
  await sleep(500);
  const from = Date.now();
  const until = from + SECONDS * 1000;
  let sent = 0;
  await Promise.all(
    Array.from({ length: 4 }, async (_, c) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; Date.now() < until; i++, sent++)
        await post(url, i % 2 === c % 2 ? '/validate' : '/mutate', reviewBody, ca, agent);
      agent.destroy();
    }),
  );
  return { ...healthz(await poll.stop(), from, Date.now()), reviews: sent };
}

const certs = await certificates();
const state7 = await writeState(certs.dir, 'item7.yaml', [aws, ...shoots]);
const state8 = await writeState(certs.dir, 'item8.yaml', [limits, ...limitShoots]);
const MODES = { warn: {}, deny: { forecast: { deny: ['trap', 'no-target', 'forced-soon'] } } };
console.log(`forecast off the event loop (issue 34, items 7, 8, 4), load average ${loadavg().map(f).join(' ')}`);

console.log(
  `\nItem 7: ${SHOOTS.toLocaleString('en-US')} Shoots on one profile; the bulk UPDATE (kubelet constraints, expiries in 2 days)`,
);
console.log(
  'build   mode   /validate CPU ms (median, max)   /mutate CPU ms (median, max)   /healthz ms under 4 clients (p50, p99, max, >150 ms, failed)   reviews',
);
for (const [mode, config] of Object.entries(MODES)) {
  for (const [build, main] of Object.entries(BUILDS)) {
    const server = await startOurs(certs, state7, { main, config, timeoutMs: 300_000 });
    try {
      await fleetDone(server);
      const c = await reviewCosts(server.url, server.child.pid, certs.caPem);
      const h = await underLoad(server.url, certs.caPem, server);
      console.log(
        `${build.padEnd(7)} ${mode.padEnd(6)} ${f(c.validate).padStart(8)}, ${f(c.validateMax).padStart(6)}                 ${f(c.mutate).padStart(8)}, ${f(c.mutateMax).padStart(6)}              ${f(h.p50)}, ${f(h.p99)}, ${f(h.max)}, ${h.over150} of ${h.polls}, ${h.failed}   ${h.reviews}`,
      );
      console.log(`        ${c.allowed ? 'allowed' : `denied: ${c.message.slice(0, 200)}`}`);
      console.log(`        forecast: ${c.forecast.slice(0, 200)}`);
    } finally {
      await stop(server);
    }
  }
}

console.log(
  `\nItem 8: the first fleet forecast of ${FLEET_SHOOTS.toLocaleString('en-US')} Shoots on a profile at the list limits`,
);
console.log(
  'build   forecast made after (s)   main-thread CPU meanwhile (ms)   /healthz ms meanwhile (p50, p99, max, >150 ms, failed)',
);
for (const [build, main] of Object.entries(BUILDS)) {
  const server = await startOurs(certs, state8, { main, timeoutMs: 300_000 });
  try {
    const poll = poller(`${probeUrlOf(server)}/healthz`);
    const from = Date.now();
    const cpu0 = cpuMs(server.child.pid);
    const done = await fleetDone(server);
    const cpu = cpuMs(server.child.pid) - cpu0;
    const h = healthz(await poll.stop(), from, done);
    const busy = await metric(server, 'version_policy_forecast_duration_seconds');
    // The same polling with the server idle: the machine's own noise, and what polling costs.
    const idlePoll = poller(`${probeUrlOf(server)}/healthz`);
    const idleFrom = Date.now();
    const idleCpu0 = cpuMs(server.child.pid);
    await sleep(SECONDS * 1000);
    const idleCpu = ((cpuMs(server.child.pid) - idleCpu0) * 1000) / (Date.now() - idleFrom);
    const idle = healthz(await idlePoll.stop(), idleFrom, Date.now());
    console.log(
      `${build.padEnd(7)} ${f((done - from) / 1000).padStart(8)} (forecast ${f(busy)} s)   ${f(cpu).padStart(10)} (idle: ${f(idleCpu)} ms/s)        ${f(h.p50)}, ${f(h.p99)}, ${f(h.max)}, ${h.over150} of ${h.polls}, ${h.failed}; idle: ${f(idle.p50)}, ${f(idle.p99)}, ${f(idle.max)}, ${idle.over150} of ${idle.polls}`,
    );
  } finally {
    await stop(server);
  }
}
console.log(`\nload average at the end ${loadavg().map(f).join(' ')}`);
