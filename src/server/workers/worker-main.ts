// The landscape worker's entry: the tasks it serves (worker.ts says what it is).
import { parentPort } from 'node:worker_threads';
import { fleetForecast } from './fleet-forecast.js';
import { reviewForecast } from './review-forecast.js';
import { serveLandscape, type Task } from './worker.js';

export const TASKS: Readonly<Record<string, Task>> = {
  'review-forecast': reviewForecast as Task,
  'fleet-forecast': fleetForecast as Task,
};

if (parentPort) serveLandscape(parentPort, TASKS);
