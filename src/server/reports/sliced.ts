// Work that grows with the landscape, on the event loop under a budget: steps run until a slice
// has taken `sliceMs`, then the loop gets a turn (setImmediate), so reviews queued meanwhile are
// answered before the next slice. One step (one stored object) is far below the slice.

export interface SliceOptions {
  /** The longest the work holds the loop at a stretch, plus one step. */
  sliceMs: number;
  /** Monotonic milliseconds (performance.now by default). */
  clock?: () => number;
  /** Checked after each pause: true stops the work. */
  cancelled?: () => boolean;
}

export interface SliceStats {
  /** CPU-bound time spent in the steps (the pauses not counted). */
  busyMs: number;
  /** The longest stretch the work held the loop. */
  longestMs: number;
  slices: number;
  cancelled: boolean;
}

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs every step of `steps` through `each`, pausing between slices. */
export async function runSliced<T>(
  steps: Iterable<T>,
  each: (step: T) => void,
  opts: SliceOptions,
): Promise<SliceStats> {
  const clock = opts.clock ?? (() => performance.now());
  const stats: SliceStats = { busyMs: 0, longestMs: 0, slices: 1, cancelled: false };
  let start = clock();
  const close = () => {
    const took = clock() - start;
    stats.busyMs += took;
    stats.longestMs = Math.max(stats.longestMs, took);
  };
  for (const step of steps) {
    each(step);
    if (clock() - start >= opts.sliceMs) {
      close();
      await pause();
      if (opts.cancelled?.()) {
        stats.cancelled = true;
        return stats;
      }
      stats.slices++;
      start = clock();
    }
  }
  close();
  return stats;
}
