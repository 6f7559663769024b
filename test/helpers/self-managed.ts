// The self-managed certificate source under test, and kube-apiserver's side of it.
// - `installCluster` puts what the chart renders into the fake API server: an empty Secret and the
//   two webhook configurations (optionally already holding an old chart mode's caBundle).
// - `startReplica` runs the real webhook (`startWebhook`, HTTPS on port 0) in the self-managed mode.
// - `ApiserverClient` stands in for kube-apiserver calling the webhook: before each call it reads
//   the caBundle of the webhook configuration from the fake (optionally as it was `lagMs` ago, as a
//   kube-apiserver whose informer lags would), trusts exactly that, verifies the Service's DNS name,
//   and sends a real AdmissionReview over a fresh connection to a ready endpoint.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { resolveConfig, type Config } from '../../src/config.js';
import { startWebhook, type RunningWebhook } from '../../src/server/run.js';
import { createLogger } from '../../src/server/logging.js';
import type { FakeApiServer, StoredObject } from './fake-apiserver.js';
import { cloudProfile } from './objects.js';
import { logSink, review, type LogRecord } from './server.js';

export const NAMESPACE = 'garden-version-policy';
export const SECRET = 'version-policy-certs';
export const SERVICE = 'version-policy';
export const CONFIGURATION = 'version-policy';
export const SERVER_NAME = `${SERVICE}.${NAMESPACE}.svc`;

export type ConfigKind = 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';
const PATH_OF: Record<ConfigKind, string> = {
  ValidatingWebhookConfiguration: '/validate',
  MutatingWebhookConfiguration: '/mutate',
};
const ENTRY_OF: Record<ConfigKind, string> = {
  ValidatingWebhookConfiguration: 'validate.version-policy.gardener.cloud',
  MutatingWebhookConfiguration: 'mutate.version-policy.gardener.cloud',
};

export function webhookConfiguration(kind: ConfigKind, caBundlePem?: string): StoredObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name: CONFIGURATION },
    webhooks: [
      {
        name: ENTRY_OF[kind],
        clientConfig: {
          service: { name: SERVICE, namespace: NAMESPACE, path: PATH_OF[kind], port: 443 },
          ...(caBundlePem ? { caBundle: Buffer.from(caBundlePem).toString('base64') } : {}),
        },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  };
}

/** The Secret as the chart renders it: no data. */
export function emptySecret(): StoredObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: SECRET, namespace: NAMESPACE, labels: { 'app.kubernetes.io/name': 'version-policy' } },
    type: 'Opaque',
  };
}

/** The empty Secret and both configurations, as the chart renders them. */
export function installCluster(fake: FakeApiServer, legacyCABundle?: string): void {
  fake.objects.put(emptySecret());
  fake.objects.put(webhookConfiguration('ValidatingWebhookConfiguration', legacyCABundle));
  fake.objects.put(webhookConfiguration('MutatingWebhookConfiguration', legacyCABundle));
}

/** The caBundle (PEM) of a configuration's first entry, as stored now. */
export function publishedBundle(fake: FakeApiServer, kind: ConfigKind): string {
  const config = fake.objects.get(kind, undefined, CONFIGURATION) as
    { webhooks?: { clientConfig?: { caBundle?: string } }[] } | undefined;
  return Buffer.from(config?.webhooks?.[0]?.clientConfig?.caBundle ?? '', 'base64').toString('utf8');
}

export interface Durations {
  caValidity?: string;
  caRenewBefore?: string;
  servingValidity?: string;
  servingRenewBefore?: string;
  propagationDelay?: string;
  overlap?: string;
}

export function selfManagedConfig(fake: FakeApiServer, durations: Durations, pollSeconds = 0.1): Config {
  return resolveConfig({
    defaulting: { lifecycle: { enabled: false } },
    server: {
      host: '127.0.0.1',
      port: 0,
      probePort: 0,
      certReloadIntervalSeconds: pollSeconds,
      tls: {
        selfManaged: {
          enabled: true,
          namespace: NAMESPACE,
          secretName: SECRET,
          serviceName: SERVICE,
          validatingWebhookConfiguration: CONFIGURATION,
          mutatingWebhookConfiguration: CONFIGURATION,
          ...durations,
        },
      },
    },
    // No informers (serve --without-cluster-state); the kubeconfig is the one the certificate source uses.
    cluster: { enabled: false, kubeconfig: fake.kubeconfigPath },
    logLevel: 'debug',
  });
}

export interface Replica {
  running: RunningWebhook;
  port: number;
  logs: LogRecord[];
  close(): Promise<void>;
}

export async function startReplica(config: Config): Promise<Replica> {
  const logs: LogRecord[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'vp-self-managed-'));
  const running = await startWebhook({
    config,
    stateFiles: [],
    withoutClusterState: true,
    logger: createLogger(config.logLevel, logSink(logs)),
    devCertDir: dir,
  });
  return {
    running,
    port: Number(new URL(running.url).port),
    logs,
    close: async () => {
      await running.stop(1000);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** GET /readyz as the kubelet does: HTTPS without verifying the certificate. */
export function ready(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    https
      .get({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
      })
      .on('error', () => resolve(false));
  });
}

/** An endpoint behind the Service; `ready` is re-checked by the client, as the endpoints controller does. */
export interface Endpoint {
  name: string;
  port: number;
  /** Always ready (a pod of the old chart version), or ask /readyz. */
  alwaysReady?: boolean;
}

export interface CallResult {
  endpoint: string;
  /** When the answer arrived (epoch ms). */
  at: number;
  /** The served leaf certificate (PEM). */
  leaf: string;
}

export class ApiserverClient {
  readonly failures: string[] = [];
  readonly results: CallResult[] = [];
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly readyNow = new Set<string>();
  private initial: Record<ConfigKind, string> = {
    ValidatingWebhookConfiguration: '',
    MutatingWebhookConfiguration: '',
  };
  private running = false;
  private loops: Promise<void>[] = [];
  private sent = 0;
  private next = 0;

  constructor(
    private readonly fake: FakeApiServer,
    /** How far behind the published caBundle this kube-apiserver is. */
    private readonly lagMs = 0,
  ) {}

  add(endpoint: Endpoint): void {
    this.endpoints.set(endpoint.name, endpoint);
  }

  remove(name: string): void {
    this.endpoints.delete(name);
    this.readyNow.delete(name);
  }

  get count(): number {
    return this.sent;
  }

  /** Whether this client's view of the endpoints has `name` ready (what a rollout waits for). */
  isReady(name: string): boolean {
    return this.readyNow.has(name);
  }

  /**
   * Starts `concurrency` callers once the endpoints' readiness has been read; each call alternates
   * between the validating and the mutating webhook.
   */
  async start(concurrency = 1): Promise<void> {
    this.running = true;
    // What is published when the client starts has been published for as long as any lag.
    this.initial = {
      ValidatingWebhookConfiguration: publishedBundle(this.fake, 'ValidatingWebhookConfiguration'),
      MutatingWebhookConfiguration: publishedBundle(this.fake, 'MutatingWebhookConfiguration'),
    };
    await this.probe();
    this.loops = [this.watchEndpoints(), ...Array.from({ length: concurrency }, () => this.call())];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** The bundle this kube-apiserver trusts for `kind` now: the last one written at least `lagMs` ago. */
  trusted(kind: ConfigKind): string {
    const seenBy = Date.now() - this.lagMs;
    const suffix = `/${kind.toLowerCase()}s/${CONFIGURATION}`;
    let bundle = this.initial[kind];
    for (const w of this.fake.objects.writes) {
      if (w.at > seenBy) break;
      if (w.status < 300 && w.path.endsWith(suffix)) {
        const entry = (w.object as { webhooks?: { clientConfig?: { caBundle?: string } }[] } | undefined)
          ?.webhooks?.[0];
        bundle = Buffer.from(entry?.clientConfig?.caBundle ?? '', 'base64').toString('utf8');
      }
    }
    return bundle;
  }

  /** The endpoints controller: readiness of each endpoint, re-read every 25 ms. */
  private async watchEndpoints(): Promise<void> {
    while (this.running) {
      await new Promise((r) => setTimeout(r, 25));
      await this.probe();
    }
  }

  private async probe(): Promise<void> {
    await Promise.all(
      [...this.endpoints.values()].map(async (e) => {
        if (e.alwaysReady || (await ready(e.port))) this.readyNow.add(e.name);
        else this.readyNow.delete(e.name);
      }),
    );
  }

  private async call(): Promise<void> {
    while (this.running) {
      const n = this.sent++;
      const kind: ConfigKind = n % 2 === 0 ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
      const names = [...this.readyNow].filter((name) => this.endpoints.has(name));
      if (names.length === 0) {
        this.failures.push(`#${n}: no ready endpoint`);
        await new Promise((r) => setTimeout(r, 10));
        continue;
      }
      const endpoint = this.endpoints.get(names[this.next++ % names.length]!)!;
      const uid = `call-${n}`;
      try {
        const { status, body, leaf } = await post(
          endpoint.port,
          PATH_OF[kind],
          this.trusted(kind),
          JSON.stringify(review({ operation: 'CREATE', object: cloudProfile(), uid })),
        );
        const response = (JSON.parse(body) as { response?: { uid?: string; allowed?: boolean } }).response;
        if (status !== 200 || response?.uid !== uid || response.allowed !== true)
          this.failures.push(`#${n} ${endpoint.name}: HTTP ${status} ${body.slice(0, 200)}`);
        else this.results.push({ endpoint: endpoint.name, leaf, at: Date.now() });
      } catch (err) {
        this.failures.push(`#${n} ${endpoint.name} ${kind}: ${(err as Error).message}`);
      }
    }
  }
}

function post(
  port: number,
  path: string,
  ca: string,
  body: string,
): Promise<{ status: number; body: string; leaf: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        // kube-apiserver verifies the name it dials, <service>.<namespace>.svc, against the caBundle alone.
        servername: SERVER_NAME,
        ca: ca || 'no caBundle published',
        agent: false,
        // Generous: this one process hosts the fake, the replicas, the old pod and the clients, and a
        // busy machine can starve it for seconds. What is tested is trust, and a TLS failure is
        // immediate, never a timeout.
        timeout: 15_000,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const raw = (res.socket as TLSSocket).getPeerCertificate().raw;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            leaf: new X509Certificate(raw).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}
