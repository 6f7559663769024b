// A landscape worker entry with faults on cue, for landscape-worker.faults.ts: the real tasks,
// except that a review at the instant `crashAt` ends the thread and one at `hangAt` never returns.
// The one fake: a real forecast cannot be made to crash or hang on demand.
import { parentPort, workerData } from 'node:worker_threads';
import { TASKS } from '../../src/server/workers/tasks.js';
import { serveLandscape, type Task } from '../../src/server/workers/worker.js';

const { crashAt, hangAt } = workerData as { crashAt?: number; hangAt?: number };
const review: Task = (input, ctx) => {
  const { now } = input as { now: number };
  if (now === crashAt) process.exit(3); // in a worker, ends only the thread
  if (now === hangAt) for (;;); // a forecast that never ends
  return TASKS['review-forecast']!(input, ctx);
};

if (parentPort) serveLandscape(parentPort, { ...TASKS, 'review-forecast': review });
