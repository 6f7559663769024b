// The only API requests the self-managed source makes, one function per RBAC verb the chart grants:
// get and update of one named Secret, get and patch of two named webhook configurations. Nothing
// here lists, creates or deletes. Connection, TLS and credentials are client-node's KubeConfig (as
// for the informers); the HTTP is node's own.
import * as http from 'node:http';
import * as https from 'node:https';
import { ApiError, type ApiConnection } from '../../cluster/api-client.js';

/** Recorded in managedFields, so `kubectl`, Argo CD (managedFieldsManagers) and Flux can tell our writes apart. */
export const FIELD_MANAGER = 'version-policy';

/** A webhook configuration call that hangs this long is retried at the next poll. */
const REQUEST_TIMEOUT_MS = 10_000;

export interface Secret {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; managedFields?: unknown } & Record<
    string,
    unknown
  >;
  type?: string;
  data?: Record<string, string>;
}

export interface WebhookEntry {
  name: string;
  clientConfig?: { caBundle?: string } & Record<string, unknown>;
}

export interface WebhookConfiguration {
  kind?: string;
  metadata: { name: string; resourceVersion?: string };
  webhooks?: WebhookEntry[];
}

export type WebhookKind = 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';

const WEBHOOK_PATH: Record<WebhookKind, string> = {
  ValidatingWebhookConfiguration: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
  MutatingWebhookConfiguration: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
};

export class KubeObjects {
  constructor(
    private readonly conn: ApiConnection,
    readonly namespace: string,
    readonly secretName: string,
  ) {}

  private get secretPath(): string {
    return `/api/v1/namespaces/${encodeURIComponent(this.namespace)}/secrets/${encodeURIComponent(this.secretName)}`;
  }

  /** Throws ApiError (404 when the chart's Secret is missing). */
  async getSecret(): Promise<Secret> {
    return (await call(this.conn, 'GET', this.secretPath)) as Secret;
  }

  /** A PUT carrying the resourceVersion that was read: a concurrent writer makes it fail with 409. */
  async replaceSecret(secret: Secret): Promise<Secret> {
    const { managedFields: _omitted, ...metadata } = secret.metadata;
    return (await call(this.conn, 'PUT', `${this.secretPath}?fieldManager=${FIELD_MANAGER}`, {
      ...secret,
      metadata,
    })) as Secret;
  }

  /** undefined when the configuration does not exist (uninstalled, or removed in an emergency). */
  async getWebhookConfiguration(kind: WebhookKind, name: string): Promise<WebhookConfiguration | undefined> {
    try {
      return (await call(
        this.conn,
        'GET',
        `${WEBHOOK_PATH[kind]}/${encodeURIComponent(name)}`,
      )) as WebhookConfiguration;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  /**
   * Sets clientConfig.caBundle of the entries at `indices` and nothing else. Each entry is addressed
   * by index and guarded by a test of its name, so a configuration reordered since it was read
   * fails (422) instead of getting the bundle on the wrong entry.
   */
  async patchCABundles(
    kind: WebhookKind,
    config: WebhookConfiguration,
    indices: number[],
    caBundle: string,
  ): Promise<WebhookConfiguration> {
    const ops = indices.flatMap((i) => [
      { op: 'test', path: `/webhooks/${i}/name`, value: config.webhooks?.[i]?.name },
      { op: 'add', path: `/webhooks/${i}/clientConfig/caBundle`, value: caBundle },
    ]);
    const path = `${WEBHOOK_PATH[kind]}/${encodeURIComponent(config.metadata.name)}?fieldManager=${FIELD_MANAGER}`;
    return (await call(this.conn, 'PATCH', path, ops, 'application/json-patch+json')) as WebhookConfiguration;
  }
}

/** One JSON request to the API server (the report writer's too); any answer but 2xx is an ApiError. */
export async function call(
  conn: ApiConnection,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<unknown> {
  const base = await conn.requestOptions();
  const url = new URL(conn.server + path);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const transport = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = transport.request(url, {
      ...base,
      method,
      timeout: REQUEST_TIMEOUT_MS,
      headers: {
        ...base.headers,
        Accept: 'application/json',
        ...(payload !== undefined ? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) } : {}),
      },
    });
    req.on('timeout', () =>
      req.destroy(new ApiError(`${method} ${path}: no answer within ${REQUEST_TIMEOUT_MS / 1000}s`, 0)),
    );
    req.on('error', (err) =>
      reject(
        err instanceof ApiError
          ? err
          : new ApiError(`${method} ${path}: ${(err as NodeJS.ErrnoException).code ?? err.message}`, 0),
      ),
    );
    req.on('response', (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', (err) => reject(new ApiError(`${method} ${path}: ${err.message}`, 0)));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        if (status >= 200 && status < 300 && json !== undefined) return resolve(json);
        const s = (json ?? {}) as { reason?: unknown; message?: unknown };
        const reason = typeof s.reason === 'string' ? s.reason : '';
        const message = typeof s.message === 'string' ? s.message : text.slice(0, 200);
        reject(
          new ApiError(
            `${method} ${path}: ${status} ${reason || http.STATUS_CODES[status] || ''}${message ? `: ${message}` : ''}`.trim(),
            status,
            reason,
          ),
        );
      });
    });
    req.end(payload);
  });
}
