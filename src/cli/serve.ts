// `version-policy serve`: the admission webhook. No certificate files configured → a self-signed
// dev certificate under .dev-certs/; `--state FILE` → static cluster state, no informers. With
// neither `--state` nor cluster access it refuses to start, unless `--without-cluster-state`
// says that denying everything that needs the state is what the operator wants.
// SIGTERM/SIGINT: readiness off, keep serving for server.shutdownDelaySeconds (until endpoints drop
// the pod), stop accepting, answer what is in flight, exit 0 within delay + grace period.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { InputError } from '../cluster/object-files.js';
import { ConfigError, loadConfig } from '../config.js';
import { UsageError } from './errors.js';
import { collect } from './options.js';

export interface ServeOptions {
  config?: string;
  state: string[];
  withoutClusterState?: boolean;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the admission webhook over HTTPS: POST /validate, POST /mutate, GET /healthz, /readyz, /metrics')
    .option('--config <file>', 'config file (YAML or JSON); every key is optional')
    .option(
      '--state <file>',
      'static cluster state (profiles, NamespacedCloudProfiles, Shoots), repeatable; no informers are started',
      collect,
      [],
    )
    .option(
      '--without-cluster-state',
      'run with no cluster state: deny every request that needs it (version removals, profile deletions, Shoots); for when neither --state nor API server access is possible',
    )
    .action((opts: ServeOptions) => serve(opts));
}

export async function serve(opts: ServeOptions): Promise<void> {
  // The server, TLS and the Kubernetes client load only here, so `check` and `explain` start fast.
  const [
    { startWebhook, ListenError, StateSourceError },
    { createLogger, stdoutDestination },
    { CertificateError },
    { DEV_CERT_DIR },
  ] = await Promise.all([
    import('../server/run.js'),
    import('../server/logging.js'),
    import('../server/tls/certificate-source.js'),
    import('../server/tls/dev-certificates.js'),
  ]);
  // Errors that are the user's to fix: one line, exit code 2, no stack.
  const userErrors = [ConfigError, InputError, CertificateError, ListenError, StateSourceError];
  try {
    const config = await loadConfig(opts.config);
    const logDestination = stdoutDestination(config.logBufferBytes);
    const logger = createLogger(config.logLevel, logDestination);
    const running = await startWebhook({
      config,
      stateFiles: opts.state,
      withoutClusterState: opts.withoutClusterState === true,
      logger,
      logDestination,
      devCertDir: resolve(DEV_CERT_DIR),
    });
    const { shutdownDelaySeconds: delaySeconds, shutdownGraceSeconds: graceSeconds } = config.server;
    const signal = await nextSignal(logger);
    logger.info(
      { signal, delaySeconds, graceSeconds },
      'shutting down: not ready; serving for the shutdown delay, then no new connections, answering requests in flight',
    );
    // The hard stop: whatever still holds the process open, it exits within delay + grace period.
    const hardStopAt = Date.now() + (delaySeconds + graceSeconds) * 1000;
    setTimeout(() => process.exit(0), hardStopAt - Date.now()).unref();
    // 90% of the grace period drains; the rest releases watchers, probes and informers.
    const { drained } = await running.stop(graceSeconds * 900, delaySeconds * 1000);
    logger.info(
      { drained, logLinesDropped: logDestination.dropped },
      drained ? 'stopped: every request answered' : 'stopped: grace period over, open connections were closed',
    );
    // Give the last lines to stdout while there is time; a blocked stdout cannot hold the exit.
    await logDestination.flushWithin(Math.max(0, Math.min(2000, hardStopAt - Date.now() - 100)));
    process.exit(0);
  } catch (err) {
    if (userErrors.some((E) => err instanceof E)) throw new UsageError((err as Error).message);
    throw err;
  }
}

/** Resolves on the first SIGTERM or SIGINT; a second one exits at once. */
function nextSignal(logger: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolveSignal) => {
    let received = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (received) {
        logger.warn({ signal }, 'second signal: exiting without waiting for requests in flight');
        process.exit(1);
      }
      received = true;
      resolveSignal(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
