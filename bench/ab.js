// A/B while optimising: the bare baseline, `serve` from dist/ and (optionally) `serve` from an
// older build, in rotating order on the same reviews, in one run. Prints each server's req/s per
// round and its median ratio to the baseline of the same rounds.
//
//   node bench/ab.js [--shapes a,d,g] [--before DIR] [--rounds 5] [--seconds 3] [--paced] [--config JSON]
//                    [--also NAME=JSON]...
//
// DIR is a copy of an older dist/ (e.g. `cp -r dist /tmp/dist-before`), run as DIR/cli/main.js.
// --config: keys merged into ours' config (e.g. '{"forecast":{"warn":false}}'); an older build may
// not know them. --also: one more `serve` from dist/ with these keys, named NAME, in the same rotation.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { client, scenarios, verify } from './load.js';
import { certificates, startBaseline, startOurs, stop, writeState } from './servers.js';
import { median, spreadPct } from './stats.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const rounds = Number(opt('--rounds', 5));
const durationS = Number(opt('--seconds', 3));
const before = opt('--before');
const paced = args.includes('--paced');
const config = JSON.parse(opt('--config', '{}'));
// A state of 20,000 Shoots takes a while to load on a busy machine.
const timeoutMs = 300_000;
const also = args.flatMap((a, i) => (a === '--also' ? [args[i + 1]] : [])).map((x) => x.split(/=(.*)/s));
const { state, reviews } = scenarios();
const shapes = opt('--shapes', Object.keys(reviews).join(',')).split(',');

const certs = await certificates();
const stateFile = await writeState(certs.dir, 'state.yaml', state);
const servers = {};
try {
  servers.base = await startBaseline(certs);
  servers.ours = await startOurs(certs, stateFile, { config, timeoutMs });
  for (const [name, extra] of also)
    servers[name] = await startOurs(certs, stateFile, { config: JSON.parse(extra), timeoutMs });
  if (before) servers.before = await startOurs(certs, stateFile, { main: join(before, 'cli/main.js'), timeoutMs });
  const names = Object.keys(servers);
  for (const key of shapes) {
    const sc = reviews[key];
    const body = JSON.stringify(sc.review);
    const bodyFile = join(certs.dir, `${key}.json`);
    await writeFile(bodyFile, body);
    for (const n of names) await verify(servers[n], sc, body, certs.caPem, n === 'base' ? 'allowed' : sc.expect);
    const maxOf = (n) => client({ mode: 'max', url: servers[n].url + sc.path, bodyFile, connections: 4, durationS });
    for (const n of names) await maxOf(n);
    const rps = Object.fromEntries(names.map((n) => [n, []]));
    for (let r = 0; r < rounds; r++)
      for (let i = 0; i < names.length; i++) {
        const n = names[(i + r) % names.length];
        rps[n].push((await maxOf(n)).rps);
      }
    const ratios = (n) => rps[n].map((x, i) => x / rps.base[i]);
    const line = names
      .filter((n) => n !== 'base')
      .map(
        (n) =>
          `${n} ${median(rps[n]).toFixed(0)} req/s ratio ${median(ratios(n)).toFixed(3)} (±${spreadPct(ratios(n)).toFixed(1)}%)`,
      );
    console.log(
      `${sc.title} (${(body.length / 1024).toFixed(1)} KB): base ${median(rps.base).toFixed(0)} req/s; ${line.join('; ')}`,
    );
    if (paced) {
      const rate = Math.round(median(rps.ours) / 2);
      const p = Object.fromEntries(names.map((n) => [n, []]));
      for (let r = 0; r < 3; r++)
        for (const n of names)
          p[n].push(
            (
              await client({
                mode: 'paced',
                url: servers[n].url + sc.path,
                bodyFile,
                caFile: certs.ca,
                rate,
                durationS,
              })
            ).p99,
          );
      console.log(
        `  p99 at ${rate} req/s: ${names.map((n) => `${n} ${median(p[n]).toFixed(2)} ms [${p[n].map((x) => x.toFixed(1)).join(' ')}]`).join('; ')}`,
      );
    }
  }
} finally {
  await Promise.all(Object.values(servers).map(stop));
}
