// The webhook as `serve` runs it: cluster state (static files or informers), certificates (files
// or dev), the HTTPS server, the optional plain-HTTP probe port, and an orderly stop.
import { relative } from 'node:path';
import type { Logger } from 'pino';
import { ClusterIndex } from '../cluster/cluster-index.js';
import { loadStaticState } from '../cluster/static-state.js';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import { buildProbeServer, buildServer, urlOf } from './app.js';
import { registerForecastMetrics } from './forecast-metrics.js';
import { ForecastRefresher } from './forecast-refresh.js';
import { createMetrics, type WebhookMetrics } from './metrics.js';
import type { CertificateSource } from './tls/certificate-source.js';
import { writeDevCertificates } from './tls/dev-certificates.js';
import { LandscapeWorker } from './workers/landscape.js';
import { trackCertificateExpiry } from './tls/expiry-metric.js';
import { FileCertificateSource } from './tls/file-source.js';

export interface RunOptions {
  config: Config;
  /** Static cluster state (`--state`): no informers then. */
  stateFiles: readonly string[];
  /**
   * Run with no cluster state at all (`--without-cluster-state`): every request that needs the
   * state is denied, and readiness does not wait for it.
   */
  withoutClusterState?: boolean;
  logger: Logger;
  /** Where dev certificates are written when no certificate files are configured. */
  devCertDir: string;
  /** The logger's destination, whose dropped lines the metrics count. */
  logDestination?: { readonly dropped: number };
}

export interface RunningWebhook {
  url: string;
  probeUrl?: string;
  /** Unready and still serving for `delayMs`, drains within `graceMs`, then releases everything else. */
  stop(graceMs: number, delayMs?: number): Promise<{ drained: boolean }>;
}

export class ListenError extends Error {
  override name = 'ListenError';
}

/** No usable source of cluster state: nothing configured, or a kubeconfig that cannot be used. */
export class StateSourceError extends Error {
  override name = 'StateSourceError';
}

/** The denial every request that needs the state gets under `--without-cluster-state`. */
export const WITHOUT_STATE_REASON =
  'the webhook runs without cluster state (serve --without-cluster-state), so this request cannot be judged';

interface StateHandle {
  state: ClusterIndex;
  /** Where the state comes from, for the start-up log. */
  source: string;
  /** False when the state is absent by choice: readiness does not wait for it. */
  readinessWaits: boolean;
  stop(): Promise<void>;
}

async function openState(opts: RunOptions, metrics: WebhookMetrics): Promise<StateHandle> {
  const { config, logger } = opts;
  const none = () => Promise.resolve();
  if (opts.withoutClusterState) {
    if (opts.stateFiles.length > 0)
      throw new StateSourceError('--state and --without-cluster-state contradict each other: give one of them');
    const state = new ClusterIndex(true);
    state.reportNotReadyBy(() => WITHOUT_STATE_REASON);
    logger.warn(
      { withoutClusterState: true },
      'RUNNING WITHOUT CLUSTER STATE (--without-cluster-state): the webhook cannot see which versions Shoots run or which profiles exist, so it DENIES every request that needs them (version removals, profile deletions, NamespacedCloudProfiles, Shoots) and judges only what needs no state',
    );
    return {
      state,
      source: 'none (--without-cluster-state): requests that need it are denied',
      readinessWaits: false,
      stop: none,
    };
  }
  if (opts.stateFiles.length > 0) {
    const state = await loadStaticState(opts.stateFiles);
    logger.info(
      {
        files: opts.stateFiles,
        shoots: state.count('Shoot'),
        cloudProfiles: state.count('CloudProfile'),
        namespacedCloudProfiles: state.count('NamespacedCloudProfile'),
      },
      'static cluster state loaded',
    );
    return { state, source: `files (--state ${opts.stateFiles.join(', ')})`, readinessWaits: true, stop: none };
  }
  if (!config.cluster.enabled) {
    // Judging against an empty landscape would allow removing versions that Shoots run.
    throw new StateSourceError(
      'no cluster state: cluster.enabled is false and no --state is given, so the webhook could not see which versions Shoots run; set cluster.enabled: true, give --state FILE, or pass --without-cluster-state to deny every request that needs the state',
    );
  }
  // Loaded only here: the Kubernetes client costs about 0.5 s of start-up and 50 MB that a
  // static state never needs.
  const [{ startClusterInformers }, { KubeConfigError, describeSource, kubeConfigSource }] = await Promise.all([
    import('../cluster/informers/index.js'),
    import('../cluster/kubeconfig.js'),
  ]);
  const index = new ClusterIndex(false);
  try {
    const informers = startClusterInformers({
      index,
      kubeconfig: config.cluster.kubeconfig,
      maxStaleMs: config.cluster.maxStaleSeconds * 1000,
      registry: metrics.registry,
      logger: logger.child({ component: 'informers' }),
    });
    const source = `the API server (kubeconfig: ${describeSource(kubeConfigSource(config.cluster.kubeconfig))})`;
    return { state: index, source, readinessWaits: true, stop: () => informers.stop() };
  } catch (err) {
    // A kubeconfig that is missing or broken stays broken: exit now rather than run unready forever.
    if (err instanceof KubeConfigError) throw new StateSourceError(err.message);
    throw err;
  }
}

/** One line that says which mode is in force, so a log shows at once what the webhook will do. */
function logMode(config: Config, source: string, logger: Logger): void {
  const gate = config.featureGates.VersionClassificationLifecycle;
  const lifecycle = config.defaulting.lifecycle;
  // adoptExisting arrives with the defaulting changes; read it whether or not this config has it.
  const adopt = (lifecycle as { adoptExisting?: unknown }).adoptExisting === true;
  const onOff = (b: boolean) => (b ? 'on' : 'off');
  logger.info(
    {
      featureGates: { VersionClassificationLifecycle: gate },
      lifecycleDefaulting: lifecycle.enabled,
      adoptExisting: adopt,
      stateSource: source,
    },
    `mode: feature gate VersionClassificationLifecycle ${onOff(gate)} (must match the landscape's gardener-apiserver), ` +
      `lifecycle defaulting ${onOff(lifecycle.enabled)}, adoption of existing versions ${onOff(adopt)}, cluster state from ${source}`,
  );
}

async function openCertificates(opts: RunOptions): Promise<{ source: CertificateSource; devCA?: string }> {
  const { tls, certReloadIntervalSeconds } = opts.config.server;
  if (tls.selfManaged.enabled) {
    if (tls.certFile || tls.keyFile || tls.clientCAFile)
      throw new ConfigError(
        'server.tls: selfManaged.enabled excludes certFile, keyFile and clientCAFile; use one or the other',
      );
    // Loaded only here: the X.509 library and the Kubernetes client.
    const { openSelfManagedSource } = await import('./tls/self-managed-source.js');
    return { source: await openSelfManagedSource(opts.config, opts.logger.child({ component: 'certificates' })) };
  }
  if (Boolean(tls.certFile) !== Boolean(tls.keyFile))
    throw new ConfigError(
      'server.tls: certFile and keyFile go together; set both, or neither for a self-signed dev certificate',
    );
  const pollIntervalMs = certReloadIntervalSeconds * 1000;
  const clientCAFile = tls.clientCAFile || undefined;
  if (tls.certFile) {
    return {
      source: await FileCertificateSource.open({
        certFile: tls.certFile,
        keyFile: tls.keyFile,
        ...(clientCAFile ? { clientCAFile } : {}),
        pollIntervalMs,
      }),
    };
  }
  const dev = await writeDevCertificates(opts.devCertDir);
  const source = await FileCertificateSource.open({
    certFile: dev.certFile,
    keyFile: dev.keyFile,
    ...(clientCAFile ? { clientCAFile } : {}),
    pollIntervalMs,
  });
  return { source, devCA: dev.caFile };
}

const mtlsOf = (source: CertificateSource) => source.current().clientCA !== undefined;

export async function startWebhook(opts: RunOptions): Promise<RunningWebhook> {
  const { config, logger } = opts;
  const metrics = createMetrics();
  if (opts.logDestination) metrics.countLogDropsOf(opts.logDestination);
  const cluster = await openState(opts, metrics);
  logMode(config, cluster.source, logger);
  let certificates: Awaited<ReturnType<typeof openCertificates>>;
  try {
    certificates = await openCertificates(opts);
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  const { source, devCA } = certificates;
  // The landscape worker: the reviews' forecasts and the fleet forecast, off the event loop.
  const worker = opts.withoutClusterState
    ? undefined
    : new LandscapeWorker({
        index: cluster.state,
        logger: logger.child({ component: 'landscape-worker' }),
        reviewTimeoutMs: config.server.forecastTimeoutSeconds * 1000,
      });
  worker?.start();
  // The fleet forecast behind the forecast gauges and the /profiles counts, off the admission path.
  const fleetForecast = worker ? new ForecastRefresher({ state: cluster.state, now: Date.now, worker }) : undefined;
  if (fleetForecast) registerForecastMetrics(metrics.registry, fleetForecast);
  fleetForecast?.start();
  let reports: { stop(): Promise<void> } | undefined;
  if (config.reports.enabled) {
    if (opts.stateFiles.length > 0 || opts.withoutClusterState) {
      await Promise.allSettled([source.close(), fleetForecast?.stop(), worker?.stop(), cluster.stop()]);
      throw new ConfigError(
        'reports.enabled: the policy reports are written to the API server the informers read; they exclude --state and --without-cluster-state',
      );
    }
    const { startReports } = await import('./reports/index.js');
    reports = startReports({
      config,
      state: cluster.state,
      ...(worker ? { worker } : {}),
      registry: metrics.registry,
      logger: logger.child({ component: 'reports' }),
    });
  }
  const server = buildServer({
    config,
    state: cluster.state,
    certificates: source,
    logger,
    metrics,
    serveMetrics: config.server.probePort === 0,
    ...(fleetForecast ? { fleetForecast } : {}),
    ...(worker ? { forecaster: worker } : {}),
  });
  server.readiness.waitsForState = cluster.readinessWaits;
  trackCertificateExpiry(metrics.certificateExpiry, source);
  if (source.notReadyReason) server.readiness.conditions.push(() => source.notReadyReason?.());
  if (worker) server.readiness.conditions.push(() => worker.notReadyReason);
  const pages = config.server.ui.enabled
    ? { pages: { state: cluster.state, now: Date.now, ...(fleetForecast ? { fleetForecast } : {}) } }
    : {};
  const probes =
    config.server.probePort > 0
      ? buildProbeServer({ readiness: server.readiness, metrics, logger, limits: config.server, ...pages })
      : undefined;

  let url: string;
  try {
    url = await server.listen();
    await probes?.listen({ host: config.server.host, port: config.server.probePort });
  } catch (err) {
    await Promise.allSettled([
      server.app.close(),
      probes?.close(),
      source.close(),
      fleetForecast?.stop(),
      worker?.stop(),
      reports?.stop(),
      cluster.stop(),
    ]);
    throw new ListenError(
      `cannot listen on ${config.server.host}:${config.server.port}${probes ? ` (probes: ${config.server.probePort})` : ''}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  const probeUrl = probes ? urlOf('http', probes) : undefined;
  if (!probes && !mtlsOf(source)) {
    logger.warn(
      { probePort: 0 },
      'server.probePort is 0: /metrics is served on the webhook port without authentication (set server.tls.clientCAFile, or a probe port)',
    );
  }
  logger.info(
    {
      url,
      ...(probeUrl ? { probeUrl } : {}),
      ready: server.readiness.ready,
      mtls: source.current().clientCA !== undefined,
    },
    'webhook listening',
  );
  if (devCA) {
    const ca = relative(process.cwd(), devCA) || devCA;
    logger.info(
      { caFile: devCA, notAfter: source.current().notAfter },
      `self-signed dev certificate; its CA is ${ca}. Try: curl --cacert ${ca} -H 'Content-Type: application/json' --data @test/fixtures/review-remove-version-in-use.json ${reachableUrl(url)}/validate`,
    );
  }

  return {
    url,
    ...(probeUrl ? { probeUrl } : {}),
    async stop(graceMs, delayMs) {
      const result = await server.shutdown(graceMs, delayMs);
      // The writer first: it gives the Lease up, so another replica takes over at once.
      await reports?.stop();
      await Promise.allSettled([
        probes?.close(),
        source.close(),
        fleetForecast?.stop(),
        worker?.stop(),
        cluster.stop(),
      ]);
      return result;
    },
  };
}

/**
 * The URL a client on this machine uses: a wildcard listen address (server.host 0.0.0.0 or ::) is
 * no name the dev certificate covers, so the hint says localhost, which it does.
 */
export function reachableUrl(url: string): string {
  const u = new URL(url);
  if (u.hostname === '0.0.0.0' || u.hostname === '[::]') u.hostname = 'localhost';
  return u.origin;
}
