// Informer caches (list, then watch) for shoots, cloudprofiles and namespacedcloudprofiles,
// feeding one ClusterIndex. The index reports synced once every informer has listed once, and
// stays synced from then on: later relists swap the cache in one step, and a cache that lags
// during an API server outage is still the best answer there is (as with client-go).
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
import type { BackoffOptions } from './backoff.js';
import { Informer } from './informer.js';
import { informerMetrics } from './metrics.js';

export interface InformerOptions {
  index: ClusterIndex;
  /** Kubeconfig path; '' = in-cluster, then KUBECONFIG, then ~/.kube/config. */
  kubeconfig: string;
  /** Where the informer metrics are registered (once per registry). */
  registry?: Registry;
  logger?: Logger;
  /** An already loaded kubeconfig; wins over `kubeconfig`. */
  kubeConfig?: KubeConfig;
  /** Reconnect backoff (default 500 ms doubling to 30 s, with jitter). */
  backoff?: BackoffOptions;
  /** Objects per LIST page (default 500). */
  pageSize?: number;
  /** Server-side watch timeout in seconds, randomised up to twice this (default 300). */
  watchTimeoutSeconds?: number;
}

export interface ClusterInformers {
  readonly synced: boolean;
  /** Resolves when every informer has completed its first LIST; rejects if stopped before. */
  whenSynced(): Promise<void>;
  /** Ends every watch and pending retry; resolves once all loops have returned. */
  stop(): Promise<void>;
}

/**
 * Starts the informers and returns at once; the index is not synced until every first LIST is
 * in. Throws a KubeConfigError if no kubeconfig can be found or read.
 */
export function startClusterInformers(opts: InformerOptions): ClusterInformers {
  opts.index.synced = false;
  const kc = opts.kubeConfig ?? loadKubeConfig(opts.kubeconfig);
  const conn = connectionFrom(kc);
  opts.logger?.info(
    { server: conn.server, kubeconfig: opts.kubeConfig ? 'given' : describeSource(kubeConfigSource(opts.kubeconfig)) },
    'starting cluster informers',
  );

  const controller = new AbortController();
  const metrics = informerMetrics(opts.index, RESOURCES.map((r) => r.kind), opts.registry);
  let resolveSynced!: () => void;
  let rejectSynced!: (err: Error) => void;
  const synced = new Promise<void>((resolve, reject) => {
    resolveSynced = resolve;
    rejectSynced = reject;
  });
  synced.catch(() => undefined);

  const informers: Informer[] = RESOURCES.map(
    (resource) =>
      new Informer(resource, {
        conn,
        index: opts.index,
        metrics,
        ...(opts.logger ? { logger: opts.logger } : {}),
        ...(opts.backoff ? { backoff: opts.backoff } : {}),
        ...(opts.pageSize ? { pageSize: opts.pageSize } : {}),
        watchTimeoutSeconds: opts.watchTimeoutSeconds ?? 300,
        signal: controller.signal,
        onSynced() {
          if (!informers.every((i) => i.synced)) return;
          opts.index.synced = true;
          opts.logger?.info({ shoots: opts.index.count('Shoot'), cloudProfiles: opts.index.count('CloudProfile'), namespacedCloudProfiles: opts.index.count('NamespacedCloudProfile') }, 'cluster state synced');
          resolveSynced();
        },
      }),
  );
  const loops = informers.map((i) => i.run());

  let stopping: Promise<void> | undefined;
  return {
    get synced() {
      return opts.index.synced;
    },
    whenSynced: () => synced,
    stop() {
      stopping ??= (async () => {
        controller.abort();
        rejectSynced(new Error('cluster informers stopped before they synced'));
        await Promise.all(loops);
      })();
      return stopping;
    },
  };
}
