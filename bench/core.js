// Core scaling: evaluate() in-process, warmed up, against the JSON.parse of the same review as
// the in-run baseline. Growth is reported per 10x of input.
import { evaluate } from '../dist/policy/evaluate.js';
import { defaultConfig } from '../dist/config.js';
import { staticState } from '../dist/cluster/static-state.js';
import { alternate, median, spreadPct } from './stats.js';
import { cloudProfile, removeVersion, review, shoots } from './fixtures.js';

const NOW = Date.parse('2026-09-01T00:00:00Z');

function requestFor(operation, object, oldObject) {
  return { operation, kind: object.kind, name: object.metadata.name, object, oldObject, dryRun: false, user: 'bench' };
}

/** evaluate() as the admission path runs it: parse the review body, then judge. */
function judge(body, opts) {
  const r = JSON.parse(body).request;
  return evaluate(requestFor(r.operation, r.object, r.oldObject), opts);
}

function scenario({ k8s, images, imageVersions, shootCount, removeInUse }) {
  const profile = cloudProfile({ k8s, images, imageVersions, now: NOW });
  const versions = profile.spec.kubernetes.versions.map((v) => v.version);
  // The pinned version has exactly 10 users whatever the population; removing it is denied.
  const pinned = versions[Math.floor(versions.length / 2)];
  const state = staticState([profile, ...shoots(profile, shootCount, { pinnedVersion: pinned, pinned: 10 })]);
  const removed = removeInUse ? pinned : versions[1];
  const body = JSON.stringify(review({ uid: 'u', operation: 'UPDATE', object: removeVersion(profile, removed), oldObject: profile }));
  const config = defaultConfig();
  const opts = { now: NOW, config, state };
  const decision = judge(body, opts);
  return { body, opts, decision, bytes: body.length };
}

export function runCore({ rounds = 7 } = {}) {
  const results = [];

  // (1) the realistic profile, denied removal, 10,000 Shoots.
  const realistic = scenario({ k8s: 60, images: 8, imageVersions: 40, shootCount: 10_000, removeInUse: true });
  if (realistic.decision.allowed) throw new Error('the realistic removal should be denied');
  const s1 = alternate(
    { evaluate: () => judge(realistic.body, realistic.opts), 'JSON.parse baseline': () => JSON.parse(realistic.body) },
    { rounds },
  );
  results.push({
    name: 'realistic profile (60 k8s, 8x40 images), removal denied, 10,000 Shoots',
    bytes: realistic.bytes,
    us: median(s1.evaluate),
    spread: spreadPct(s1.evaluate),
    baselineUs: median(s1['JSON.parse baseline']),
  });

  // (2) versions: 100, 1,000, 10,000 (half Kubernetes, half over 5 images), unused removal.
  const byVersions = {};
  for (const n of [100, 1000, 10_000]) {
    const sc = scenario({ k8s: n / 2, images: 5, imageVersions: n / 10, shootCount: 1000, removeInUse: false });
    byVersions[n] = sc;
  }
  const s2 = alternate(Object.fromEntries(Object.entries(byVersions).map(([n, sc]) => [n, () => judge(sc.body, sc.opts)])), { rounds, warmup: 20 });
  const sBase2 = alternate(Object.fromEntries(Object.entries(byVersions).map(([n, sc]) => [n, () => JSON.parse(sc.body)])), { rounds, warmup: 20 });
  for (const n of Object.keys(byVersions)) {
    results.push({ name: `${Number(n).toLocaleString('en')} versions, 1,000 Shoots`, bytes: byVersions[n].bytes, us: median(s2[n]), spread: spreadPct(s2[n]), baselineUs: median(sBase2[n]), group: 'versions', size: Number(n) });
  }

  // (3) Shoots: 1,000, 10,000, 100,000 in the state; the removed version always has 10 users.
  const byShoots = {};
  for (const n of [1000, 10_000, 100_000]) byShoots[n] = scenario({ k8s: 60, images: 8, imageVersions: 40, shootCount: n, removeInUse: true });
  const s3 = alternate(Object.fromEntries(Object.entries(byShoots).map(([n, sc]) => [n, () => judge(sc.body, sc.opts)])), { rounds });
  const base3 = median(alternate({ b: () => JSON.parse(byShoots[1000].body) }, { rounds }).b);
  for (const n of Object.keys(byShoots)) {
    results.push({ name: `realistic profile, ${Number(n).toLocaleString('en')} Shoots`, bytes: byShoots[n].bytes, us: median(s3[n]), spread: spreadPct(s3[n]), baselineUs: base3, group: 'shoots', size: Number(n) });
  }
  return results;
}

/** us(10x) / us(x) for each step of a group. */
export function growth(results, group) {
  const rows = results.filter((r) => r.group === group).sort((a, b) => a.size - b.size);
  return rows.slice(1).map((r, i) => ({ from: rows[i].size, to: r.size, factor: r.us / rows[i].us }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = runCore();
  for (const r of results) console.log(`${r.name}: ${r.us.toFixed(1)} µs ±${r.spread.toFixed(1)}% (JSON.parse ${r.baselineUs.toFixed(1)} µs, ratio ${(r.us / r.baselineUs).toFixed(2)})`);
  console.log('growth versions', growth(results, 'versions'));
  console.log('growth shoots', growth(results, 'shoots'));
}
