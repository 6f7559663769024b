// The audit's findings as OpenReports (openreports.io/v1alpha1), the successor of the wg-policy
// PolicyReport that Policy Reporter and Kyverno read: one Report per namespace with findings (its
// Shoots and NamespacedCloudProfiles, for the project's members alone) and one ClusterReport (the
// CloudProfiles). The count of reports is bounded by the namespaces, each report's size by
// maxResults. The same findings and instant give the same reports, byte for byte.
import { DENIAL_LIMITS } from '../policy/decision.js';
import type { Finding, Severity } from './audit.js';

export const REPORT_API_VERSION = 'openreports.io/v1alpha1';
/** The name of every report this project writes: one per namespace, and the cluster's. */
export const REPORT_NAME = 'version-policy';
export const REPORT_SOURCE = 'version-policy';
export const MANAGED_BY_LABEL = { 'app.kubernetes.io/managed-by': 'version-policy' } as const;
/** On a report whose results were cut to maxResults: how many were left out (the summary counts them all). */
export const OMITTED_ANNOTATION = 'version-policy.gardener.cloud/omitted-results';
/** Where a result's rule is explained: its section of docs/rules.md. */
export const RULES_DOCS = 'https://github.com/gardener-version-policy/version-policy/blob/main/docs/rules.md';

/**
 * Results per report at most, by default. A result is about 0.5–1.5 kB of JSON (the message is cut
 * at 1,000 characters), so 500 of them stay far below etcd's 1.5 MB object limit.
 */
export const DEFAULT_MAX_RESULTS = 500;

export interface ReportResult {
  source: string;
  policy: string;
  rule: string;
  category: string;
  severity: Severity;
  timestamp: { seconds: number; nanos: number };
  result: 'fail' | 'warn';
  scored: boolean;
  resources: Array<{ apiVersion: string; kind: string; namespace?: string; name: string; uid?: string }>;
  message: string;
  properties: Record<string, string>;
}

export interface Summary {
  pass: number;
  fail: number;
  warn: number;
  error: number;
  skip: number;
}

interface ReportBase {
  apiVersion: typeof REPORT_API_VERSION;
  metadata: {
    name: string;
    namespace?: string;
    labels: Record<string, string>;
    annotations?: Record<string, string>;
  };
  source: string;
  configuration: { limits: { maxResults: number } };
  summary: Summary;
  results: ReportResult[];
}
export interface Report extends ReportBase {
  kind: 'Report';
  metadata: ReportBase['metadata'] & { namespace: string };
}
export interface ClusterReport extends ReportBase {
  kind: 'ClusterReport';
}

export interface ReportSet {
  /** The CloudProfiles' findings; there is always one, empty when nothing is found. */
  cluster: ClusterReport;
  /** One per namespace with findings, by namespace. */
  namespaced: Report[];
}

const SEVERITY_RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };
const GROUP_VERSION = 'core.gardener.cloud/v1beta1';

/**
 * The reports of one audit. Each report keeps its `maxResults` most severe results (then by
 * object, rule and message), and its summary counts every finding, the ones left out included.
 */
export function buildReports(findings: Iterable<Finding>, now: number, maxResults = DEFAULT_MAX_RESULTS): ReportSet {
  const cluster: Finding[] = [];
  const byNamespace = new Map<string, Finding[]>();
  for (const f of findings) {
    const ns = f.subject.namespace;
    if (ns === undefined) cluster.push(f);
    else {
      let list = byNamespace.get(ns);
      if (!list) byNamespace.set(ns, (list = []));
      list.push(f);
    }
  }
  const timestamp = { seconds: Math.floor(now / 1000), nanos: 0 };
  return {
    cluster: { kind: 'ClusterReport', ...reportOf(cluster, undefined, timestamp, maxResults) },
    namespaced: [...byNamespace.keys()]
      .sort(compareText)
      .map((ns) => ({ kind: 'Report', ...reportOf(byNamespace.get(ns)!, ns, timestamp, maxResults) }) as Report),
  };
}

/** One report of `buildReports`: the findings of one namespace, or (namespace undefined) the cluster's. */
export function buildReport(
  findings: Finding[],
  namespace: string | undefined,
  now: number,
  maxResults = DEFAULT_MAX_RESULTS,
): Report | ClusterReport {
  const base = reportOf(findings, namespace, { seconds: Math.floor(now / 1000), nanos: 0 }, maxResults);
  return namespace === undefined ? { kind: 'ClusterReport', ...base } : ({ kind: 'Report', ...base } as Report);
}

/** Findings by namespace ('' for the cluster's), namespaces in code-unit order: the parts of buildReports. */
export function findingsByScope(findings: Iterable<Finding>): Map<string, Finding[]> {
  const by = new Map<string, Finding[]>([['', []]]);
  for (const f of findings) {
    const ns = f.subject.namespace ?? '';
    let list = by.get(ns);
    if (!list) by.set(ns, (list = []));
    list.push(f);
  }
  return new Map([...by.entries()].sort(([a], [b]) => compareText(a, b)));
}

function reportOf(
  findings: Finding[],
  namespace: string | undefined,
  timestamp: ReportResult['timestamp'],
  maxResults: number,
): ReportBase {
  const sorted = findings.sort(compareFindings);
  const kept = sorted.slice(0, maxResults);
  const omitted = sorted.length - kept.length;
  const summary: Summary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const f of sorted) summary[f.result]++;
  return {
    apiVersion: REPORT_API_VERSION,
    metadata: {
      name: REPORT_NAME,
      ...(namespace !== undefined ? { namespace } : {}),
      labels: { ...MANAGED_BY_LABEL },
      ...(omitted > 0 ? { annotations: { [OMITTED_ANNOTATION]: String(omitted) } } : {}),
    },
    source: REPORT_SOURCE,
    configuration: { limits: { maxResults } },
    summary,
    results: kept.map((f) => resultOf(f, timestamp)),
  };
}

function resultOf(f: Finding, timestamp: ReportResult['timestamp']): ReportResult {
  const s = f.subject;
  return {
    source: REPORT_SOURCE,
    policy: f.policy,
    rule: f.rule,
    category: f.policy === 'FORECAST' ? 'maintenance forecast' : 'version policy',
    severity: f.severity,
    timestamp,
    result: f.result,
    scored: f.result === 'fail',
    resources: [
      {
        apiVersion: GROUP_VERSION,
        kind: s.kind,
        ...(s.namespace !== undefined ? { namespace: s.namespace } : {}),
        name: s.name,
        ...(s.uid !== undefined ? { uid: s.uid } : {}),
      },
    ],
    message: clipMessage(f.message),
    properties: { ...f.properties, docs: `${RULES_DOCS}#${f.policy.toLowerCase()}` },
  };
}

function clipMessage(m: string): string {
  return m.length <= DENIAL_LIMITS.lineLength ? m : `${m.slice(0, DENIAL_LIMITS.lineLength - 1)}…`;
}

/** Code-unit order: cheap, and the same everywhere (localeCompare depends on the ICU data). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    compareText(a.subject.kind, b.subject.kind) ||
    compareText(a.subject.name, b.subject.name) ||
    compareText(a.policy, b.policy) ||
    compareText(a.rule, b.rule) ||
    compareText(a.message, b.message)
  );
}
