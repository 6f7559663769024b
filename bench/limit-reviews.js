// One review at each documented limit (src/api/limits.ts, docs/running.md), through admit() in
// process (after `npm run build`): the CPU time of one review, from the AdmissionRequest to the
// AdmissionResponse (schema, limits, the mutating path, every rule, the patch), measured with
// process.threadCpuUsage() around admit(): the main thread's CPU, the time the review holds the
// event loop (process.cpuUsage() would add the GC's helper threads, which run beside it). Issue
// 24: none may take more than 50 ms of CPU.
//
//   node --expose-gc bench/limit-reviews.js [--rounds N] [--only TEXT] [--json]
//
// --only runs the shapes whose line ("name webhook gate") holds TEXT, e.g. to profile one with --cpu-prof.
// Each shape is warmed up, then run N times (default 15); the median and the worst are printed.
// The inputs are realistic at their size: plain versions of many minors (the product's lifecycle
// defaulting has work on each), images with containerd and amd64, Shoots on the profile's versions.
import { admit } from '../dist/admission/handler.js';
import { staticState } from '../dist/cluster/static-state.js';
import { resolveConfig } from '../dist/config.js';
import { LIMITS, SHOOT_LIMITS, STORED_CEILING } from '../dist/api/limits.js';

const NOW = Date.parse('2026-09-01T00:00:00Z');
const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const rounds = arg('--rounds', 15);
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : '';
const BUDGET_MS = 50;

const k8s = (i) => `1.${20 + Math.floor(i / 50)}.${i % 50}`;
const imageVersion = (i) => `${1000 + Math.floor(i / 20)}.${i % 20}.0`;
const image = (name, n) => ({
  name,
  updateStrategy: 'major',
  versions: Array.from({ length: n }, (_, i) => ({
    version: imageVersion(i),
    cri: [{ name: 'containerd' }],
    architectures: ['amd64'],
  })),
});
const profile = (kubernetes, images, name = 'aws') => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: { name },
  spec: {
    type: 'aws',
    kubernetes: { versions: Array.from({ length: kubernetes }, (_, i) => ({ version: k8s(i) })) },
    machineImages: images,
    regions: [{ name: 'region-1' }],
  },
});
/** `entries` version entries: a full Kubernetes list, then images of `perImage` versions. */
const entriesProfile = (entries, perList) => {
  const k = Math.min(entries, perList);
  const images = [];
  for (let left = entries - k, i = 0; left > 0; left -= perList, i++)
    images.push(image(`image-${i}`, Math.min(left, perList)));
  return profile(k, images);
};
const withStages = (p, stages) => {
  for (const v of p.spec.kubernetes.versions) {
    v.lifecycle = Array.from({ length: stages }, (_, i) => ({
      classification: ['preview', 'supported', 'deprecated', 'expired'][i % 4],
      startTime: new Date(NOW + (i - stages) * 86_400_000).toISOString(),
    }));
  }
  return p;
};
const shoot = (workers, name = 'big', profileName = 'aws') => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name, namespace: 'garden-dev' },
  spec: {
    cloudProfile: { kind: 'CloudProfile', name: profileName },
    kubernetes: { version: k8s(48) },
    provider: {
      type: 'aws',
      workers: Array.from({ length: workers }, (_, i) => ({
        name: `pool-${i}`,
        kubernetes: { version: k8s(48) },
        machine: { type: 'm5.large', image: { name: 'image-0', version: imageVersion(i % 40) } },
      })),
    },
  },
});
const req = (operation, kind, object, oldObject) => ({
  uid: 'bench',
  kind: { group: 'core.gardener.cloud', version: 'v1beta1', kind },
  operation,
  name: (object ?? oldObject).metadata.name,
  ...(object ? { object } : {}),
  ...(oldObject ? { oldObject } : {}),
  userInfo: { username: 'bench' },
});

const L = LIMITS;
const shapes = [
  [
    `CREATE, ${L.versionsPerList} Kubernetes versions (versions per list)`,
    () => req('CREATE', 'CloudProfile', profile(L.versionsPerList, [image('image-0', 40)])),
  ],
  [
    `CREATE, one image of ${L.versionsPerList} versions (versions per list)`,
    () => req('CREATE', 'CloudProfile', profile(60, [image('image-0', L.versionsPerList)])),
  ],
  [
    `CREATE, ${L.machineImages} images (images; ${Math.floor(L.versionEntries / L.machineImages)} versions each)`,
    () =>
      req(
        'CREATE',
        'CloudProfile',
        profile(
          1,
          Array.from({ length: L.machineImages }, (_, i) =>
            image(`image-${i}`, Math.floor((L.versionEntries - 1) / L.machineImages)),
          ),
        ),
      ),
  ],
  [
    `CREATE, ${L.versionEntries} version entries (entries per object)`,
    () => req('CREATE', 'CloudProfile', entriesProfile(L.versionEntries, L.versionsPerList)),
  ],
  [
    `UPDATE, ${L.versionEntries} entries on both sides, one removed`,
    () => {
      const old = entriesProfile(L.versionEntries, L.versionsPerList);
      const next = structuredClone(old);
      next.spec.machineImages.at(-1).versions.pop();
      return req('UPDATE', 'CloudProfile', next, old);
    },
  ],
  [
    `CREATE, ${L.versionsPerList} Kubernetes versions × ${L.lifecycleStages} lifecycle stages`,
    () =>
      req('CREATE', 'CloudProfile', withStages(profile(L.versionsPerList, [image('image-0', 40)]), L.lifecycleStages)),
  ],
  [
    `UPDATE, stored past the limits: ${STORED_CEILING.versionEntries} entries kept (the stored ceiling)`,
    () => {
      const old = entriesProfile(STORED_CEILING.versionEntries, STORED_CEILING.versionsPerList);
      return req('UPDATE', 'CloudProfile', structuredClone(old), old);
    },
  ],
  [
    `DELETE, ${STORED_CEILING.versionEntries * 2} entries stored`,
    () =>
      req(
        'DELETE',
        'CloudProfile',
        undefined,
        entriesProfile(STORED_CEILING.versionEntries * 2, STORED_CEILING.versionsPerList),
      ),
  ],
  [
    `Shoot CREATE, ${SHOOT_LIMITS.workers} workers (workers per Shoot)`,
    () => req('CREATE', 'Shoot', shoot(SHOOT_LIMITS.workers)),
  ],
  [
    `Shoot UPDATE, ${SHOOT_LIMITS.workers} workers, every version changed`,
    () => {
      const old = shoot(SHOOT_LIMITS.workers);
      const next = structuredClone(old);
      next.spec.kubernetes.version = k8s(49);
      for (const w of next.spec.provider.workers) {
        w.kubernetes.version = k8s(49);
        w.machine.image.version = imageVersion(41);
      }
      return req('UPDATE', 'Shoot', next, old);
    },
  ],
  // The Shoot warnings' forecast (policy/warnings/shoot.ts), each review on a fresh copy of the
  // profile so that the forecast's step memo starts cold: one Kubernetes version expiring in 29 days,
  // and an image of which a new version turns supported every few hours all month, so every run
  // judges every version of the Shoot again. The first at lists of 300, the second at 1,000.
  [
    'Shoot UPDATE, the warnings forecast near its work budget (2 pools, lists of 300)',
    () => {
      const old = shoot(2, 'forecast', 'lifecycles');
      return req('UPDATE', 'Shoot', structuredClone(old), old);
    },
    lifecycleState,
  ],
  [
    `Shoot UPDATE, ${SHOOT_LIMITS.workers} workers on lists of 1,000 (past the budget: no forecast)`,
    () => {
      const old = shoot(SHOOT_LIMITS.workers, 'big', 'lifecycles');
      return req('UPDATE', 'Shoot', structuredClone(old), old);
    },
    () => lifecycleState(L.versionsPerList),
  ],
];

// The Shoots' profile, and Shoots on it, as the informers would hold them.
const stateProfile = entriesProfile(2_000, 1_000);
stateProfile.spec.machineImages[0].versions = image('image-0', 60).versions;
/** A fresh state with the profile `lifecycles` (see its shapes above), its lists `n` long. */
function lifecycleState(n = 300) {
  const p = profile(n, [image('image-0', n)], 'lifecycles');
  Object.assign(p.spec.kubernetes.versions[48], {
    classification: 'deprecated',
    expirationDate: new Date(NOW + 29 * 86_400_000).toISOString(),
  });
  p.spec.machineImages[0].versions.forEach((v, i) => {
    if (i >= 40)
      v.lifecycle = [
        { classification: 'preview' },
        {
          classification: 'supported',
          startTime: new Date(NOW + ((i - 39) * 30 * 86_400_000) / (n - 40)).toISOString(),
        },
      ];
  });
  return staticState([p]);
}
const state = staticState([stateProfile, ...Array.from({ length: 500 }, (_, i) => shoot(2, `s-${i}`))]);
const configs = {
  'gate off': resolveConfig({}),
  'gate on': resolveConfig({ featureGates: { VersionClassificationLifecycle: true } }),
};

// With --expose-gc, each review starts from a collected heap: it pays for the collections its own
// allocation brings, not for the garbage of the reviews before it.
const collect = globalThis.gc ?? (() => undefined);
/** [main-thread CPU ms, whole-process CPU ms (the GC's helper threads too)] of one call. */
const cpuMs = (f) => {
  collect();
  const start = process.threadCpuUsage();
  const all = process.cpuUsage();
  f();
  const d = process.threadCpuUsage(start);
  const p = process.cpuUsage(all);
  return [(d.user + d.system) / 1000, (p.user + p.system) / 1000];
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const results = [];
for (const [name, build, freshState] of shapes) {
  for (const webhook of ['mutate', 'validate']) {
    if (webhook === 'mutate' && name.startsWith('Shoot')) continue;
    for (const [gate, config] of Object.entries(configs)) {
      if (!`${name} ${webhook} ${gate}`.includes(only)) continue;
      const inputs = Array.from({ length: rounds + 3 }, () => ({
        review: build(),
        ctx: { now: NOW, config, state: freshState ? freshState() : state },
      }));
      let outcome;
      const samples = inputs
        .map(({ review, ctx }) => cpuMs(() => (outcome = admit(webhook, review, [], ctx))))
        .slice(3);
      const main = samples.map(([m]) => m);
      const all = samples.map(([, a]) => a);
      const r = outcome.response;
      results.push({
        name,
        webhook,
        gate,
        medianMs: median(main),
        maxMs: Math.max(...main),
        processMedianMs: median(all),
        allowed: r.allowed,
        code: r.status?.code ?? 200,
        patched: Boolean(r.patch),
      });
    }
  }
}

if (process.argv.includes('--json')) console.log(JSON.stringify(results, null, 2));
else {
  console.log(
    `CPU ms per review at each limit: main thread median and worst of ${rounds} (after 3 warm-up reviews; budget ${BUDGET_MS} ms), and the whole process's median`,
  );
  for (const r of results) {
    const verdict =
      r.code === 200 ? (r.allowed ? (r.patched ? 'allowed+patch' : 'allowed') : 'denied') : `code ${r.code}`;
    console.log(
      `  ${r.maxMs <= BUDGET_MS ? 'ok  ' : 'OVER'} ${r.name.padEnd(72)} ${r.webhook.padEnd(8)} ${r.gate.padEnd(8)} ${r.medianMs.toFixed(1).padStart(6)} ${r.maxMs.toFixed(1).padStart(6)} ${r.processMedianMs.toFixed(1).padStart(7)}  ${verdict}`,
    );
  }
  const over = results.filter((r) => r.maxMs > BUDGET_MS);
  console.log(over.length ? `${over.length} over the budget` : 'every limit within the budget');
}
