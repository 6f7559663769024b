// Policy reports on (config `reports.enabled`): a Lease elector and the writer, with their metrics.
// Loaded only then, so a webhook with reports off never talks to openreports.io or coordination.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ClusterState } from '../../api/cluster-state.js';
import { connectionFrom } from '../../cluster/api-client.js';
import { loadKubeConfig } from '../../cluster/kubeconfig.js';
import { type Config, ConfigError } from '../../config.js';
import { podNamespace } from '../tls/self-managed-options.js';
import { LeaseElector } from './lease.js';
import { createReportMetrics } from './metrics.js';
import { ReportApi } from './report-api.js';
import type { LandscapeWorker } from '../workers/landscape.js';
import { auditInWorker } from './audit-task.js';
import { ReportWriter } from './writer.js';

export interface RunningReports {
  stop(): Promise<void>;
}

export function startReports(opts: {
  config: Config;
  state: ClusterState;
  registry: Registry;
  logger: Logger;
  /** The landscape worker: the audit runs there, off the event loop. */
  worker?: LandscapeWorker;
  namespaceOf?: () => string | undefined;
}): RunningReports {
  const { config, logger } = opts;
  const lease = config.reports.lease;
  const namespace = lease.namespace || (opts.namespaceOf ?? podNamespace)();
  if (!namespace)
    throw new ConfigError(
      'reports.lease.namespace is empty and there is no service-account namespace to default to: set it',
    );
  const conn = connectionFrom(loadKubeConfig(config.cluster.kubeconfig));
  const metrics = createReportMetrics(opts.registry);
  const identity = `${hostname()}_${randomUUID()}`;
  const elector = new LeaseElector({
    conn,
    namespace,
    name: lease.name,
    identity,
    durationSeconds: lease.durationSeconds,
    onChange(holding) {
      metrics.leader.set(holding ? 1 : 0);
      metrics.leadershipChanges.inc({ to: holding ? 'leader' : 'standby' });
      logger.info(
        { lease: `${namespace}/${lease.name}`, identity },
        holding
          ? 'reports Lease taken: this replica writes the policy reports'
          : 'reports Lease lost: this replica stops writing policy reports',
      );
      if (holding) void writer.runOnce().catch(() => undefined);
    },
  });
  const writer = new ReportWriter({
    state: opts.state,
    config,
    api: new ReportApi(conn),
    holding: () => elector.holding(),
    now: Date.now,
    ...(opts.worker ? { audit: auditInWorker(opts.worker) } : {}),
    metrics,
    logger,
  });
  metrics.leader.set(0);
  elector.start();
  writer.start();
  return {
    async stop() {
      await writer.stop();
      await elector.stop();
    },
  };
}
