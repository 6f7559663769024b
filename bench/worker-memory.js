// Issue 34, item 4's memory side: what the landscape worker's mirror and the fleet forecast cost
// the process at 50,000 Shoots, in the real `version-policy serve` with informers against
// list-server.js (Shoots listed, trimmed and indexed as in production), measured with
// memory-probe.js once the first fleet forecast is made: the event loop's heap after a full GC,
// the process's RSS (both threads) and its peak. Two builds in one run, alternating, so that
// their ratio is read at one load:
//
//   npm run build && node bench/worker-memory.js --before DIR [--shoots 50000] [--rounds 2]
//
// DIR is an older build's dist/ (bench/forecast-worker.js says how to make one).
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { cloudProfile } from './fixtures.js';
import { startListServer } from './list-server.js';
import { certificates, startOurs, stop } from './servers.js';
import { median } from './stats.js';

const arg = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const BEFORE = arg('--before');
if (!BEFORE) throw new Error('--before DIR: an older build of dist/ to compare with');
const SHOOTS = Number(arg('--shoots', 50_000));
const ROUNDS = Number(arg('--rounds', 2));
const BUILDS = { before: `${BEFORE.replace(/\/$/, '')}/cli/main.js`, after: 'dist/cli/main.js' };
const PROBE = ['--expose-gc', '--import', './bench/memory-probe.js'];
const DAY_MS = 86_400_000;
const MB = 2 ** 20;

function measure(server) {
  return new Promise((resolve, reject) => {
    server.child.once('message', resolve);
    server.child.once('exit', (code) => reject(new Error(`exited (${code}):\n${server.child.stderrTail()}`)));
    server.child.send('measure');
  });
}

async function metric(server, name) {
  const config = parse(readFileSync(server.child.spawnargs[server.child.spawnargs.indexOf('--config') + 1], 'utf8'));
  const text = await (await fetch(`http://127.0.0.1:${config.server.probePort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : undefined;
}

async function sample(certs, main, kubeconfig) {
  const server = await startOurs(certs, undefined, {
    nodeArgs: PROBE,
    kubeconfig,
    ipc: true,
    timeoutMs: 600_000,
    main,
  });
  try {
    const ready = await measure(server);
    // The first fleet forecast runs once the informers have synced; its duration gauge then turns positive.
    while (((await metric(server, 'version_policy_forecast_duration_seconds')) ?? 0) <= 0) await sleep(1_000);
    return { ready, forecast: await measure(server), readyMs: server.readyMs };
  } finally {
    await stop(server);
  }
}

const certs = await certificates();
const profile = cloudProfile({ now: Math.floor(Date.now() / DAY_MS) * DAY_MS });
const lists = await startListServer(certs, { shoots: SHOOTS, profiles: [profile] });
const load = [loadavg()[0]];
const samples = { before: [], after: [] };
try {
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? ['after', 'before'] : ['before', 'after'];
    for (const build of order) {
      const s = await sample(certs, BUILDS[build], lists.kubeconfig);
      samples[build].push(s);
      console.error(
        `  ${build}: ready ${(s.readyMs / 1000).toFixed(0)} s; at ready rss ${(s.ready.rss / MB).toFixed(0)} MB; ` +
          `after the fleet forecast rss ${(s.forecast.rss / MB).toFixed(0)} MB, event-loop heap ${(s.forecast.heapUsed / MB).toFixed(0)} MB, peak ${(s.forecast.peakRss / MB).toFixed(0)} MB; load ${loadavg()[0].toFixed(1)}`,
      );
    }
  }
} finally {
  await lists.close();
}
load.push(loadavg()[0]);
const row = (build) => {
  const xs = samples[build];
  const m = (f) => (median(xs.map(f)) / MB).toFixed(0);
  return `${build.padEnd(7)} ${m((s) => s.ready.rss).padStart(8)} ${m((s) => s.forecast.rss).padStart(10)} ${m((s) => s.forecast.heapUsed).padStart(10)} ${m((s) => s.forecast.peakRss).padStart(8)}`;
};
console.log(
  `worker memory: ${SHOOTS.toLocaleString('en-US')} Shoots through informers, ${ROUNDS} rounds, load average ${load.map((l) => l.toFixed(1)).join(' → ')}`,
);
console.log('build   ready RSS  forecast RSS  loop heap  peak RSS   (MB, medians)');
console.log(row('before'));
console.log(row('after'));
