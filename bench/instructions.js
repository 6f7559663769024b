// Work against time for evaluate() as the versions grow: machine instructions per evaluate(),
// counted by valgrind (cachegrind without its cache model), next to the CPU time per call on
// the bare machine, for the inputs of core.js's growth table (10 to 4,000 versions, the largest
// profile the edge accepts; 1,000 Shoots). When instructions grow ×10 per 10× of versions and
// time grows more, the difference is the cost per instruction (a working set past the CPU
// caches), not an algorithm that grows faster than the lists.
//
//   node bench/instructions.js      (after `npm run build`; needs valgrind; about two minutes)
//
// Not part of `npm run bench`: valgrind is not on every machine, and each run takes ~15 s.
// Instructions per call are the difference of two runs that differ only in the number of calls,
// so start-up and the fixtures' construction cancel out.
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { evaluate } from '../dist/policy/evaluate.js';
import { per10x, scenario, VERSION_SIZES, versionInputs } from './core.js';

/** Calls per run, as evaluate() calls × versions: the same instruction budget at every size. */
const BUDGET = { few: 400_000, many: 1_200_000 };

const callsFor = (n, budget) => Math.max(4, Math.round(budget / n));

function child(n, calls, warmup) {
  const sc = scenario(versionInputs(n));
  for (let i = 0; i < warmup; i++) evaluate(sc.request, sc.opts);
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) evaluate(sc.request, sc.opts);
  const used = process.cpuUsage(start);
  process.stdout.write(`${JSON.stringify({ us: (used.user + used.system) / calls })}\n`);
}

function instructions(n, calls) {
  const run = spawnSync(
    'valgrind',
    [
      '--tool=cachegrind',
      '--cache-sim=no',
      '--cachegrind-out-file=/dev/null',
      '--smc-check=all-non-file',
      process.execPath,
      '--single-threaded',
      fileURLToPath(import.meta.url),
      '--child',
      String(n),
      String(calls),
    ],
    { encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  const refs = /I\s+refs:\s+([\d,]+)/.exec(run.stderr);
  if (run.status !== 0 || !refs) throw new Error(`valgrind failed for ${n} versions: ${run.stderr.slice(-500)}`);
  return Number(refs[1].replaceAll(',', ''));
}

function cpuPerCall(n) {
  // Natively, after a warm-up as long as the larger run, so that the optimised code is timed.
  const calls = callsFor(n, BUDGET.many);
  // --single-threaded as under valgrind: the GC's work is on the main thread in both, and counted.
  const out = execFileSync(
    process.execPath,
    ['--single-threaded', fileURLToPath(import.meta.url), '--child', String(n), String(2 * calls), String(calls)],
    { encoding: 'utf8' },
  );
  return JSON.parse(out).us;
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  child(Number(args[1]), Number(args[2]), Number(args[3] ?? 0));
} else {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    console.error('valgrind is not installed: nothing to count with');
    process.exit(2);
  }
  const rows = VERSION_SIZES.map((n) => {
    const few = callsFor(n, BUDGET.few);
    const many = callsFor(n, BUDGET.many);
    const perCall = (instructions(n, many) - instructions(n, few)) / (many - few);
    const row = { n, instructions: perCall, us: cpuPerCall(n) };
    console.error(
      `${n} versions: ${(perCall / 1e6).toFixed(2)} M instructions, ${row.us.toFixed(1)} µs per evaluate()`,
    );
    return row;
  });
  console.log(
    '| Versions | Instructions per evaluate() | ×, per 10× | CPU µs per evaluate(), single-threaded | ×, per 10× | ns per 1,000 instructions |',
  );
  console.log('|---|---|---|---|---|---|');
  rows.forEach((r, i) => {
    const prev = rows[i - 1];
    const x = (a, b) => (b ? `×${per10x(a / b, prev.n, r.n).toFixed(2)}` : '');
    console.log(
      `| ${r.n.toLocaleString('en')} | ${(r.instructions / 1e6).toFixed(2)} M | ${x(r.instructions, prev?.instructions)} | ${r.us.toFixed(1)} | ${x(r.us, prev?.us)} | ${((r.us * 1e6) / r.instructions).toFixed(0)} |`,
    );
  });
}
