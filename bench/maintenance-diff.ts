// The differential test's cost (npm run test:maintenance): Gardener's maintenance controller over
// every scenario of test/fixtures/maintenance/, at both run instants, against the forecast of the
// same scenarios in this process, as CPU seconds (the Go program's own getrusage, this process's
// process.cpuUsage) and per reconcile. The forecast is the baseline of the same run. Not part of
// `npm test` or `npm run bench`. Writes bench/results/MAINTENANCE.md, which bench/run.js puts into
// RESULTS.md.
//
//   npm run bench:maintenance [-- ROUNDS]
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { staticState } from '../src/cluster/static-state.js';
import { readObjectFiles } from '../src/cluster/object-files.js';
import { forecastFleet } from '../src/gardener/forecast/index.js';
import { loadScenarios } from '../test/e2e/forecast-diff/scenarios.js';

const ROUNDS = Number(process.argv[2] ?? 3);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1)
  throw new Error(`rounds: "${process.argv[2]}" is not a whole number of rounds; give 1 or more (default 3)`);
const loadStart = loadavg()[0]!;
const binary = process.env.E2E_MAINTENANCE;
if (!binary)
  throw new Error('E2E_MAINTENANCE must name gardener-maintenance (test/e2e/build-maintenance.sh prints it)');
const scenarios = await loadScenarios(resolve(import.meta.dirname, '../test/fixtures/maintenance'));
const dir = await mkdtemp(join(tmpdir(), 'maintenance-bench-'));
const manifest = join(dir, 'manifest.json');
await writeFile(manifest, JSON.stringify(scenarios.map(({ name, files, now, days }) => ({ name, files, now, days }))));
const states = await Promise.all(
  scenarios.map(async (s) => ({ s, state: staticState((await readObjectFiles(s.files)).map((o) => o.object)) })),
);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const gardener: Array<{ cpu: number; wall: number; reconciles: number }> = [];
const forecast: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const started = process.hrtime.bigint();
  const { stdout } = await promisify(execFile)(binary, ['--at', 'both', manifest], { maxBuffer: 256 * 1024 * 1024 });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const lines = stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { reconciles: number; cpuSeconds: number });
  gardener.push({
    wall,
    cpu: lines.reduce((n, l) => n + l.cpuSeconds, 0),
    reconciles: lines.reduce((n, l) => n + l.reconciles, 0),
  });
  const cpu = process.cpuUsage();
  // Both run instants, as the differential test asks the forecast for both chains.
  for (const { s, state } of states) forecastFleet(state, Date.parse(s.now), s.days);
  const used = process.cpuUsage(cpu);
  forecast.push((used.user + used.system) / 1e6);
}
await rm(dir, { recursive: true, force: true });

const g = {
  cpu: median(gardener.map((x) => x.cpu)),
  wall: median(gardener.map((x) => x.wall)),
  reconciles: gardener[0]!.reconciles,
};
const f = median(forecast);
const release = /github\.com\/gardener\/gardener (v\S+)/.exec(
  await readFile(resolve(import.meta.dirname, '../test/e2e/maintenance/go.mod'), 'utf8'),
)?.[1];
const md = [
  '## The differential test of the forecast (issue 36)',
  '',
  `\`npm run bench:maintenance\` on ${new Date().toISOString().slice(0, 10)}, 2 cores, load average ${loadStart.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}: Gardener's maintenance controller (${release}, \`test/e2e/maintenance\`) over the ${scenarios.length} scenarios of \`test/fixtures/maintenance/\`, at each window's begin and its last second, as \`npm run test:maintenance\` runs it; the forecast of the same scenarios in this process is the baseline. Medians of ${ROUNDS} rounds; CPU is the Go program's own (getrusage) and this process's (\`process.cpuUsage\`).`,
  '',
  '| Run | Reconciles | CPU | CPU per reconcile | Wall |',
  '|---|---|---|---|---|',
  `| Gardener's maintenance controller | ${g.reconciles} | ${g.cpu.toFixed(1)} s | ${((g.cpu / g.reconciles) * 1000).toFixed(2)} ms | ${g.wall.toFixed(1)} s |`,
  `| The forecast (both outcomes of every window) | | ${(f * 1000).toFixed(0)} ms | | |`,
  '',
  `Gardener's controller costs ×${(g.cpu / f).toFixed(0)} the forecast's CPU.`,
  '',
];
await writeFile(new URL('results/MAINTENANCE.md', import.meta.url), md.join('\n'));
console.log(md.join('\n'));
