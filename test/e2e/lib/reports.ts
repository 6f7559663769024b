// The OpenReports side of the reports suite: the CRDs from the published Go module (cached by
// test/e2e/build-report-crds.sh, which test/e2e/run.sh runs), and reading what the writer stored.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kubectl } from './kubectl.js';

const CRD_FILES = ['openreports.io_reports.yaml', 'openreports.io_clusterreports.yaml'];

/** The folder of the cached CRDs: E2E_REPORT_CRDS, which test/e2e/run.sh sets. */
function crdDir(): string {
  const dir = process.env.E2E_REPORT_CRDS ?? '';
  if (!dir || !CRD_FILES.every((f) => existsSync(join(dir, f))))
    throw new Error(
      `E2E_REPORT_CRDS (${dir || 'unset'}) holds no OpenReports CRDs: run the suites with npm run test:e2e, or set E2E_REPORT_CRDS=$(test/e2e/build-report-crds.sh)`,
    );
  return dir;
}

export async function installReportCrds(admin: Kubectl): Promise<void> {
  const dir = crdDir();
  for (const f of CRD_FILES)
    await admin.ok(['apply', '--server-side', '-f', '-'], await readFile(join(dir, f), 'utf8'));
  await admin.ok([
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/reports.openreports.io',
    'crd/clusterreports.openreports.io',
  ]);
}

export interface StoredResult {
  policy: string;
  rule: string;
  result: string;
  severity: string;
  message: string;
  timestamp: { seconds: number; nanos?: number };
  resources: Array<{ kind: string; name: string; namespace?: string }>;
  properties?: Record<string, string>;
}

export interface StoredReport {
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion: string; labels?: Record<string, string> };
  source?: string;
  summary?: Record<string, number>;
  results?: StoredResult[];
}

/** The ClusterReport (no namespace) or a namespace's Report named version-policy, as stored. */
export function storedReport(admin: Kubectl, namespace?: string): Promise<StoredReport | undefined> {
  return namespace === undefined
    ? admin.get<StoredReport>('clusterreports.openreports.io', 'version-policy')
    : admin.get<StoredReport>('reports.openreports.io', 'version-policy', namespace);
}

/** A result in short: rule ID, rule and object, e.g. `LATEST-NO-EXPIRY CloudProfile/p`. */
export const keyOf = (r: StoredResult) => `${r.policy} ${r.rule} ${r.resources[0]?.kind}/${r.resources[0]?.name}`;

/** The results of the report about `name`, by key. */
export const about = (report: StoredReport | undefined, name: string) =>
  (report?.results ?? []).filter((r) => r.resources.some((o) => o.name === name));
