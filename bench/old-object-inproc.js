// Issue 34, item 3, in one process (after `npm run build`): the main thread's CPU for one review
// whose oldObject claims far more than Gardener stores, before (an older dist/, the body parsed on
// the event loop in pieces, then admit()) and after (dist/: the body worker decodes and maps it,
// then admit() on what it hands back), alternating on the same bytes and state. Quicker than
// bench/old-object.js, which goes through real servers; the CPU is process.threadCpuUsage()
// around the whole await, so work in the worker thread is not counted, its hand-over is.
//
//   node --expose-gc bench/old-object-inproc.js --before DIR [--rounds 5] [--shoots 2000]
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { claimedVersions, cloudProfile, namespacedProfile, review as fixtureReview, shoots } from './fixtures.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const rounds = Number(opt('--rounds', 5));
const before = resolve(opt('--before'));
const DAY = 86_400_000;
const now = Math.floor(Date.now() / DAY) * DAY;
const HEADERS = { contentType: 'application/json', contentEncoding: undefined };

async function build(dist, worker) {
  const load = (m) => import(pathToFileURL(`${dist}/${m}`).href);
  const [{ admit }, body, { staticState }, { defaultConfig }] = await Promise.all(
    ['admission/handler.js', 'admission/body.js', 'cluster/static-state.js', 'config.js'].map(load),
  );
  const bw = worker
    ? new (await load('server/body-worker.js')).BodyWorker({ bodyLimit: 7 << 20, timeoutMs: 600_000 })
    : undefined;
  return {
    staticState,
    bw,
    async review(bytes, state) {
      let decoded;
      let mapped;
      if (bw) ({ decoded, mapped } = await bw.decode(bytes, HEADERS));
      else decoded = await body.decodeBodyIncrementally(bytes, HEADERS);
      const ctx = { now: Date.now(), config: defaultConfig(), state, ...(mapped ? { mapped } : {}) };
      return admit('validate', decoded.review.request, decoded.problems, ctx);
    },
  };
}

const profile = cloudProfile({ name: 'aws', now });
const population = shoots(profile, Number(opt('--shoots', 2000)));
const ncp = namespacedProfile(profile, now);
const clone = (x) => structuredClone(x);
const review = (operation, object, oldObject) =>
  Buffer.from(JSON.stringify(fixtureReview({ uid: 'old-object', operation, object, oldObject })));
const shapes = {
  'CloudProfile UPDATE, oldObject claims 240,000 versions': () => {
    const old = clone(profile);
    old.spec.kubernetes.versions = old.spec.kubernetes.versions.concat(claimedVersions(240_000));
    return review('UPDATE', clone(profile), old);
  },
  'Shoot UPDATE, oldObject claims 50,000 worker pools': () => {
    const next = clone(population[5]);
    const old = clone(next);
    const pool = old.spec.provider.workers[0];
    old.spec.provider.workers = Array.from({ length: 50_000 }, (_, i) => ({ ...pool, name: `pool-claimed-${i}` }));
    return review('UPDATE', next, old);
  },
  'NamespacedCloudProfile UPDATE, oldObject claims 200,000 overrides': () => {
    const old = clone(ncp);
    old.spec.kubernetes.versions = old.spec.kubernetes.versions.concat(
      claimedVersions(200_000).map((v) => ({ ...v, expirationDate: '2027-01-01T00:00:00Z' })),
    );
    return review('UPDATE', clone(ncp), old);
  },
};

const builds = { before: await build(before, false), after: await build(resolve('dist'), true) };
const states = Object.fromEntries(
  Object.entries(builds).map(([k, b]) => [k, b.staticState([profile, ncp, ...population])]),
);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, make] of Object.entries(shapes)) {
  const bytes = make();
  const got = { before: [], after: [] };
  const verdicts = {};
  for (let r = 0; r <= rounds; r++)
    for (const n of r % 2 ? ['after', 'before'] : ['before', 'after']) {
      globalThis.gc?.();
      const t0 = process.threadCpuUsage();
      const outcome = await builds[n].review(bytes, states[n]);
      const d = process.threadCpuUsage(t0);
      if (r > 0) got[n].push((d.user + d.system) / 1000);
      verdicts[n] = `${outcome.response.allowed ? 'allowed' : 'denied'} ${outcome.response.status?.code ?? 200}`;
    }
  console.log(
    `${name} (${(bytes.length / 1048576).toFixed(1)} MiB): ` +
      Object.keys(got)
        .map((n) => `${n} ${median(got[n]).toFixed(0)} ms (max ${Math.max(...got[n]).toFixed(0)}; ${verdicts[n]})`)
        .join('; '),
  );
}
await builds.after.bw.stop();
