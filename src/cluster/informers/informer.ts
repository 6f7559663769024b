// One resource's list-then-watch loop, feeding the shared ClusterIndex.
//
// - A relist builds a fresh store for its kind in slices that yield to the event loop, while the
//   last synced store keeps serving; the fresh one is swapped in with one assignment. Objects
//   whose resourceVersion did not change are taken over from the serving store, not trimmed again.
// - The watch resumes from the last resourceVersion it saw (bookmarks keep that fresh on quiet
//   resources); a 410 Gone means the server's history no longer reaches back that far, and the
//   informer relists at once.
// - The informer knows when its cache was last known current (a complete LIST, a watch event, a
//   watch the server accepted). A watch that stays silent for `silenceMs` is closed and reopened
//   from its resourceVersion: cheap on a healthy server, and on a dead connection the reopen
//   fails, so a connection that died without a word shows as a growing age, not as a quiet cluster.
// - Failures back off exponentially; the backoff restarts from its first step as soon as a LIST
//   completes or a watch is accepted, so an outage's backoff never delays what follows it.
import type { Logger } from 'pino';
import type { ClusterIndex } from '../cluster-index.js';
import type { ApiConnection, WatchEvent } from '../api-client.js';
import { ApiError, openWatch } from '../api-client.js';
import { listPages, nameOf } from '../list.js';
import type { Resource } from '../resources.js';
import { trimObject } from '../trim.js';
import { formatFieldErrors } from '../../api/parse.js';
import type { Clock } from '../../util/clock.js';
import type { BackoffOptions } from './backoff.js';
import { Backoff } from './backoff.js';
import type { InformerMetrics, RestartReason, Verb } from './metrics.js';
import { buildStore } from './relist.js';

export interface InformerSettings {
  conn: ApiConnection;
  index: ClusterIndex;
  metrics: InformerMetrics;
  logger?: Logger;
  backoff?: BackoffOptions;
  pageSize?: number;
  /** Server-side watch timeout; each watch asks for a random value in [t, 2t) so replicas do not reconnect in step. */
  watchTimeoutSeconds: number;
  /** A watch without any event (bookmarks included) for this long is closed and reopened. */
  silenceMs: number;
  /** Longest stretch of relist work between two turns of the event loop. */
  sliceMs?: number;
  signal: AbortSignal;
  /** What the ages, the silence and the backoff are measured with. */
  clock: Clock;
  onSynced(): void;
}

/** A watch that the server closed cleanly (its timeout) after this long is reopened at once. */
const CLEAN_CLOSE_MS = 1_000;
/**
 * A watch counts as accepted once it delivered an event other than ERROR, or stayed open this
 * long (at most half the silence bound) without one: a watch from an expired resourceVersion is
 * answered 200, then an ERROR event.
 */
const ACCEPT_MS = 1_000;
/** Beyond `silenceMs`, the socket's own idle timeout: a backstop should the silence timer not fire. */
const SOCKET_IDLE_GRACE_MS = 10_000;

interface WatchEnd {
  reason: RestartReason;
  livedMs: number;
  /** For an ERROR event: what it said. */
  message?: string;
}

export interface FailureReport {
  attempts: number;
  since: number;
  error: string;
}

export class Informer {
  readonly startedAt: number;
  private resourceVersion = '';
  private needsList = true;
  private hasSynced = false;
  private currentAt: number | undefined;
  private failures = 0;
  private failingSince: number | undefined;
  private lastError = '';
  /** 410s since the last accepted watch: the first relists at once, a second in a row backs off. */
  private expiredInARow = 0;
  private readonly backoff: Backoff;
  private readonly log: Logger | undefined;

  constructor(
    readonly resource: Resource,
    private readonly s: InformerSettings,
  ) {
    this.startedAt = s.clock.now();
    this.backoff = new Backoff(s.backoff);
    this.log = s.logger?.child({ component: 'informer', resource: resource.plural });
  }

  get synced(): boolean {
    return this.hasSynced;
  }

  /** When the cache was last known current (epoch ms); undefined before the first complete LIST. */
  get lastCurrent(): number | undefined {
    return this.currentAt;
  }

  /** How far the cache may lag behind the API server: since it was last known current (before the first LIST: since start). */
  ageMs(now = this.s.clock.now()): number {
    return Math.max(0, now - (this.currentAt ?? this.startedAt));
  }

  /** The run of failed requests going on now, if any. */
  get failing(): FailureReport | undefined {
    return this.failingSince === undefined
      ? undefined
      : { attempts: this.failures, since: this.failingSince, error: this.lastError };
  }

  /** Runs until the signal aborts. Never throws. */
  async run(): Promise<void> {
    while (!this.s.signal.aborted) {
      let delay = 0;
      try {
        if (this.needsList) await this.relist();
        if (this.s.signal.aborted) break;
        const end = await this.watch();
        this.s.metrics.watchRestarted(this.resource.kind, end.reason);
        delay = this.delayAfter(end);
        this.log?.debug(
          {
            reason: end.reason,
            livedMs: end.livedMs,
            resourceVersion: this.resourceVersion,
            delayMs: Math.round(delay),
          },
          'watch ended; reopening',
        );
      } catch (err) {
        if (this.s.signal.aborted) break;
        delay = this.failed(this.needsList ? 'list' : 'watch', err as Error);
      }
      if (delay > 0) await this.s.clock.sleep(delay, this.s.signal);
    }
  }

  private delayAfter(end: WatchEnd): number {
    switch (end.reason) {
      case 'expired':
        this.needsList = true;
        // A relist that is answered with 410 again at once must not turn into a loop of LISTs.
        return this.expiredInARow++ === 0 ? 0 : this.backoff.next();
      case 'silent':
        return 0;
      case 'closed':
        // A watch that the server ends right after opening it waits: no hot loop of reconnects.
        return end.livedMs >= CLEAN_CLOSE_MS ? 0 : this.backoff.next();
      case 'error':
        return this.failed('watch', new Error(end.message ?? 'the watch reported an error'));
      case 'dropped':
        return this.backoff.next();
    }
  }

  /** Counts and logs a failed request; returns the backoff before the next attempt. */
  private failed(verb: Verb, err: Error): number {
    this.failures++;
    this.failingSince ??= this.s.clock.now();
    this.lastError = err.message;
    this.s.metrics.failed(this.resource.kind, verb);
    const delay = this.backoff.next((err as Partial<ApiError>).retryAfterMs);
    this.log?.warn(
      {
        err: err.message,
        attempts: this.failures,
        failingSince: new Date(this.failingSince).toISOString(),
        delayMs: Math.round(delay),
        synced: this.hasSynced,
      },
      `${verb} of ${this.resource.plural} failed; retrying`,
    );
    return delay;
  }

  /** A LIST completed or a watch was accepted: the API server is back, the backoff starts over. */
  private reconnected(): void {
    this.backoff.reset();
    if (this.failingSince === undefined) return;
    this.log?.info(
      {
        attempts: this.failures,
        failingSince: new Date(this.failingSince).toISOString(),
        downMs: this.s.clock.now() - this.failingSince,
      },
      `${this.resource.plural}: reached the API server again`,
    );
    this.failures = 0;
    this.failingSince = undefined;
    this.lastError = '';
  }

  private markCurrent(at: number): void {
    if (this.currentAt === undefined || at > this.currentAt) this.currentAt = at;
  }

  // --- list ---------------------------------------------------------------------------------

  private async relist(): Promise<void> {
    const kind = this.resource.kind;
    const pages = listPages(this.s.conn, this.resource, this.s.pageSize, this.s.signal, () => this.s.clock.now());
    const built = await buildStore(kind, pages, this.s.index.store(kind), {
      ...(this.s.sliceMs ? { sliceMs: this.s.sliceMs } : {}),
      signal: this.s.signal,
      onRejected: (name, why) => this.reject(name, why),
    });
    if (!built) return;
    this.s.index.swap(built.store);
    this.resourceVersion = built.resourceVersion;
    this.needsList = false;
    // The list is a snapshot from when its first page was served: no fresher than that.
    this.markCurrent(built.requestedAt);
    this.reconnected();
    this.s.metrics.listed(kind);
    const { unchanged, rejected, yields, resourceVersion } = built;
    this.log?.info(
      {
        objects: built.store.size,
        unchanged,
        rejected,
        yields,
        resourceVersion,
        durationMs: this.s.clock.now() - built.requestedAt,
      },
      `listed ${this.resource.plural}`,
    );
    if (!this.hasSynced) {
      this.hasSynced = true;
      this.s.metrics.synced(kind, true);
      this.s.onSynced();
    }
  }

  // --- watch --------------------------------------------------------------------------------

  private async watch(): Promise<WatchEnd> {
    const timeoutSeconds = Math.floor(this.s.watchTimeoutSeconds * (1 + Math.random()));
    const query = { resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds };
    const silence = new AbortController();
    const signal = AbortSignal.any([this.s.signal, silence.signal]);
    let events: AsyncIterable<WatchEvent>;
    try {
      events = await openWatch(this.s.conn, this.resource.path, query, this.s.silenceMs + SOCKET_IDLE_GRACE_MS, signal);
    } catch (err) {
      if (err instanceof ApiError && err.gone) return this.expired();
      throw err;
    }
    const clock = this.s.clock;
    const openedAt = clock.now();
    const lived = () => clock.now() - openedAt;
    let accepted = false;
    const accept = () => {
      if (accepted) return;
      accepted = true;
      this.expiredInARow = 0;
      this.markCurrent(openedAt);
      this.reconnected();
    };
    const acceptTimer = clock.setTimeout(accept, Math.min(ACCEPT_MS, this.s.silenceMs / 2));
    const silenceTimer = clock.setTimeout(() => silence.abort(), this.s.silenceMs);
    try {
      for await (const ev of events) {
        silenceTimer.refresh();
        if (ev.type === 'ERROR') return this.watchError(ev.object, lived());
        accept();
        this.apply(ev);
        this.markCurrent(clock.now());
      }
    } catch (err) {
      if (this.s.signal.aborted) throw err;
      if (silence.signal.aborted) {
        this.log?.debug(
          { silentMs: this.s.silenceMs, resourceVersion: this.resourceVersion },
          `watch of ${this.resource.plural} silent; reopening`,
        );
        return { reason: 'silent', livedMs: lived() };
      }
      this.log?.info({ err: (err as Error).message }, `watch of ${this.resource.plural} dropped`);
      return { reason: 'dropped', livedMs: lived() };
    } finally {
      clock.clear(acceptTimer);
      clock.clear(silenceTimer);
    }
    return { reason: 'closed', livedMs: lived() };
  }

  private expired(): WatchEnd {
    this.log?.info(
      { resourceVersion: this.resourceVersion },
      `resourceVersion of ${this.resource.plural} expired (410 Gone); relisting`,
    );
    return { reason: 'expired', livedMs: 0 };
  }

  private watchError(status: Record<string, unknown>, livedMs: number): WatchEnd {
    if (status.code === 410) return this.expired();
    const field = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
    const message = `WATCH ${this.resource.path}: ERROR event ${field(status.code)} ${field(status.reason)}: ${field(status.message)}`;
    return { reason: 'error', livedMs, message };
  }

  private apply(ev: WatchEvent): void {
    const meta = (ev.object.metadata ?? {}) as { resourceVersion?: unknown; name?: unknown; namespace?: unknown };
    const kind = this.resource.kind;
    if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
      const trimmed = trimObject(kind, ev.object);
      if (trimmed.ok) this.s.index.upsert(trimmed.object);
      else {
        // Keeping the stale version would answer from an object that no longer exists.
        if (typeof meta.name === 'string')
          this.s.index.remove(kind, typeof meta.namespace === 'string' ? meta.namespace : undefined, meta.name);
        this.reject(nameOf(ev.object), formatFieldErrors(trimmed.errors));
      }
    } else if (ev.type === 'DELETED' && typeof meta.name === 'string') {
      this.s.index.remove(kind, typeof meta.namespace === 'string' ? meta.namespace : undefined, meta.name);
    }
    if (typeof meta.resourceVersion === 'string' && meta.resourceVersion) this.resourceVersion = meta.resourceVersion;
    if (ev.type === 'BOOKMARK') this.log?.trace({ resourceVersion: this.resourceVersion }, 'bookmark');
  }

  private reject(name: string, why: string): void {
    this.s.metrics.rejected(this.resource.kind);
    this.log?.warn(`${this.resource.kind} ${name} left out of the cache: ${why}`);
  }
}
