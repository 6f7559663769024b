// The webhook as `serve` runs it: cluster state (static files or informers), certificates (files
// or dev), the HTTPS server, the optional plain-HTTP probe port, and an orderly stop.
import { relative } from 'node:path';
import type { Logger } from 'pino';
import { ClusterIndex } from '../cluster/cluster-index.js';
import type { ClusterState } from '../cluster/state.js';
import { loadStaticState, staticState } from '../cluster/static-state.js';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import { buildProbeServer, buildServer, urlOf } from './app.js';
import { createMetrics, type WebhookMetrics } from './metrics.js';
import type { CertificateSource } from './tls/certificate-source.js';
import { writeDevCertificates } from './tls/dev-certificates.js';
import { trackCertificateExpiry } from './tls/expiry-metric.js';
import { FileCertificateSource } from './tls/file-source.js';

export interface RunOptions {
  config: Config;
  /** Static cluster state (`--state`): no informers then. */
  stateFiles: readonly string[];
  logger: Logger;
  /** Where dev certificates are written when no certificate files are configured. */
  devCertDir: string;
}

export interface RunningWebhook {
  url: string;
  probeUrl?: string;
  /** Drains within `graceMs`, then releases everything else. */
  stop(graceMs: number): Promise<{ drained: boolean }>;
}

export class ListenError extends Error {
  override name = 'ListenError';
}

interface StateHandle {
  state: ClusterState;
  stop(): Promise<void>;
}

async function openState(opts: RunOptions, metrics: WebhookMetrics): Promise<StateHandle> {
  const { config, logger } = opts;
  const none = () => Promise.resolve();
  if (opts.stateFiles.length > 0) {
    const state = await loadStaticState(opts.stateFiles);
    logger.info({ files: opts.stateFiles, shoots: state.count('Shoot'), cloudProfiles: state.count('CloudProfile'), namespacedCloudProfiles: state.count('NamespacedCloudProfile') }, 'static cluster state loaded');
    return { state, stop: none };
  }
  if (!config.cluster.enabled) {
    logger.warn('no --state and cluster.enabled is false: judging against an empty cluster state, so nothing counts as in use');
    return { state: staticState([]), stop: none };
  }
  const index = new ClusterIndex(false);
  try {
    // Loaded only here: the Kubernetes client costs about 0.5 s of start-up and 50 MB that a
    // static state never needs.
    const { startClusterInformers } = await import('../cluster/informers/index.js');
    const informers = startClusterInformers({ index, kubeconfig: config.cluster.kubeconfig, registry: metrics.registry, logger: logger.child({ component: 'informers' }) });
    return { state: index, stop: () => informers.stop() };
  } catch (err) {
    // Serve anyway, not ready: policed requests that need the state are denied as "not ready".
    index.synced = false;
    logger.error({ err }, 'cluster informers could not start; serving, not ready');
    return { state: index, stop: none };
  }
}

async function openCertificates(opts: RunOptions): Promise<{ source: CertificateSource; devCA?: string }> {
  const { tls, certReloadIntervalSeconds } = opts.config.server;
  if (tls.selfManaged.enabled) {
    if (tls.certFile || tls.keyFile || tls.clientCAFile) throw new ConfigError('server.tls: selfManaged.enabled excludes certFile, keyFile and clientCAFile; use one or the other');
    // Loaded only here: the X.509 library and the Kubernetes client.
    const { openSelfManagedSource } = await import('./tls/self-managed-source.js');
    return { source: await openSelfManagedSource(opts.config, opts.logger.child({ component: 'certificates' })) };
  }
  if (Boolean(tls.certFile) !== Boolean(tls.keyFile)) throw new ConfigError('server.tls: certFile and keyFile go together; set both, or neither for a self-signed dev certificate');
  const pollIntervalMs = certReloadIntervalSeconds * 1000;
  const clientCAFile = tls.clientCAFile || undefined;
  if (tls.certFile) {
    return { source: await FileCertificateSource.open({ certFile: tls.certFile, keyFile: tls.keyFile, ...(clientCAFile ? { clientCAFile } : {}), pollIntervalMs }) };
  }
  const dev = await writeDevCertificates(opts.devCertDir);
  const source = await FileCertificateSource.open({ certFile: dev.certFile, keyFile: dev.keyFile, ...(clientCAFile ? { clientCAFile } : {}), pollIntervalMs });
  return { source, devCA: dev.caFile };
}

export async function startWebhook(opts: RunOptions): Promise<RunningWebhook> {
  const { config, logger } = opts;
  const metrics = createMetrics();
  const cluster = await openState(opts, metrics);
  const { source, devCA } = await openCertificates(opts);
  const server = buildServer({ config, state: cluster.state, certificates: source, logger, metrics });
  trackCertificateExpiry(metrics.certificateExpiry, source);
  if (source.notReadyReason) server.readiness.conditions.push(() => source.notReadyReason?.());
  const probes = config.server.probePort > 0 ? buildProbeServer({ readiness: server.readiness, metrics, logger }) : undefined;

  let url: string;
  try {
    url = await server.listen();
    await probes?.listen({ host: config.server.host, port: config.server.probePort });
  } catch (err) {
    await Promise.allSettled([server.app.close(), probes?.close(), source.close(), cluster.stop()]);
    throw new ListenError(`cannot listen on ${config.server.host}:${config.server.port}${probes ? ` (probes: ${config.server.probePort})` : ''}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const probeUrl = probes ? urlOf('http', probes) : undefined;
  logger.info({ url, ...(probeUrl ? { probeUrl } : {}), ready: server.readiness.ready, mtls: source.current().clientCA !== undefined }, 'webhook listening');
  if (devCA) {
    const ca = relative(process.cwd(), devCA) || devCA;
    logger.info(
      { caFile: devCA, notAfter: source.current().notAfter },
      `self-signed dev certificate; its CA is ${ca}. Try: curl --cacert ${ca} -H 'Content-Type: application/json' --data @test/fixtures/review-remove-version-in-use.json ${url}/validate`,
    );
  }

  return {
    url,
    ...(probeUrl ? { probeUrl } : {}),
    async stop(graceMs) {
      const result = await server.shutdown(graceMs);
      await Promise.allSettled([probes?.close(), source.close(), cluster.stop()]);
      return result;
    },
  };
}
