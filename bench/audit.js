// The audit of what is stored and its reports (after `npm run build`): 10,000 Shoots in 200
// namespaces over three profiles (bench/fleet.js), as the report writer runs it. Reports the
// audit's CPU time, the longest it held the event loop (slices of 10 ms, as on a server without
// the landscape worker), the event-loop delay a timer saw meanwhile, the one-piece cost of
// building the reports from the findings, and the reports' count and size. Not part of `npm test`.
//
//   node bench/audit.js [SHOOTS]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { staticState } from '../dist/cluster/static-state.js';
import { resolveConfig } from '../dist/config.js';
import { buildReport, findingsByScope } from '../dist/report/openreports.js';
import { auditOnLoop } from '../dist/server/reports/writer.js';
import { fleet, NOW } from './fleet.js';

const SHOOTS = Number(process.argv[2] ?? 10_000);
const config = resolveConfig({});
const state = staticState(fleet(SHOOTS));
const input = {
  now: NOW,
  config,
  settings: { forcedWithinDays: config.reports.forcedWithinDays, horizonDays: config.reports.horizonDays },
};

const delay = monitorEventLoopDelay({ resolution: 1 });
let ticks = 0;
const ticker = setInterval(() => ticks++, 1);
delay.enable();
const cpu0 = process.cpuUsage();
const { findings, stats } = await auditOnLoop(state, input, { cancelled: () => false });
const cpu1 = process.cpuUsage(cpu0);
delay.disable();
clearInterval(ticker);

// As the writer builds them: one report at a time, with a pause between.
const all = [];
let buildMs = 0;
let longestBuildMs = 0;
for (const [ns, group] of findingsByScope(findings)) {
  const t0 = performance.now();
  all.push(buildReport(group, ns || undefined, NOW, config.reports.maxResultsPerReport));
  const took = performance.now() - t0;
  buildMs += took;
  longestBuildMs = Math.max(longestBuildMs, took);
}
const sizes = all.map((r) => Buffer.byteLength(JSON.stringify(r)));
const results = all.reduce((n, r) => n + r.results.length, 0);
const byPolicy = {};
for (const f of findings) byPolicy[f.policy] = (byPolicy[f.policy] ?? 0) + 1;

console.log(
  `audit of ${SHOOTS} Shoots in 200 namespaces over 3 profiles (defaults: forced within 14 d, horizon 90 d):`,
);
console.log(
  `  audit CPU ${stats.busyMs.toFixed(0)} ms (process CPU ${((cpu1.user + cpu1.system) / 1000).toFixed(0)} ms), ` +
    `longest slice ${stats.longestMs.toFixed(1)} ms, ${stats.slices} slices, ${ticks} timer ticks in between`,
);
console.log(
  `  event-loop delay meanwhile: max ${(delay.max / 1e6).toFixed(1)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms`,
);
console.log(`  findings ${findings.length}: ${JSON.stringify(byPolicy)}`);
console.log(`  building the reports: ${buildMs.toFixed(1)} ms, the longest one ${longestBuildMs.toFixed(1)} ms`);
console.log(
  `  ${all.length} reports, ${results} results; ${(sizes.reduce((a, b) => a + b, 0) / 1e6).toFixed(2)} MB in all, ` +
    `largest ${(Math.max(...sizes) / 1e3).toFixed(0)} kB`,
);
