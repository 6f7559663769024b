// The informers' Prometheus metrics: cache size and age per kind, sync state, lists, watch
// restarts and failed requests. Without a registry they are still counted, just not exported.
import type { Registry } from 'prom-client';
import { Counter, Gauge } from 'prom-client';
import type { ClusterIndex } from '../cluster-index.js';
import type { Kind } from '../../api/types.js';

/** Why a watch ended: see the help text of version_policy_cluster_watch_restarts_total. */
export type RestartReason = 'closed' | 'dropped' | 'expired' | 'error' | 'silent';
export type Verb = 'list' | 'watch';

export interface InformerMetrics {
  synced(kind: Kind, value: boolean): void;
  listed(kind: Kind): void;
  watchRestarted(kind: Kind, reason: RestartReason): void;
  rejected(kind: Kind): void;
  failed(kind: Kind, verb: Verb): void;
}

export interface MetricSources {
  index: ClusterIndex;
  kinds: readonly Kind[];
  /** Seconds since the kind's cache was last known current (see Informer.ageMs). */
  ageSeconds(kind: Kind): number;
}

export function informerMetrics(sources: MetricSources, registry?: Registry): InformerMetrics {
  const { index, kinds } = sources;
  const registers = registry ? [registry] : [];
  new Gauge({
    name: 'version_policy_cluster_cached_objects',
    help: 'Objects in the informer cache, by kind.',
    labelNames: ['kind'],
    registers,
    collect() {
      for (const kind of kinds) this.set({ kind }, index.count(kind));
    },
  });
  new Gauge({
    name: 'version_policy_cluster_state_age_seconds',
    help: 'Seconds since the cache of this kind was last known current: its last complete LIST, watch event (bookmarks included) or accepted watch; before the first LIST, since the informer started. Past cluster.maxStaleSeconds the webhook turns unready.',
    labelNames: ['kind'],
    registers,
    collect() {
      for (const kind of kinds) this.set({ kind }, sources.ageSeconds(kind));
    },
  });
  const synced = new Gauge({
    name: 'version_policy_cluster_informer_synced',
    help: '1 once the informer for this kind has completed its first LIST, else 0.',
    labelNames: ['kind'],
    registers,
  });
  const lists = new Counter({
    name: 'version_policy_cluster_lists_total',
    help: 'Complete LISTs per kind: the first sync, then one per relist (after 410 Gone).',
    labelNames: ['kind'],
    registers,
  });
  const restarts = new Counter({
    name: 'version_policy_cluster_watch_restarts_total',
    help: 'Watches that ended and were reopened, by why they ended: closed (server timeout), dropped (connection lost), expired (410 Gone), error (an ERROR event), silent (no event for a quarter of cluster.maxStaleSeconds).',
    labelNames: ['kind', 'reason'],
    registers,
  });
  const rejected = new Counter({
    name: 'version_policy_cluster_rejected_objects_total',
    help: 'Objects from the API server that failed the schema and were left out of the cache.',
    labelNames: ['kind'],
    registers,
  });
  const failures = new Counter({
    name: 'version_policy_cluster_request_failures_total',
    help: 'LIST and WATCH requests to the API server that failed (unreachable, an error status, a cut connection), by kind and verb; each is retried with backoff.',
    labelNames: ['kind', 'verb'],
    registers,
  });
  for (const kind of kinds) {
    synced.set({ kind }, 0);
    lists.inc({ kind }, 0);
    for (const verb of ['list', 'watch'] as const) failures.inc({ kind, verb }, 0);
  }
  return {
    synced: (kind, value) => synced.set({ kind }, value ? 1 : 0),
    listed: (kind) => lists.inc({ kind }),
    watchRestarted: (kind, reason) => restarts.inc({ kind, reason }),
    rejected: (kind) => rejected.inc({ kind }),
    failed: (kind, verb) => failures.inc({ kind, verb }),
  };
}
