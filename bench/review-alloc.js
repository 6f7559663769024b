// What one review costs the server's main thread outside transport, per load shape: the body
// decoded (UTF-8, nesting, JSON, prototype keys, envelope), admit() (schema, evaluate, patch) and
// the answer serialised, in-process on the same state as bench/load.js. Reports µs per review
// of CPU time, median of alternating rounds: on a shared machine the wall clock also counts the
// time other processes hold the core) and bytes allocated per review (the median heap growth over
// single reviews that ran without a GC in between).
//
//   node bench/review-alloc.js [--shapes a,d] [--rounds 7] [--before DIR]   (DIR: an older dist/)
//                              [--also NAME=JSON]...  (dist/ again, with these config keys)
//
// With --before, the older build runs in the same process, in alternating rounds, on the same
// inputs: the A/B of an optimisation in-process, without the noise of TLS and the load generator.
import { pathToFileURL } from 'node:url';
import { scenarios } from './load.js';
import { median, spreadPct } from './stats.js';

const HEADERS = { contentType: 'application/json', contentEncoding: undefined };

/** The review path of one build (a dist/ directory). */
async function pipeline(dist) {
  const load = (m) => import(pathToFileURL(`${dist}/${m}`).href);
  const [{ decodeBody }, { admit }, { reviewResponse }, { staticState }, { defaultConfig }] = await Promise.all(
    ['admission/body.js', 'admission/handler.js', 'admission/response.js', 'cluster/static-state.js', 'config.js'].map(
      load,
    ),
  );
  return { decodeBody, admit, reviewResponse, staticState, config: defaultConfig() };
}

function reviewer(p, state, sc) {
  const bytes = Buffer.from(JSON.stringify(sc.review));
  const ctx = { now: Date.now(), config: p.config, state };
  const webhook = sc.path.slice(1);
  return () => {
    const d = p.decodeBody(bytes, HEADERS);
    const out = p.admit(webhook, d.review.request, d.problems, ctx);
    return JSON.stringify(p.reviewResponse(d.review, out.response));
  };
}

/**
 * CPU µs per call of each variant, `rounds` rounds in rotating order of about `targetMs` each.
 * Each variant first runs for `warmupMs` of CPU (at least `warmup` calls): V8 reaches its
 * optimised code for a large review only after some thousand calls, and 100 calls left the first
 * rounds of (c) twice as slow as the last (a spread of ±13-29% in section 1b).
 */
function alternateCpu(variants, { rounds = 7, warmup = 100, warmupMs = 1000, targetMs = 100 } = {}) {
  const cpu = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  const perCall = (fn, n) => {
    const start = cpu();
    for (let i = 0; i < n; i++) fn();
    return (cpu() - start) / n;
  };
  const iterations = {};
  for (const [name, fn] of Object.entries(variants)) {
    const until = cpu() + warmupMs * 1000;
    for (let i = 0; i < warmup || cpu() < until; i++) fn();
    iterations[name] = Math.max(5, Math.round((targetMs * 1000) / Math.max(perCall(fn, 20), 1)));
  }
  const names = Object.keys(variants);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < names.length; i++)
      samples[names[(i + r) % names.length]].push(
        perCall(variants[names[(i + r) % names.length]], iterations[names[(i + r) % names.length]]),
      );
  return samples;
}

/** Bytes allocated by one call: the median heap growth over calls that ran without a GC. */
export function allocationPerCall(fn, calls = 400) {
  for (let i = 0; i < 50; i++) fn();
  const growth = [];
  for (let i = 0; i < calls; i++) {
    const before = process.memoryUsage().heapUsed;
    fn();
    const after = process.memoryUsage().heapUsed;
    if (after > before) growth.push(after - before);
  }
  return median(growth);
}

/** Per shape: µs and bytes per review, for `dist` and (optionally) `before`. */
export async function runReviewCost({
  dist = new URL('../dist', import.meta.url).pathname,
  before,
  shapes,
  rounds = 7,
  also = [],
  log = () => {},
} = {}) {
  const { state, reviews } = scenarios();
  const builds = { ours: await pipeline(dist), ...(before ? { before: await pipeline(before) } : {}) };
  for (const [name, extra] of also) {
    const p = await pipeline(dist);
    const { resolveConfig } = await import(pathToFileURL(`${dist}/config.js`).href);
    builds[name] = { ...p, config: resolveConfig(JSON.parse(extra)) };
  }
  const states = Object.fromEntries(Object.entries(builds).map(([k, p]) => [k, p.staticState(state)]));
  const out = {};
  for (const [key, sc] of Object.entries(reviews)) {
    if (shapes && !shapes.includes(key)) continue;
    const fns = Object.fromEntries(Object.entries(builds).map(([k, p]) => [k, reviewer(p, states[k], sc)]));
    const samples = alternateCpu(fns, { rounds });
    out[key] = { title: sc.title };
    for (const k of Object.keys(fns))
      out[key][k] = { us: median(samples[k]), spread: spreadPct(samples[k]), bytes: allocationPerCall(fns[k]) };
    log(
      `${sc.title}: ${Object.keys(fns)
        .map(
          (k) =>
            `${k} ${out[key][k].us.toFixed(1)} µs ±${out[key][k].spread.toFixed(1)}%, ${(out[key][k].bytes / 1024).toFixed(1)} KB`,
        )
        .join('; ')}`,
    );
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const opt = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  await runReviewCost({
    before: opt('--before'),
    shapes: opt('--shapes')?.split(','),
    rounds: Number(opt('--rounds') ?? 7),
    also: args.flatMap((a, i) => (a === '--also' ? [args[i + 1].split(/=(.*)/s).slice(0, 2)] : [])),
    log: console.log,
  });
}
