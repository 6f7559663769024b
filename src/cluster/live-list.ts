// `check --cluster` and `explain --cluster`: the cluster state from one paginated LIST per
// resource, read-only (GET only; no watch, no write).
import type { KubeConfig } from '@kubernetes/client-node';
import { ClusterIndex } from './cluster-index.js';
import { connectionFrom } from './api-client.js';
import { ApiError } from './api-client.js';
import { loadKubeConfig } from './kubeconfig.js';
import type { ListResult } from './list.js';
import { listAll } from './list.js';
import type { Resource } from './resources.js';
import { RESOURCES } from './resources.js';
import { formatFieldErrors } from '../api/parse.js';

export interface ListOptions {
  /** Kubeconfig path; '' = in-cluster, then KUBECONFIG, then ~/.kube/config. */
  kubeconfig: string;
  /** An already loaded kubeconfig; wins over `kubeconfig`. */
  kubeConfig?: KubeConfig;
  pageSize?: number;
  /** The environment the kubeconfig lookup reads (KUBECONFIG); default the process's. */
  env?: NodeJS.ProcessEnv;
  /** Told about objects the schema rejected (they are left out of the state). */
  onRejected?: (message: string) => void;
}

/** A continue token can expire mid-list on a busy cluster; the list then starts over, this often. */
const LIST_ATTEMPTS = 3;

export async function listClusterState(opts: ListOptions): Promise<ClusterIndex> {
  const conn = connectionFrom(opts.kubeConfig ?? loadKubeConfig(opts.kubeconfig, opts.env ? { env: opts.env } : {}));
  const lists = await Promise.all(RESOURCES.map((r) => listWithRestarts(conn, r, opts.pageSize)));
  const index = new ClusterIndex(true);
  for (const [i, list] of lists.entries()) {
    for (const o of list.items) index.upsert(o);
    for (const r of list.rejected)
      opts.onRejected?.(`${RESOURCES[i]?.kind ?? ''} ${r.name} left out: ${formatFieldErrors(r.errors)}`);
  }
  return index;
}

async function listWithRestarts(
  conn: ReturnType<typeof connectionFrom>,
  resource: Resource,
  pageSize?: number,
): Promise<ListResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await listAll(conn, resource, pageSize);
    } catch (err) {
      if (err instanceof ApiError && err.gone && attempt < LIST_ATTEMPTS) continue;
      throw new Error(`cannot list ${resource.plural}: ${(err as Error).message}`, { cause: err });
    }
  }
}
