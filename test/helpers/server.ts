// A real webhook server for tests: HTTPS on 127.0.0.1 port 0, certificates made now and written to
// a temp directory (so the reload path is the production one), logs captured as parsed JSON, and
// a small HTTPS client that trusts the test CA.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { staticState } from '../../src/cluster/static-state.js';
import type { ClusterState } from '../../src/api/cluster-state.js';
import { buildServer, type WebhookServer } from '../../src/server/app.js';
import type { ReviewForecaster } from '../../src/server/admission-routes.js';
import { resolveConfig } from '../../src/config.js';
import { createLogger } from '../../src/server/logging.js';
import { FileCertificateSource } from '../../src/server/tls/file-source.js';
import {
  createCertificateAuthority,
  issueCertificate,
  type CertificatePair,
} from '../../src/server/tls/self-signed.js';
import type { RuleId } from '../../src/policy/decision.js';
import type { Rule } from '../../src/policy/rule.js';
import type { WarningCheck } from '../../src/policy/warnings/index.js';
import type { Operation, PolicedObject } from '../../src/api/types.js';
import { config as testConfig, NOW, type ConfigInput } from './objects.js';

export type LogRecord = Record<string, unknown> & { level: string; msg: string };

export interface TestServerOptions {
  state?: PolicedObject[] | ClusterState;
  /** Narrow evaluate()'s rule set (EvaluateOptions.rules): the seam for forcing violations and exceptions. */
  rules?: readonly Rule<RuleId>[];
  /** Narrow evaluate()'s warning checks (EvaluateOptions.warningChecks): the seam for forcing warnings. */
  warningChecks?: readonly WarningCheck[];
  config?: ConfigInput;
  now?: number;
  /** Require client certificates signed by a second test CA. */
  mtls?: boolean;
  pollIntervalMs?: number;
  watch?: boolean;
  /** The level of the captured log (default info). */
  logLevel?: 'info' | 'debug';
  /** buildServer's serveMetrics (default: follows server.probePort). */
  serveMetrics?: boolean;
  /** buildServer's eventLoopWindowMs. */
  eventLoopWindowMs?: number;
  /** buildServer's forecaster: the reviews' forecasts from a worker thread (server/workers/landscape.ts). */
  forecaster?: ReviewForecaster;
  /** False: big bodies are parsed on the event loop, not in the body worker. */
  bodyWorker?: false;
  /**
   * Start from the product's own defaults (the config file's schema defaults: lifecycle gate off,
   * lifecycle defaulting on) instead of the test defaults (gate on, defaulting off).
   */
  productDefaults?: boolean;
}

export interface TestAuthority {
  ca: Awaited<ReturnType<typeof createCertificateAuthority>>;
  issue(hosts?: string[], clientAuth?: boolean): Promise<CertificatePair>;
}

export async function authority(name = 'test CA'): Promise<TestAuthority> {
  const ca = await createCertificateAuthority(name, 1);
  return {
    ca,
    issue: (hosts = ['localhost', '127.0.0.1'], clientAuth = false) =>
      issueCertificate(ca, { hosts, days: 1, clientAuth }),
  };
}

export interface TestServer {
  server: WebhookServer;
  port: number;
  url: string;
  dir: string;
  certFile: string;
  keyFile: string;
  authority: TestAuthority;
  /** A client certificate the server accepts (mTLS only). */
  client?: CertificatePair;
  source: FileCertificateSource;
  logs: LogRecord[];
  post(path: string, body: unknown, opts?: RequestOptions): Promise<Reply>;
  get(path: string, opts?: RequestOptions): Promise<Reply>;
  close: () => Promise<void>;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Sent as-is instead of JSON.stringify(body). */
  raw?: string | Buffer;
  ca?: string | string[];
  cert?: CertificatePair;
  /** Connections to reuse (keep-alive); a new connection per request unless given. */
  agent?: https.Agent;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = Record<string, unknown>>(): T;
  /** SHA-256 fingerprint of the certificate the server presented. */
  fingerprint256: string;
}

/** One HTTPS request on a fresh connection (a full handshake every time). */
export function request(
  port: number,
  method: string,
  path: string,
  body: string | Buffer | undefined,
  opts: RequestOptions & { ca: string | string[] },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        ca: opts.ca,
        agent: opts.agent ?? false,
        ...(opts.cert ? { cert: opts.cert.certPem, key: opts.cert.keyPem } : {}),
        headers: {
          ...(body !== undefined
            ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
            : {}),
          ...opts.headers,
        },
      },
      (res) => {
        const peer: PeerCertificate = (res.socket as TLSSocket).getPeerCertificate();
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: <T>() => JSON.parse(text) as T,
            fingerprint256: peer.fingerprint256,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function writeCertFiles(
  dir: string,
  pair: CertificatePair,
): Promise<{ certFile: string; keyFile: string }> {
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  await writeFile(keyFile, pair.keyPem, { mode: 0o600 });
  await writeFile(certFile, pair.certPem);
  return { certFile, keyFile };
}

export function logSink(logs: LogRecord[]): { write(line: string): void } {
  return { write: (line: string) => void logs.push(JSON.parse(line) as LogRecord) };
}

export async function startServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'vp-server-'));
  const auth = await authority();
  const { certFile, keyFile } = await writeCertFiles(dir, await auth.issue());
  let clientCAFile: string | undefined;
  let client: CertificatePair | undefined;
  if (opts.mtls) {
    const clients = await authority('test client CA');
    clientCAFile = join(dir, 'client-ca.crt');
    await writeFile(clientCAFile, clients.ca.certPem);
    client = await clients.issue(['test-client'], true);
  }
  const server_ = { host: '127.0.0.1', port: 0, probePort: 0, ...(opts.config?.server as object | undefined) };
  const cfg = opts.productDefaults
    ? resolveConfig({ ...opts.config, server: server_ })
    : testConfig({ defaulting: { lifecycle: { enabled: false } }, ...opts.config, server: server_ });
  const logs: LogRecord[] = [];
  const logger = createLogger(opts.logLevel ?? 'info', logSink(logs));
  const source = await FileCertificateSource.open({
    certFile,
    keyFile,
    ...(clientCAFile ? { clientCAFile } : {}),
    pollIntervalMs: opts.pollIntervalMs ?? 10_000,
    ...(opts.watch !== undefined ? { watch: opts.watch } : {}),
  });
  const state = Array.isArray(opts.state) || opts.state === undefined ? staticState(opts.state ?? []) : opts.state;
  const now = opts.now ?? NOW;
  const server = buildServer({
    config: cfg,
    state,
    certificates: source,
    logger,
    now: () => now,
    ...(opts.rules ? { rules: opts.rules } : {}),
    ...(opts.warningChecks ? { warningChecks: opts.warningChecks } : {}),
    ...(opts.serveMetrics !== undefined ? { serveMetrics: opts.serveMetrics } : {}),
    ...(opts.eventLoopWindowMs ? { eventLoopWindowMs: opts.eventLoopWindowMs } : {}),
    ...(opts.forecaster ? { forecaster: opts.forecaster } : {}),
    ...(opts.bodyWorker === false ? { bodyWorker: false as const } : {}),
  });
  const url = await server.listen();
  const port = Number(new URL(url).port);
  const send = (method: string, path: string, body: string | Buffer | undefined, o: RequestOptions = {}) =>
    request(port, method, path, body, {
      ...o,
      ca: o.ca ?? auth.ca.certPem,
      ...(o.cert || !client ? {} : { cert: client }),
    });
  return {
    server,
    port,
    url,
    dir,
    certFile,
    keyFile,
    authority: auth,
    ...(client ? { client } : {}),
    source,
    logs,
    post: (path, body, o = {}) => send('POST', path, o.raw ?? JSON.stringify(body), o),
    get: (path, o = {}) => send('GET', path, undefined, o),
    close: async () => {
      await server.app.close();
      await source.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface ReviewInput {
  operation: Operation | 'CONNECT';
  object?: unknown;
  oldObject?: unknown;
  kind?: { group: string; version: string; kind: string };
  uid?: string;
  dryRun?: boolean;
  user?: string;
}

/** An AdmissionReview as kube-apiserver sends it. */
export function review(input: ReviewInput): { apiVersion: string; kind: string; request: Record<string, unknown> } {
  const obj = (input.object ?? input.oldObject) as
    { kind?: string; metadata?: { name?: string; namespace?: string } } | undefined;
  const kind = input.kind ?? { group: 'core.gardener.cloud', version: 'v1beta1', kind: obj?.kind ?? 'CloudProfile' };
  const plural = `${kind.kind.toLowerCase()}s`;
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: input.uid ?? randomUUID(),
      kind,
      resource: { group: kind.group, version: kind.version, resource: plural },
      requestKind: kind,
      requestResource: { group: kind.group, version: kind.version, resource: plural },
      ...(obj?.metadata?.name ? { name: obj.metadata.name } : {}),
      ...(obj?.metadata?.namespace ? { namespace: obj.metadata.namespace } : {}),
      operation: input.operation,
      userInfo: { username: input.user ?? 'alice@example.com', groups: ['system:authenticated'] },
      object: input.object ?? null,
      oldObject: input.oldObject ?? null,
      dryRun: input.dryRun ?? false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: input.operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions' },
    },
  };
}

export interface ReviewReply {
  apiVersion: string;
  kind: string;
  response: {
    uid: string;
    allowed: boolean;
    status?: { code: number; reason?: string; message?: string };
    patchType?: string;
    patch?: string;
    warnings?: string[];
    auditAnnotations?: Record<string, string>;
  };
}
