// Memory with 100,000 Shoots indexed, measured in the real `version-policy serve` process after a
// full GC (memory-probe.js, preloaded with --expose-gc), against empty baseline processes
// measured in the same run:
//   empty           serve --state with the realistic profile and no Shoots
//   static          serve --state with the profile and N Shoots in one YAML file (the real loadStaticState)
//   informersEmpty  serve with cluster informers against a list server with the profile and no Shoots
//   informers       serve with cluster informers against list-server.js: N full API Shoots, listed
//                   in pages of 500, trimmed and indexed exactly as in production
import { loadavg } from 'node:os';
import { cloudProfile, shoots as shootsOf } from './fixtures.js';
import { startListServer } from './list-server.js';
import { certificates, startOurs, stop, writeState } from './servers.js';
import { median } from './stats.js';

const DAY_MS = 86_400_000;
const PROBE = ['--expose-gc', '--import', './bench/memory-probe.js'];

function measure(server) {
  return new Promise((resolve, reject) => {
    server.child.once('message', resolve);
    server.child.once('exit', (code) =>
      reject(new Error(`exited (${code}) before measuring:\n${server.child.stderrTail()}`)),
    );
    server.child.send('measure');
  });
}

/** Starts one serve process, waits for ready, measures, stops it. */
async function sample(certs, how) {
  // Reading 100,000 Shoots from YAML takes a while on a shared machine.
  const server = await startOurs(certs, how.state, {
    nodeArgs: PROBE,
    kubeconfig: how.kubeconfig,
    ipc: true,
    timeoutMs: 300_000,
  });
  try {
    return { ...(await measure(server)), readyMs: server.readyMs };
  } finally {
    await stop(server);
  }
}

/**
 * `rounds` rounds of the empty and informer processes (alternating), `staticRounds` of the static
 * one (loading N Shoots from YAML is the slowest part of the section).
 */
export async function runMemory({ shoots = 100_000, rounds = 3, staticRounds = 1, kinds: only, log = () => {} } = {}) {
  const certs = await certificates();
  const profile = cloudProfile({ now: Math.floor(Date.now() / DAY_MS) * DAY_MS });
  const load = [loadavg()[0]];
  log(`memory: writing ${shoots.toLocaleString('en')} Shoots as YAML`);
  const emptyState = await writeState(certs.dir, 'profile.yaml', [profile]);
  const staticState = await writeState(certs.dir, 'shoots.yaml', [
    profile,
    ...shootsOf(profile, shoots, { pinnedVersion: profile.spec.kubernetes.versions[30].version, pinned: 10 }),
  ]);
  const lists = await startListServer(certs, { shoots, profiles: [profile] });
  const noShoots = await startListServer(certs, { shoots: 0, profiles: [profile] });
  const kinds = {
    empty: { state: emptyState },
    informersEmpty: { kubeconfig: noShoots.kubeconfig },
    informers: { kubeconfig: lists.kubeconfig },
    static: { state: staticState },
  };
  const samples = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  try {
    for (let r = 0; r < Math.max(rounds, staticRounds); r++) {
      const order = Object.keys(kinds)
        .filter((k) => !only || only.includes(k))
        .filter((k) => (k === 'static' ? r < staticRounds : r < rounds));
      if (r % 2) order.reverse();
      for (const kind of order) {
        samples[kind].push(await sample(certs, kinds[kind]));
        const s = samples[kind].at(-1);
        log(
          `  ${kind}: rss ${(s.rss / 2 ** 20).toFixed(0)} MB, heap ${(s.heapUsed / 2 ** 20).toFixed(0)} MB, peak rss ${(s.peakRss / 2 ** 20).toFixed(0)} MB, ready in ${(s.readyMs / 1000).toFixed(1)} s`,
        );
      }
    }
  } finally {
    await Promise.all([lists.close(), noShoots.close()]);
  }
  load.push(loadavg()[0]);
  const summary = (xs) =>
    Object.fromEntries(
      ['rss', 'heapUsed', 'external', 'peakRss', 'readyMs'].map((f) => [f, median(xs.map((x) => x[f]))]),
    );
  return {
    shoots,
    rounds,
    staticRounds,
    loadavg: load,
    listedBytes: lists.stats.bytes / Math.max(1, samples.informers.length),
    ...Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, summary(xs)])),
    samples,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[2] ?? 100_000);
  const kinds = process.argv[3]?.split(',');
  console.log(JSON.stringify(await runMemory({ shoots: n, kinds, log: console.error }), null, 2));
}
