// The benchmark `npm run bench` runs (after a build): core scaling, HTTPS load, memory and
// start-up, each against a baseline measured in the same run. Writes bench/RESULTS.md.
//
//   npm run bench                 the full run (about 10 minutes on 2 cores)
//   node bench/run.js --quick     a short smoke run (fewer rounds, 10,000 Shoots in memory);
//                                 writes bench/RESULTS-quick.md instead
//   node bench/run.js --only load,startup   some sections only (RESULTS-partial.md)
//   node bench/run.js --render             RESULTS.md again from results/RESULTS.json (after editing NOTES.md)
//
// Not part of `npm test`. Only ever talks to 127.0.0.1.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, freemem, release, type } from 'node:os';
import { growth, runCore } from './core.js';
import { runLoad } from './load.js';
import { runReviewCost } from './review-alloc.js';
import { runMemory } from './memory.js';
import { runStartup } from './startup.js';
import { ROOT } from './servers.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyArg = args.indexOf('--only');
const only = onlyArg >= 0 ? new Set(args[onlyArg + 1].split(',')) : undefined;
const wanted = (section) => !only || only.has(section);

const SETTINGS = quick
  ? {
      core: { rounds: 3 },
      load: { rounds: 2, durationS: 2, pacedRounds: 1, pacedS: 2 },
      review: { rounds: 3 },
      memory: { shoots: 10_000, rounds: 1, staticRounds: 1 },
      startup: { rounds: 3 },
    }
  : {
      core: { rounds: 7 },
      load: { rounds: 5, durationS: 4, pacedRounds: 3, pacedS: 4 },
      review: { rounds: 7 },
      memory: { shoots: 100_000, rounds: 3, staticRounds: 1 },
      startup: { rounds: 5 },
    };

const log = (line) => process.stderr.write(`${line}\n`);
const gitRev = () => {
  try {
    const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'src', 'bench'], { cwd: ROOT, encoding: 'utf8' }).trim() !==
      '';
    return dirty ? `${rev} (with uncommitted changes)` : rev;
  } catch {
    return 'unknown';
  }
};

// --render: rewrite RESULTS.md from the recorded results/RESULTS.json (after editing NOTES.md).
const render = args.includes('--render');
const file = quick ? 'RESULTS-quick.md' : only ? 'RESULTS-partial.md' : 'RESULTS.md';
const recorded = new URL(`results/${file.replace('.md', '.json')}`, import.meta.url);

let run;
if (render) {
  run = JSON.parse(readFileSync(recorded, 'utf8'));
} else {
  const start = new Date();
  const machine = {
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB (${(freemem() / 2 ** 30).toFixed(1)} GiB free at start)`,
    os: `${type()} ${release()}`,
    node: process.version,
    loadavg: loadavg()
      .map((x) => x.toFixed(2))
      .join(', '),
    rev: gitRev(),
  };
  log(`bench: ${machine.cpus}, node ${machine.node}, load average ${machine.loadavg}${quick ? ', quick' : ''}`);
  const results = {};
  const sections = [
    ['core', () => runCore({ ...SETTINGS.core, log })],
    ['load', () => runLoad({ ...SETTINGS.load, log })],
    [
      'review',
      async () => ({
        loadavg: [loadavg()[0]],
        shapes: await runReviewCost({ ...SETTINGS.review, log }),
        after: loadavg()[0],
      }),
    ],
    ['memory', () => runMemory({ ...SETTINGS.memory, log })],
    ['startup', () => runStartup({ ...SETTINGS.startup, log })],
  ];
  for (const [name, fn] of sections) {
    if (!wanted(name)) continue;
    const t0 = performance.now();
    results[name] = await fn();
    log(`${name}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  run = {
    machine,
    started: start.toISOString(),
    elapsedS: (Date.now() - start.getTime()) / 1000,
    args,
    settings: SETTINGS,
    results,
  };
  writeFileSync(recorded, `${JSON.stringify(run, null, 2)}\n`);
}
const { machine, results, elapsedS } = run;
const started = new Date(run.started);
const runArgs = run.args ?? [];

// --- the report ---------------------------------------------------------------------------

const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : '–');
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–');
const pct = (x) => `±${f1(x)}%`;
const mb = (b) => `${f0(b / 2 ** 20)} MB`;
const kb = (b) => `${f0(b / 1024)} KB`;
const loads = (l) => `load average ${l.map(f2).join(' → ')}`;
const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join(
    '\n',
  );
const verdict = (ok) => (ok ? 'met' : '**not met**');
const rounds = (n) => `${n} ${n === 1 ? 'round' : 'rounds'}`;

const targets = [];
const md = [];

md.push('# Benchmark results', '');
md.push(
  `${quick ? '**Quick smoke run** (`--quick`): fewer rounds, 10,000 Shoots in the memory section; not the figures of record.\n\n' : ''}Produced by \`bench/run.js\`; every figure is from this one run.`,
  '',
);
md.push(
  table(
    ['', ''],
    [
      ['Date', started.toISOString().replace(/\.\d+Z$/, 'Z')],
      [
        'Command',
        `\`npm run bench\`${runArgs.length ? ` (\`node bench/run.js ${runArgs.join(' ')}\`)` : ''} at commit ${machine.rev}`,
      ],
      ['Machine', `${machine.cpus}; ${machine.memory}; ${machine.os}`],
      ['Node', machine.node],
      ['Load average at start (1, 5, 15 min)', machine.loadavg],
      ['Duration', `${Math.floor(elapsedS / 60)} min ${Math.floor(elapsedS % 60)} s`],
    ],
  ),
  '',
);
md.push(
  'Method: every comparison runs ours and its baseline in the same run, in alternating (or rotating) order, and reports the ' +
    'median of the rounds and their spread (half the interquartile range, relative to the median). The machine is shared ' +
    '(other engineers run tests on it), so the 1-minute load average is recorded per section.',
  '',
);

const summaryAt = md.length;
md.push('');

if (results.load) {
  const L = results.load;
  md.push('## 1. HTTPS load', '');
  md.push(
    `\`version-policy serve\` (static state: the three profiles and 10,000 Shoots; production config: log level info, metrics on, ` +
      `log lines written to /dev/null) against \`bench/baseline-server.js\` (bare Fastify, same certificates, same body limit, ` +
      `parses the same body, answers a constant "allowed"). Keep-alive HTTPS on 127.0.0.1.`,
    '',
    `- **Maximum throughput**: autocannon (npm), ${L.connections} connections, pipelining 1, ${rounds(L.rounds)} (alternating) of ${L.durationS} s per server after a warm-up; p50/p99 are autocannon's (1 ms resolution, closed loop, so they include queueing behind ${L.connections} connections).`,
    `- **Latency at 50%**: an open loop (\`bench/load-client.js\`) at half our median maximum, ${rounds(L.pacedRounds)} (alternating) of ${L.pacedS} s (after 1 s of warm-up), latency counted from when each request was due. The baseline is run at the same absolute rate for reference.`,
    '- The load generator runs in its own process and shares the 2 cores with the server: that bounds both servers alike.',
    '',
  );
  const rows = Object.values(L.scenarios).map((s) => [
    s.title,
    kb(s.bytes),
    `${f0(s.ours.rps)} ${pct(s.ours.spread)}`,
    `${f0(s.base.rps)} ${pct(s.base.spread)}`,
    `**${f2(s.ratio)}**`,
    `${f0(s.ours.p50)} / ${f0(s.ours.p99)}`,
    `${f0(s.base.p50)} / ${f0(s.base.p99)}`,
    `${s.errors.ours + s.non2xx.ours} / ${s.requests.ours}`,
  ]);
  md.push(
    table(
      [
        'Review',
        'Body',
        'Ours req/s',
        'Baseline req/s',
        'Ratio',
        'Ours p50 / p99 at max (ms)',
        'Baseline p50 / p99 at max (ms)',
        'Ours errors / requests',
      ],
      rows,
    ),
    '',
  );
  const half = Object.values(L.scenarios).map((s) => [
    s.title,
    `${s.half.rate}`,
    `${f2(s.half.ours.p50)}`,
    `**${f2(s.half.ours.p99)}**${L.pacedRounds > 1 ? ` ${pct(s.half.ours.p99Spread)}` : ''}`,
    `${f2(s.half.base.p50)} / ${f2(s.half.base.p99)}`,
  ]);
  md.push(
    table(
      [
        'Review',
        'Rate (req/s) = 50% of our max',
        'Ours p50 (ms)',
        'Ours p99 (ms)',
        'Baseline p50 / p99 at the same rate (ms)',
      ],
      half,
    ),
    '',
  );
  md.push(
    `Answers checked before loading: ${Object.values(L.scenarios)
      .map(
        (s) =>
          `${s.title.split(' ')[0]} ${s.answer.message ? 'denied' : 'as expected'}${s.answer.warnings ? ` with ${s.answer.warnings} warning(s)` : ''}`,
      )
      .join(
        '; ',
      )}. Errors of the baseline: ${Object.values(L.scenarios).reduce((a, s) => a + s.errors.base + s.non2xx.base, 0)}.`,
    '',
  );
  md.push(
    `Load average per review: ${Object.values(L.scenarios)
      .map((s) => `${s.title.split(' ')[0]} ${s.loadavg.map(f2).join(' → ')}`)
      .join('; ')}.`,
    '',
  );
  // Every shape: at least 80% of the bare baseline; p99 at half our maximum at most 5 ms, or 1.5×
  // the baseline's own p99 at that rate, whichever is larger.
  const shapes = Object.entries(L.scenarios);
  const short = (k) => `(${k})`;
  const ratioMet = shapes.filter(([, s]) => s.ratio >= 0.8).length;
  targets.push([
    'Throughput ≥ 80% of the bare baseline, every shape',
    shapes.map(([k, s]) => `${short(k)} ${f2(s.ratio)}`).join(', '),
    ratioMet === shapes.length ? 'met' : `**not met** (${ratioMet} of ${shapes.length})`,
  ]);
  const p99Bound = (s) => Math.max(5, 1.5 * s.half.base.p99);
  const p99Met = shapes.filter(([, s]) => s.half.ours.p99 <= p99Bound(s)).length;
  targets.push([
    'p99 at 50% of our maximum ≤ max(5 ms, 1.5 × the baseline p99 at that rate), every shape',
    shapes.map(([k, s]) => `${short(k)} ${f2(s.half.ours.p99)} ms (bound ${f2(p99Bound(s))})`).join(', '),
    p99Met === shapes.length ? 'met' : `**not met** (${p99Met} of ${shapes.length})`,
  ]);
}

if (results.review) {
  const R = results.review;
  md.push('## 1b. Work per review outside transport', '');
  md.push(
    'The same reviews and state as section 1, in-process (`bench/review-alloc.js`): the body decoded (UTF-8, nesting, JSON, prototype keys, envelope), ' +
      '`admit()` (schema, mutating path, rules, warnings, patch) and the answer serialised. CPU time per review, median of alternating rounds; ' +
      `allocation per review is the median heap growth over single reviews run without a GC in between. ${loads([...R.loadavg, R.after])}.`,
    '',
  );
  md.push(
    table(
      ['Review', 'CPU µs/review', 'Spread', 'Allocated per review'],
      Object.values(R.shapes).map((s) => [s.title, `**${f0(s.ours.us)}**`, pct(s.ours.spread), kb(s.ours.bytes)]),
    ),
    '',
  );
}

if (results.core) {
  const C = results.core;
  md.push('## 2. Core scaling: `evaluate()`', '');
  md.push(
    'In-process, warmed up; the review is parsed and schema-checked once (as the admission layer hands it over) and `evaluate()` alone is timed, ' +
      `the same request again and again (the bench checks that evaluate() leaves it unchanged). The JSON.parse of the same review body is timed alongside as a yardstick. ` +
      'Clock for time rules: 2026-09-01, with the profile dated from it.',
    '',
  );
  md.push(
    table(
      ['Input', 'Review body', 'evaluate() µs/review', 'Spread', 'JSON.parse of the body, µs', 'Decision'],
      C.map((r) => [
        r.name,
        kb(r.bytes),
        `**${f0(r.us)}**`,
        pct(r.spread),
        f0(r.baselineUs),
        r.allowed ? 'allowed' : 'denied',
      ]),
    ),
    '',
  );
  const gv = growth(C, 'versions');
  const gs = growth(C, 'shoots');
  md.push(
    `Growth per 10× of input: versions ${gv.map((g) => `${g.from.toLocaleString('en')}→${g.to.toLocaleString('en')}: ×${f2(g.factor)}`).join(', ')}; Shoots in the state ${gs.map((g) => `${g.from.toLocaleString('en')}→${g.to.toLocaleString('en')}: ×${f2(g.factor)}`).join(', ')}.`,
    '',
  );
  const real = C.find((r) => r.group === 'realistic');
  targets.push(['`evaluate()` on the realistic profile ≤ 0.5 ms', `${f0(real.us)} µs`, verdict(real.us <= 500)]);
  targets.push([
    'Cost grows at most linearly with versions (×10 per 10×)',
    gv.map((g) => `×${f2(g.factor)}`).join(', '),
    verdict(gv.every((g) => g.factor <= 11)),
  ]);
  targets.push([
    'Cost does not grow with the total Shoot count',
    gs.map((g) => `×${f2(g.factor)}`).join(', '),
    verdict(gs.every((g) => g.factor <= 1.25)),
  ]);
}

if (results.memory) {
  const M = results.memory;
  md.push('## 3. Memory', '');
  md.push(
    `The real \`version-policy serve\` process, measured after ready and three full GCs (\`bench/memory-probe.js\`, preloaded with \`--expose-gc\`). ` +
      `Heap is V8's used heap; RSS is the process's resident set; peak is VmHWM. ${rounds(M.rounds)} of the empty and informer processes, ${rounds(M.staticRounds)} of the static one (medians); ${loads(M.loadavg)}.`,
    '',
    `- **empty**: \`serve --state\` with the realistic profile and no Shoots: the baseline of the static path.`,
    `- **informers, no Shoots**: \`serve\` with the cluster informers against a list server with the profile and no Shoots: the baseline of the informer path (it loads the Kubernetes client).`,
    `- **static**: \`serve --state\` with the profile and ${M.shoots.toLocaleString('en')} Shoots in one YAML file (the bench fixtures' Shoots: name, namespace, profile, version, 1-3 worker pools), read by the real \`loadStaticState\`.`,
    `- **informers**: \`serve\` with the real cluster informers, listing ${M.shoots.toLocaleString('en')} full API Shoots (metadata, managedFields, status; ${f0(M.listedBytes / M.shoots)} bytes of JSON each) from \`bench/list-server.js\` over HTTPS in pages of 500; trimmed and indexed as in production.`,
    '',
  );
  const row = (name, s, base) =>
    base
      ? [
          name,
          `**${mb(s.rss)}**`,
          mb(s.rss - base.rss),
          mb(s.heapUsed),
          mb(s.heapUsed - base.heapUsed),
          `${f0((s.heapUsed - base.heapUsed) / M.shoots)} B`,
          mb(s.peakRss),
          `${f1(s.readyMs / 1000)} s`,
        ]
      : [name, `**${mb(s.rss)}**`, '–', mb(s.heapUsed), '–', '–', mb(s.peakRss), `${f1(s.readyMs / 1000)} s`];
  const n = M.shoots.toLocaleString('en');
  md.push(
    table(
      [
        'Process',
        'RSS',
        'RSS − its baseline',
        'Heap',
        'Heap − its baseline',
        'Heap per Shoot',
        'Peak RSS',
        'Spawn to ready',
      ],
      [
        row('empty (static baseline)', M.empty),
        row(`static, ${n} Shoots`, M.static, M.empty),
        row('informers, no Shoots (informer baseline)', M.informersEmpty),
        row(`informers, ${n} Shoots`, M.informers, M.informersEmpty),
      ],
    ),
    '',
  );
  if (M.shoots >= 100_000) {
    targets.push([
      '100,000 Shoots in ≤ 250 MB RSS (informers, as in production)',
      `${mb(M.informers.rss)} (${mb(M.informers.rss - M.informersEmpty.rss)} over the informer process without Shoots)`,
      verdict(M.informers.rss <= 250 * 2 ** 20),
    ]);
    targets.push([
      '100,000 Shoots in ≤ 250 MB RSS (static state)',
      `${mb(M.static.rss)}, peak ${mb(M.static.peakRss)}`,
      verdict(M.static.rss <= 250 * 2 ** 20),
    ]);
  }
}

if (results.startup) {
  const S = results.startup;
  md.push('## 4. Start-up', '');
  md.push(
    `From spawning \`node dist/cli/main.js serve --config … --state …\` (certificate files given) to the first 200 from \`/readyz\`, polled every 5 ms; the bare baseline server timed the same way. ${rounds(S.rounds)} in rotating order; ${loads(S.loadavg)}.`,
    '',
  );
  md.push(
    table(
      ['Process', 'Spawn to ready (median)', 'Spread', 'Ratio to baseline'],
      [
        ['bare Fastify baseline', `${f0(S.base.ms)} ms`, pct(S.base.spread), '1'],
        [
          'serve, static state: the two bench profiles (5 KB and 150 KB)',
          `**${f0(S.profiles.ms)} ms**`,
          pct(S.profiles.spread),
          f2(S.profiles.ms / S.base.ms),
        ],
        [
          `serve, static state: the profiles and ${S.shoots.toLocaleString('en')} Shoots (YAML)`,
          `**${f0(S.shootsState.ms)} ms**`,
          pct(S.shootsState.spread),
          f2(S.shootsState.ms / S.base.ms),
        ],
      ],
    ),
    '',
  );
  targets.push([
    'Start-up to ready ≤ 1 s (static state: the two profiles)',
    `${f0(S.profiles.ms)} ms`,
    verdict(S.profiles.ms <= 1000),
  ]);
  targets.push([
    `Start-up to ready ≤ 1 s (static state: ${S.shoots.toLocaleString('en')} Shoots)`,
    `${f0(S.shootsState.ms)} ms`,
    verdict(S.shootsState.ms <= 1000),
  ]);
}

md.splice(summaryAt, 0, '## Targets', '', table(['Target', 'Measured', ''], targets), '');
// Sections from runs of their own: the real kube-apiserver's figures (npm run bench:apiserver),
// the connection faults (npm run bench:connections), the differential test (npm run bench:maintenance).
for (const section of ['APISERVER.md', 'CONNECTIONS.md', 'MAINTENANCE.md']) {
  const file = new URL(`results/${section}`, import.meta.url);
  if (existsSync(file)) md.push(readFileSync(file, 'utf8').trim(), '');
}
// The analysis (what bounds each figure, what was tried) is written by hand and kept with the bench.
const notes = new URL('NOTES.md', import.meta.url);
if (existsSync(notes)) md.push(readFileSync(notes, 'utf8').trim(), '');

writeFileSync(new URL(file, import.meta.url), `${md.join('\n')}\n`);
log(`wrote bench/${file}${render ? ' from the recorded results' : ` in ${f0(elapsedS)} s`}`);
