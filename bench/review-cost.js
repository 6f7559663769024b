// Where the time of one big review goes: each shape of test/helpers/review-shapes.ts (every one
// just under the 7 MiB body limit), taken apart stage by stage on the main thread:
//
//   decode   Buffer → string (UTF-8)           scan   nesting-depth scan (nestsDeeperThan)
//   parse    JSON.parse                        body   all of decodeBody (the three above, the
//   schema   toPolicyRequest (ajv, the object)        prototype-key check and the envelope)
//   evaluate the policy core                   admit  all of admit() (schema, evaluate, patch)
//   incr     all of decodeBodyIncrementally    turn   its longest turn of the event loop (what the
//            (the server's path past 512 KiB)         server blocks for with a big body)
//
// Usage: node --import=tsx bench/review-cost.js [--rounds N]   (re-runs itself with tsx if needed)
// Each figure is the median of N rounds (default 5): CPU time of the main thread, in ms, which is
// what the stage blocks the event loop for on a core of its own (wall-clock time on this shared
// 2-core machine is often several times that). Not part of `npm test`.
import { spawnSync } from 'node:child_process';

if (!process.execArgv.some((a) => a.includes('tsx'))) {
  const r = spawnSync(
    process.execPath,
    ['--import=tsx', '--expose-gc', new URL(import.meta.url).pathname, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(r.status ?? 1);
}

const { decodeBody, decodeBodyIncrementally, nestsDeeperThan } = await import('../src/admission/body.ts');
const { admit } = await import('../src/admission/handler.ts');
const { toPolicyRequest } = await import('../src/admission/request.ts');
const { MAX_NESTING_DEPTH } = await import('../src/admission/limits.ts');
const { evaluate } = await import('../src/policy/evaluate.ts');
const { staticState } = await import('../src/cluster/static-state.ts');
const { REVIEW_SHAPES } = await import('../test/helpers/review-shapes.ts');
const { config: testConfig, NOW } = await import('../test/helpers/objects.ts');

const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 5;
const config = testConfig({ defaulting: { lifecycle: { enabled: false } } });
const headers = { contentType: 'application/json', contentEncoding: undefined };
const gc = globalThis.gc ?? (() => undefined);

function time(fn) {
  gc();
  const start = process.threadCpuUsage();
  const value = fn();
  const used = process.threadCpuUsage(start);
  return { ms: (used.user + used.system) / 1000, value };
}

/** CPU of an async call in all, and of its longest turn (sampled by a 1 ms timer). */
async function timeTurns(fn) {
  gc();
  const start = process.threadCpuUsage();
  let last = start;
  let turn = 0;
  const sample = () => {
    const used = process.threadCpuUsage(last);
    turn = Math.max(turn, (used.user + used.system) / 1000);
    last = process.threadCpuUsage();
  };
  const timer = setInterval(sample, 1);
  await fn();
  clearInterval(timer);
  sample();
  const used = process.threadCpuUsage(start);
  return { ms: (used.user + used.system) / 1000, turn };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x) => (x === undefined ? '-' : x.toFixed(1));

console.log(`rounds: ${rounds}; figures in ms (median)\n`);
console.log(
  ['shape', 'MiB', 'decode', 'scan', 'parse', 'body', 'schema', 'evaluate', 'admit', 'incr', 'turn', 'answer'].join(
    '\t',
  ),
);
for (const shape of REVIEW_SHAPES) {
  const bytes = shape.body();
  const state = staticState(shape.state ?? []);
  const webhook = shape.path === '/mutate' ? 'mutate' : 'validate';
  const figures = {
    decode: [],
    scan: [],
    parse: [],
    body: [],
    schema: [],
    evaluate: [],
    admit: [],
    incr: [],
    turn: [],
  };
  let answer = '';
  for (let r = 0; r < rounds; r++) {
    const text = time(() => bytes.toString('utf8'));
    figures.decode.push(text.ms);
    figures.scan.push(time(() => nestsDeeperThan(text.value, MAX_NESTING_DEPTH)).ms);
    try {
      figures.parse.push(time(() => JSON.parse(text.value)).ms);
    } catch {
      // not JSON (the "[" shape): no parse figure
    }
    const incremental = await timeTurns(() => decodeBodyIncrementally(bytes, headers));
    figures.incr.push(incremental.ms);
    figures.turn.push(incremental.turn);
    const body = time(() => decodeBody(bytes, headers));
    figures.body.push(body.ms);
    const decoded = body.value;
    if (!decoded.ok) {
      answer = `refused ${decoded.error.statusCode}`;
      continue;
    }
    const mapped = time(() => toPolicyRequest(decoded.review.request));
    figures.schema.push(mapped.ms);
    if (mapped.value.outcome === 'policed') {
      const decision = time(() => evaluate(mapped.value.request, { now: NOW, config, state }));
      figures.evaluate.push(decision.ms);
    }
    const outcome = time(() => admit(webhook, decoded.review.request, decoded.problems, { now: NOW, config, state }));
    figures.admit.push(outcome.ms);
    const res = outcome.value.response;
    answer = res.allowed ? 'allowed' : `denied ${res.status?.code} ${outcome.value.rules.join(',')}`;
  }
  const row = [shape.name, (bytes.length / 1048576).toFixed(2)];
  for (const k of ['decode', 'scan', 'parse', 'body', 'schema', 'evaluate', 'admit', 'incr', 'turn'])
    row.push(fmt(figures[k].length ? median(figures[k]) : undefined));
  row.push(answer);
  console.log(row.join('\t'));
}
