// The event loop's side of the landscape worker (worker.ts): starts it, feeds its mirror
// (state-feed.ts), asks it, and never lets it take the event loop down with it. An ask that is not
// answered in time, or whose worker crashes, is answered "cannot know" (`Unavailable`): a review's
// forecast then says so, and in deny mode denies. A worker that answers no ping for `hangMs` is
// ended; one that ends is replaced after a pause, with a fresh mirror. Durations are read from
// performance.now(): a clock frozen for tests (Date.now) must not stop them.
import { type ResourceLimits, Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ClusterIndex } from '../../cluster/cluster-index.js';
import type { ForecastAnswer } from '../../policy/warnings/forecast.js';
import type { FromWorker, WorkerSetup } from './protocol.js';
import type { ReviewForecastInput } from './review-forecast.js';
import { StateFeed } from './state-feed.js';

/** Why an ask got no answer: said to the operator as it is. */
export class Unavailable extends Error {
  override name = 'Unavailable';
}

export interface LandscapeOptions {
  /** The state the worker mirrors. */
  index: ClusterIndex;
  logger?: Logger;
  /** A review's forecast not back by then is "cannot know". */
  reviewTimeoutMs: number;
  /** Reviews waiting for the worker at once; past it a review is judged without its forecast. Default 16. */
  maxWaitingReviews?: number;
  /**
   * How often the worker is pinged (default 5 s), and how long, once it has started, it may answer
   * nothing before it is ended (default 30 s); starting (loading its modules) may take `startMs` (default 120 s).
   */
  heartbeatMs?: number;
  hangMs?: number;
  startMs?: number;
  /** More for the worker's workerData: tests tell a faulty entry what to do. */
  workerData?: Record<string, unknown>;
  /** The pause before a replacement, doubling per crash in a row up to 30 s (default 250 ms). */
  restartDelayMs?: number;
  /** The worker's heap bounds: past them the worker ends, never the process. Default LANDSCAPE_WORKER_LIMITS. */
  resourceLimits?: ResourceLimits;
  /** The worker's entry module; tests give one with faults. */
  entry?: URL;
}

interface Pending {
  worker: Worker;
  resolve(value: unknown): void;
  reject(err: Error): void;
  onPart?: (value: unknown) => void;
  timer?: NodeJS.Timeout;
}

/**
 * 16 MiB of young generation, not V8's 48: a forecast's garbage is collected sooner (bench/memory-50k.js).
 * The old generation is V8's (from the container's memory limit): the mirror grows with the landscape.
 */
export const LANDSCAPE_WORKER_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 16 };

const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that has run this long without a crash resets the pause before the next replacement. */
const STABLE_MS = 60_000;

export class LandscapeWorker {
  private worker: Worker | undefined;
  private feed: StateFeed | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private waitingReviews = 0;
  private stopped = false;
  private heardAt = 0;
  private startedAt = 0;
  private ready = false;
  /** The first worker has started and taken in the state: readiness waits for it once, not for a replacement. */
  private warmed = false;
  private delayMs: number;
  private heartbeat: NodeJS.Timeout | undefined;
  private respawn: NodeJS.Timeout | undefined;
  /** Workers started after the first one: crashes and hangs. */
  restarts = 0;

  constructor(private readonly opts: LandscapeOptions) {
    this.delayMs = opts.restartDelayMs ?? 250;
  }

  start(): void {
    this.stopped = false;
    this.spawn();
    this.heartbeat = setInterval(() => this.check(), this.opts.heartbeatMs ?? 5_000);
    this.heartbeat.unref();
  }

  /** The worker's thread id while one runs: tests see that stop() ended it. */
  get threadId(): number | undefined {
    return this.worker?.threadId;
  }

  /**
   * Why the webhook is not ready yet, until the first worker has started and has been sent the
   * whole state: a review before that could only be judged without its forecast. A replacement
   * does not take readiness away (reviews meanwhile are "cannot know").
   */
  get notReadyReason(): string | undefined {
    if (!this.warmed && this.ready && this.backlog === 0) this.warmed = true;
    if (this.warmed) return undefined;
    return this.ready ? 'the forecast worker is taking in the state' : 'the forecast worker is starting';
  }

  /** Items the feed has not sent yet: 0 once the mirror has caught up. */
  get backlog(): number {
    return this.feed?.backlog ?? 0;
  }

  /** The forecast of one review, or why there is none; never rejects. */
  async reviewForecast(input: Omit<ReviewForecastInput, 'deadline'>): Promise<ForecastAnswer> {
    const max = this.opts.maxWaitingReviews ?? 16;
    if (this.waitingReviews >= max)
      return { unavailable: `${max} reviews were already waiting for the forecast worker` };
    this.waitingReviews++;
    try {
      const timeoutMs = this.opts.reviewTimeoutMs;
      const deadline = performance.timeOrigin + performance.now() + timeoutMs;
      const answer = await this.ask('review-forecast', { ...input, deadline }, { timeoutMs });
      return isAnswer(answer) ? answer : { unavailable: 'the forecast worker gave no usable answer' };
    } catch (err) {
      return { unavailable: err instanceof Unavailable ? err.message : `the forecast failed: ${String(err)}` };
    } finally {
      this.waitingReviews--;
    }
  }

  /**
   * Runs `task` in the worker; `onPart` gets the pieces of a long answer as they come. Rejects
   * with Unavailable when there is no worker, it stops, or `timeoutMs` passes.
   */
  ask(
    task: string,
    input: unknown,
    opts: { timeoutMs?: number; onPart?: (value: unknown) => void } = {},
  ): Promise<unknown> {
    const { worker, feed } = this;
    if (this.stopped || !worker || !feed)
      return Promise.reject(
        new Unavailable(this.stopped ? 'the webhook is shutting down' : 'the forecast worker is restarting'),
      );
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const p: Pending = { worker, resolve, reject, ...(opts.onPart ? { onPart: opts.onPart } : {}) };
      if (opts.timeoutMs !== undefined)
        p.timer = setTimeout(
          () => this.settle(id, new Unavailable(`the forecast worker did not answer within ${opts.timeoutMs} ms`)),
          opts.timeoutMs,
        );
      this.pending.set(id, p);
      feed.send({ t: 'ask', id, task, input });
    });
  }

  /** Ends the worker; every ask still waiting is answered "cannot know". */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.respawn);
    const worker = this.worker;
    this.detach(new Unavailable('the webhook is shutting down'));
    await worker?.terminate();
  }

  private spawn(): void {
    const setup: WorkerSetup = { ...this.opts.workerData };
    const worker = new Worker(this.opts.entry ?? new URL('./worker-main.js', import.meta.url), {
      workerData: setup,
      resourceLimits: this.opts.resourceLimits ?? LANDSCAPE_WORKER_LIMITS,
    });
    // The worker never keeps the process alive: stop() ends it, and so does the process's exit.
    worker.unref();
    const feed = new StateFeed(this.opts.index, (m) => worker.postMessage(m));
    worker.on('message', (m: FromWorker) => this.received(worker, m));
    worker.on('error', (err) => this.opts.logger?.error({ err }, 'the landscape worker failed'));
    worker.on('exit', (code) => this.exited(worker, code));
    this.worker = worker;
    this.feed = feed;
    this.heardAt = this.startedAt = performance.now();
    this.ready = false;
    feed.start();
  }

  private received(worker: Worker, m: FromWorker): void {
    if (worker !== this.worker) return;
    this.heardAt = performance.now();
    if (m.t === 'ready') this.ready = true;
    else if (m.t === 'answer') this.settle(m.id, undefined, m.value);
    else if (m.t === 'failed') this.settle(m.id, new Error(m.error));
    else if (m.t === 'part') this.pending.get(m.id)?.onPart?.(m.value);
  }

  private settle(id: number, err: Error | undefined, value?: unknown): void {
    const p = this.pending.get(id);
    if (!p) return; // answered late, after its timeout: dropped
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (err) p.reject(err);
    else p.resolve(value);
  }

  /** A worker silent past `hangMs` is ended (its exit replaces it); else it is pinged. */
  private check(): void {
    const worker = this.worker;
    if (!worker) return;
    const silentMs = performance.now() - this.heardAt;
    if (silentMs > (this.ready ? (this.opts.hangMs ?? 30_000) : (this.opts.startMs ?? 120_000))) {
      this.opts.logger?.error({ silentMs }, 'the landscape worker answers nothing: ending it');
      this.detach(new Unavailable(`the forecast worker answered nothing for ${Math.round(silentMs / 1000)} s`));
      void worker.terminate();
      this.replaceLater();
      return;
    }
    worker.postMessage({ t: 'ping', id: 0 });
  }

  private exited(worker: Worker, code: number): void {
    if (worker !== this.worker) return;
    this.opts.logger?.error({ exitCode: code }, 'the landscape worker stopped');
    this.detach(new Unavailable(`the forecast worker stopped (exit code ${code})`));
    this.replaceLater();
  }

  /** Forgets the current worker; its asks fail with `why`. */
  private detach(why: Unavailable): void {
    this.feed?.stop();
    const worker = this.worker;
    this.worker = undefined;
    this.feed = undefined;
    for (const [id, p] of this.pending) if (p.worker === worker) this.settle(id, why);
  }

  private replaceLater(): void {
    if (this.stopped) return;
    if (performance.now() - this.startedAt > STABLE_MS) this.delayMs = this.opts.restartDelayMs ?? 250;
    this.respawn = setTimeout(() => {
      if (this.stopped) return;
      this.restarts++;
      this.spawn();
    }, this.delayMs);
    this.respawn.unref();
    this.delayMs = Math.min(this.delayMs * 2, MAX_RESTART_DELAY_MS);
  }
}

function isAnswer(v: unknown): v is ForecastAnswer {
  if (v === null || typeof v !== 'object') return false;
  const a = v as { findings?: unknown; skippedGroups?: unknown; unavailable?: unknown };
  return typeof a.unavailable === 'string' || (Array.isArray(a.findings) && typeof a.skippedGroups === 'number');
}
