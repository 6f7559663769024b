// Issue 34, item 3: what an oldObject claims must buy no CPU on the event loop. Each shape is a
// review whose stored object (oldObject) claims far more than anything Gardener stores, up to the
// 7 MiB body limit; each is sent to a real `version-policy serve` one at a time, and the server's
// main-thread CPU for it is read from /proc/PID/task/PID/schedstat (bench/server-cpu.js).
//
//   node bench/old-object.js [--rounds N] [--before DIR] [--shoots N] [--only TEXT] [--json]
//
// With --before (an older dist/), both builds run side by side on the same state and reviews, in
// alternating order. The state: the bench's realistic profile, an NCP on it and N Shoots (default
// 10,000) spread over its versions. The server runs with its production config (forecast on).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimedVersions, cloudProfile, namespacedProfile, review as fixtureReview, shoots } from './fixtures.js';
import { certificates, startOurs, stop, writeState } from './servers.js';
import { postMany, processCpuMs, settle, threadCpuMs } from './server-cpu.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const rounds = Number(opt('--rounds', 5));
const before = opt('--before');
const shootCount = Number(opt('--shoots', 10_000));
const only = opt('--only');
const DAY = 86_400_000;
const now = Math.floor(Date.now() / DAY) * DAY;

const profile = cloudProfile({ name: 'aws', now });
const population = shoots(profile, shootCount);
const ncp = namespacedProfile(profile, now);
const clone = (x) => structuredClone(x);
const review = (operation, object, oldObject) =>
  JSON.stringify(fixtureReview({ uid: 'old-object', operation, object, oldObject }));

const shapes = [
  [
    'CloudProfile UPDATE, oldObject claims 240,000 versions',
    () => {
      const old = clone(profile);
      old.spec.kubernetes.versions = old.spec.kubernetes.versions.concat(claimedVersions(240_000));
      return review('UPDATE', clone(profile), old);
    },
  ],
  [
    'CloudProfile DELETE of the same oldObject',
    () => {
      const old = clone(profile);
      old.spec.kubernetes.versions = old.spec.kubernetes.versions.concat(claimedVersions(240_000));
      return review('DELETE', undefined, old);
    },
  ],
  [
    'Shoot UPDATE, oldObject claims 50,000 worker pools',
    () => {
      const next = clone(population[5]);
      const old = clone(next);
      const pool = old.spec.provider.workers[0];
      old.spec.provider.workers = Array.from({ length: 50_000 }, (_, i) => ({ ...pool, name: `pool-claimed-${i}` }));
      return review('UPDATE', next, old);
    },
  ],
  [
    'NamespacedCloudProfile UPDATE, oldObject claims 200,000 overrides',
    () => {
      const old = clone(ncp);
      old.spec.kubernetes.versions = old.spec.kubernetes.versions.concat(
        claimedVersions(200_000).map((v) => ({ ...v, expirationDate: '2027-01-01T00:00:00Z' })),
      );
      return review('UPDATE', clone(ncp), old);
    },
  ],
  [
    'CloudProfile UPDATE, oldObject claims 1,000 versions × 1,000 lifecycle stages',
    () => {
      const old = clone(profile);
      old.spec.kubernetes.versions.push(
        ...claimedVersions(1_000).map((v) => ({
          ...v,
          lifecycle: Array.from({ length: 150 }, () => ({ classification: 'supported' })),
        })),
      );
      return review('UPDATE', clone(profile), old);
    },
  ],
  [
    'CloudProfile UPDATE, oldObject claims 6 MB of annotations',
    () => {
      const old = clone(profile);
      old.metadata.annotations = Object.fromEntries(
        Array.from({ length: 150_000 }, (_, i) => [`example.com/key-${i}`, `value-${i}`]),
      );
      return review('UPDATE', clone(profile), old);
    },
  ],
].filter(([name]) => !only || name.includes(only));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const certs = await certificates();
const stateFile = await writeState(await mkdtemp(join(tmpdir(), 'vp-old-object-')), 'state.yaml', [
  profile,
  ncp,
  ...population,
]);
const servers = {};
const results = [];
try {
  servers.after = await startOurs(certs, stateFile, { timeoutMs: 600_000 });
  if (before)
    servers.before = await startOurs(certs, stateFile, { main: join(before, 'cli/main.js'), timeoutMs: 600_000 });
  const names = Object.keys(servers);
  await Promise.all(Object.values(servers).map((s) => settle(s)));
  for (const [name, build] of shapes) {
    const body = build();
    const got = Object.fromEntries(names.map((n) => [n, { main: [], all: [], codes: new Set() }]));
    for (let r = 0; r < rounds + 1; r++)
      for (let i = 0; i < names.length; i++) {
        const n = names[(i + r) % names.length];
        const { pid } = servers[n].child;
        const m0 = threadCpuMs(pid);
        const p0 = processCpuMs(pid);
        const [code] = await postMany(`${servers[n].url}/validate`, body, {
          ca: certs.caPem,
          count: 1,
          connections: 1,
        });
        if (r === 0) continue; // the first of each: warm-up
        got[n].main.push(threadCpuMs(pid) - m0);
        got[n].all.push(processCpuMs(pid) - p0);
        got[n].codes.add(code);
      }
    const row = { name, bytes: body.length };
    for (const n of names)
      row[n] = {
        mainMs: median(got[n].main),
        maxMs: Math.max(...got[n].main),
        processMs: median(got[n].all),
        codes: [...got[n].codes],
      };
    results.push(row);
    console.error(
      `${name} (${(body.length / 1048576).toFixed(1)} MiB): ${names.map((n) => `${n} ${row[n].mainMs.toFixed(0)} ms (worst ${row[n].maxMs.toFixed(0)}, process ${row[n].processMs.toFixed(0)}, HTTP ${row[n].codes.join('/')})`).join('; ')}`,
    );
  }
} finally {
  await Promise.all(Object.values(servers).map(stop));
}
if (args.includes('--json')) console.log(JSON.stringify(results, null, 2));
