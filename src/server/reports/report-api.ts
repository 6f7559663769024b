// The only requests the report writer makes, one per verb the chart grants on openreports.io:
// list its own Reports (by label, in every namespace), get its ClusterReport, create, update (with
// the resourceVersion read: a concurrent writer makes it fail with 409) and delete.
import { ApiError, type ApiConnection } from '../../cluster/api-client.js';
import type { ClusterReport, Report } from '../../report/openreports.js';
import { MANAGED_BY_LABEL, REPORT_API_VERSION, REPORT_NAME } from '../../report/openreports.js';
import { call, FIELD_MANAGER } from '../tls/kube-objects.js';

const GROUP = `/apis/${REPORT_API_VERSION}`;

/** A report as stored: what was written, with the server's metadata. */
export type Stored<T extends Report | ClusterReport> = T & {
  metadata: T['metadata'] & { resourceVersion?: string; uid?: string };
};

const selector = Object.entries(MANAGED_BY_LABEL)
  .map(([k, v]) => `${k}=${v}`)
  .join(',');

export class ReportApi {
  constructor(private readonly conn: ApiConnection) {}

  /** This project's Reports in every namespace, by label: those a previous holder wrote too. */
  async listReports(): Promise<Stored<Report>[]> {
    const items: Stored<Report>[] = [];
    let token = '';
    do {
      const query = `labelSelector=${encodeURIComponent(selector)}&limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
      const page = (await call(this.conn, 'GET', `${GROUP}/reports?${query}`)) as {
        items?: Stored<Report>[];
        metadata?: { continue?: string };
      };
      for (const item of page.items ?? []) items.push(item);
      token = page.metadata?.continue ?? '';
    } while (token);
    return items;
  }

  async getClusterReport(): Promise<Stored<ClusterReport> | undefined> {
    try {
      return (await call(this.conn, 'GET', `${GROUP}/clusterreports/${REPORT_NAME}`)) as Stored<ClusterReport>;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  async create(report: Report | ClusterReport): Promise<void> {
    await call(this.conn, 'POST', `${collectionOf(report)}?fieldManager=${FIELD_MANAGER}`, report);
  }

  async update(report: Stored<Report> | Stored<ClusterReport>): Promise<void> {
    await call(this.conn, 'PUT', `${collectionOf(report)}/${REPORT_NAME}?fieldManager=${FIELD_MANAGER}`, report);
  }

  async remove(report: Stored<Report>): Promise<void> {
    try {
      await call(this.conn, 'DELETE', `${collectionOf(report)}/${encodeURIComponent(report.metadata.name)}`);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
  }
}

function collectionOf(report: Report | ClusterReport): string {
  return report.kind === 'Report'
    ? `${GROUP}/namespaces/${encodeURIComponent(report.metadata.namespace)}/reports`
    : `${GROUP}/clusterreports`;
}
