// A landscape worker entry with faults on cue, for landscape-worker.faults.ts: the real tasks,
// except that a review at the instant `crashAt` ends the thread and one at `hangAt` never returns,
// and with `fleetGate` the fleet forecast first keeps the thread busy, without a pause, until the
// test opens the gate. The one fake: a real forecast cannot be made to crash, hang or last on demand.
import { parentPort, workerData } from 'node:worker_threads';
import { TASKS } from '../../src/server/workers/tasks.js';
import { serveLandscape, type Task } from '../../src/server/workers/worker.js';

const { crashAt, hangAt, fleetGate } = workerData as {
  crashAt?: number;
  hangAt?: number;
  /** [0]: set to 1 by the test to let the forecast go on; [1]: set to 1 here once it is busy. */
  fleetGate?: SharedArrayBuffer;
};
const review: Task = (input, ctx) => {
  const { now } = input as { now: number };
  if (now === crashAt) process.exit(3); // in a worker, ends only the thread
  if (now === hangAt) for (;;); // a forecast that never ends
  return TASKS['review-forecast']!(input, ctx);
};

const fleet: Task = (input, ctx) => {
  if (fleetGate) {
    const gate = new Int32Array(fleetGate);
    Atomics.store(gate, 1, 1);
    while (Atomics.load(gate, 0) === 0); // busy, as a forecast's slice is: this thread's core, no pause
  }
  return TASKS['fleet-forecast']!(input, ctx);
};

if (parentPort) serveLandscape(parentPort, { ...TASKS, 'review-forecast': review, 'fleet-forecast': fleet });
