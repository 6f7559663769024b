// The event-loop watchdog. Every admission shares one thread, so a review that blocks it delays
// every other (and kube-apiserver's 10 s timeout turns a long block into denied writes). Node's
// monitorEventLoopDelay measures the delay; once per window its maximum goes into a histogram,
// and a window whose maximum passes STALL_MS is logged. prom-client's default
// nodejs_eventloop_lag_* gauges reset at each scrape, so two Prometheus replicas would each see
// half; a histogram keeps every window, whoever scrapes.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Histogram } from 'prom-client';

/** A single review must never block the loop longer than this (issue 13); a window that does is logged. */
export const STALL_MS = 100;
const RESOLUTION_MS = 10;

export interface EventLoopWatchdog {
  stop(): void;
}

/** Starts watching; `windowMs` is how often the window's maximum is recorded. */
export function watchEventLoop(histogram: Histogram, logger: Logger, windowMs = 1000): EventLoopWatchdog {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    // A block that ends just before this tick delays this timer and the monitor's alike, and the
    // reset below drops the monitor's pending sample: our own lateness catches that one.
    const late = now - last - windowMs;
    last = now;
    // The monitor reports the interval between its ticks; its resolution is not delay.
    const monitored = delay.count > 0 ? delay.max / 1e6 - RESOLUTION_MS : 0;
    const maxMs = Math.max(0, late, monitored);
    delay.reset();
    histogram.observe(maxMs / 1000);
    if (maxMs > STALL_MS) logger.warn({ delayMs: Math.round(maxMs), windowMs }, 'event loop blocked');
  }, windowMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      delay.disable();
    },
  };
}
