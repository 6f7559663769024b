// Informer caches (list, then watch) for shoots, cloudprofiles and namespacedcloudprofiles,
// feeding one ClusterIndex. The index can be judged against (`synced`) once every informer has
// listed once, and for as long as none has fallen behind by more than `maxStaleMs`; otherwise
// its `notReadyReason` says which cache is missing or stale and since when, admissions that need
// the state are denied with it, and /readyz turns unready.
//
// What unready means for admissions meanwhile: kube-apiserver takes an unready pod out of the
// webhook Service's endpoints, so requests go to the replicas that are still ready. When every
// replica is unready, the call fails and `failurePolicy: Fail` denies every write the webhook
// covers, as it does for the requests this replica would deny as "cluster state not ready". Each
// replica recovers by itself once its caches are current again.
//
// Why a loop of our own rather than client-node's ListWatch: ListWatch keeps a second, untrimmed
// copy of every object (full Shoots are 5-20 KB each), does not paginate its LIST, does not ask
// for bookmarks, and stops for good on any error other than 410 (no backoff). What we take from
// client-node is KubeConfig: in-cluster config, kubeconfig files, TLS and credential plugins.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { connectionFrom } from '../api-client.js';
import type { ClusterIndex } from '../cluster-index.js';
import { describeSource, kubeConfigSource, loadKubeConfig } from '../kubeconfig.js';
import { RESOURCES } from '../resources.js';
import type { Kind } from '../../api/types.js';
import { systemClock, type Clock, type ClockTimer } from '../../util/clock.js';
import type { BackoffOptions } from './backoff.js';
import { Informer } from './informer.js';
import { informerMetrics } from './metrics.js';

/** The default staleness bound; cluster.maxStaleSeconds in config.ts says how it is derived. */
export const DEFAULT_MAX_STALE_MS = 120_000;
/** How often a change between current and stale is looked for, to log it (at most a quarter of the bound). */
const STALE_CHECK_MS = 1_000;

export interface InformerOptions {
  index: ClusterIndex;
  /** Kubeconfig path; '' = in-cluster, then KUBECONFIG, then ~/.kube/config. */
  kubeconfig: string;
  /** Where the informer metrics are registered (once per registry). */
  registry?: Registry;
  logger?: Logger;
  /** An already loaded kubeconfig; wins over `kubeconfig`. */
  kubeConfig?: KubeConfig;
  /** Reconnect backoff (default 500 ms doubling to 10 s, with jitter). */
  backoff?: BackoffOptions;
  /** Objects per LIST page (default 500). */
  pageSize?: number;
  /** Server-side watch timeout in seconds, randomised up to twice this (default 300). */
  watchTimeoutSeconds?: number;
  /** A cache older than this makes the index unsynced (default 120 s). */
  maxStaleMs?: number;
  /** A watch silent this long is reopened (default a quarter of `maxStaleMs`). */
  silenceMs?: number;
  /** Longest stretch of relist work between turns of the event loop (default 2 ms). */
  sliceMs?: number;
  /** What ages, silences, backoffs and the staleness check are measured with (default the system's). */
  clock?: Clock;
}

export interface ClusterInformers {
  readonly synced: boolean;
  /** Why the index cannot be judged against now; undefined when it can. */
  readonly notReadyReason: string | undefined;
  /** Resolves when every informer has completed its first LIST; rejects if stopped before. */
  whenSynced(): Promise<void>;
  /** Ends every watch and pending retry; resolves once all loops have returned. */
  stop(): Promise<void>;
}

const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => Math.round(ms / 1000);

/**
 * Why the informers' caches cannot be judged against now, in words a denial can carry. Asked on
 * every read of the index's `synced`: the answer "nothing" allocates nothing.
 */
export function notReadyReasonOf(
  informers: readonly Informer[],
  maxStaleMs: number,
  now = Date.now(),
): string | undefined {
  let fine = true;
  for (const i of informers) if (!i.synced || i.ageMs(now) > maxStaleMs) fine = false;
  if (fine) return undefined;
  const unlisted = informers.filter((i) => !i.synced);
  if (unlisted.length > 0) {
    const failing = unlisted.map((i) => i.failing).filter((f) => f !== undefined);
    const since =
      failing.length > 0 ? failing.reduce((m, f) => Math.min(m, f.since), Number.POSITIVE_INFINITY) : undefined;
    const attempts = failing.reduce((n, f) => n + f.attempts, 0);
    return (
      `the webhook has not finished reading ${unlisted.map((i) => i.resource.plural).join(', ')} from the API server` +
      `${since === undefined ? '' : ` (unreachable since ${iso(since)}, ${attempts} failed attempts)`}; retry shortly`
    );
  }
  const stale = informers.filter((i) => i.ageMs(now) > maxStaleMs);
  const which = stale.map(
    (i) => `${i.resource.plural} (last current ${iso(i.lastCurrent ?? i.startedAt)}, ${seconds(i.ageMs(now))} s ago)`,
  );
  return `the cached ${which.join(', ')} ${stale.length === 1 ? 'is' : 'are'} older than the ${seconds(maxStaleMs)} s bound (cluster.maxStaleSeconds) while the webhook reconnects to the API server; retry shortly`;
}

/**
 * Starts the informers and returns at once; the index is not synced until every first LIST is
 * in. Throws a KubeConfigError if no kubeconfig can be found, read or used.
 */
export function startClusterInformers(opts: InformerOptions): ClusterInformers {
  const kc = opts.kubeConfig ?? loadKubeConfig(opts.kubeconfig);
  const conn = connectionFrom(kc);
  const maxStaleMs = opts.maxStaleMs ?? DEFAULT_MAX_STALE_MS;
  const clock = opts.clock ?? systemClock;
  const silenceMs = opts.silenceMs ?? maxStaleMs / 4;
  opts.logger?.info(
    {
      server: conn.server,
      kubeconfig: opts.kubeConfig ? 'given' : describeSource(kubeConfigSource(opts.kubeconfig)),
      maxStaleSeconds: maxStaleMs / 1000,
      watchSilenceSeconds: silenceMs / 1000,
    },
    'starting cluster informers',
  );

  const controller = new AbortController();
  let resolveSynced!: () => void;
  let rejectSynced!: (err: Error) => void;
  const synced = new Promise<void>((resolve, reject) => {
    resolveSynced = resolve;
    rejectSynced = reject;
  });
  synced.catch(() => undefined);

  const byKind = new Map<Kind, Informer>();
  const metrics = informerMetrics(
    {
      index: opts.index,
      kinds: RESOURCES.map((r) => r.kind),
      ageSeconds: (kind) => (byKind.get(kind)?.ageMs() ?? 0) / 1000,
    },
    opts.registry,
  );
  const informers: Informer[] = RESOURCES.map(
    (resource) =>
      new Informer(resource, {
        conn,
        index: opts.index,
        metrics,
        ...(opts.logger ? { logger: opts.logger } : {}),
        ...(opts.backoff ? { backoff: opts.backoff } : {}),
        ...(opts.pageSize ? { pageSize: opts.pageSize } : {}),
        ...(opts.sliceMs ? { sliceMs: opts.sliceMs } : {}),
        watchTimeoutSeconds: opts.watchTimeoutSeconds ?? 300,
        silenceMs,
        signal: controller.signal,
        clock,
        onSynced() {
          if (!informers.every((i) => i.synced)) return;
          opts.logger?.info(
            {
              shoots: opts.index.count('Shoot'),
              cloudProfiles: opts.index.count('CloudProfile'),
              namespacedCloudProfiles: opts.index.count('NamespacedCloudProfile'),
            },
            'cluster state synced',
          );
          resolveSynced();
        },
      }),
  );
  for (const i of informers) byKind.set(i.resource.kind, i);
  const reason = () => notReadyReasonOf(informers, maxStaleMs, clock.now());
  opts.index.reportNotReadyBy(reason);
  const loops = informers.map((i) => i.run());
  const watchdog = staleWatchdog(informers, maxStaleMs, clock, opts.logger);

  let stopping: Promise<void> | undefined;
  return {
    get synced() {
      return reason() === undefined;
    },
    get notReadyReason() {
      return reason();
    },
    whenSynced: () => synced,
    stop() {
      stopping ??= (async () => {
        clock.clear(watchdog);
        controller.abort();
        rejectSynced(new Error('cluster informers stopped before they synced'));
        await Promise.all(loops);
      })();
      return stopping;
    },
  };
}

/** Logs when a synced cache goes stale, and when it is current again: the age metric shows the rest. */
function staleWatchdog(
  informers: readonly Informer[],
  maxStaleMs: number,
  clock: Clock,
  logger: Logger | undefined,
): ClockTimer {
  let stale = new Set<Informer>();
  return clock.setInterval(
    () => {
      const now = clock.now();
      const nowStale = new Set(informers.filter((i) => i.synced && i.ageMs(now) > maxStaleMs));
      for (const i of nowStale) {
        if (stale.has(i)) continue;
        logger?.warn(
          {
            resource: i.resource.plural,
            lastCurrent: iso(i.lastCurrent ?? i.startedAt),
            maxStaleSeconds: maxStaleMs / 1000,
          },
          `cached ${i.resource.plural} are stale: not ready until they are current again`,
        );
      }
      for (const i of stale) {
        if (!nowStale.has(i))
          logger?.info(
            { resource: i.resource.plural, ageSeconds: i.ageMs(now) / 1000 },
            `cached ${i.resource.plural} are current again`,
          );
      }
      stale = nowStale;
    },
    Math.min(STALE_CHECK_MS, maxStaleMs / 4),
  ); // config allows 10 s and up; tests bound at 1 s
}
