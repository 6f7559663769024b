// The informers' Prometheus metrics: cache size per kind, sync state, lists and watch restarts.
// Without a registry they are still counted, just not exported.
import type { Registry } from 'prom-client';
import { Counter, Gauge } from 'prom-client';
import type { ClusterIndex } from '../cluster-index.js';
import type { Kind } from '../../policy/types.js';

export type RestartReason = 'closed' | 'dropped' | 'expired' | 'error';

export interface InformerMetrics {
  synced(kind: Kind, value: boolean): void;
  listed(kind: Kind): void;
  watchRestarted(kind: Kind, reason: RestartReason): void;
  rejected(kind: Kind): void;
}

export function informerMetrics(index: ClusterIndex, kinds: readonly Kind[], registry?: Registry): InformerMetrics {
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
  const synced = new Gauge({
    name: 'version_policy_cluster_informer_synced',
    help: '1 once the informer for this kind has completed its first LIST, else 0.',
    labelNames: ['kind'],
    registers,
  });
  const lists = new Counter({
    name: 'version_policy_cluster_lists_total',
    help: 'Complete LISTs per kind: the first sync, then one per relist (after 410 Gone or a failure).',
    labelNames: ['kind'],
    registers,
  });
  const restarts = new Counter({
    name: 'version_policy_cluster_watch_restarts_total',
    help: 'Watches that ended and were reopened, by why they ended: closed (server timeout), dropped (connection lost), expired (410 Gone), error.',
    labelNames: ['kind', 'reason'],
    registers,
  });
  const rejected = new Counter({
    name: 'version_policy_cluster_rejected_objects_total',
    help: 'Objects from the API server that failed the schema and were left out of the cache.',
    labelNames: ['kind'],
    registers,
  });
  for (const kind of kinds) {
    synced.set({ kind }, 0);
    lists.inc({ kind }, 0);
  }
  return {
    synced: (kind, value) => synced.set({ kind }, value ? 1 : 0),
    listed: (kind) => lists.inc({ kind }),
    watchRestarted: (kind, reason) => restarts.inc({ kind, reason }),
    rejected: (kind) => rejected.inc({ kind }),
  };
}
