// A long fuzz campaign: the generator and oracle of test/helpers/fuzz.ts (which the suite runs
// with 10,000 reviews), here with 200,000 by default. Prints the outcomes, the rate, the heap
// after GC at the start and the end, and every failure kept (with the seed that replays it).
//
// Usage: node bench/fuzz.js [--count N] [--seed S] [--concurrency C]   (re-runs itself with tsx)
// Exit code 1 when any answer was wrong. Not part of `npm test`.
import { spawnSync } from 'node:child_process';

if (!process.execArgv.some((a) => a.includes('tsx'))) {
  const r = spawnSync(process.execPath, ['--import=tsx', new URL(import.meta.url).pathname, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}

const { runFuzz } = await import('../test/helpers/fuzz.ts');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const count = arg('count', 200_000);
const seed = arg('seed', Math.floor(Math.random() * 2 ** 31));
const concurrency = arg('concurrency', 8);
const mib = (b) => (b / 1048576).toFixed(1);

console.log(`fuzz: ${count} reviews, seed ${seed}, concurrency ${concurrency}`);
const r = await runFuzz({
  count,
  seed,
  concurrency,
  keep: 50,
  onProgress: (n) => process.stderr.write(`  ${n} sent, heap ${mib(process.memoryUsage().heapUsed)} MiB\n`),
});
console.log(
  `${r.sent} reviews in ${(r.elapsedMs / 1000).toFixed(1)} s (${Math.round(r.sent / (r.elapsedMs / 1000))}/s)`,
);
console.log(`outcomes: ${JSON.stringify(r.outcomes)}`);
console.log(`heap after GC: ${mib(r.heapStartBytes)} MiB after warm-up, ${mib(r.heapEndBytes)} MiB at the end`);
console.log(`evaluate() threw: ${r.ruleThrows}`);
console.log(`wrong answers: ${r.failureCount}`);
for (const f of r.failures) console.log(`  ${f}`);
process.exit(r.failureCount > 0 ? 1 : 0);
