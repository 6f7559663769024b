// A clock that moves only when the test moves it (src/util/clock.ts). A component's bounds (a
// silence of 50 ms, a staleness bound of 1 s) are then tested in the component's own time: a
// loaded machine delays when things happen, never what the component measures between them.
import type { Clock, ClockTimer } from '../../src/util/clock.js';

interface Pending extends ClockTimer {
  due: number;
  readonly ms: number;
  readonly every: boolean;
  readonly fn: () => void;
}

export class ManualClock implements Clock {
  private time: number;
  private readonly pending = new Set<Pending>();

  constructor(start = Date.now()) {
    this.time = start;
  }

  readonly now = (): number => this.time;

  setTimeout(fn: () => void, ms: number): ClockTimer {
    return this.schedule(fn, ms, false);
  }

  setInterval(fn: () => void, ms: number): ClockTimer {
    return this.schedule(fn, ms, true);
  }

  clear(timer: ClockTimer): void {
    this.pending.delete(timer as Pending);
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = this.setTimeout(resolve, ms);
      signal.addEventListener(
        'abort',
        () => {
          this.clear(timer);
          resolve();
        },
        { once: true },
      );
    });
  }

  /** Timers waiting to fire. */
  get waiting(): number {
    return this.pending.size;
  }

  /**
   * Moves the time on by `ms`, firing each timer that falls due on the way, earliest first, at its
   * own instant; after each, lets the event loop turn once, so that what it set off (an abort, a
   * request) starts before the next fires.
   */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      let next: Pending | undefined;
      for (const p of this.pending) if (p.due <= end && (!next || p.due < next.due)) next = p;
      if (!next) break;
      this.time = Math.max(this.time, next.due);
      if (next.every) next.due += Math.max(1, next.ms);
      else this.pending.delete(next);
      next.fn();
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.time = end;
  }

  private schedule(fn: () => void, ms: number, every: boolean): Pending {
    const timer: Pending = {
      due: this.time + ms,
      ms,
      every,
      fn,
      refresh: () => {
        timer.due = this.time + ms;
        this.pending.add(timer);
      },
    };
    this.pending.add(timer);
    return timer;
  }
}
