// Start-up: from spawning the process to the first 200 from /readyz (polled every 5 ms, a fresh
// TLS connection each time), for `version-policy serve` with static state and for the bare
// baseline server, in alternating rounds. Two states: the two profiles of the load section alone
// (5 KB and 150 KB), and the profiles with its 10,000 Shoots.
import { loadavg } from 'node:os';
import { scenarios } from './load.js';
import { certificates, startBaseline, startOurs, stop, writeState } from './servers.js';
import { median, spreadPct } from './stats.js';

export async function runStartup({ rounds = 5, log = () => {} } = {}) {
  const certs = await certificates();
  const { state } = scenarios();
  const profiles = state.filter((o) => o.kind === 'CloudProfile');
  const files = {
    profiles: await writeState(certs.dir, 'profiles.yaml', profiles),
    shoots: await writeState(certs.dir, 'state.yaml', state),
  };
  const start = {
    base: () => startBaseline(certs),
    profiles: () => startOurs(certs, files.profiles),
    shoots: () => startOurs(certs, files.shoots),
  };
  const load = [loadavg()[0]];
  const samples = { base: [], profiles: [], shoots: [] };
  const names = Object.keys(start);
  for (let r = 0; r < rounds; r++) {
    for (const name of names.map((_, i) => names[(i + r) % names.length])) {
      const server = await start[name]();
      samples[name].push(server.readyMs);
      await stop(server);
    }
    log(`  start-up round ${r + 1}: ${names.map((n) => `${n} ${samples[n].at(-1).toFixed(0)} ms`).join(', ')}`);
  }
  load.push(loadavg()[0]);
  const summary = (xs) => ({ ms: median(xs), spread: spreadPct(xs) });
  return {
    rounds,
    loadavg: load,
    shoots: state.filter((o) => o.kind === 'Shoot').length,
    base: summary(samples.base),
    profiles: summary(samples.profiles),
    shootsState: summary(samples.shoots),
    samples,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runStartup({ log: console.error }), null, 2));
}
