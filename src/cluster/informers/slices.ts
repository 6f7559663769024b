// Long work on the event loop, cut into slices: admission requests are answered between them. A
// relist of 100,000 Shoots trims and indexes every one (a few seconds of CPU in all); done in one
// pass it held every admission for that long.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Longest slice by default: an admission waits at most about this long behind a relist. */
export const SLICE_MS = 2;

export class Slicer {
  private started = performance.now();
  private calls = 0;
  /** Slices yielded so far. */
  slices = 0;

  constructor(private readonly budgetMs = SLICE_MS) {}

  /**
   * Asked between two units of work: true once the slice has used its budget (then `next()`).
   * The clock is read every 16 units only: a unit (trimming and indexing one object) costs a few
   * microseconds.
   */
  due(): boolean {
    return (++this.calls & 15) === 0 && performance.now() - this.started >= this.budgetMs;
  }

  /** Lets the event loop run what waits (I/O, timers), then starts a new slice. */
  async next(): Promise<void> {
    await nextTurn();
    this.slices++;
    this.started = performance.now();
  }
}
