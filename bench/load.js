// HTTPS load: `version-policy serve` (static state) against the bare Fastify baseline, same
// certificates, same bodies, keep-alive. Both servers run for the whole section, each in its own
// process; every measurement runs the load generator in a fresh child process (load-client.js).
// Rounds alternate the order of ours and the baseline.
//
// 1. Maximum throughput: autocannon, closed loop, a few connections.
// 2. Latency at 50% of our maximum: an open loop at half our median maximum rate, against ours
//    and (for reference) against the baseline at the same rate.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cloudProfile, removeVersion, review, shoots } from './fixtures.js';
import { ROOT, certificates, startBaseline, startOurs, stop, writeState } from './servers.js';
import { median, spreadPct } from './stats.js';

const run = promisify(execFile);
const DAY_MS = 86_400_000;

/**
 * The recorded AdmissionReviews and the state. The server judges time rules against its own
 * clock, so the profiles are dated from today (midnight UTC), as core.js dates them from its
 * fixed instant: both see the same profile, with one version expiring within the 30-day warning.
 */
export function scenarios(now = Math.floor(Date.now() / DAY_MS) * DAY_MS) {
  // A small profile: 6 Kubernetes versions, one image of 4 versions, a handful of machine types.
  const small = cloudProfile({
    name: 'small',
    k8s: 6,
    images: 1,
    imageVersions: 4,
    machineTypeCount: 4,
    regionCount: 2,
    now,
  });
  const smallNext = structuredClone(small);
  smallNext.spec.kubernetes.versions.push({ version: '1.21.0', classification: 'preview' });

  const big = cloudProfile({ name: 'aws', now });
  const bigVersions = big.spec.kubernetes.versions.map((v) => v.version);
  const pinned = bigVersions[Math.floor(bigVersions.length / 2)];
  const population = shoots(big, 10_000, { pinnedVersion: pinned, pinned: 10 });

  // A profile written without classifications or dates: /mutate fills in the lifecycles.
  const plain = cloudProfile({
    name: 'plain',
    k8s: 30,
    images: 2,
    imageVersions: 12,
    machineTypeCount: 100,
    regionCount: 10,
    now,
  });
  for (const v of plain.spec.kubernetes.versions) {
    delete v.classification;
    delete v.expirationDate;
  }
  for (const img of plain.spec.machineImages) {
    for (const v of img.versions) {
      delete v.classification;
      delete v.expirationDate;
    }
  }
  // A Shoot on the realistic profile as kube-apiserver sends it (metadata, labels, status left
  // out): an UPDATE that only touches an annotation, and a CREATE.
  const shoot = apiShoot(population[42]);
  const annotated = structuredClone(shoot);
  annotated.metadata.annotations['gardener.cloud/operation'] = 'reconcile';
  annotated.metadata.resourceVersion = '123457';
  // The plain-versions profile with Shoots of its own: one of its versions in use, removed.
  const plainProfile = plainCloudProfile();
  const plainVersions = plainProfile.spec.kubernetes.versions.map((v) => v.version);
  const plainPinned = plainVersions[Math.floor(plainVersions.length / 2)];
  const plainPopulation = shoots(plainProfile, 10_000, { pinnedVersion: plainPinned, pinned: 10, seed: 11 }).map(
    (s) => {
      s.metadata.name = `plain-${s.metadata.name}`;
      return s;
    },
  );
  const created = structuredClone(shoot);
  created.metadata.name = 'shoot-new';
  delete created.metadata.uid;
  delete created.metadata.resourceVersion;
  delete created.metadata.generation;
  return {
    state: [small, big, plainProfile, ...population, ...plainPopulation],
    reviews: {
      a: {
        title: '(a) small CloudProfile UPDATE, allowed',
        path: '/validate',
        expect: 'allowed',
        review: review({ uid: 'a', operation: 'UPDATE', object: smallNext, oldObject: small }),
      },
      b: {
        title: '(b) realistic profile, in-use version removed, denied (10,000 Shoots)',
        path: '/validate',
        expect: 'denied',
        review: review({ uid: 'b', operation: 'UPDATE', object: removeVersion(big, pinned), oldObject: big }),
      },
      c: {
        title: '(c) /mutate CREATE, lifecycles defaulted',
        path: '/mutate',
        expect: 'patched',
        review: review({ uid: 'c', operation: 'CREATE', object: plain }),
      },
      d: {
        title: '(d) Shoot UPDATE, annotation-only change, /validate',
        path: '/validate',
        expect: 'allowed',
        review: review({ uid: 'd', operation: 'UPDATE', object: annotated, oldObject: shoot }),
      },
      e: {
        title: '(e) Shoot UPDATE, annotation-only change, /mutate',
        path: '/mutate',
        expect: 'allowed',
        review: review({ uid: 'e', operation: 'UPDATE', object: annotated, oldObject: shoot }),
      },
      f: {
        title: '(f) Shoot CREATE, /validate',
        path: '/validate',
        expect: 'allowed',
        review: review({ uid: 'f', operation: 'CREATE', object: created }),
      },
      g: {
        title: '(g) realistic profile with plain versions, label-only UPDATE',
        path: '/validate',
        expect: 'allowed',
        review: plainUpdate(),
      },
      h: {
        title: '(h) realistic profile with plain versions, in-use version removed, denied (10,000 Shoots)',
        path: '/validate',
        expect: 'denied',
        review: review({
          uid: 'h',
          operation: 'UPDATE',
          object: removeVersion(plainProfile, plainPinned),
          oldObject: plainProfile,
        }),
      },
    },
  };
}

/**
 * The realistic profile written with plain versions (60 Kubernetes versions, 8 images × 40, no
 * classifications or dates: bench/policy-bounds.js's shape), in the state as stored.
 */
function plainCloudProfile() {
  const kubernetes = [];
  for (let m = 0; m < 10; m++) for (let p = 0; p < 6; p++) kubernetes.push({ version: `1.${25 + m}.${p}` });
  const machineImages = Array.from({ length: 8 }, (_, i) => {
    const versions = [];
    for (let m = 0; m < 10; m++)
      for (let p = 0; p < 4; p++)
        versions.push({ version: `${1000 + m}.${p}.0`, cri: [{ name: 'containerd' }], architectures: ['amd64'] });
    return { name: `image-${i}`, updateStrategy: 'major', versions };
  });
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'CloudProfile',
    metadata: { name: 'plain-versions' },
    spec: { type: 'aws', kubernetes: { versions: kubernetes }, machineImages, regions: [{ name: 'region-1' }] },
  };
}

/** A label-only UPDATE of the plain-versions profile. */
function plainUpdate() {
  const old = plainCloudProfile();
  const next = structuredClone(old);
  next.metadata.labels = { team: 'landscape' };
  return review({ uid: 'g', operation: 'UPDATE', object: next, oldObject: old });
}

/** A bench Shoot with the metadata and spec fields a real one carries (about 1 KB as JSON). */
function apiShoot(s) {
  const out = structuredClone(s);
  out.metadata = {
    ...out.metadata,
    uid: '5b0c4ee4-5d5e-4b8e-9c57-0c0d3a3f0a42',
    resourceVersion: '123456',
    generation: 7,
    creationTimestamp: '2026-01-15T10:00:00Z',
    labels: { 'shoot.gardener.cloud/status': 'healthy', 'project.gardener.cloud/name': 'project-42' },
    annotations: { 'gardener.cloud/created-by': 'someone@example.com' },
    finalizers: ['gardener'],
  };
  out.spec = {
    ...out.spec,
    region: 'region-1',
    secretBindingName: 'aws-credentials',
    networking: { type: 'calico', pods: '100.96.0.0/11', nodes: '10.250.0.0/16', services: '100.64.0.0/13' },
    addons: { nginxIngress: { enabled: false }, kubernetesDashboard: { enabled: false } },
    purpose: 'production',
    hibernation: { enabled: false },
  };
  return out;
}

function post(url, body, ca) {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', ca, headers: { 'content-type': 'application/json' }, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Fails loudly if a server does not answer a review the way the scenario says. */
export async function verify(server, sc, body, ca, expect) {
  const { status, body: text } = await post(server.url + sc.path, body, ca);
  const response = JSON.parse(text).response ?? {};
  const got = status !== 200 ? `HTTP ${status}` : !response.allowed ? 'denied' : response.patch ? 'patched' : 'allowed';
  if (got !== expect) throw new Error(`${sc.title}: expected ${expect}, got ${got}: ${text.slice(0, 500)}`);
  return { warnings: response.warnings?.length ?? 0, message: response.status?.message?.slice(0, 160) };
}

export async function client(opts) {
  const { stdout } = await run(process.execPath, [join(ROOT, 'bench/load-client.js'), JSON.stringify(opts)], {
    cwd: ROOT,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout);
}

/**
 * Runs the section. `rounds` alternating rounds of `durationS` seconds for the maximum, then
 * `pacedRounds` alternating rounds at half our maximum.
 */
export async function runLoad({
  rounds = 5,
  durationS = 4,
  pacedRounds = 3,
  pacedS = 4,
  connections = 4,
  only,
  log = () => {},
} = {}) {
  const certs = await certificates();
  const { state, reviews } = scenarios();
  const stateFile = await writeState(certs.dir, 'state.yaml', state);
  const ours = await startOurs(certs, stateFile);
  const base = await startBaseline(certs);
  const servers = { ours, base };
  const out = { connections, rounds, durationS, pacedRounds, pacedS, scenarios: {} };
  try {
    for (const [key, sc] of Object.entries(reviews)) {
      if (only && !only.includes(key)) continue;
      const body = JSON.stringify(sc.review);
      const bodyFile = join(certs.dir, `${key}.json`);
      await writeFile(bodyFile, body);
      const answer = await verify(ours, sc, body, certs.caPem, sc.expect);
      await verify(base, sc, body, certs.caPem, 'allowed');
      const load = [loadavg()[0]];
      log(`load ${sc.title}: ${(body.length / 1024).toFixed(0)} KB`);

      const maxOf = (who) => client({ mode: 'max', url: servers[who].url + sc.path, bodyFile, connections, durationS });
      await maxOf('ours');
      await maxOf('base');
      const m = { ours: [], base: [] };
      for (let r = 0; r < rounds; r++) {
        for (const who of r % 2 ? ['base', 'ours'] : ['ours', 'base']) m[who].push(await maxOf(who));
        log(
          `  round ${r + 1}: ours ${m.ours.at(-1).rps.toFixed(0)} req/s, baseline ${m.base.at(-1).rps.toFixed(0)} req/s`,
        );
      }
      const oursMax = median(m.ours.map((x) => x.rps));
      const rate = Math.max(1, Math.round(oursMax / 2));
      const pacedOf = (who) =>
        client({ mode: 'paced', url: servers[who].url + sc.path, bodyFile, caFile: certs.ca, rate, durationS: pacedS });
      const p = { ours: [], base: [] };
      for (let r = 0; r < pacedRounds; r++) {
        for (const who of r % 2 ? ['base', 'ours'] : ['ours', 'base']) p[who].push(await pacedOf(who));
        log(
          `  at ${rate} req/s: ours p99 ${p.ours.at(-1).p99.toFixed(2)} ms, baseline p99 ${p.base.at(-1).p99.toFixed(2)} ms`,
        );
      }
      load.push(loadavg()[0]);

      const sum = (xs, f) => xs.reduce((a, x) => a + f(x), 0);
      out.scenarios[key] = {
        title: sc.title,
        bytes: body.length,
        answer,
        loadavg: load,
        ours: {
          rps: oursMax,
          spread: spreadPct(m.ours.map((x) => x.rps)),
          p50: median(m.ours.map((x) => x.p50)),
          p99: median(m.ours.map((x) => x.p99)),
        },
        base: {
          rps: median(m.base.map((x) => x.rps)),
          spread: spreadPct(m.base.map((x) => x.rps)),
          p50: median(m.base.map((x) => x.p50)),
          p99: median(m.base.map((x) => x.p99)),
        },
        ratio: oursMax / median(m.base.map((x) => x.rps)),
        half: {
          rate,
          ours: {
            p50: median(p.ours.map((x) => x.p50)),
            p99: median(p.ours.map((x) => x.p99)),
            p99Spread: spreadPct(p.ours.map((x) => x.p99)),
            rps: median(p.ours.map((x) => x.rps)),
          },
          base: {
            p50: median(p.base.map((x) => x.p50)),
            p99: median(p.base.map((x) => x.p99)),
            p99Spread: spreadPct(p.base.map((x) => x.p99)),
          },
        },
        errors: {
          ours: sum([...m.ours, ...p.ours], (x) => x.errors),
          base: sum([...m.base, ...p.base], (x) => x.errors),
        },
        non2xx: {
          ours: sum([...m.ours, ...p.ours], (x) => x.non2xx),
          base: sum([...m.base, ...p.base], (x) => x.non2xx),
        },
        requests: {
          ours: sum([...m.ours, ...p.ours], (x) => x.requests),
          base: sum([...m.base, ...p.base], (x) => x.requests),
        },
      };
    }
  } finally {
    await Promise.all([stop(ours), stop(base)]);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(
    JSON.stringify(await runLoad({ rounds: 3, durationS: 3, pacedRounds: 2, pacedS: 3, log: console.error }), null, 2),
  );
}
