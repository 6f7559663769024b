// A task run over and over on a timer, one run at a time: the next run is scheduled when the last
// has settled, after a delay its outcome chooses (the interval after a success, a shorter retry
// otherwise). A run asked for in between joins the one under way. The timer keeps no process alive.
import type { Clock } from './clock.js';

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface PeriodicOptions<T> {
  run: () => Promise<T>;
  /** Milliseconds until the next run, from how this one settled. */
  delayAfter: (outcome: Settled<T>) => number;
  /** The system's clock by default (its timers unref'd); tests pass a ManualClock. */
  clock?: Pick<Clock, 'setTimeout' | 'clear'>;
}

const unrefClock: Pick<Clock, 'setTimeout' | 'clear'> = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

export class Periodic<T> {
  private timer: ReturnType<Clock['setTimeout']> | undefined;
  private running: Promise<T> | undefined;
  private stopped = false;
  private readonly clock: Pick<Clock, 'setTimeout' | 'clear'>;

  constructor(private readonly opts: PeriodicOptions<T>) {
    this.clock = opts.clock ?? unrefClock;
  }

  /** The first run after `delayMs`, then every delay its outcomes choose, until stop(). */
  start(delayMs = 0): void {
    this.schedule(delayMs);
  }

  /** A run now, or the one under way. */
  runNow(): Promise<T> {
    this.running ??= this.opts.run().finally(() => (this.running = undefined));
    return this.running;
  }

  /** No run is started after this; resolves once the one under way has settled. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clear(this.timer);
    await this.running?.catch(() => undefined);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.runNow().then(
        (value) => this.schedule(this.opts.delayAfter({ ok: true, value })),
        (error: unknown) => this.schedule(this.opts.delayAfter({ ok: false, error })),
      );
    }, ms);
  }
}
