// Big bodies are decoded off the event loop (issue 34): a body past INCREMENTAL_BODY_BYTES goes to
// a worker thread, which decodes it, maps its request (toPolicyRequest: the schema, the limits,
// the stored object read as stored.ts reads it) and hands back the request without its objects
// and what the rules read of them. JSON.parse and the schema of a 7 MiB body cost the event loop
// 100-300 ms of CPU, in pieces or not; what comes back is bounded by the limits and STORED_READ,
// whatever the body claims.
//
// One worker, one body at a time: memory holds the parse of one big body whatever arrives at once
// (the others wait as their bytes, at most `maxWaiting` of them). A worker whose heap passes its
// bounds (a body built to need more) ends alone, never the process; it is replaced, and the body it
// held is refused as unreadable (503), as are bodies it could not take.
import { type ResourceLimits, Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { BodyHeaders } from '../admission/body.js';
import { fromPlain, type PlainDecoded } from '../admission/decoded.js';
import type { DecodeTask } from './body-worker-main.js';

export interface BodyWorkerOptions {
  /** The body limit: how far an encoded body is inflated while its uid is looked for. */
  bodyLimit: number;
  logger?: Logger;
  /** Bodies waiting while one is decoded; past it a body is refused at once. Default 8. */
  maxWaiting?: number;
  /** A decode not answered by then (from the worker's start-up on) is refused, and the worker replaced. Default 30 s. */
  timeoutMs?: number;
  /** The worker's heap bounds. Default: BODY_WORKER_LIMITS. */
  resourceLimits?: ResourceLimits;
  /** The worker's entry module; tests give one with faults. */
  entry?: URL;
}

/** Why a body could not be decoded: said in the 503. */
export class DecoderUnavailable extends Error {
  override name = 'DecoderUnavailable';
}

interface Job {
  task: DecodeTask;
  resolve(value: PlainDecoded): void;
  reject(err: Error): void;
}

/**
 * 256 MiB of old generation, 4 times what a 7 MiB body's parse needs; 16 MiB of young generation,
 * not V8's 48: the parse's garbage is collected sooner, and RSS stays lower (bench/memory-50k.js).
 */
export const BODY_WORKER_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 };

export class BodyWorker {
  private worker: Worker | undefined;
  private readonly waiting: Job[] = [];
  private current: Job | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Whether the worker has loaded its modules (its first message). */
  private ready = false;
  private nextId = 1;
  private stopped = false;
  /** Workers started after the first: crashes and timeouts. */
  restarts = 0;

  constructor(private readonly opts: BodyWorkerOptions) {}

  /** The decoded body and its mapped request, or a DecoderUnavailable. The bytes are copied, never taken. */
  decode(bytes: Buffer, headers: BodyHeaders): Promise<PlainDecoded> {
    if (this.stopped) return Promise.reject(new DecoderUnavailable('the webhook is shutting down'));
    const max = this.opts.maxWaiting ?? 8;
    if (this.waiting.length >= max)
      return Promise.reject(new DecoderUnavailable(`${max} big bodies were already waiting to be decoded`));
    return new Promise((resolve, reject) => {
      const task: DecodeTask = { id: this.nextId++, bytes, headers, limit: this.opts.bodyLimit };
      this.waiting.push({ task, resolve, reject });
      this.next();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    this.fail(new DecoderUnavailable('the webhook is shutting down'));
    for (const job of this.waiting.splice(0)) job.reject(new DecoderUnavailable('the webhook is shutting down'));
    await worker?.terminate();
  }

  private next(): void {
    if (this.current || this.stopped) return;
    const job = this.waiting.shift();
    if (!job) return;
    this.current = job;
    const worker = this.spawned();
    // Held alive while it holds a body, never when idle.
    worker.ref();
    // A copy of its own to hand over, made only now: a body that waits holds no second copy (set()
    // is a memcpy; the Uint8Array constructor copies per element).
    const copy = new Uint8Array(job.task.bytes.length);
    copy.set(job.task.bytes);
    job.task.bytes = copy;
    worker.postMessage(job.task, [copy.buffer]);
    if (this.ready) this.startDeadline();
  }

  /**
   * The current body's deadline, counted from when the worker has loaded its modules: a start on
   * a loaded machine (seconds of wall time for a few hundred ms of CPU) is not the body's fault.
   */
  private startDeadline(): void {
    if (!this.current || this.timer) return;
    const ms = this.opts.timeoutMs ?? 30_000;
    this.timer = setTimeout(() => {
      this.opts.logger?.error({ timeoutMs: ms }, 'the body worker did not answer in time: replacing it');
      this.replace(new DecoderUnavailable(`the body was not decoded within ${ms} ms`));
    }, ms);
  }

  private spawned(): Worker {
    if (this.worker) return this.worker;
    this.ready = false;
    const worker = new Worker(this.opts.entry ?? new URL('./body-worker-main.js', import.meta.url), {
      resourceLimits: this.opts.resourceLimits ?? BODY_WORKER_LIMITS,
    });
    worker.on('message', (m: { ready?: true; id?: number; result?: PlainDecoded; error?: string }) => {
      if (worker !== this.worker) return;
      if (m.ready) {
        this.ready = true;
        this.startDeadline();
        return;
      }
      const job = this.current;
      if (!job || m.id !== job.task.id) return;
      this.settle();
      if (m.result) job.resolve(fromPlain(m.result));
      else job.reject(new Error(m.error ?? 'the body worker gave no answer'));
      this.next();
    });
    worker.on('error', (err) => this.opts.logger?.error({ err }, 'the body worker failed'));
    worker.on('exit', (code) => {
      if (worker !== this.worker) return;
      this.opts.logger?.error({ exitCode: code }, 'the body worker stopped');
      this.worker = undefined;
      this.fail(new DecoderUnavailable(`the body worker stopped (exit code ${code})`));
      this.restarts++;
      this.next();
    });
    this.worker = worker;
    return worker;
  }

  /** Ends the worker and refuses the body it held; the next body starts a new one. */
  private replace(why: Error): void {
    const worker = this.worker;
    this.worker = undefined;
    this.fail(why);
    if (worker) {
      this.restarts++;
      void worker.terminate();
    }
    this.next();
  }

  private settle(): void {
    this.worker?.unref();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.current = undefined;
  }

  private fail(why: Error): void {
    const job = this.current;
    this.settle();
    job?.reject(why);
  }
}
