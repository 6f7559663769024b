// The landscape worker's entry: the tasks it serves (worker.ts says what it is).
import { parentPort } from 'node:worker_threads';
import { TASKS } from './tasks.js';
import { serveLandscape } from './worker.js';

if (parentPort) serveLandscape(parentPort, TASKS);
