// Informer caches (list, then watch) for shoots, cloudprofiles and namespacedcloudprofiles,
// feeding one ClusterIndex. The index reports synced once every informer has listed once.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ClusterIndex } from '../cluster-index.js';

export interface InformerOptions {
  index: ClusterIndex;
  /** Kubeconfig path; '' = in-cluster, then KUBECONFIG, then ~/.kube/config. */
  kubeconfig: string;
  registry?: Registry;
  logger?: Logger;
}

export interface ClusterInformers {
  readonly synced: boolean;
  stop(): Promise<void>;
}

// Placeholder: implemented by the cluster-state work (issue 4).
export function startClusterInformers(opts: InformerOptions): ClusterInformers {
  opts.index.synced = false;
  return { synced: false, stop: () => Promise.resolve() };
}
