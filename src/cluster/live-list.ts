// `check --cluster` and `explain --cluster`: the cluster state from one paginated LIST per
// resource, read-only.
import type { ClusterIndex } from './cluster-index.js';

export interface ListOptions {
  /** Kubeconfig path; '' = in-cluster, then KUBECONFIG, then ~/.kube/config. */
  kubeconfig: string;
}

// Placeholder: implemented by the cluster-state work (issue 4).
export function listClusterState(_opts: ListOptions): Promise<ClusterIndex> {
  return Promise.reject(new Error('reading state from a cluster is not implemented yet'));
}
