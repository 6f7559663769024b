// One resource's list-then-watch loop, feeding the shared ClusterIndex. The watch resumes from the
// last resourceVersion it saw (bookmarks keep that fresh on quiet resources); a 410 Gone means
// the server's history no longer reaches back that far, so the informer lists again. A relist is
// applied to the index in one synchronous step: admission requests see the old cache or the new
// one, never a half-filled or empty one.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { ClusterIndex } from '../cluster-index.js';
import type { ApiConnection, WatchEvent } from '../api-client.js';
import { ApiError, openWatch } from '../api-client.js';
import { listAll, nameOf } from '../list.js';
import type { Resource } from '../resources.js';
import { trimObject } from '../trim.js';
import { formatFieldErrors } from '../../policy/parse.js';
import type { PolicedObject } from '../../policy/types.js';
import { objectKey } from '../../policy/types.js';
import type { BackoffOptions } from './backoff.js';
import { Backoff } from './backoff.js';
import type { InformerMetrics, RestartReason } from './metrics.js';

export interface InformerSettings {
  conn: ApiConnection;
  index: ClusterIndex;
  metrics: InformerMetrics;
  logger?: Logger;
  backoff?: BackoffOptions;
  pageSize?: number;
  /** Server-side watch timeout; each watch asks for a random value in [t, 2t) so replicas do not reconnect in step. */
  watchTimeoutSeconds: number;
  signal: AbortSignal;
  onSynced(): void;
}

/** A watch that lasted this long was healthy: its end resets the backoff. */
const HEALTHY_WATCH_MS = 10_000;
/** A watch that the server closed cleanly (its timeout) or expired after this long is reopened, or relisted, at once. */
const CLEAN_CLOSE_MS = 1_000;
/** Extra silence tolerated beyond the watch timeout before the connection counts as dead. */
const WATCH_IDLE_GRACE_MS = 60_000;

interface WatchEnd {
  reason: RestartReason;
  livedMs: number;
}

export class Informer {
  private resourceVersion = '';
  private needsList = true;
  private hasSynced = false;
  private readonly backoff: Backoff;
  private readonly log: Logger | undefined;

  constructor(
    readonly resource: Resource,
    private readonly s: InformerSettings,
  ) {
    this.backoff = new Backoff(s.backoff);
    this.log = s.logger?.child({ component: 'informer', resource: resource.plural });
  }

  get synced(): boolean {
    return this.hasSynced;
  }

  /** Runs until the signal aborts. Never throws. */
  async run(): Promise<void> {
    while (!this.s.signal.aborted) {
      let delay = 0;
      try {
        if (this.needsList) await this.relist();
        const end = await this.watch();
        this.s.metrics.watchRestarted(this.resource.kind, end.reason);
        if (end.livedMs >= HEALTHY_WATCH_MS) this.backoff.reset();
        if (end.reason === 'expired') this.needsList = true;
        // A watch that ends (or expires) right after it opened waits: a server that keeps doing that
        // must not get a hot loop of reconnects or relists, and replicas reconnecting after an API
        // server restart spread out.
        if (!((end.reason === 'closed' || end.reason === 'expired') && end.livedMs >= CLEAN_CLOSE_MS)) delay = this.backoff.next();
        this.log?.debug({ reason: end.reason, resourceVersion: this.resourceVersion, delayMs: Math.round(delay) }, 'watch ended; reopening');
      } catch (err) {
        if (this.s.signal.aborted) break;
        delay = this.backoff.next((err as ApiError).retryAfterMs);
        this.log?.warn({ err: (err as Error).message, delayMs: Math.round(delay), synced: this.hasSynced }, `${this.needsList ? 'list' : 'watch'} of ${this.resource.plural} failed; retrying`);
      }
      if (delay > 0) await sleep(delay, undefined, { signal: this.s.signal }).catch(() => undefined);
    }
  }

  private async relist(): Promise<void> {
    const list = await listAll(this.s.conn, this.resource, this.s.pageSize, this.s.signal);
    if (this.s.signal.aborted) return;
    this.replaceAll(list.items);
    for (const r of list.rejected) this.reject(r.name, formatFieldErrors(r.errors));
    this.resourceVersion = list.resourceVersion;
    this.needsList = false;
    this.s.metrics.listed(this.resource.kind);
    this.log?.info({ objects: list.items.length, resourceVersion: list.resourceVersion }, `listed ${this.resource.plural}`);
    if (!this.hasSynced) {
      this.hasSynced = true;
      this.s.metrics.synced(this.resource.kind, true);
      this.s.onSynced();
    }
  }

  /** Swaps this kind's objects for `items` in one synchronous pass; unchanged objects stay as they are. */
  private replaceAll(items: PolicedObject[]): void {
    const kind = this.resource.kind;
    const fresh = new Map(items.map((o) => [objectKey(o), o]));
    const gone: PolicedObject[] = [];
    for (const old of this.cached()) {
      const now = fresh.get(objectKey(old));
      if (!now) gone.push(old);
      else if (now.metadata.resourceVersion && now.metadata.resourceVersion === old.metadata.resourceVersion) fresh.delete(objectKey(old));
    }
    for (const o of gone) this.s.index.remove(kind, o.metadata.namespace, o.metadata.name);
    for (const o of fresh.values()) this.s.index.upsert(o);
  }

  private cached(): Iterable<PolicedObject> {
    const kind = this.resource.kind;
    if (kind === 'Shoot') return this.s.index.allShoots();
    return [...this.s.index.allProfiles()].filter((p) => p.kind === kind);
  }

  private async watch(): Promise<WatchEnd> {
    const timeoutSeconds = Math.floor(this.s.watchTimeoutSeconds * (1 + Math.random()));
    const query = { resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds };
    const started = Date.now();
    const lived = () => Date.now() - started;
    let events: AsyncIterable<WatchEvent>;
    try {
      events = await openWatch(this.s.conn, this.resource.path, query, timeoutSeconds * 1000 + WATCH_IDLE_GRACE_MS, this.s.signal);
    } catch (err) {
      if (err instanceof ApiError && err.gone) return { reason: 'expired', livedMs: 0 };
      throw err;
    }
    try {
      for await (const ev of events) {
        if (ev.type === 'ERROR') return { reason: this.watchError(ev.object), livedMs: lived() };
        this.apply(ev);
      }
    } catch (err) {
      if (this.s.signal.aborted) throw err;
      this.log?.info({ err: (err as Error).message }, `watch of ${this.resource.plural} dropped`);
      return { reason: 'dropped', livedMs: lived() };
    }
    return { reason: 'closed', livedMs: lived() };
  }

  private watchError(status: Record<string, unknown>): RestartReason {
    if (status.code === 410) {
      this.log?.info({ resourceVersion: this.resourceVersion }, `resourceVersion of ${this.resource.plural} expired (410 Gone); relisting`);
      return 'expired';
    }
    this.log?.warn({ status }, `watch of ${this.resource.plural} reported an error`);
    return 'error';
  }

  private apply(ev: WatchEvent): void {
    const meta = (ev.object.metadata ?? {}) as { resourceVersion?: unknown; name?: unknown; namespace?: unknown };
    const kind = this.resource.kind;
    if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
      const trimmed = trimObject(kind, ev.object);
      if (trimmed.ok) this.s.index.upsert(trimmed.object);
      else {
        // Keeping the stale version would answer from an object that no longer exists.
        if (typeof meta.name === 'string') this.s.index.remove(kind, typeof meta.namespace === 'string' ? meta.namespace : undefined, meta.name);
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
