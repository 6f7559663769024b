// The webhook's background fleet forecast (after `npm run build`): 10,000 Shoots over three
// profiles, 180 days, as server/forecast-refresh.ts makes it every 5 minutes, a Shoot at a time
// with a pause every 10 ms. Reports its CPU time, its wall time, and the longest the event loop
// waited meanwhile (what an admission review would). Not part of `npm test` or `npm run bench`.
//
//   node bench/forecast-refresh.js [SHOOTS]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { staticState } from '../dist/cluster/static-state.js';
import { ForecastRefresher } from '../dist/server/forecast-refresh.js';
import { fleet, NOW } from './fleet.js';

const SHOOTS = Number(process.argv[2] ?? 10_000);
const refresher = new ForecastRefresher({ state: staticState(fleet(SHOOTS)), now: () => NOW });
const delay = monitorEventLoopDelay({ resolution: 1 });
// A timer every millisecond stands in for the admission reviews that share the loop.
let ticks = 0;
const ticker = setInterval(() => ticks++, 1);
delay.enable();
const summary = await refresher.refresh();
delay.disable();
clearInterval(ticker);
const heapMb = process.memoryUsage().heapUsed / 1e6;
console.log(
  `background forecast, ${SHOOTS} Shoots over 3 profiles, ${Math.round((summary.until - summary.at) / 86_400_000)} days:`,
);
console.log(
  `  CPU ${summary.busyMs.toFixed(0)} ms, wall ${summary.durationMs.toFixed(0)} ms, ${ticks} timer ticks ran in between`,
);
console.log(
  `  event-loop delay meanwhile: max ${(delay.max / 1e6).toFixed(1)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms`,
);
console.log(`  ${summary.byVersion.length} label sets with something ahead; heap after: ${heapMb.toFixed(0)} MB`);
