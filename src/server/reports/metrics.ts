// The report writer's metrics: leadership, audits that failed, writes, findings, the audit's CPU
// time, and when reports were last written (an alert fires when that grows old on the holder).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface ReportMetrics {
  leader: Gauge;
  leadershipChanges: Counter<'to'>;
  failures: Counter<'stage'>;
  writes: Counter<'verb'>;
  findings: Gauge;
  auditSeconds: Histogram;
  lastSuccess: Gauge;
}

export function createReportMetrics(registry: Registry): ReportMetrics {
  const registers = [registry];
  return {
    leader: new Gauge({
      name: 'version_policy_reports_leader',
      help: '1 while this replica holds the reports Lease and writes the policy reports, else 0.',
      registers,
    }),
    leadershipChanges: new Counter({
      name: 'version_policy_reports_leadership_changes_total',
      help: 'Times this replica took (to="leader") or lost (to="standby") the reports Lease.',
      labelNames: ['to'],
      registers,
    }),
    failures: new Counter({
      name: 'version_policy_reports_failures_total',
      help: 'Audits (stage="audit") or report writes (stage="write") that failed; the next attempt follows in 10 s.',
      labelNames: ['stage'],
      registers,
    }),
    writes: new Counter({
      name: 'version_policy_reports_writes_total',
      help: 'Report objects created, updated or deleted (verb).',
      labelNames: ['verb'],
      registers,
    }),
    findings: new Gauge({
      name: 'version_policy_reports_findings',
      help: 'Findings of the last audit written, before the per-report cap.',
      registers,
    }),
    auditSeconds: new Histogram({
      name: 'version_policy_reports_audit_cpu_seconds',
      help: 'CPU-bound time of one audit on the event loop, in slices of at most 10 ms.',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    lastSuccess: new Gauge({
      name: 'version_policy_reports_last_success_timestamp_seconds',
      help: 'When this replica last wrote the policy reports (Unix seconds); 0 if never.',
      registers,
    }),
  };
}
