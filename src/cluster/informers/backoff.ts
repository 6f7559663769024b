// Capped exponential backoff with jitter for reconnecting to the API server. The jitter spreads
// the reconnects of many webhook replicas after an API server restart; the cap keeps a long
// outage from stretching the delay past the point where recovery goes unnoticed for long.

export interface BackoffOptions {
  /** First delay (default 500 ms). */
  initialMs?: number;
  /**
   * Longest delay (default 10 s). client-go's reflector waits up to 30 s; a webhook is a handful
   * of replicas watching three resources, so retrying every 10 s costs the API server nothing,
   * notices its return sooner, and logs the failure every few seconds rather than twice a minute.
   */
  maxMs?: number;
}

export class Backoff {
  private failures = 0;
  readonly initialMs: number;
  readonly maxMs: number;

  constructor(
    opts: BackoffOptions = {},
    private readonly random: () => number = Math.random,
  ) {
    this.initialMs = opts.initialMs ?? 500;
    this.maxMs = opts.maxMs ?? 10_000;
  }

  /**
   * The delay before the next attempt: initial × 2^failures, capped, then "equal jitter": a
   * random point in the upper half, so a delay never collapses to zero.
   */
  next(atLeastMs = 0): number {
    const ceiling = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    return Math.max(atLeastMs, ceiling / 2 + this.random() * (ceiling / 2));
  }

  reset(): void {
    this.failures = 0;
  }
}
