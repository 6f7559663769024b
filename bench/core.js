// Core scaling: evaluate() on its own, in-process, warmed up. The request is parsed once, as the
// admission path hands it over (JSON.parse, then the schema check at the edge); what is timed is
// evaluate() alone. The JSON.parse of the same review is timed alongside as a yardstick from the
// same run. Growth is reported per 10x of input.
import { isDeepStrictEqual } from 'node:util';
import { evaluate } from '../dist/policy/evaluate.js';
import { defaultConfig } from '../dist/config.js';
import { staticState } from '../dist/cluster/static-state.js';
import { toPolicyRequest } from '../dist/admission/request.js';
import { alternate, median, spreadPct } from './stats.js';
import { cloudProfile, removeVersion, review, shoots } from './fixtures.js';

const NOW = Date.parse('2026-09-01T00:00:00Z');

/** The PolicyRequest the admission layer builds from a review body (schema-checked). */
function policyRequest(body) {
  const mapped = toPolicyRequest(JSON.parse(body).request);
  if (mapped.outcome !== 'policed')
    throw new Error(`the review is ${mapped.outcome}: ${JSON.stringify(mapped.errors ?? mapped.warning)}`);
  return mapped.request;
}

export function scenario({ k8s, images, imageVersions, shootCount, removeInUse }) {
  const profile = cloudProfile({ k8s, images, imageVersions, now: NOW });
  const versions = profile.spec.kubernetes.versions.map((v) => v.version);
  // The pinned version has exactly 10 users whatever the population (removing it is denied), or none.
  const pinned = versions[Math.floor(versions.length / 2)];
  // Removing an unused version: the pinned one, with no Shoot pinned to it (the others spread over the rest).
  const state = staticState([
    profile,
    ...shoots(profile, shootCount, { pinnedVersion: pinned, pinned: removeInUse ? 10 : 0 }),
  ]);
  const removed = pinned;
  const body = JSON.stringify(
    review({ uid: 'u', operation: 'UPDATE', object: removeVersion(profile, removed), oldObject: profile }),
  );
  const request = policyRequest(body);
  const opts = { now: NOW, config: defaultConfig(), state };
  const decision = evaluate(request, opts);
  // Timing the same request again and again is only fair if evaluate() leaves it as it was.
  if (!isDeepStrictEqual(request, policyRequest(body))) throw new Error('evaluate() changed its input');
  return {
    body,
    request,
    opts,
    decision,
    bytes: body.length,
    versions: versions.length + images * imageVersions,
    k8s: versions.length,
  };
}

/**
 * The sizes of the versions table: about ×10 a step up to the edge's limits (limits.ts: 1,000 per
 * list, 4,000 version entries per object), so the largest legal profile, 4,000 entries, is the
 * last step instead of 10,000, which the edge refuses.
 */
export const VERSION_SIZES = [10, 100, 1000, 4000];

/** The inputs of one row: a tenth of the versions Kubernetes (at least 4), the rest over 9 images. */
export const versionInputs = (n, shootCount = 1000) => ({
  k8s: Math.max(4, n / 10),
  images: 9,
  imageVersions: n / 10,
  shootCount,
  removeInUse: false,
});

/** A ratio of costs between two sizes, scaled to a 10× step of input, so linear stays ×10 whatever the step. */
export const per10x = (ratio, from, to) => ratio ** (Math.log(10) / Math.log(to / from));

const row = (name, sc, samples, baseline, extra = {}) => ({
  name,
  bytes: sc.bytes,
  us: median(samples),
  spread: spreadPct(samples),
  baselineUs: median(baseline),
  allowed: sc.decision.allowed,
  ...extra,
});

export function runCore({ rounds = 7, log = () => {} } = {}) {
  const results = [];
  const judge = (sc) => () => evaluate(sc.request, sc.opts);
  const parse = (sc) => () => JSON.parse(sc.body);

  // (1) The realistic profile (60 Kubernetes versions, 8 images x 40 versions), denied removal, 10,000 Shoots.
  const realistic = scenario({ k8s: 60, images: 8, imageVersions: 40, shootCount: 10_000, removeInUse: true });
  if (realistic.decision.allowed) throw new Error('the realistic removal should be denied');
  const s1 = alternate({ evaluate: judge(realistic), parse: parse(realistic) }, { rounds });
  results.push(
    row(
      'realistic profile (60 k8s, 8 × 40 images), in-use removal denied, 10,000 Shoots',
      realistic,
      s1.evaluate,
      s1.parse,
      { group: 'realistic' },
    ),
  );
  log(`core realistic: ${median(s1.evaluate).toFixed(0)} µs`);

  // (2) Versions: VERSION_SIZES, up to the largest profile the edge accepts; 1,000 Shoots.
  const byVersions = {};
  for (const n of VERSION_SIZES) byVersions[n] = scenario(versionInputs(n));
  const variants2 = {};
  for (const [n, sc] of Object.entries(byVersions)) {
    variants2[`e${n}`] = judge(sc);
    variants2[`p${n}`] = parse(sc);
  }
  const s2 = alternate(variants2, { rounds, warmup: 20 });
  for (const [n, sc] of Object.entries(byVersions)) {
    results.push(
      row(
        `${sc.versions.toLocaleString('en')} versions (${sc.k8s.toLocaleString('en')} Kubernetes, 9 images × ${Number(n) / 10}), an unused Kubernetes version removed, 1,000 Shoots`,
        sc,
        s2[`e${n}`],
        s2[`p${n}`],
        { group: 'versions', size: Number(n) },
      ),
    );
  }
  log(
    `core versions: ${Object.keys(byVersions)
      .map((n) => `${n}: ${median(s2[`e${n}`]).toFixed(0)} µs`)
      .join(', ')}`,
  );

  // (3) Shoots: 1,000, 10,000, 100,000 in the state; the removed version always has 10 users.
  const byShoots = {};
  for (const n of [1000, 10_000, 100_000])
    byShoots[n] = scenario({ k8s: 60, images: 8, imageVersions: 40, shootCount: n, removeInUse: true });
  const variants3 = { parse: parse(byShoots[1000]) };
  for (const [n, sc] of Object.entries(byShoots)) variants3[`e${n}`] = judge(sc);
  const s3 = alternate(variants3, { rounds });
  for (const [n, sc] of Object.entries(byShoots)) {
    results.push(
      row(
        `realistic profile, in-use removal denied, ${Number(n).toLocaleString('en')} Shoots`,
        sc,
        s3[`e${n}`],
        s3.parse,
        { group: 'shoots', size: Number(n) },
      ),
    );
  }
  log(
    `core shoots: ${Object.keys(byShoots)
      .map((n) => `${n}: ${median(s3[`e${n}`]).toFixed(0)} µs`)
      .join(', ')}`,
  );
  return results;
}

/** The cost's growth per 10× of input for each step of a group (a 4× step is scaled, see per10x). */
export function growth(results, group) {
  const rows = results.filter((r) => r.group === group).sort((a, b) => a.size - b.size);
  return rows
    .slice(1)
    .map((r, i) => ({ from: rows[i].size, to: r.size, factor: per10x(r.us / rows[i].us, rows[i].size, r.size) }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = runCore({ log: console.error });
  for (const r of results)
    console.log(`${r.name}: ${r.us.toFixed(1)} µs ±${r.spread.toFixed(1)}% (JSON.parse ${r.baselineUs.toFixed(1)} µs)`);
  console.log('growth versions', growth(results, 'versions'));
  console.log('growth shoots', growth(results, 'shoots'));
}
