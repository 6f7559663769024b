// Issue 34, items 4, 5 and 8 at 50,000 Shoots: the process's memory against the chart's limit
// (512 MiB), and /healthz, while the four worst reviews (bench/worst-reviews.js) run at once, in a
// real `version-policy serve` with its production config:
//   informers  cluster informers against bench/list-server.js: N full API Shoots (metadata,
//              managedFields, status) listed in pages, trimmed and indexed as in production
//   static     serve --state with the profile, the NCP and N Shoots in one YAML file
// Per path: RSS at ready; RSS once the landscape worker holds its copy and made the first fleet
// forecast (/healthz polled every 10 ms meanwhile, by bench/healthz-poll.js in another process);
// then 4 clients, each sending one of the worst reviews back to back for --seconds, /healthz
// polled again; the peak RSS (VmHWM) over the whole life of the process. RSS is read from
// /proc/PID/status every 100 ms (every thread counts: the body worker and the landscape worker).
//
// The process runs as in the chart's pod: with the image's GLIBC_TUNABLES (Dockerfile), and with
// --max-old-space-size at half the memory limit, the heap V8 sizes itself from a container's limit
// (a quarter of the memory, doubled on 64-bit; node 22 reads the cgroup's limit), for each thread.
// The limit is the chart's (charts/version-policy/values.yaml), or --limit MiB.
//
//   npm run build && node bench/memory-50k.js [--shoots 50000] [--seconds 60] [--paths informers,static] [--limit MiB] [--main dist/cli/main.js]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'yaml';
import { apiShootOf } from './api-objects.js';
import { cloudProfile, namespacedProfile, shoots as shootsOn } from './fixtures.js';
import { startListServer } from './list-server.js';
import { certificates, ROOT, startOurs, stop, writeState } from './servers.js';
import { worstReviews } from './worst-reviews.js';

const arg = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const SHOOTS = Number(arg('--shoots', 50_000));
const SECONDS = Number(arg('--seconds', 60));
const PATHS = arg('--paths', 'informers,static').split(',');
const MAIN = arg('--main', 'dist/cli/main.js');
const values = parse(readFileSync(new URL('../charts/version-policy/values.yaml', import.meta.url), 'utf8'));
const mib = (q) => parseInt(q, 10) * (String(q).endsWith('Gi') ? 1024 : 1);
const LIMIT_MIB = Number(arg('--limit', 0)) || mib(values.resources.limits.memory);
const NODE_ARGS = [`--max-old-space-size=${Math.floor(LIMIT_MIB / 2)}`];
process.env.GLIBC_TUNABLES = 'glibc.malloc.mmap_threshold=131072';
const DAY = 86_400_000;
const MB = 2 ** 20;
const now = Math.floor(Date.now() / DAY) * DAY;

const kB = (status, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
const memory = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rss: kB(status, 'VmRSS'), peak: kB(status, 'VmHWM') };
};
/**
 * Resident anonymous memory by kind of mapping: [heap] (malloc's main arena), malloc's thread
 * arenas (their heaps start 64 MiB-aligned), and the rest (V8's pages, big mmaps, stacks).
 */
function smaps(pid) {
  const out = { heap: 0, arenas: 0, other: 0 };
  let kind;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const range = /^([0-9a-f]+)-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (range) {
      const aligned = BigInt(`0x${range[1]}`) % 2n ** 26n === 0n;
      kind = range[3] === '[heap]' ? 'heap' : range[3] ? undefined : aligned ? 'arenas' : 'other';
      continue;
    }
    if (kind && line.startsWith('Rss:')) out[kind] += Number(line.split(/\s+/)[1]) * 1024;
  }
  return out;
}

/** RSS and peak, and each thread's heap (used and total, nothing collected first) from memory-probe.js. */
async function measure(server) {
  const heaps = await new Promise((resolve, reject) => {
    const exited = (code) => reject(new Error(`exited (${code}):\n${server.child.stderrTail()}`));
    server.child.once('exit', exited);
    server.child.once('message', (m) => {
      server.child.off('exit', exited);
      resolve(m.heaps);
    });
    server.child.send('heaps');
  });
  return { ...memory(server.child.pid), heaps, smaps: smaps(server.child.pid) };
}
const q = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const f = (n) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : '-');
const mb = (b) => (b / MB).toFixed(0);

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
      const ms = out
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const sorted = ms.map(([, d]) => d).sort((a, b) => a - b);
      return {
        polls: sorted.length,
        p50: q(sorted, 0.5),
        p99: q(sorted, 0.99),
        max: sorted.at(-1) ?? NaN,
        over150: sorted.filter((d) => d > 150).length,
        failed: ms.filter(([, , s]) => s !== 200).length,
      };
    },
  };
}

function post(url, body, ca, agent) {
  return new Promise((resolve) => {
    const req = request(
      `${url}/validate`,
      { method: 'POST', ca, agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          let allowed;
          try {
            allowed = JSON.parse(Buffer.concat(chunks).toString()).response?.allowed;
          } catch {
            allowed = undefined;
          }
          resolve(`${res.statusCode} ${allowed === true ? 'allowed' : allowed === false ? 'denied' : '-'}`);
        });
      },
    );
    req.on('error', (e) => resolve(`error ${e.code ?? e.message}`));
    req.end(body);
  });
}

const probeUrl = (server) => {
  const config = parse(readFileSync(server.child.spawnargs[server.child.spawnargs.indexOf('--config') + 1], 'utf8'));
  return `http://127.0.0.1:${config.server.probePort}`;
};

async function fleetDone(server) {
  for (;;) {
    const text = await (await fetch(`${probeUrl(server)}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('version_policy_forecast_duration_seconds '));
    if (Number(line?.split(' ')[1] ?? 0) > 0) return;
    await sleep(500);
  }
}

async function run(path, certs, how, bodies) {
  const server = await startOurs(certs, how.state, {
    kubeconfig: how.kubeconfig,
    timeoutMs: 900_000,
    main: MAIN,
    nodeArgs: [...NODE_ARGS, '--import', './bench/memory-probe.js'],
    ipc: true,
  });
  const { pid } = server.child;
  let top = 0;
  const sampler = setInterval(() => {
    try {
      top = Math.max(top, memory(pid).rss);
    } catch {
      // exited
    }
  }, 100);
  try {
    const ready = await measure(server);
    let poll = poller(`${probeUrl(server)}/healthz`);
    await fleetDone(server);
    const forecastHealthz = await poll.stop();
    await sleep(2_000);
    const forecast = await measure(server);
    poll = poller(`${probeUrl(server)}/healthz`);
    const until = Date.now() + SECONDS * 1000;
    const answers = {};
    await Promise.all(
      Object.entries(bodies).map(async ([name, body]) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        answers[name] = {};
        while (Date.now() < until) {
          const a = await post(server.url, body, certs.caPem, agent);
          answers[name][a] = (answers[name][a] ?? 0) + 1;
        }
        agent.destroy();
      }),
    );
    const reviewsHealthz = await poll.stop();
    const after = await measure(server);
    return { path, readyMs: server.readyMs, ready, forecast, after, top, forecastHealthz, reviewsHealthz, answers };
  } finally {
    clearInterval(sampler);
    await stop(server);
  }
}

const certs = await certificates();
// Five realistic profiles, a fifth of the Shoots on each (10,000 at 50,000, issue 34's item 7).
const profiles = ['aws', 'azure', 'gcp', 'openstack', 'alicloud'].map((name) => cloudProfile({ name, now }));
const profile = profiles[0];
const ncp = namespacedProfile(profile, now);
const population = profiles.flatMap((p) =>
  shootsOn(p, SHOOTS / profiles.length).map((s) => ({
    ...s,
    metadata: { ...s.metadata, name: `${p.metadata.name}-${s.metadata.name}` },
  })),
);
const bodies = worstReviews({ profile, shoot: population[5], now });
const load = [loadavg()[0]];
console.log(
  `memory at ${SHOOTS.toLocaleString('en-US')} Shoots, 4 worst reviews at once for ${SECONDS} s (${[...NODE_ARGS, MAIN].join(' ')}, a limit of ${LIMIT_MIB} MiB), load average ${loadavg().map(f).join(' ')}`,
);
console.log(
  Object.entries(bodies)
    .map(([n, b]) => `${n} ${(b.length / MB).toFixed(1)} MiB`)
    .join(', '),
);
const results = [];
for (const path of PATHS) {
  let how;
  let lists;
  if (path === 'static')
    how = { state: await writeState(certs.dir, 'memory-50k.yaml', [...profiles, ncp, ...population]) };
  else {
    lists = await startListServer(certs, {
      shoots: SHOOTS,
      profiles,
      namespacedProfiles: [ncp],
      shoot: (i) => apiShootOf(population[i], i),
    });
    how = { kubeconfig: lists.kubeconfig };
  }
  try {
    const r = await run(path, certs, how, bodies);
    results.push(r);
    const h = (x) =>
      `p50 ${f(x.p50)}, p99 ${f(x.p99)}, max ${f(x.max)} ms, >150 ms ${x.over150} of ${x.polls}, failed ${x.failed}`;
    console.log(`\n${path}: ready after ${f(r.readyMs / 1000)} s, load ${f(loadavg()[0])}`);
    const heap = (m) =>
      Object.entries(m.heaps)
        .map(([n, h]) => `${n} ${mb(h.used)}/${mb(h.total)}`)
        .join(', ');
    console.log(
      `  heaps used/total MB: at ready ${heap(r.ready)}; after the forecast ${heap(r.forecast)}; after the reviews ${heap(r.after)}`,
    );
    const sm = (m) => `[heap] ${mb(m.smaps.heap)}, arenas ${mb(m.smaps.arenas)}, other ${mb(m.smaps.other)}`;
    console.log(
      `  anonymous RSS MB: at ready ${sm(r.ready)}; after the forecast ${sm(r.forecast)}; after the reviews ${sm(r.after)}`,
    );
    console.log(
      `  RSS at ready ${mb(r.ready.rss)} MB; after the fleet forecast ${mb(r.forecast.rss)} MB (peak so far ${mb(r.forecast.peak)} MB)`,
    );
    console.log(
      `  after ${SECONDS} s of the 4 reviews ${mb(r.after.rss)} MB; peak (VmHWM) ${mb(r.after.peak)} MB, sampled max ${mb(r.top)} MB`,
    );
    console.log(`  /healthz during the first fleet forecast: ${h(r.forecastHealthz)}`);
    console.log(`  /healthz during the reviews:              ${h(r.reviewsHealthz)}`);
    for (const [n, a] of Object.entries(r.answers))
      console.log(
        `  ${n}: ${Object.entries(a)
          .map(([k, v]) => `${v}× ${k}`)
          .join(', ')}`,
      );
  } finally {
    await lists?.close();
  }
}
load.push(loadavg()[0]);
console.log(`\nload average ${load.map(f).join(' → ')}`);
if (process.argv.includes('--json')) console.log(JSON.stringify(results));
