// The report writer: while this replica holds the Lease, every interval it audits what is stored
// (report/audit.ts, in slices on the event loop), builds the OpenReports and brings the cluster's
// in line: a report is updated in place, created when missing, deleted when its namespace has no
// finding left; an unchanged report is not written. Before every write it asks the Lease again, so
// a replica that lost it stops at once. Admission never waits on any of this.
import type { Logger } from 'pino';
import type { ClusterState } from '../../api/cluster-state.js';
import type { Config } from '../../config.js';
import { type AuditOptions, auditSteps, type Finding } from '../../report/audit.js';
import {
  buildReport,
  type ClusterReport,
  findingsByScope,
  type Report,
  type ReportResult,
} from '../../report/openreports.js';
import type { ReportApi, Stored } from './report-api.js';
import type { ReportMetrics } from './metrics.js';
import { runSliced } from './sliced.js';
import { jsonEqual } from '../../util/json-equal.js';
import { Periodic } from '../../util/periodic.js';

/** The longest the audit holds the event loop at a stretch; a review's budget is 50 ms. */
export const SLICE_MS = 10;
/** Before the state has synced, or after a failure, look again this soon. */
const RETRY_MS = 10_000;

export interface WriterOptions {
  state: ClusterState;
  config: Config;
  api: Pick<ReportApi, 'listReports' | 'getClusterReport' | 'create' | 'update' | 'remove'>;
  /** Whether this replica may write now (LeaseElector.holding). */
  holding: () => boolean;
  now: () => number;
  monotonic?: () => number;
  /** Runs the audit: in the landscape worker (run.ts), or on the event loop in slices (the default). */
  audit?: AuditRunner;
  metrics?: ReportMetrics;
  logger?: Logger;
}

export interface AuditStats {
  /** CPU-bound time of the audit, and its longest stretch without a pause. */
  busyMs: number;
  longestMs: number;
  cancelled: boolean;
}

export type AuditRunner = (
  state: ClusterState,
  input: AuditOptions,
  opts: { cancelled: () => boolean; clock?: () => number },
) => Promise<{ findings: Finding[]; stats: AuditStats }>;

/** The audit on the event loop, in slices of SLICE_MS: where there is no landscape worker. */
export const auditOnLoop: AuditRunner = async (state, input, opts) => {
  const findings: Finding[] = [];
  const stats = await runSliced(
    auditSteps(state, input),
    (step) => {
      for (const f of step) findings.push(f);
    },
    { sliceMs: SLICE_MS, cancelled: opts.cancelled, ...(opts.clock ? { clock: opts.clock } : {}) },
  );
  return { findings, stats };
};

export type RunOutcome =
  | { outcome: 'standby' | 'not-synced' | 'lost-lease' }
  | { outcome: 'written'; findings: number; reports: number; writes: number; audit: AuditStats };

export class ReportWriter {
  private readonly periodic: Periodic<RunOutcome>;
  private stopped = false;

  constructor(private readonly opts: WriterOptions) {
    this.periodic = new Periodic({
      run: () => this.run(),
      delayAfter: (o) => {
        if (o.ok) return o.value.outcome === 'written' ? opts.config.reports.intervalSeconds * 1000 : RETRY_MS;
        opts.metrics?.failures.inc({ stage: 'write' });
        opts.logger?.warn({ err: o.error }, 'policy reports not written; retrying');
        return RETRY_MS;
      },
    });
  }

  start(): void {
    this.periodic.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.periodic.stop();
  }

  /** One audit and write now (one at a time). */
  runOnce(): Promise<RunOutcome> {
    return this.periodic.runNow();
  }

  private async run(): Promise<RunOutcome> {
    const { state, config, holding } = this.opts;
    if (!holding()) return { outcome: 'standby' };
    if (!state.synced) return { outcome: 'not-synced' };
    const now = this.opts.now();
    const input = {
      now,
      config,
      settings: { forcedWithinDays: config.reports.forcedWithinDays, horizonDays: config.reports.horizonDays },
    };
    let findings: Finding[];
    let audit: AuditStats;
    try {
      ({ findings, stats: audit } = await (this.opts.audit ?? auditOnLoop)(state, input, {
        cancelled: () => this.stopped || !holding(),
        ...(this.opts.monotonic ? { clock: this.opts.monotonic } : {}),
      }));
    } catch (err) {
      this.opts.metrics?.failures.inc({ stage: 'audit' });
      throw err;
    }
    this.opts.metrics?.auditSeconds.observe(audit.busyMs / 1000);
    if (audit.cancelled) return { outcome: 'lost-lease' };
    // One report at a time, between pauses: all of them at once hold the loop for 0.1 s at 10,000 Shoots.
    const desired = { cluster: undefined as ClusterReport | undefined, namespaced: [] as Report[] };
    for (const [ns, group] of findingsByScope(findings)) {
      await new Promise((resolve) => setImmediate(resolve));
      const report = buildReport(group, ns || undefined, now, config.reports.maxResultsPerReport);
      if (report.kind === 'ClusterReport') desired.cluster = report;
      else desired.namespaced.push(report);
    }
    const writes = await this.sync(desired.cluster!, desired.namespaced);
    if (writes === undefined) return { outcome: 'lost-lease' };
    this.opts.metrics?.lastSuccess.set(now / 1000);
    this.opts.metrics?.findings.set(findings.length);
    this.opts.logger?.info(
      { findings: findings.length, reports: desired.namespaced.length + 1, writes, auditMs: Math.round(audit.busyMs) },
      'policy reports written',
    );
    return { outcome: 'written', findings: findings.length, reports: desired.namespaced.length + 1, writes, audit };
  }

  /** Brings the stored reports in line with `cluster` and `namespaced`; undefined when the Lease was lost on the way. */
  private async sync(cluster: ClusterReport, namespaced: Report[]): Promise<number | undefined> {
    const { api, holding } = this.opts;
    const [storedCluster, storedReports] = await Promise.all([api.getClusterReport(), api.listReports()]);
    const stored = new Map(storedReports.map((r) => [r.metadata.namespace, r]));
    let writes = 0;
    const write = async (desired: Report | ClusterReport, old: Stored<Report> | Stored<ClusterReport> | undefined) => {
      const next = old ? keepTimestamps(desired, old) : desired;
      if (old && sameContent(next, old)) return true;
      await new Promise((resolve) => setImmediate(resolve));
      if (!holding()) return false;
      if (old)
        await api.update({
          ...next,
          metadata: { ...next.metadata, resourceVersion: old.metadata.resourceVersion },
        } as Stored<Report>);
      else await api.create(next);
      this.opts.metrics?.writes.inc({ verb: old ? 'update' : 'create' });
      writes++;
      return true;
    };
    if (!(await write(cluster, storedCluster))) return undefined;
    for (const report of namespaced) {
      if (!(await write(report, stored.get(report.metadata.namespace)))) return undefined;
      stored.delete(report.metadata.namespace);
    }
    for (const gone of stored.values()) {
      if (!holding()) return undefined;
      await api.remove(gone);
      this.opts.metrics?.writes.inc({ verb: 'delete' });
      writes++;
    }
    return writes;
  }
}

const resultKey = (r: ReportResult) =>
  `${r.policy}\u0000${r.rule}\u0000${r.resources[0]?.kind ?? ''}/${r.resources[0]?.name ?? ''}\u0000${r.message}`;

/** A result found before keeps the timestamp of when it was first found, so an unchanged report stays unchanged. */
function keepTimestamps<T extends Report | ClusterReport>(desired: T, old: Report | ClusterReport): T {
  const before = new Map((old.results ?? []).map((r) => [resultKey(r), r.timestamp]));
  return {
    ...desired,
    results: desired.results.map((r) => {
      const at = before.get(resultKey(r));
      return at ? { ...r, timestamp: at } : r;
    }),
  };
}

/** Compared as JSON values: kube-apiserver returns a custom resource with its keys in its own (sorted) order. */
function sameContent(a: Report | ClusterReport, b: Report | ClusterReport): boolean {
  const content = (r: Report | ClusterReport) => [
    r.metadata.labels,
    r.metadata.annotations ?? {},
    r.source,
    r.configuration,
    r.summary,
    r.results ?? [],
  ];
  return jsonEqual(content(a), content(b));
}
