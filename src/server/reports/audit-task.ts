// The audit as a task of the landscape worker (workers/tasks.ts): every stored object of the
// worker's mirror, pausing every `sliceMs` so the reviews' forecasts are not kept waiting, and the
// findings sent back in parts of PART_FINDINGS, so that no message is large.
import type { AuditSettings, Finding } from '../../report/audit.js';
import { auditSteps } from '../../report/audit.js';
import type { PolicyConfig } from '../../policy/policy-config.js';
import type { LandscapeWorker } from '../workers/landscape.js';
import type { TaskContext } from '../workers/worker.js';

export const AUDIT_TASK = 'audit';
export const PART_FINDINGS = 500;
/** In the worker a slice may be short: between two, the reviews' forecasts that wait are answered. */
const WORKER_SLICE_MS = 10;

export interface AuditTaskInput {
  now: number;
  config: PolicyConfig;
  settings: AuditSettings;
  sliceMs: number;
}

export interface AuditTaskDone {
  findings: number;
  /** CPU-bound time in the worker, and its longest stretch between pauses. */
  busyMs: number;
  longestMs: number;
}

export async function auditTask(
  input: AuditTaskInput,
  ctx: Pick<TaskContext, 'state' | 'part' | 'pause'> & { clock?: () => number },
): Promise<AuditTaskDone> {
  const clock = ctx.clock ?? (() => performance.now());
  let part: Finding[] = [];
  let count = 0;
  let busy = 0;
  let longest = 0;
  let start = clock();
  const close = () => {
    const took = clock() - start;
    busy += took;
    longest = Math.max(longest, took);
  };
  for (const step of auditSteps(ctx.state, input)) {
    for (const f of step) part.push(f);
    count += step.length;
    if (part.length >= PART_FINDINGS) {
      ctx.part(part);
      part = [];
    }
    if (clock() - start >= input.sliceMs) {
      close();
      await ctx.pause();
      start = clock();
    }
  }
  if (part.length > 0) ctx.part(part);
  close();
  return { findings: count, busyMs: busy, longestMs: longest };
}

/** The writer's audit runner on the landscape worker: the event loop only gathers the parts. */
export function auditInWorker(
  worker: Pick<LandscapeWorker, 'ask'>,
): (
  state: unknown,
  input: Omit<AuditTaskInput, 'sliceMs'>,
) => Promise<{ findings: Finding[]; stats: { busyMs: number; longestMs: number; cancelled: boolean } }> {
  return async (_state, input) => {
    const findings: Finding[] = [];
    const done = (await worker.ask(AUDIT_TASK, { ...input, sliceMs: WORKER_SLICE_MS } satisfies AuditTaskInput, {
      onPart: (part) => {
        for (const f of part as Finding[]) findings.push(f);
      },
    })) as AuditTaskDone;
    return { findings, stats: { busyMs: done.busyMs, longestMs: done.longestMs, cancelled: false } };
  };
}
