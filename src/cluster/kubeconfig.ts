// Which kubeconfig the cluster layer uses. An explicit `cluster.kubeconfig` wins (nobody writes a
// path to have it ignored); otherwise the in-cluster service account when running in a pod, then
// $KUBECONFIG, then ~/.kube/config. Auth, TLS and token refresh are client-node's KubeConfig.
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { SERVICE_ACCOUNT_DIR } from './service-account.js';

export type KubeConfigSource =
  | { from: 'config'; files: string[] }
  | { from: 'in-cluster' }
  | { from: 'KUBECONFIG'; files: string[] }
  | { from: 'home'; files: string[] };

export interface LookupEnvironment {
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Prefix of the service-account mount (tests put a fake pod filesystem under a temp dir). */
  root?: string;
}

export class KubeConfigError extends Error {
  override name = 'KubeConfigError';
}

const exists = (path: string) => {
  try {
    accessSync(path);
    return true;
  } catch {
    return false;
  }
};

/** Decides where the kubeconfig comes from, without reading it. */
export function kubeConfigSource(configured: string, where: LookupEnvironment = {}): KubeConfigSource {
  const env = where.env ?? process.env;
  if (configured) return { from: 'config', files: [configured] };
  const token = join(where.root ?? '/', SERVICE_ACCOUNT_DIR, 'token');
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT && exists(token)) return { from: 'in-cluster' };
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (fromEnv.length > 0) return { from: 'KUBECONFIG', files: fromEnv };
  const home = join(where.home ?? (env.HOME || homedir()), '.kube', 'config');
  if (exists(home)) return { from: 'home', files: [home] };
  throw new KubeConfigError(
    'no kubeconfig found: not running in a pod, cluster.kubeconfig is empty, KUBECONFIG is unset and ~/.kube/config does not exist',
  );
}

/** Loads the kubeconfig `kubeConfigSource` picks. Several KUBECONFIG files merge, the first current-context wins (as kubectl does). */
export function loadKubeConfig(configured: string, where: LookupEnvironment = {}): KubeConfig {
  const source = kubeConfigSource(configured, where);
  const kc = new KubeConfig();
  try {
    if (source.from === 'in-cluster') {
      kc.loadFromCluster(where.root ?? '');
    } else {
      const [first, ...rest] = source.files as [string, ...string[]];
      kc.loadFromFile(first);
      for (const file of rest) {
        const more = new KubeConfig();
        more.loadFromFile(file);
        kc.mergeConfig(more, Boolean(kc.getCurrentContext()));
      }
    }
  } catch (err) {
    // The YAML parser's message goes on with a snippet of the file; its first line says it all.
    const why = err instanceof TypeError ? 'not a kubeconfig' : ((err as Error).message.split('\n')[0] ?? '');
    throw new KubeConfigError(`cannot load kubeconfig (${describeSource(source)}): ${why}`);
  }
  usable(kc, describeSource(source));
  return kc;
}

/**
 * What can be checked before the first request: a current cluster with an http(s) server URL, and
 * the certificate files it names exist. Credentials (tokens, exec plugins) are left to the
 * requests: a plugin that fails now may work in a minute, so it is retried, not fatal.
 */
function usable(kc: KubeConfig, where: string): void {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeConfigError(`kubeconfig (${where}) has no current context with a cluster`);
  let url: URL | undefined;
  try {
    url = new URL(cluster.server);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:') {
    throw new KubeConfigError(
      `kubeconfig (${where}): cluster "${cluster.name}" has server "${cluster.server}", not an http(s) URL`,
    );
  }
  const user = kc.getCurrentUser();
  const files = [
    ['certificate-authority', cluster.caFile],
    ['client-certificate', user?.certFile],
    ['client-key', user?.keyFile],
  ] as const;
  for (const [field, file] of files) {
    if (!file) continue;
    try {
      accessSync(file, constants.R_OK);
    } catch (err) {
      throw new KubeConfigError(
        `kubeconfig (${where}): ${field} ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  }
}

export function describeSource(source: KubeConfigSource): string {
  return source.from === 'in-cluster'
    ? 'in-cluster service account'
    : `${source.from}: ${source.files.join(delimiter)}`;
}
