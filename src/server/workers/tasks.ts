// The landscape worker's tasks by name: what worker-main.ts serves (a test's faulty entry wraps them).
import { AUDIT_TASK, auditTask } from '../reports/audit-task.js';
import { fleetForecast } from './fleet-forecast.js';
import { reviewForecast } from './review-forecast.js';
import type { Task } from './worker.js';

export const TASKS: Readonly<Record<string, Task>> = {
  'review-forecast': reviewForecast as Task,
  'fleet-forecast': fleetForecast as Task,
  [AUDIT_TASK]: auditTask as Task,
};
