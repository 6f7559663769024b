// The landscape worker: a thread that holds a mirror of the cluster state (fed in order by
// state-feed.ts) and runs, off the event loop, the work that grows with the landscape: the
// forecast of a profile UPDATE (review-forecast.ts), the background fleet forecast
// (fleet-forecast.ts), and whatever whole-landscape task joins them (an audit of stored objects).
// A long task pauses between slices, so the asks and state deltas that arrive meanwhile are
// handled in between.
import type { MessagePort } from 'node:worker_threads';
import type { ClusterState } from '../../api/cluster-state.js';
import { ClusterIndex } from '../../cluster/cluster-index.js';
import { sharedShoot } from '../../cluster/trim.js';
import type { Delta, FromWorker, ToWorker } from './protocol.js';

/** What a task is given: the mirror, a way to send parts of its answer, and a pause. */
export interface TaskContext {
  readonly state: ClusterState;
  /** Sends a piece of the answer now: a long answer goes in pieces, so no message is large. */
  part(value: unknown): void;
  /** Lets the thread handle what has arrived (asks, deltas) before the task goes on. */
  pause(): Promise<void>;
}

export type Task = (input: unknown, ctx: TaskContext) => unknown;

/** Applies one batch of deltas to the mirror; a reset starts a new one. */
export function applyDeltas(mirror: { index: ClusterIndex }, deltas: readonly Delta[]): void {
  for (const d of deltas) {
    if (d.op === 'reset') mirror.index = new ClusterIndex(true);
    // Structured clone copied every string: the mirror keeps one copy of each (at 50,000 Shoots, MBs).
    else if (d.op === 'upsert') mirror.index.upsert(d.object.kind === 'Shoot' ? sharedShoot(d.object) : d.object);
    else mirror.index.remove(d.kind, d.namespace, d.name);
  }
}

/** Serves asks on `port` with `tasks` until the thread ends. */
export function serveLandscape(port: MessagePort, tasks: Readonly<Record<string, Task>>): void {
  const mirror = { index: new ClusterIndex(true) };
  const post = (m: FromWorker) => port.postMessage(m);
  const pause = () => new Promise<void>((resolve) => setImmediate(resolve));
  port.on('message', (m: ToWorker) => {
    if (m.t === 'state') applyDeltas(mirror, m.deltas);
    else if (m.t === 'ping') post({ t: 'pong', id: m.id });
    else void run(m.id, m.task, m.input);
  });
  async function run(id: number, name: string, input: unknown): Promise<void> {
    const task = tasks[name];
    if (!task) return post({ t: 'failed', id, error: `no task ${name} in the landscape worker` });
    const ctx: TaskContext = {
      // The mirror as it is when asked: a reset later in a long task does not switch it mid-way.
      state: mirror.index,
      part: (value) => post({ t: 'part', id, value }),
      pause,
    };
    try {
      post({ t: 'answer', id, value: await task(input, ctx) });
    } catch (err) {
      post({ t: 'failed', id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  }
  post({ t: 'ready' });
}
