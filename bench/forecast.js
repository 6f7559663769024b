// The fleet forecast's cost (after `npm run build`): 10,000 Shoots over three profiles, 180 days,
// the forecast alone (median of 5; issue 28 asks for under 2 s), then reading the same fleet from
// a state file, and `version-policy forecast` end to end. Not part of `npm test` or `npm run bench`.
//
//   node bench/forecast.js [SHOOTS]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStaticState, staticState } from '../dist/cluster/static-state.js';
import { forecastFleet } from '../dist/gardener/forecast/index.js';
import { fleet, NOW, stamp } from './fleet.js';

const SHOOTS = Number(process.argv[2] ?? 10_000);
const objects = fleet(SHOOTS);
const state = staticState(objects);

const times = [];
let result;
for (let round = 0; round < 5; round++) {
  const start = process.hrtime.bigint();
  result = forecastFleet(state, NOW, 180);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
times.sort((a, b) => a - b);
const events = result.shoots.reduce((n, s) => n + s.events.length, 0);
const failures = result.shoots.reduce((n, s) => n + s.events.filter((e) => e.failure).length, 0);
const traps = result.shoots.reduce((n, s) => n + s.events.filter((e) => e.trap).length, 0);
console.log(
  `forecast, ${SHOOTS} Shoots over 3 profiles, 180 days: ${events} events (${failures} failures, ${traps} traps)`,
);
console.log(
  `  forecastFleet: median ${times[2].toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times[4].toFixed(0)})`,
);

// End to end: the CLI on a JSON state file, as an operator runs it, and the part of it that reads
// the state (the YAML composer, shared with check and explain), to show where its time goes.
const dir = mkdtempSync(join(tmpdir(), 'forecast-bench-'));
try {
  const file = join(dir, 'state.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  let start = process.hrtime.bigint();
  await loadStaticState([file]);
  const loadMs = Number(process.hrtime.bigint() - start) / 1e6;
  const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
  start = process.hrtime.bigint();
  execFileSync(process.execPath, [cli, 'forecast', '--state', file, '--now', stamp(0), '--output', 'json'], {
    maxBuffer: 1024 * 1024 * 1024,
  });
  const cliMs = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(`  loadStaticState of the same fleet as one JSON file: ${loadMs.toFixed(0)} ms`);
  console.log(`  version-policy forecast --output json on that file, end to end: ${cliMs.toFixed(0)} ms`);
  console.log(
    times[2] < 2000 ? '  the forecast is under the 2 s of issue 28' : '  the forecast is OVER the 2 s of issue 28',
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
