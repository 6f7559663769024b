// npm run test:maintenance: the forecast against Gardener's own maintenance controller on every
// scenario of test/fixtures/maintenance/ (test/e2e/maintenance.sh builds the controller program
// and runs this). Prints a line per scenario, the mismatches of those that disagree, and last
//   maintenance: N passed, M failed
// Exit code 0 when every scenario agrees, 1 otherwise, 2 when the run could not start.
//   npm run test:maintenance -- [--json FILE] [SCENARIO…]
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { staticState } from '../../../src/cluster/static-state.js';
import { readObjectFiles } from '../../../src/cluster/object-files.js';
import { forecastFleet } from '../../../src/gardener/forecast/index.js';
import { compare, type Comparison, type GardenerResult } from './compare.js';
import { loadScenarios, type Scenario } from './scenarios.js';

const root = resolve(import.meta.dirname, '../../..');
const SCENARIOS = join(root, 'test/fixtures/maintenance');

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { json: { type: 'string' } } });
  const binary = process.env.E2E_MAINTENANCE;
  if (!binary)
    throw new Error('E2E_MAINTENANCE must name gardener-maintenance (test/e2e/build-maintenance.sh prints it)');
  const all = await loadScenarios(SCENARIOS);
  const scenarios = positionals.length === 0 ? all : all.filter((s) => positionals.includes(s.name));
  if (scenarios.length === 0) throw new Error(`no scenario named ${positionals.join(', ')} in ${SCENARIOS}`);

  const started = process.hrtime.bigint();
  const gardener = await runGardener(binary, scenarios);
  const gardenerSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  let passed = 0;
  const totals = { steps: 0, failures: 0, uncertain: 0, shoots: 0 };
  const record: Array<{ scenario: string; about: string } & Comparison> = [];
  for (const s of scenarios) {
    const state = staticState((await readObjectFiles(s.files)).map((o) => o.object));
    const forecast = forecastFleet(state, Date.parse(s.now), s.days);
    const begin = gardener.get(`${s.name}\u0000begin`);
    const last = gardener.get(`${s.name}\u0000last`);
    if (!begin || !last) throw new Error(`gardener-maintenance printed nothing for ${s.name}`);
    const c = compare(forecast, begin, last);
    record.push({ scenario: s.name, about: s.about, ...c });
    totals.steps += c.steps;
    totals.failures += c.failures;
    totals.uncertain += c.uncertain;
    totals.shoots += forecast.shoots.length + forecast.skipped.length;
    if (c.agreed) passed++;
    const counts = `${c.steps} steps, ${c.failures} failures${c.uncertain ? `, ${c.uncertain} uncertain` : ''}`;
    console.log(`${c.agreed ? 'ok  ' : 'FAIL'} ${s.name} (${counts})`);
    for (const m of c.mismatches) console.log(`       ${m}`);
  }
  const release = [...gardener.values()][0]?.versions['github.com/gardener/gardener'] ?? 'unknown';
  console.log(
    `${scenarios.length} scenarios, ${totals.shoots} Shoots, ${totals.steps} steps, ${totals.failures} failures, ${totals.uncertain} uncertain; Gardener ${release}, its runs took ${gardenerSeconds.toFixed(1)} s`,
  );
  if (values.json) await writeFile(values.json, `${JSON.stringify({ release, totals, scenarios: record }, null, 2)}\n`);
  const failed = scenarios.length - passed;
  console.log(`maintenance: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

/** Runs gardener-maintenance once over every scenario, at both run instants. */
async function runGardener(binary: string, scenarios: readonly Scenario[]): Promise<Map<string, GardenerResult>> {
  const dir = await mkdtemp(join(tmpdir(), 'forecast-diff-'));
  try {
    const manifest = join(dir, 'manifest.json');
    await writeFile(
      manifest,
      JSON.stringify(scenarios.map(({ name, files, now, days }) => ({ name, files, now, days }))),
    );
    const { stdout } = await promisify(execFile)(binary, ['--at', 'both', manifest], { maxBuffer: 256 * 1024 * 1024 });
    const out = new Map<string, GardenerResult>();
    for (const line of stdout.split('\n')) {
      if (line.trim() === '') continue;
      const r = JSON.parse(line) as GardenerResult;
      out.set(`${r.scenario}\u0000${r.at}`, r);
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`maintenance: ${(err as Error).stack ?? String(err)}`);
    console.log('maintenance: 0 passed, setup failed');
    process.exit(2);
  },
);
