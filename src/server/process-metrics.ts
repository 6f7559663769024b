// The process metrics: prom-client's default set (`collectDefaultMetrics`) but one,
// nodejs_gc_duration_seconds.
//
// Its entry per collection outlives the young generation and filled the old one under load
// (bench/NOTES.md, "the hot path's tricks"). GC pauses still show in
// version_policy_event_loop_max_delay_seconds and nodejs_eventloop_lag_seconds, the heap in
// nodejs_heap_space_size_used_bytes; none of them costs anything per collection.
//
// prom-client has no switch to leave one default metric out, so its metric modules are registered
// one by one, in its own order and with its own default precision. test/server/metrics.test.ts
// checks the names against `collectDefaultMetrics` itself, so an upgrade that adds a default
// metric fails there, and one that moves these modules fails at import, rather than either
// dropping a metric silently.
import type { Registry } from 'prom-client';
import eventLoopLag from 'prom-client/lib/metrics/eventLoopLag.js';
import heapSizeAndUsed from 'prom-client/lib/metrics/heapSizeAndUsed.js';
import heapSpacesSizeAndUsed from 'prom-client/lib/metrics/heapSpacesSizeAndUsed.js';
import osMemoryHeap from 'prom-client/lib/metrics/osMemoryHeap.js';
import processCpuTotal from 'prom-client/lib/metrics/processCpuTotal.js';
import processHandles from 'prom-client/lib/metrics/processHandles.js';
import processMaxFileDescriptors from 'prom-client/lib/metrics/processMaxFileDescriptors.js';
import processOpenFileDescriptors from 'prom-client/lib/metrics/processOpenFileDescriptors.js';
import processRequests from 'prom-client/lib/metrics/processRequests.js';
import processResources from 'prom-client/lib/metrics/processResources.js';
import processStartTime from 'prom-client/lib/metrics/processStartTime.js';
import version from 'prom-client/lib/metrics/version.js';

/** The one default metric left out, for the test and the docs. */
export const LEFT_OUT_DEFAULT_METRIC = 'nodejs_gc_duration_seconds';

const DEFAULTS = [
  processCpuTotal,
  processStartTime,
  osMemoryHeap,
  processOpenFileDescriptors,
  processMaxFileDescriptors,
  eventLoopLag,
  processResources,
  processHandles,
  processRequests,
  heapSizeAndUsed,
  heapSpacesSizeAndUsed,
  version,
];

/** Registers the process metrics in `registry`. */
export function registerProcessMetrics(registry: Registry): void {
  // collectDefaultMetrics's own default: the event-loop lag sampled every 10 ms.
  const config = { eventLoopMonitoringPrecision: 10 };
  for (const register of DEFAULTS) register(registry, config);
}
