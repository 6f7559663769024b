// The time a component reads and waits on, as a port: the system's clock in production, and a
// clock a test moves by hand (test/helpers/manual-clock.ts), so that a bound of half a second is
// tested as half a second of the component's time, whatever the load on the machine running it.
import { setTimeout as sleep } from 'node:timers/promises';

/** A pending timer: `refresh` starts its wait over from now. */
export interface ClockTimer {
  refresh(): void;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  setTimeout(fn: () => void, ms: number): ClockTimer;
  /** Repeats every `ms`; keeps no process alive. */
  setInterval(fn: () => void, ms: number): ClockTimer;
  clear(timer: ClockTimer): void;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  setInterval: (fn, ms) => setInterval(fn, ms).unref(),
  clear: (timer) => clearTimeout(timer as NodeJS.Timeout),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined),
};
