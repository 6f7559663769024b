// A real control plane on loopback: etcd and kube-apiserver built from their pinned Go modules
// (test/e2e/build-binaries.sh), on free ports, in a temporary folder, with certificates made now.
// RBAC is on, ServiceAccount tokens can be issued (TokenRequest), and every request to
// core.gardener.cloud is written to an audit log at level Metadata (where kube-apiserver keeps
// webhooks' auditAnnotations).
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { freePort } from '../../helpers/free-port.js';
import {
  createCertificateAuthority,
  issueCertificate,
  type CertificatePair,
} from '../../../src/server/tls/self-signed.js';
import { startProcess, type Started } from './processes.js';

/** The folder of the built binaries: E2E_BIN, which test/e2e/run.sh sets. */
export function binDir(): string {
  const dir = process.env.E2E_BIN ?? '';
  if (!dir || !existsSync(join(dir, 'kube-apiserver'))) {
    throw new Error(
      `E2E_BIN (${dir || 'unset'}) holds no kube-apiserver: run the suites with npm run test:e2e, or set E2E_BIN=$(test/e2e/build-binaries.sh)`,
    );
  }
  return dir;
}

export { freePort };

export interface HttpReply {
  status: number;
  body: string;
}

/** GET or POST over HTTPS, trusting `ca`, with an optional bearer token. */
export function httpsCall(
  url: string,
  opts: { ca: string; token?: string; method?: string; body?: string; timeoutMs?: number },
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: opts.method ?? 'GET',
        ca: opts.ca,
        headers: {
          ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}),
          ...(opts.body ? { 'Content-Type': 'application/json' } : {}),
        },
        timeout: opts.timeoutMs ?? 5000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within ${opts.timeoutMs ?? 5000} ms`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A plain-HTTP POST with a JSON body (etcd's gRPC gateway). */
export function httpPostJson(url: string, body: unknown): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, timeout: 5000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Polls `probe` every `intervalMs` until it returns a truthy value; throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not within ${timeoutMs} ms${last instanceof Error ? ` (last error: ${last.message})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    resources: [{ group: core.gardener.cloud }]
  - level: None
`;

export interface ControlPlane {
  dir: string;
  /** https://127.0.0.1:<port> */
  server: string;
  /** PEM of the CA that signed kube-apiserver's serving certificate. */
  caPem: string;
  /** The CA that signs the webhook's serving certificates in the suites. */
  issue(hosts: string[]): Promise<CertificatePair>;
  caBundle: string;
  /** The admin (system:masters) kubeconfig and its bearer token. */
  adminKubeconfig: string;
  adminToken: string;
  auditLog: string;
  etcdUrl: string;
  apiserver: Started;
  /** Stops kube-apiserver and starts it again on the same port, against the same etcd. */
  restartApiserver(): Promise<void>;
  /** Compacts etcd's history up to its current revision; returns that revision. */
  compactEtcd(): Promise<number>;
  stop(): Promise<void>;
}

export function kubeconfigYaml(server: string, caPem: string, token: string, user = 'user'): string {
  return `apiVersion: v1
kind: Config
clusters:
  - name: e2e
    cluster:
      server: ${server}
      certificate-authority-data: ${Buffer.from(caPem).toString('base64')}
users:
  - name: ${user}
    user:
      token: ${token}
contexts:
  - name: e2e
    context: { cluster: e2e, user: ${user} }
current-context: e2e
`;
}

export async function startControlPlane(dir: string): Promise<ControlPlane> {
  const bin = binDir();
  await mkdir(join(dir, 'etcd'), { recursive: true });
  const ca = await createCertificateAuthority('version-policy e2e CA', 1);
  const serving = await issueCertificate(ca, { hosts: ['localhost', '127.0.0.1'], days: 1 });
  const file = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text, { mode: 0o600 });
    return path;
  };
  const sa = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const adminToken = `admin-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const files = {
    cert: await file('apiserver.crt', serving.certPem),
    key: await file('apiserver.key', serving.keyPem),
    saPub: await file('sa.pub', sa.publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    saKey: await file('sa.key', sa.privateKey.export({ type: 'sec1', format: 'pem' }).toString()),
    tokens: await file('tokens.csv', `${adminToken},admin,admin-uid,system:masters\n`),
    audit: await file('audit-policy.yaml', AUDIT_POLICY),
  };
  const auditLog = join(dir, 'audit.log');

  const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];
  const etcdUrl = `http://127.0.0.1:${etcdClient}`;
  const etcd = startProcess(
    'etcd',
    join(bin, 'etcd'),
    [
      '--name=e2e',
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=e2e=http://127.0.0.1:${etcdPeer}`,
      // A throw-away store: durability buys nothing here and costs every write an fsync.
      '--unsafe-no-fsync',
      '--log-level=warn',
    ],
    { logDir: dir },
  );
  await waitFor(
    'etcd healthy',
    async () => (await httpPostJson(`${etcdUrl}/v3/maintenance/status`, {})).status === 200,
    30_000,
  );

  const server = `https://127.0.0.1:${apiPort}`;
  const apiArgs = [
    `--etcd-servers=${etcdUrl}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${apiPort}`,
    `--cert-dir=${join(dir, 'apiserver-certs')}`,
    `--tls-cert-file=${files.cert}`,
    `--tls-private-key-file=${files.key}`,
    `--token-auth-file=${files.tokens}`,
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${files.saPub}`,
    `--service-account-signing-key-file=${files.saKey}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    // A webhook's `service` is dialled at one of its endpoints, not at a ClusterIP: no kube-proxy runs here.
    '--enable-aggregator-routing=true',
    `--audit-policy-file=${files.audit}`,
    `--audit-log-path=${auditLog}`,
    '--audit-log-maxbackup=1',
  ];
  let apiserver = startProcess('kube-apiserver', join(bin, 'kube-apiserver'), apiArgs, { logDir: dir });
  const caPem = ca.certPem;
  const ready = async () => {
    const exitedEarly = await Promise.race([
      apiserver.exited,
      new Promise<undefined>((r) => setTimeout(r, 0, undefined)),
    ]);
    if (exitedEarly !== undefined) throw new Error(`kube-apiserver exited (${exitedEarly}); see ${apiserver.logFile}`);
    const res = await httpsCall(`${server}/readyz`, { ca: caPem, token: adminToken });
    return res.status === 200;
  };
  const stopAll = async () => {
    await apiserver.stop();
    await etcd.stop();
  };
  try {
    await waitFor('kube-apiserver ready', ready, 90_000, 250);
  } catch (err) {
    const tail = (await readFile(apiserver.logFile, 'utf8').catch(() => '')).split('\n').slice(-30).join('\n');
    await stopAll();
    throw new Error(`${(err as Error).message}\n--- kube-apiserver log (tail) ---\n${tail}`);
  }
  const adminKubeconfig = await file('admin.kubeconfig', kubeconfigYaml(server, caPem, adminToken, 'admin'));

  return {
    dir,
    server,
    caPem,
    caBundle: Buffer.from(caPem).toString('base64'),
    issue: (hosts) => issueCertificate(ca, { hosts, days: 1 }),
    adminKubeconfig,
    adminToken,
    auditLog,
    etcdUrl,
    get apiserver() {
      return apiserver;
    },
    async restartApiserver() {
      await apiserver.stop();
      apiserver = startProcess('kube-apiserver', join(bin, 'kube-apiserver'), apiArgs, { logDir: dir });
      await waitFor('kube-apiserver ready again', ready, 90_000, 250);
    },
    async compactEtcd() {
      const status = JSON.parse(
        (await httpPostJson(`${etcdUrl}/v3/kv/range`, { key: Buffer.from('/').toString('base64') })).body,
      ) as { header: { revision: string } };
      const revision = Number(status.header.revision);
      const res = await httpPostJson(`${etcdUrl}/v3/kv/compaction`, { revision: String(revision), physical: true });
      if (res.status !== 200) throw new Error(`etcd compaction: ${res.status} ${res.body}`);
      return revision;
    },
    stop: stopAll,
  };
}
